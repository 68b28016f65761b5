// What one HTTP framework adapter knows: how to recognise the framework's servers and handlers (detection, on the
// ts-morph tree), and how to write a stateless endpoint in its idiom (emission, as code text). Adding a framework
// means one adapter file in the registry (./index.ts) and its fixtures.
import type { Node } from 'ts-morph';
import type { FrameworkId } from '../analysis/endpoints/model';
import type { FunctionNode } from '../analysis/endpoints/spans';

/** Code style of the file code is written into. */
export interface Style {
  quote: 'single' | 'double';
  typescript: boolean;
}

/** A handler's parameters as written: names ('' for a pattern) and type annotations (`: Request`, or ''). */
export interface HandlerParams {
  names: string[];
  types: string[];
  /** The decorator that injects each parameter (`Res` for NestJS's `@Res() res`), or ''. */
  decorators?: string[];
  /** Each parameter as written, decorators and type included (`@Res() res: Response`). */
  written?: string[];
}

/**
 * How a handler reaches the request. `node`: Node's IncomingMessage / ServerResponse for the SDK's Node transport
 * (`req`/`res`, fastify's `request.raw`/`reply.raw`, koa's `ctx.req`/`ctx.res`); `web`: a Web Request in, a
 * Response back (hono's `c.req.raw`, fetch handlers).
 */
export type RequestAccess =
  | {
      flavor: 'node';
      req: string;
      res: string;
      /** The parsed body, when the framework parsed it (`req.body`); the transport reads the stream otherwise. */
      body?: string;
      /** Statements that hand the raw response over to the transport (`reply.hijack()`, `ctx.respond = false`). */
      handOver: string[];
    }
  | { flavor: 'web'; request: string };

/** An answer with a JSON-RPC error: 405 (with `Allow: POST`), 410 on old paths, 500. */
export interface ErrorAnswer {
  status: number;
  code: number;
  message: string;
  allowPost?: boolean;
}

export interface FrameworkAdapter {
  id: FrameworkId;
  /** Modules whose exports make this framework's apps and routers (`express`, `@koa/router`). */
  modules: RegExp;
  /** Handler parameter type names that identify the framework when their module is not known (`FastifyReply`). */
  typeNames?: RegExp;
  /**
   * Streamable HTTP transports this framework's MCP package provides besides the SDK's (`@hono/mcp`'s
   * `StreamableHTTPTransport`): their `handleRequest` serves an endpoint the way the SDK's does, so the analysis
   * models it like one and the migration replaces it with the SDK's stateless transport.
   */
  transports?: Array<{ module: string; name: string }>;
  /** The handler's body uses its parameters the way this framework's handlers do (`c.req.raw`, `ctx.respond =`). */
  readsLike?(fn: FunctionNode, params: string[]): boolean;
  /** Parameter names for handlers this tool writes when it has none to copy. */
  defaultParams: string[];
  access(params: HandlerParams): RequestAccess | undefined;
  /** Statements that answer and leave the handler. */
  answer(params: HandlerParams, answer: ErrorAnswer, style: Style): string[];
  /** A new route (`app.post(path, …, async (req, res) => { … })`), for an endpoint that did not exist yet. */
  route?(
    receiver: string,
    method: 'post' | 'get' | 'delete',
    path: string,
    middlewares: string[],
    params: HandlerParams,
    body: string[],
  ): string[];
  /** The parameters of a new endpoint handler made from the stream handler's (NestJS adds `@Body() body`). */
  endpointParams?(params: HandlerParams): HandlerParams;
  /** Names `route` code uses that the file must import (NestJS's `Post`, `Get`, `Delete`). */
  routeImports?(params: HandlerParams): { module: string; names: string[] };
  /**
   * The path prefix under which this framework mounts the routes registered on `receiver` (fastify's
   * `app.register(plugin, { prefix: '/v1' })` for the plugin's instance), when its own registration says so.
   */
  mountPrefix?(receiver: Node): string | undefined;
  /** The v2 app factory that validates Host and Origin, and the constructors it replaces. */
  appFactory?: { module: string; name: string; replaces: Array<{ module: string; name: string }> };
}

export type { Node };
