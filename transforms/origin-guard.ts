/**
 * origin-guard — rule `origin-validation`.
 * Adds an Origin check (403 on a present, non-allowed Origin; Host too for a local server) as the first statement of
 * every handler on the MCP endpoint, and the small guard function itself: `rejectForeignOrigin(req, res)` for Node
 * handlers (express, node:http, fastify through `request.raw` / `reply.raw`, koa through `ctx.req` / `ctx.res`),
 * `foreignOriginResponse(request)` for Web-standard ones (hono's `c.req.raw`, fetch handlers). Handlers of an
 * unrecognised framework get a marker.
 */
import type { API, FileInfo } from 'jscodeshift';
import { createContext, print, type TransformContext, type TransformOptions } from './lib/context';
import { containsLocation, isFunctionNode, referencedNames, type AnyNode } from './lib/ast';
import { placeholder } from './lib/emit';
import { asRouteStatement, functionsByName, guardClauseRoute, statementLists } from './lib/routes';
import { afterImports, ensureNamedImports } from './lib/imports';
import { isLocalServer, routeFramework } from './lib/framework';
import { GUARD_NAME, WEB_GUARD_NAME, guardCall, guardFunction, webGuardCall, webGuardFunction } from './lib/templates';
import { addMarker, uniqueName } from './hoist-server-factory';

export const id = 'origin-guard';
export const rules = ['origin-validation'];
export const parser = 'tsx';

/** How a handler is guarded: Node (req, res), fastify (request.raw, reply.raw), koa (ctx.req, ctx.res), hono (c.req.raw), Web (request). */
type GuardKind = 'node' | 'fastify' | 'koa' | 'hono' | 'web';

interface GuardSite {
  fn: AnyNode;
  /** The statement list the guard goes in: the handler body or the route's `if` block. */
  block: AnyNode;
  kind: GuardKind;
  /** Where in it: first, or right after a guard-clause route's path check. */
  at?: number;
}

const UNGUARDABLE = 'reject requests whose Origin header is present and not allowed with 403 before they reach the transport';

export default function transform(file: FileInfo, api: API, options: TransformOptions = {}): string | undefined {
  const context = createContext(file, api, options, rules);
  const anchors = context.findings.filter((f) => f.fix === 'auto');
  if (anchors.length === 0) return undefined;
  const sites = new Map<AnyNode, GuardSite>();
  const unplaced: Array<{ line: number; why: string }> = [];
  for (const anchor of anchors) {
    const found = sitesForAnchor(context, anchor);
    if (typeof found === 'string') unplaced.push({ line: anchor.line, why: found });
    else found.forEach((site) => sites.set(site.block, site));
  }
  let changed = false;
  const kinds = new Set<GuardKind>();
  for (const site of sites.values()) {
    if (insertGuard(context, site)) {
      changed = true;
      kinds.add(site.kind);
    }
  }
  if (kinds.has('node') || kinds.has('fastify') || kinds.has('koa')) addGuardFunction(context);
  if (kinds.has('hono') || kinds.has('web')) addWebGuardFunction(context);
  for (const { line, why } of unplaced) changed = addMarker(context, line, 'origin-validation', why) || changed;
  return changed ? print(context) : undefined;
}

function sitesForAnchor(context: TransformContext, anchor: { line: number; column: number }): GuardSite[] | string {
  const handlers = handlersForAnchor(context, anchor);
  if (handlers) return handlers;
  return branchForAnchor(context, anchor) ?? guardClauseSite(context, anchor) ?? UNGUARDABLE;
}

/** The route whose registration contains the anchor, plus sibling routes on the same receiver and path. */
function handlersForAnchor(context: TransformContext, anchor: { line: number; column: number }): GuardSite[] | string | undefined {
  const { j } = context;
  const functions = functionsByName(context);
  for (const body of statementLists(context)) {
    const routes = body.map((s, i) => asRouteStatement(j, s, i)).filter((r): r is NonNullable<typeof r> => !!r);
    const hit = routes.find((r) => containsLocation(r.statement, anchor));
    if (!hit) continue;
    const siblings = routes.filter((r) => r.receiverText === hit.receiverText && r.pathText === hit.pathText);
    const sites: GuardSite[] = [];
    for (const route of siblings) {
      for (const registration of route.registrations) {
        const fn = registration.handler.type === 'Identifier' ? functions.get(registration.handler.name as string) : registration.handler;
        if (!fn || !isFunctionNode(fn) || (fn.body as AnyNode).type !== 'BlockStatement') continue;
        const framework = routeFramework(context, route.receiver, fn);
        if (framework === 'unknown') return `${UNGUARDABLE} (a handler of an unrecognised framework is not rewritten)`;
        sites.push({ fn, block: fn.body as AnyNode, kind: framework === 'express' ? 'node' : framework });
      }
    }
    return sites.length > 0 ? sites : undefined;
  }
  return undefined;
}

/** node:http or fetch style: the `if` block around the anchor, inside a function taking (req, res) or (request). */
function branchForAnchor(context: TransformContext, anchor: { line: number; column: number }): GuardSite[] | undefined {
  const { j, root } = context;
  const ifs = root
    .find(j.IfStatement)
    .filter((p) => containsLocation(p.node.consequent as unknown as AnyNode, anchor) && p.node.consequent.type === 'BlockStatement');
  const innermost = ifs.paths().at(-1);
  if (!innermost) return undefined;
  let current = innermost.parent;
  while (current && !isFunctionNode(current.node as unknown as AnyNode)) current = current.parent;
  if (!current) return undefined;
  const fn = current.node as unknown as AnyNode;
  const params = (fn.params as AnyNode[]) ?? [];
  const kind: GuardKind = params.length === 1 ? 'web' : 'node';
  return [{ block: innermost.node.consequent as unknown as AnyNode, fn, kind }];
}

/** `if (url.pathname !== '/mcp') return …;` then the MCP code: the guard goes right after the path check. */
function guardClauseSite(context: TransformContext, anchor: { line: number; column: number }): GuardSite[] | undefined {
  const route = guardClauseRoute(context, anchor);
  if (!route) return undefined;
  const params = (route.fn.params as AnyNode[]) ?? [];
  return [{ fn: route.fn, block: route.block, at: route.from, kind: params.length === 1 ? 'web' : 'node' }];
}

function insertGuard(context: TransformContext, site: GuardSite): boolean {
  const { fn, block, kind, at = 0 } = site;
  const [req, res] = fn.params as AnyNode[];
  if (req?.type !== 'Identifier' || ((kind === 'node' || kind === 'fastify') && res?.type !== 'Identifier')) return false;
  const statements = block.body as AnyNode[];
  const first = statements[at];
  if (first && new RegExp(`\\b(?:${GUARD_NAME}|${WEB_GUARD_NAME})\\(`).test(context.j(first as never).toSource())) return false;
  // `(_req, res)`: the request is used now, so drop the "unused" underscore when the plain name is free.
  const plain = (req.name as string).replace(/^_+/, '');
  if (
    plain &&
    plain !== req.name &&
    !referencedNames(context.j, fn.body).has(plain) &&
    !(fn.params as AnyNode[]).some((p) => p.name === plain)
  ) {
    req.name = plain;
  }
  const call =
    kind === 'node'
      ? guardCall(req.name as string, res.name as string)
      : kind === 'fastify'
        ? guardCall(`${req.name}.raw`, `${res.name}.raw`)
        : kind === 'koa'
          ? `if (${GUARD_NAME}(${req.name}.req, ${req.name}.res)) {\n  ${req.name}.respond = false;\n  return;\n}`
          : webGuardCall(kind === 'hono' ? `${req.name}.req.raw` : (req.name as string), uniqueName(context, 'forbidden'));
  statements.splice(at, 0, placeholder(context, call, 'tight'));
  return true;
}

function addGuardFunction(context: TransformContext): void {
  const { j, root } = context;
  if (root.find(j.FunctionDeclaration, { id: { name: GUARD_NAME } }).size() > 0) return;
  const body = root.find(j.Program).get('body').value as AnyNode[];
  // The Node types, under other local names when the file already binds these.
  const [request, response] = context.typescript
    ? ensureNamedImports(context, ['node:http', 'http'], ['IncomingMessage', 'ServerResponse'], { typeOnly: true })
    : ['IncomingMessage', 'ServerResponse'];
  body.splice(
    afterImports(body),
    0,
    placeholder(
      context,
      guardFunction({
        typescript: context.typescript,
        checkHost: isLocalServer(context),
        quote: context.quote,
        types: { request, response },
      }),
      'block',
    ),
  );
}

function addWebGuardFunction(context: TransformContext): void {
  const { j, root } = context;
  if (root.find(j.FunctionDeclaration, { id: { name: WEB_GUARD_NAME } }).size() > 0) return;
  const body = root.find(j.Program).get('body').value as AnyNode[];
  body.splice(
    afterImports(body),
    0,
    placeholder(
      context,
      webGuardFunction({ typescript: context.typescript, checkHost: isLocalServer(context), quote: context.quote }),
      'block',
    ),
  );
}
