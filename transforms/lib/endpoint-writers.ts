// The routes stateless-endpoint writes, per framework: one POST endpoint with a fresh server and transport per
// request, 405 on GET/DELETE, 410 on the old HTTP+SSE paths. express speaks Node's (req, res); fastify hands Node's
// objects over as `request.raw` / `reply.raw` and answers with `reply.code().send()`; koa as `ctx.req` / `ctx.res`
// once `ctx.respond = false`; hono is Web-standard (the Request goes in, a Response comes back) and takes the v1
// SDK's Web-standard transport.
import type { TransformContext } from './context';
import { ensureNamedImport } from './imports';
import { factoryCall, type ServerFactory } from './server-factory';
import {
  goneBody,
  goneMessage,
  indent,
  jsonRpcError,
  methodNotAllowedBody,
  quoted,
  statelessPostBody,
  STREAMABLE_MODULE,
  webStatelessPostBody,
} from './templates';

export const NODE_TRANSPORT_MODULES = [STREAMABLE_MODULE, '@modelcontextprotocol/sdk/server/streamableHttp'];
export const WEB_TRANSPORT_MODULES = [
  '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js',
  '@modelcontextprotocol/sdk/server/webStandardStreamableHttp',
];

export interface EndpointPlan {
  receiver: string;
  /** The endpoint path as code (`'/mcp'`, `mcpEndpoint`) and as prose for messages. */
  endpoint: string;
  endpointDescription: string;
  /** Route arguments between the path and the handler, each followed by `, `. */
  middlewares: string;
  /** Handler parameter names: (req, res), (request, reply), (ctx) or (c), and their annotations as written (or ''). */
  req: string;
  res: string;
  reqType: string;
  resType: string;
  server: string;
  transport: string;
  factory: ServerFactory;
  legacyPaths: Array<{ method: string; path: string }>;
  /** The parsed body as the old code passed it to the transport (koa: its body parser's typing varies). */
  parsedBody?: string;
}

export type EndpointFramework = 'express' | 'fastify' | 'hono' | 'koa';

/** The new routes as lines of code (imports the transport class it uses). */
export function writeEndpoint(context: TransformContext, framework: EndpointFramework, plan: EndpointPlan): string[] {
  const routes = ROUTES[framework](context, plan);
  const lines = [
    `// mcp-migrate: stateless Streamable HTTP: one POST endpoint, a fresh server and transport per request, no sessions.`,
    ...routes.post,
    ``,
    `// No standalone GET stream and no session to DELETE without sessions: both answer 405.`,
    ...routes.methodNotAllowed('get'),
    ``,
    ...routes.methodNotAllowed('delete'),
  ];
  if (plan.legacyPaths.length > 0) {
    lines.push('', `// The HTTP+SSE transport is gone: its old paths answer 410 and name the new endpoint.`);
    plan.legacyPaths.forEach((legacyPath, i) => {
      if (i > 0) lines.push('');
      lines.push(...routes.gone(legacyPath.method, legacyPath.path));
    });
  }
  return lines;
}

interface Routes {
  post: string[];
  methodNotAllowed(method: string): string[];
  gone(method: string, path: string): string[];
}

const ROUTES: Record<EndpointFramework, (context: TransformContext, plan: EndpointPlan) => Routes> = {
  express(context, p) {
    const transportClass = ensureNamedImport(context, NODE_TRANSPORT_MODULES, 'StreamableHTTPServerTransport');
    const post = statelessPostBody({
      req: p.req,
      res: p.res,
      server: p.server,
      transport: p.transport,
      transportClass,
      factory: factoryCall(p.factory),
      setup: p.factory.setup,
      quote: context.quote,
      parsedBody: true,
    });
    return {
      post: [
        `${p.receiver}.post(${p.endpoint}, ${p.middlewares}async (${p.req}${p.reqType}, ${p.res}${p.resType}) => {`,
        indent(post),
        `});`,
      ],
      methodNotAllowed: (method) => [
        `${p.receiver}.${method}(${p.endpoint}, (_${p.req}${p.reqType}, ${p.res}${p.resType}) => {`,
        indent(methodNotAllowedBody(p.res, context.quote)),
        `});`,
      ],
      gone: (method, path) => [
        `${p.receiver}.${method}(${path}, (_${p.req}${p.reqType}, ${p.res}${p.resType}) => {`,
        indent(goneBody(p.res, p.endpointDescription, context.quote)),
        `});`,
      ],
    };
  },
  // hijack(): the transport writes the raw response itself (a stream, for SSE-mode answers), not fastify.
  fastify(context, p) {
    const transportClass = ensureNamedImport(context, NODE_TRANSPORT_MODULES, 'StreamableHTTPServerTransport');
    const post = statelessPostBody({
      req: `${p.req}.raw`,
      res: `${p.res}.raw`,
      body: `${p.req}.body`,
      server: p.server,
      transport: p.transport,
      transportClass,
      factory: factoryCall(p.factory),
      setup: p.factory.setup,
      quote: context.quote,
      parsedBody: true,
    });
    const s = (t: string) => quoted(context.quote, t);
    return {
      post: [
        `${p.receiver}.post(${p.endpoint}, ${p.middlewares}async (${p.req}${p.reqType}, ${p.res}${p.resType}) => {`,
        `  ${p.res}.hijack();`,
        indent(post),
        `});`,
      ],
      methodNotAllowed: (method) => [
        `${p.receiver}.${method}(${p.endpoint}, async (_${p.req}${p.reqType}, ${p.res}${p.resType}) => ${p.res}.code(405).header(${s('Allow')}, ${s('POST')}).send(${jsonRpcError(-32000, 'Method not allowed.', context.quote)}));`,
      ],
      gone: (method, path) => [
        `${p.receiver}.${method}(${path}, async (_${p.req}${p.reqType}, ${p.res}${p.resType}) => ${p.res}.code(410).send(${jsonRpcError(-32000, goneMessage(p.endpointDescription), context.quote)}));`,
      ],
    };
  },
  // koa answers for the handler unless told not to: respond = false, then Node's objects go to the transport.
  koa(context, p) {
    const transportClass = ensureNamedImport(context, NODE_TRANSPORT_MODULES, 'StreamableHTTPServerTransport');
    const ctx = p.req;
    const post = statelessPostBody({
      req: `${ctx}.req`,
      res: `${ctx}.res`,
      body: p.parsedBody,
      server: p.server,
      transport: p.transport,
      transportClass,
      factory: factoryCall(p.factory),
      setup: p.factory.setup,
      quote: context.quote,
      parsedBody: !!p.parsedBody,
    });
    const s = (t: string) => quoted(context.quote, t);
    const answer = (status: number, message: string, allow: boolean) => [
      `  ${ctx}.status = ${status};`,
      ...(allow ? [`  ${ctx}.set(${s('Allow')}, ${s('POST')});`] : []),
      `  ${ctx}.body = ${jsonRpcError(-32000, message, context.quote)};`,
    ];
    return {
      post: [
        `${p.receiver}.post(${p.endpoint}, ${p.middlewares}async (${ctx}${p.reqType}) => {`,
        `  ${ctx}.respond = false;`,
        indent(post),
        `});`,
      ],
      methodNotAllowed: (method) => [
        `${p.receiver}.${method}(${p.endpoint}, (${ctx}${p.reqType}) => {`,
        ...answer(405, 'Method not allowed.', true),
        `});`,
      ],
      gone: (method, path) => [
        `${p.receiver}.${method}(${path}, (${ctx}${p.reqType}) => {`,
        ...answer(410, goneMessage(p.endpointDescription), false),
        `});`,
      ],
    };
  },
  hono(context, p) {
    const transportClass = ensureNamedImport(context, WEB_TRANSPORT_MODULES, 'WebStandardStreamableHTTPServerTransport');
    const c = p.req;
    const errorResponse = `${c}.json(${jsonRpcError(-32603, 'Internal server error', context.quote)}, 500)`;
    const post = webStatelessPostBody({
      req: c,
      request: `${c}.req.raw`,
      server: p.server,
      transport: p.transport,
      transportClass,
      factory: factoryCall(p.factory),
      setup: p.factory.setup,
      quote: context.quote,
      errorResponse,
    });
    const s = (t: string) => quoted(context.quote, t);
    return {
      post: [`${p.receiver}.post(${p.endpoint}, ${p.middlewares}async (${c}${p.reqType}) => {`, indent(post), `});`],
      methodNotAllowed: (method) => [
        `${p.receiver}.${method}(${p.endpoint}, (${c}${p.reqType}) => ${c}.json(${jsonRpcError(-32000, 'Method not allowed.', context.quote)}, 405, { Allow: ${s('POST')} }));`,
      ],
      gone: (method, path) => [
        `${p.receiver}.${method}(${path}, (${c}${p.reqType}) => ${c}.json(${jsonRpcError(-32000, goneMessage(p.endpointDescription), context.quote)}, 410));`,
      ],
    };
  },
};
