/**
 * stateless-endpoint — rules `legacy-sse-transport`, `session-id`, `get-stream`, `delete-session`, `last-event-id`.
 * Replaces the routes of a legacy HTTP+SSE and/or stateful Streamable HTTP endpoint with one stateless POST
 * endpoint (fresh server + `StreamableHTTPServerTransport({ sessionIdGenerator: undefined })` per request), 405 on
 * GET/DELETE and 410 on the old HTTP+SSE paths; the session machinery they used (transport maps, lookup helpers,
 * event stores, id generators) goes with them. Handles express/Router, fastify (`request.raw` / `reply.raw`), koa
 * (`ctx.respond = false`) and hono (the v1 Web-standard transport) routes, and node:http-style `if` branches.
 */
import type { API, FileInfo } from 'jscodeshift';
import { createContext, print, type TransformContext, type TransformOptions } from './lib/context';
import { containsLocation, isFunctionNode, referencedNames, type AnyNode } from './lib/ast';
import { placeholder } from './lib/emit';
import {
  asRouteStatement,
  endpointRoles,
  functionsByName,
  parsedBodyArgument,
  sourceOf,
  statementLists,
  type EndpointRole,
  type RouteStatement,
} from './lib/routes';
import { removeDeadDeclarations } from './lib/dead-code';
import { addMarker } from './hoist-server-factory';
import type { Finding } from '../src/model';
import { rewriteBranches } from './lib/branch-endpoint';
import { routeFramework } from './lib/framework';
import { serverFactoryOf, type ServerFactory } from './lib/server-factory';
import { NODE_TRANSPORT_MODULES, writeEndpoint } from './lib/endpoint-writers';

export const id = 'stateless-endpoint';
export const rules = ['legacy-sse-transport', 'session-id', 'get-stream', 'delete-session', 'last-event-id'];
export const parser = 'tsx';

export const STREAMABLE_MODULES = NODE_TRANSPORT_MODULES;
export const DEFAULT_ENDPOINT = '/mcp';

interface ClusterRoute extends RouteStatement {
  roles: Set<EndpointRole>;
  /** The statement list the route sits in (routes of one app can sit in different blocks). */
  body: AnyNode[];
}

export default function transform(file: FileInfo, api: API, options: TransformOptions = {}): string | undefined {
  const context = createContext(file, api, options, rules);
  const anchors = context.findings.filter((f) => f.fix === 'auto');
  if (anchors.length === 0) return undefined;
  const cluster = findCluster(context, anchors);
  if (cluster) {
    const result = rewriteCluster(context, cluster);
    if (result !== true) {
      addMarker(context, cluster.routes[0].statement.loc!.start.line, anchors[0].ruleId, result);
    }
    return print(context);
  }
  const branchResult = rewriteBranches(context, anchors, STREAMABLE_MODULES, options.endpoint ?? DEFAULT_ENDPOINT);
  if (branchResult === true) return print(context);
  let changed = false;
  for (const anchor of anchors) {
    changed =
      addMarker(
        context,
        anchor.line,
        anchor.ruleId,
        branchResult ??
          'move this endpoint to stateless Streamable HTTP by hand (one POST endpoint, a fresh server per request, 405 on GET/DELETE)',
      ) || changed;
  }
  return changed ? print(context) : undefined;
}

interface Cluster {
  routes: ClusterRoute[];
  /** Named handler functions (declared in this file) the routes use. */
  handlerFunctions: AnyNode[];
}

/** The route statements (in one block, on one receiver) that contain or call code with an anchor finding. */
function findCluster(context: TransformContext, anchors: Finding[]): Cluster | undefined {
  const { j } = context;
  const functions = functionsByName(context);
  const candidates: Array<{ body: AnyNode[]; route: ClusterRoute; handlers: AnyNode[] }> = [];
  statementLists(context).forEach((body) => {
    body.forEach((statement, index) => {
      const route = asRouteStatement(j, statement, index);
      if (!route) return;
      const handlers = route.registrations
        .map((r) => (r.handler.type === 'Identifier' ? functions.get(r.handler.name as string) : r.handler))
        .filter((h): h is AnyNode => !!h);
      const regions = [statement, ...handlers];
      const hits = anchors.filter(
        (a) =>
          regions.some((r) => containsLocation(r, a)) ||
          (a.related ?? []).some((rel) => rel.file === a.file && regions.some((r) => containsLocation(r, rel))),
      );
      if (hits.length === 0) return;
      candidates.push({
        body,
        route: { ...route, body, roles: endpointRoles(j, regions, anchors) },
        handlers: handlers.filter((h) => !regions.slice(0, 1).some((s) => s === h) && h !== statement),
      });
    });
  });
  if (candidates.length === 0) return undefined;
  // The largest group on one receiver is the MCP endpoint (its routes may sit in different blocks).
  const groups = new Map<string, typeof candidates>();
  for (const candidate of candidates) {
    groups.set(candidate.route.receiverText, [...(groups.get(candidate.route.receiverText) ?? []), candidate]);
  }
  const best = [...groups.values()].sort((a, b) => b.length - a.length)[0];
  const handlerFunctions = best.flatMap((c) => c.handlers.filter((h) => !containsNode(c.route.statement, h)));
  return { routes: best.map((c) => c.route), handlerFunctions };
}

function containsNode(outer: AnyNode, inner: AnyNode): boolean {
  const o = outer.loc;
  const i = inner.loc;
  if (!o || !i) return false;
  return (
    (i.start.line > o.start.line || (i.start.line === o.start.line && i.start.column >= o.start.column)) &&
    (i.end.line < o.end.line || (i.end.line === o.end.line && i.end.column <= o.end.column))
  );
}

/** The code that builds a fresh server, read from the `connect()` calls of the cluster's handlers. */
function serverFactory(context: TransformContext, cluster: Cluster): ServerFactory | string {
  const { j } = context;
  const ordered = [...cluster.routes].sort((a, b) => Number(b.roles.has('streamable')) - Number(a.roles.has('streamable')));
  for (const route of ordered) {
    for (const region of [route.statement, ...cluster.handlerFunctions]) {
      for (const call of j(region as never)
        .find(j.CallExpression, { callee: { property: { name: 'connect' } } })
        .nodes() as unknown as AnyNode[]) {
        const object = (call.callee as AnyNode).object as AnyNode;
        if (
          object.type === 'Identifier' &&
          j(region as never)
            .find(j.VariableDeclarator, { id: { name: object.name as string } })
            .size() === 0
        ) {
          return `\`${object.name}\` is shared by every request; build one server per request (a factory) first`;
        }
      }
      // The factory moves into the new POST handler, which has its own (req, res): request use is not checked here.
      const factory = serverFactoryOf(context, region, region, new Set());
      if (factory) return factory;
    }
  }
  return 'no server factory found: build a fresh McpServer per request and connect it to a stateless transport';
}

/**
 * Parameters for the new handlers, from the old ones: (req, res), fastify's (request, reply), koa's (ctx), hono's (c),
 * with their type annotations as written (contextual typing does not reach a handler on an untyped receiver).
 */
function handlerParams(
  context: TransformContext,
  cluster: Cluster,
  framework: string,
): { req: string; res: string; reqType: string; resType: string } {
  const preferred = [...cluster.routes].sort((a, b) => Number(b.roles.has('streamable')) - Number(a.roles.has('streamable')));
  const arity = framework === 'hono' || framework === 'koa' ? 1 : 2;
  const annotation = (p: AnyNode | undefined) => (p?.typeAnnotation ? sourceOf(context.j, p.typeAnnotation as AnyNode) : '');
  for (const route of preferred) {
    for (const registration of route.registrations) {
      const handler = registration.handler;
      const params = (isFunctionNode(handler) ? (handler.params as AnyNode[]) : []).slice(0, arity);
      if (params.length === arity && params.every((p) => p.type === 'Identifier' && !(p.name as string).startsWith('_'))) {
        return {
          req: params[0].name as string,
          res: (params[1]?.name as string | undefined) ?? '',
          reqType: annotation(params[0]),
          resType: annotation(params[1]),
        };
      }
    }
  }
  const names =
    framework === 'hono' ? ['c', ''] : framework === 'koa' ? ['ctx', ''] : framework === 'fastify' ? ['request', 'reply'] : ['req', 'res'];
  return { req: names[0], res: names[1], reqType: '', resType: '' };
}

function rewriteCluster(context: TransformContext, cluster: Cluster): true | string {
  const { j } = context;
  const streamable = cluster.routes.filter((r) => r.roles.has('streamable'));
  const legacy = cluster.routes.filter((r) => r.roles.has('sse-stream') || r.roles.has('sse-messages'));
  if (streamable.length === 0 && legacy.length === 0) return 'unrecognised MCP route shape; rewrite to one stateless POST endpoint by hand';
  const framework = routeFramework(context, cluster.routes[0].receiver, cluster.routes[0].registrations.at(-1)?.handler);
  if (framework === 'unknown') {
    return 'this endpoint is served by an unrecognised framework; rewrite it to one stateless POST endpoint by hand (a fresh server and transport per request, 405 on GET/DELETE)';
  }
  const factory = serverFactory(context, cluster);
  if (typeof factory === 'string') return factory;
  const { req, res, reqType, resType } = handlerParams(context, cluster, framework);
  const endpointRoute = streamable.find((r) => r.registrations.some((g) => g.method === 'post')) ?? streamable[0];
  const quoteChar = context.quote === 'double' ? '"' : "'";
  const endpoint = endpointRoute ? endpointRoute.pathText : `${quoteChar}${context.options.endpoint ?? DEFAULT_ENDPOINT}${quoteChar}`;
  const legacyPaths: Array<{ method: string; path: string }> = [];
  for (const route of legacy) {
    if (route.pathText === endpoint) continue;
    for (const registration of route.registrations) {
      const method =
        route.roles.has('sse-stream') && route.roles.has('sse-messages')
          ? registration.method
          : route.roles.has('sse-stream')
            ? 'get'
            : 'post';
      const entry = { method: registration.method === 'all' || registration.method === 'use' ? 'all' : method, path: route.pathText };
      if (!legacyPaths.some((p) => p.method === entry.method && p.path === entry.path)) legacyPaths.push(entry);
    }
  }
  const middlewares: string[] = [];
  for (const route of [...streamable, ...legacy]) {
    for (const registration of route.registrations) {
      for (const middleware of registration.middlewares) {
        const text = sourceOf(j, middleware);
        if (!middlewares.includes(text)) middlewares.push(text);
      }
    }
  }
  const taken = new Set([...factory.uses]);
  // Setup statements name the server by its old local: keep that name for it.
  const serverName = factory.setup.length > 0 && factory.variable ? factory.variable : taken.has('server') ? 'mcpServer' : 'server';
  const transportName = taken.has('transport') || serverName === 'transport' ? 'mcpTransport' : 'transport';

  // Write first: the transport import it adds may shift statement indices of this block.
  const lines = writeEndpoint(context, framework, {
    receiver: cluster.routes[0].receiverText,
    endpoint,
    endpointDescription: endpointDescription(endpoint),
    middlewares: middlewares.map((m) => `${m}, `).join(''),
    req,
    res,
    reqType,
    resType,
    server: serverName,
    transport: transportName,
    factory,
    legacyPaths,
    parsedBody: parsedBodyArgument(j, [...cluster.routes.map((r) => r.statement), ...cluster.handlerFunctions]),
  });
  // Remove the old routes and what only they used; the new ones go where the first old one (in source order) stood.
  const first = [...cluster.routes].sort((a, b) => (a.statement.start as number) - (b.statement.start as number))[0];
  const body = first.body;
  const insertAt = body.indexOf(first.statement);
  const deadCandidates = new Set<string>();
  for (const route of cluster.routes) for (const name of referencedNames(j, route.statement)) deadCandidates.add(name);
  for (const fn of cluster.handlerFunctions) for (const name of referencedNames(j, fn)) deadCandidates.add(name);
  for (const route of cluster.routes) route.body.splice(route.body.indexOf(route.statement), 1);
  body.splice(insertAt, 0, placeholder(context, lines.join('\n'), 'block'));
  for (const fn of cluster.handlerFunctions) deadCandidates.add(functionName(fn) ?? '');
  removeDeadDeclarations(context, deadCandidates);
  return true;
}

function functionName(fn: AnyNode): string | undefined {
  return fn.type === 'FunctionDeclaration' ? ((fn.id as AnyNode | null)?.name as string | undefined) : undefined;
}

function endpointDescription(endpoint: string): string {
  return /^['"`]/.test(endpoint) ? endpoint.slice(1, -1) : `the ${endpoint} endpoint`;
}
