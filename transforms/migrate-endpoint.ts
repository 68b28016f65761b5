/**
 * migrate-endpoint — rules `legacy-sse-transport`, `session-id`, `get-stream`, `delete-session`, `last-event-id`,
 * `shared-server-instance`, `origin-validation`, `per-request-transport`.
 * Carries out the endpoint plans of the analysis (src/analysis/endpoints), whole or not at all. In place, whatever
 * the shape: the function (route callback, helper, method, branch) that handled MCP requests becomes the stateless
 * endpoint — 405 for other methods, the Origin guard, the server built the way its initialize branch built it, a
 * fresh transport (2025-11-25) or createMcpHandler (2026-07-28) — and callers keep calling it. GET/DELETE handlers
 * of the endpoint answer 405, the old HTTP+SSE paths 410. A shared server becomes a factory first, and a getter that
 * cached one server builds a fresh one per call. An endpoint that cannot be migrated gets one marker, at the construct
 * that stops it.
 */
import type { API, ASTPath, FileInfo } from 'jscodeshift';
import { createContext, print, type TransformContext, type TransformOptions } from './lib/context';
import { referencedNames, statementsOf, thisMemberNames, type AnyNode } from './lib/ast';
import { inlinePlaceholder, memberPlaceholder, placeholder } from './lib/emit';
import { ensureNamedImport, ensureNamedImports } from './lib/imports';
import { removeDeadDeclarations, removeDeadFields } from './lib/dead-code';
import { addMarker, uniqueName } from './lib/markers';
import { guardStatements, isLocalServer, type GuardContext } from './lib/guard';
import { functionAt, nodeAt, pathAt } from './lib/locate';
import { uncacheGetter } from './lib/cached-getter';
import { moveFieldIntoMethod } from './lib/field-factory';
import { passRegistrations, takeRegistrations } from './lib/registrations';
import { scopeIn, scopeStoreAndReaders } from './lib/request-scope';
import {
  earlyAnswer,
  goneAnswer,
  handlerBody,
  METHOD_NOT_ALLOWED,
  statelessBody,
  V1_WEB_TRANSPORT,
  type BodyInput,
  type ServerCode,
} from './lib/endpoint-body';
import { adapterFor, type FrameworkAdapter, type HandlerParams, type Style } from '../src/frameworks';
import { indent, quoted } from '../src/frameworks/code';
import {
  DEFAULT_ENDPOINT_PATH,
  endpointPlanOf,
  joinPath,
  type CachedServerGetter,
  type EndpointPlan,
  type Region,
  type ServerHoist,
} from '../src/analysis/endpoints/model';

export const id = 'migrate-endpoint';
export const rules = [
  'legacy-sse-transport',
  'session-id',
  'get-stream',
  'delete-session',
  'last-event-id',
  'shared-server-instance',
  'origin-validation',
  'per-request-transport',
  'shared-transport',
];
export const parser = 'tsx';

const V1_NODE_TRANSPORT = ['@modelcontextprotocol/sdk/server/streamableHttp.js', '@modelcontextprotocol/sdk/server/streamableHttp'];
const V2_SERVER = ['@modelcontextprotocol/server'];
const V2_NODE = ['@modelcontextprotocol/node'];

/** What one run of the transform on one file accumulates across plans. */
interface FileEdit {
  context: TransformContext;
  /** The file's path in the plans (relative to the scanned root). */
  file: string;
  style: Style;
  /** Names the removed code referenced: declarations nothing uses any more are removed at the end. */
  dead: Set<string>;
  /** Statement lists to prune besides the program body (functions that held a region). */
  blocks: Set<AnyNode[]>;
  /** Origin guards this file declares. */
  guard: GuardContext;
  /** Shared servers already turned into factories in this file. */
  hoisted: Set<string>;
  /** Members the removed code read through `this` (`this.sessions`), and the member lists of the classes it was in. */
  members: Set<string>;
  classes: Set<AnyNode[]>;
}

export default function transform(file: FileInfo, api: API, options: TransformOptions = {}): string | undefined {
  const context = createContext(file, api, options, rules);
  const plans = plansOf(context);
  if (plans.length === 0) return undefined;
  const edit: FileEdit = {
    context,
    file: context.options.relPath ?? context.findings[0]?.file ?? file.path,
    style: { quote: context.quote, typescript: context.typescript },
    dead: new Set(),
    blocks: new Set(),
    guard: { context, v2: (options.target ?? '2026-07-28') === '2026-07-28', local: isLocalServer(context), declared: new Map() },
    hoisted: new Set(),
    members: new Set(),
    classes: new Set(),
  };
  let changed = false;
  for (const plan of plans) {
    const rolledBack = options.rolledBack?.[plan.id];
    if (rolledBack) {
      const at = plan.regions.find((r) => r.endpoint) ?? plan.regions[0];
      const line = at?.fn.file === edit.file ? at.fn.line : plan.verdict.migratable ? undefined : plan.verdict.at.line;
      if (line) changed = addMarker(context, line, markerRule(plan), `not migrated: ${rolledBack}`) || changed;
      continue;
    }
    if (!plan.verdict.migratable) {
      if (plan.verdict.at.file === edit.file)
        changed = addMarker(context, plan.verdict.at.line, markerRule(plan), plan.verdict.reason) || changed;
      continue;
    }
    // A relayed bridge is rewritten by stdio-bridge first; its next analysis is an ordinary endpoint.
    if (plan.bridge) continue;
    if (migrate(edit, plan)) {
      changed = true;
      options.appliedEndpoints?.add(plan.id);
    }
  }
  if (!changed) return undefined;
  removeDeadFields(context, edit.classes, edit.members, edit.dead);
  removeDeadDeclarations(context, edit.dead, [...edit.blocks]);
  return print(context);
}

/** One plan per endpoint, from the findings that carry them. */
function plansOf(context: TransformContext): EndpointPlan[] {
  const plans = new Map<string, EndpointPlan>((context.options.plans ?? []).map((plan) => [plan.id, plan]));
  for (const finding of context.findings) {
    const plan = endpointPlanOf(finding);
    if (plan && !plans.has(plan.id)) plans.set(plan.id, plan);
  }
  return [...plans.values()];
}

function markerRule(plan: EndpointPlan): string {
  // (what stops the endpoint names the rule: per-session state is session-state's, whatever else the plan has)
  if (!plan.verdict.migratable && plan.verdict.state) return 'session-state';
  if (plan.server.kind === 'unknown' && plan.server.sharedTransport) return 'shared-transport';
  if (plan.regions.some((r) => r.role !== 'streamable' && r.role !== 'session')) return 'legacy-sse-transport';
  if (plan.server.kind === 'shared' || (plan.server.kind === 'built' && plan.server.cached)) return 'shared-server-instance';
  return plan.stateless ? 'per-request-transport' : 'session-id';
}

function target(edit: FileEdit): string {
  return edit.context.options.target ?? '2026-07-28';
}

// ---- one plan ------------------------------------------------------------------------------------------------------

function migrate(edit: FileEdit, plan: EndpointPlan): boolean {
  const v2 = target(edit) === '2026-07-28';
  // Nothing to do on 2025-11-25 for an endpoint that is stateless and guarded already.
  if (!v2 && plan.stateless && plan.originGuarded) return false;
  let changed = false;
  if (plan.server.kind === 'shared' && plan.server.hoist) changed = hoistServer(edit, plan.server.hoist) || changed;
  if (plan.server.kind === 'built' && plan.server.cached) changed = uncacheServer(edit, plan.server.cached) || changed;
  if (plan.credentials) changed = scopeStoreAndReaders(edit.context, plan.credentials, edit.file) || changed;
  if (plan.startupTransport) changed = removeStartupTransport(edit, plan.startupTransport) || changed;
  const regions = plan.regions.filter((r) => r.fn.file === edit.file);
  const endpointRegion = plan.regions.find((r) => r.endpoint);
  const endpoint = endpointPath(edit, plan);
  for (const region of regions) {
    if (!v2 && plan.stateless) changed = guardOnly(edit, plan, region) || changed;
    else if (region.endpoint) changed = rewriteEndpoint(edit, plan, region) || changed;
    else if (region.role === 'streamable' || region.role === 'session' || sharesPath(region, endpointRegion))
      changed = answerWith(edit, region, METHOD_NOT_ALLOWED) || changed;
    else changed = answerWith(edit, region, goneAnswer(endpoint.display)) || changed;
  }
  if (endpointRegion?.fn.file === edit.file && !(plan.stateless && !v2)) changed = answerUnrouted(edit, plan, endpointRegion) || changed;
  if (!endpointRegion) {
    const stream = regions.find((r) => r.role === 'sse-stream' || r.role === 'sse-both');
    if (stream) changed = addEndpointBeside(edit, plan, stream, endpoint) || changed;
  }
  return changed;
}

/** The one transport made at start-up and its connect: each request gets a transport of its own now. */
function removeStartupTransport(edit: FileEdit, startup: NonNullable<EndpointPlan['startupTransport']>): boolean {
  if (startup.declaration.file !== edit.file) return false;
  const paths = [
    ...[startup.connect, ...startup.closes].map((span) => pathAt(edit.context, span, ['ExpressionStatement'])),
    pathAt(edit.context, startup.declaration, ['VariableDeclaration']),
  ];
  if (paths.some((p) => !p))
    throw new Error(`the start-up transport at ${startup.declaration.file}:${startup.declaration.line} was not found`);
  for (const path of paths) {
    for (const name of referencedNames(edit.context.j, path!.node as unknown as AnyNode)) edit.dead.add(name);
    path!.prune();
  }
  return true;
}

/** Another method on the endpoint's own route path (GET `/mcp` beside POST `/mcp`): it answers 405, not 410. */
function sharesPath(region: Region, endpoint: Region | undefined): boolean {
  const receiver = (r: Region) => r.arrivals.map((a) => (a.kind === 'route' ? a.receiver : '')).join();
  return !!endpoint && !!region.path && region.path === endpoint.path && receiver(region) === receiver(endpoint);
}

/**
 * The endpoint's path as code and for messages: the plan's, or `--endpoint` (with the stream's mount prefix). A stream
 * route with parameters (`/t/:tenant/sse`) puts the endpoint beside it (`/t/:tenant/mcp`): what the handler reads
 * from them (`req.params.tenant`) is still there.
 */
function endpointPath(edit: FileEdit, plan: EndpointPlan): { code: string; display: string } {
  if (plan.path.code || plan.path.display) return { code: plan.path.code, display: plan.path.display };
  const stream = plan.regions.find((r) => r.role === 'sse-stream');
  const parameters = stream?.pathValue && /\/:[\w$]+/.test(stream.pathValue) ? stream.pathValue.replace(/\/[^/]*$/, '') : undefined;
  const path = joinPath(parameters, edit.context.options.endpoint ?? DEFAULT_ENDPOINT_PATH);
  const prefix = stream?.arrivals.find((a) => a.kind === 'route' && a.mountPrefix);
  return { code: quoted(edit.style.quote, path), display: joinPath(prefix?.kind === 'route' ? prefix.mountPrefix : undefined, path) };
}

// ---- regions -------------------------------------------------------------------------------------------------------

interface RegionSite {
  fnPath: ASTPath;
  fn: AnyNode;
  /** The statement list rewritten in place. */
  statements: AnyNode[];
  from: number;
}

function siteOf(edit: FileEdit, region: Region): RegionSite {
  const fnPath = functionAt(edit.context, region.fn);
  if (!fnPath) throw new Error(`the handler at ${region.fn.file}:${region.fn.line} was not found`);
  const fn = fnPath.node as unknown as AnyNode;
  if (region.kind === 'function' && (fn.body as AnyNode).type !== 'BlockStatement') giveBlockBody(edit, fn);
  const block = region.kind === 'branch' ? nodeAt(edit.context, region.block, ['BlockStatement']) : (fn.body as AnyNode);
  if (!block || block.type !== 'BlockStatement') throw new Error(`the handler at ${region.fn.file}:${region.fn.line} has no block body`);
  edit.blocks.add((fn.body as AnyNode).body as AnyNode[]);
  addEnclosingBlocks(edit, fnPath);
  for (let path = fnPath.parent as ASTPath | null; path; path = path.parent as ASTPath | null)
    if ((path.node as unknown as AnyNode).type === 'ClassBody') edit.classes.add((path.node as unknown as AnyNode).body as AnyNode[]);
  return { fnPath, fn, statements: block.body as AnyNode[], from: region.from ?? 0 };
}

/** The functions around a handler (where its routes are registered) hold helpers only the removed code used. */
function addEnclosingBlocks(edit: FileEdit, fnPath: ASTPath): void {
  for (let path = fnPath.parent as ASTPath | null; path; path = path.parent as ASTPath | null) {
    const node = path.node as unknown as AnyNode;
    if (/Function/.test(node.type as string) && (node.body as AnyNode)?.type === 'BlockStatement')
      edit.blocks.add((node.body as AnyNode).body as AnyNode[]);
  }
}

/** Arrows whose expression body became a block: recast prints them afresh, without the parentheses of a lone parameter. */
const reprintedArrows = new WeakSet<AnyNode>();

/** `(req, res) => relay('/mcp', req, res)` gets an empty block body to be rewritten into; what it called may be dead. */
function giveBlockBody(edit: FileEdit, fn: AnyNode): void {
  reprintedArrows.add(fn);
  for (const name of referencedNames(edit.context.j, fn.body)) edit.dead.add(name);
  fn.body = edit.context.j.blockStatement([]) as unknown as AnyNode;
  fn.expression = false;
}

/** Replace the region's statements (from the path guard on) with `code`. */
function replaceStatements(edit: FileEdit, site: RegionSite, code: string[]): void {
  const removed = site.statements.splice(site.from, site.statements.length - site.from);
  for (const statement of removed) {
    for (const name of referencedNames(edit.context.j, statement)) edit.dead.add(name);
    for (const name of thisMemberNames(edit.context.j, statement)) edit.members.add(name);
  }
  site.statements.push(placeholder(edit.context, code.join('\n'), 'tight'));
  markUnusedParams(edit, site.fn, code);
}

/**
 * A parameter the rewritten handler no longer reads (`sessions`, `url`) gets a leading `_`, so `noUnusedParameters`
 * keeps compiling; callers still pass it.
 */
function markUnusedParams(edit: FileEdit, fn: AnyNode, code: string[]): void {
  // (what the code reads: comments and strings say "sessions" without using a parameter of that name)
  const generated = code.join('\n').replace(/\/\/[^\n]*|\/\*[\s\S]*?\*\/|'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`/g, ' ');
  const used = referencedNames(edit.context.j, fn.body);
  for (const param of (fn.params as AnyNode[]) ?? []) {
    if (param.type !== 'Identifier' || (param.name as string).startsWith('_')) continue;
    const name = param.name as string;
    if (used.has(name) || new RegExp(`(?<![\\w$.])${name.replace(/\$/g, '\\$')}(?![\\w$])`).test(generated)) continue;
    const decorators = (param.decorators as AnyNode[] | undefined) ?? [];
    if (decorators.length === 0) {
      param.name = `_${name}`;
      continue;
    }
    // A decorated parameter (`@Req() req: Request`) keeps its line as written, with the new name.
    const { j } = edit.context;
    const type = param.typeAnnotation ? j(param.typeAnnotation as never).toSource() : '';
    const text = `${decorators.map((d) => j(d as never).toSource()).join(' ')} _${name}${param.optional ? '?' : ''}${type}`;
    param.name = inlinePlaceholder(edit.context, text);
    param.decorators = [];
    param.typeAnnotation = null;
    param.optional = false;
  }
}

/** The handler's parameters, with a leading `_` dropped from those the new code uses (when the plain name is free). */
function paramsFor(edit: FileEdit, region: Region, site: RegionSite, uses: number[]): HandlerParams {
  const params = (site.fn.params as AnyNode[]) ?? [];
  const names = [...region.params];
  for (const index of uses) {
    const param = params[index];
    const name = names[index];
    if (!param || param.type !== 'Identifier' || !name?.startsWith('_')) continue;
    const plain = name.replace(/^_+/, '');
    if (!plain || referencedNames(edit.context.j, site.fn.body).has(plain) || names.includes(plain)) continue;
    param.name = plain;
    names[index] = plain;
  }
  return { names, types: region.paramTypes, decorators: region.paramDecorators, written: region.paramText };
}

function answerWith(edit: FileEdit, region: Region, answer: Parameters<FrameworkAdapter['answer']>[1]): boolean {
  const site = siteOf(edit, region);
  const adapter = adapterFor(region.framework);
  const params = paramsFor(edit, region, site, adapter.access({ names: region.params, types: [] })?.flavor === 'web' ? [0] : [0, 1]);
  const comment =
    answer.status === 405
      ? 'no standalone GET stream and no session to DELETE without sessions'
      : 'the HTTP+SSE transport is gone; this old path names the new endpoint';
  // A branch or the rest after a path guard must leave the function; a whole handler just ends.
  const lines = region.kind === 'function' ? adapter.answer(params, answer, edit.style) : earlyAnswer(adapter, params, answer, edit.style);
  replaceStatements(edit, site, [`// mcp-migrate: ${comment}.`, ...lines]);
  return true;
}

/** 2025-11-25 on an endpoint that is stateless already: only the Origin guard is missing. */
function guardOnly(edit: FileEdit, plan: EndpointPlan, region: Region): boolean {
  if (plan.originGuarded || !region.endpoint) return false;
  const site = siteOf(edit, region);
  const adapter = adapterFor(region.framework);
  const params = paramsFor(edit, region, site, [0, 1]);
  const guard = guardLines(edit, plan, adapter, params);
  site.statements.splice(site.from, 0, placeholder(edit.context, guard.join('\n'), 'tight'));
  return true;
}

function guardLines(edit: FileEdit, plan: EndpointPlan, adapter: FrameworkAdapter, params: HandlerParams): string[] {
  const access = adapter.access(params);
  if (!access) throw new Error(`the ${adapter.id} handler's parameters cannot reach the request`);
  return guardStatements({ ...edit.guard, local: edit.guard.local || plan.local }, access);
}

/** The region that becomes the endpoint, rewritten in place. */
function rewriteEndpoint(edit: FileEdit, plan: EndpointPlan, region: Region): boolean {
  const site = siteOf(edit, region);
  const adapter = adapterFor(region.framework);
  const params = paramsFor(edit, region, site, [0, 1]);
  const methodCheck = narrowBranchToPath(edit, region) || region.methods === 'any' || region.methods.some((m) => m !== 'POST');
  const body = endpointBody(edit, plan, region, adapter, params, methodCheck, site.fnPath);
  replaceStatements(edit, site, region.kind === 'function' ? body : leaveAfter(adapter, params, body));
  if (!site.fn.async) site.fn.async = true;
  keepParamParens(edit, site.fn);
  return true;
}

/** An arrow given a block body loses the parentheses of a lone parameter (`(c) =>` → `async c =>`): keep them as written. */
function keepParamParens(edit: FileEdit, fn: AnyNode): void {
  const params = fn.params as AnyNode[];
  if (!reprintedArrows.has(fn) || fn.type !== 'ArrowFunctionExpression' || params?.length !== 1 || params[0].type !== 'Identifier') return;
  const param = params[0];
  if (param.typeAnnotation || typeof param.start !== 'number' || edit.context.parsed[param.start - 1] !== '(') return;
  param.name = inlinePlaceholder(edit.context, `(${param.name as string})`);
}

/** `if (req.method === 'POST' && url.pathname === '/mcp')` serves every method of the path now (405 inside). */
function narrowBranchToPath(edit: FileEdit, region: Region): boolean {
  if (region.kind !== 'branch' || !region.branch) return false;
  const branch = nodeAt(edit.context, region.branch, ['IfStatement']);
  const test = branch?.test as AnyNode | undefined;
  if (!branch || !test || test.type !== 'LogicalExpression' || test.operator !== '&&') return false;
  const mentions = (node: AnyNode, pattern: RegExp) => pattern.test(edit.context.j(node as never).toSource());
  const sides = [test.left as AnyNode, test.right as AnyNode];
  const path = sides.find((side) => !mentions(side, /\.method\b/));
  if (!path || !sides.some((side) => side !== path && mentions(side, /\.method\b/))) return false;
  branch.test = path as never;
  return true;
}

/** A branch that served the request must leave the handler (Node-style bodies end without a `return`). */
function leaveAfter(adapter: FrameworkAdapter, params: HandlerParams, body: string[]): string[] {
  return adapter.access(params)?.flavor === 'node' && !/^return\b/.test(body.at(-1) ?? '') ? [...body, 'return;'] : body;
}

/**
 * The parsed body the HTTP+SSE messages route served with, read off the new handler's own parameter, where the
 * framework has no parsed body of its own to hand over (koa: a body parser's `ctx.request.body`).
 */
function messagesBody(region: Region, adapter: FrameworkAdapter, params: HandlerParams): string | undefined {
  const access = adapter.access(params);
  if (access?.flavor !== 'node' || access.body) return undefined;
  const name = region.messagesBody && params.names[region.messagesBody.param];
  return name ? `${name}${region.messagesBody!.access}` : undefined;
}

/** The endpoint's statements for this target. */
function endpointBody(
  edit: FileEdit,
  plan: EndpointPlan,
  region: Region,
  adapter: FrameworkAdapter,
  params: HandlerParams,
  methodCheck: boolean,
  fnPath: ASTPath | undefined,
): string[] {
  const v2 = target(edit) === '2026-07-28';
  const server = serverCode(edit, plan, params);
  const names = { transport: freeLocal(['transport', 'mcpTransport'], server, params), handler: uniqueName(edit.context, 'mcpHandler') };
  const app = v2 ? replaceApp(edit, plan, region) : { validated: false };
  const guard = plan.originGuarded || app.validated ? undefined : guardLines(edit, plan, adapter, params);
  const parsedBody = region.parsedBody ?? messagesBody(region, adapter, params);
  const input: BodyInput = {
    adapter,
    params,
    style: edit.style,
    // (on 2026-07-28 the handler answers GET and DELETE with 405 itself, unless the kept code before it reads the body
    // first: `const parsed = JSON.parse(await readBody(req))` would answer a bodiless GET with 400 Parse error)
    methodCheck: methodCheck && (!v2 || readsBodyFirst(server.prelude, parsedBody)),
    guard,
    server,
    names,
    parsedBody,
    servedCatch: region.servedCatch,
    servedWithin: region.servedWithin,
    servedAfter: region.servedAfter,
  };
  if (!v2) {
    const flavor = adapter.access(params)?.flavor;
    const transportClass =
      flavor === 'web'
        ? ensureNamedImport(edit.context, V1_WEB_TRANSPORT, 'WebStandardStreamableHTTPServerTransport')
        : ensureNamedImport(edit.context, V1_NODE_TRANSPORT, 'StreamableHTTPServerTransport');
    return statelessBody(input, transportClass, {
      jsonResponse: plan.transport.jsonResponse,
      exactOptional: edit.context.options.compiler?.exactOptionalPropertyTypes,
    });
  }
  const [comment, ...body] = handlerBody(input, mcpHandler(edit, plan, adapter, params, server, names.handler, fnPath));
  return [comment, ...(app.note ?? []), ...body];
}

/**
 * createMcpHandler for the endpoint: at module level beside the handler when the factory needs nothing from the
 * request, else built per request after the prelude that computes what it needs.
 */
function mcpHandler(
  edit: FileEdit,
  plan: EndpointPlan,
  adapter: FrameworkAdapter,
  params: HandlerParams,
  server: ServerCode,
  name: string,
  fnPath: ASTPath | undefined,
): { perRequest?: string; call: string } {
  const { context, style } = edit;
  const node = adapter.access(params)?.flavor === 'node';
  const createMcpHandler = ensureNamedImport(context, V2_SERVER, 'createMcpHandler');
  const legacy = context.options.legacy === 'reject' ? 'reject' : 'stateless';
  const options = [
    `legacy: ${quoted(style.quote, legacy)}`,
    ...(plan.transport.jsonResponse ? [`responseMode: ${quoted(style.quote, 'json')}`] : []),
  ];
  const handler = `${createMcpHandler}(${server.factory}, { ${options.join(', ')} })`;
  const toNodeHandler = node ? ensureNamedImport(context, V2_NODE, 'toNodeHandler') : '';
  const requestScoped = plan.server.kind === 'built' && plan.server.requestScoped;
  const holder = requestScoped || !fnPath ? undefined : statementHolding(fnPath);
  if (!holder) {
    return { perRequest: `const ${name} = ${handler};`, call: node ? `${toNodeHandler}(${name})` : name };
  }
  const declaration = node ? `const ${name} = ${toNodeHandler}(${handler});` : `const ${name} = ${handler};`;
  const comment = `// mcp-migrate: one handler serves every request; it builds a fresh server for each (legacy: ${quoted(style.quote, legacy)}).`;
  holder.list.splice(holder.list.indexOf(holder.statement), 0, placeholder(context, `${comment}\n${declaration}`, 'block'));
  return { call: name };
}

/** The statement (in a block or the program) that holds the function, and its list. */
function statementHolding(fnPath: ASTPath): { statement: AnyNode; list: AnyNode[] } | undefined {
  let current: ASTPath | null = fnPath;
  while (current?.parent) {
    const parentNode = current.parent.node as AnyNode;
    if ((parentNode.type === 'Program' || parentNode.type === 'BlockStatement') && Array.isArray(parentNode.body)) {
      return { statement: current.node as unknown as AnyNode, list: parentNode.body as AnyNode[] };
    }
    if (parentNode.type === 'ClassBody') return undefined;
    current = current.parent;
  }
  return undefined;
}

/** The class member that holds the node (a decorated method), and the class body's member list. */
function memberHolding(path: ASTPath): { statement: AnyNode; list: AnyNode[]; member: true } | undefined {
  let current: ASTPath | null = path;
  while (current?.parent) {
    const parentNode = current.parent.node as AnyNode;
    if (parentNode.type === 'ClassBody')
      return { statement: current.node as unknown as AnyNode, list: parentNode.body as AnyNode[], member: true };
    current = current.parent;
  }
  return undefined;
}

function freeLocal(candidates: string[], server: ServerCode, params: HandlerParams): string {
  const used = new Set([...params.names, server.variable, ...server.prelude.flatMap((s) => s.match(/[A-Za-z_$][\w$]*/g) ?? [])]);
  return candidates.find((c) => !used.has(c)) ?? `${candidates[0]}${used.size}`;
}

/** How the endpoint builds its server, in this file. */
function serverCode(edit: FileEdit, plan: EndpointPlan, params: HandlerParams): ServerCode {
  const credentials = plan.credentials;
  const scope = credentials && { name: scopeIn(edit.context, credentials, edit.file), value: credentials.value };
  return { ...sourceCode(edit, plan, params), scope };
}

function sourceCode(edit: FileEdit, plan: EndpointPlan, params: HandlerParams): ServerCode {
  const source = plan.server;
  if (source.kind === 'built') {
    const taken = new Set([...params.names, ...source.uses]);
    const variable = source.variable ?? (taken.has('server') ? 'mcpServer' : 'server');
    const init = `${source.awaited ? 'await ' : ''}${source.init}`;
    const build = [`const ${source.binding ?? variable} = ${init};`, ...source.setup];
    const factory =
      source.setup.length === 0
        ? `${source.awaited ? 'async ' : ''}() => ${source.init}`
        : [`${source.awaited ? 'async ' : ''}() => {`, ...build.map(indent), `  return ${variable};`, `}`].join('\n');
    return { prelude: source.prelude, build, variable, factory };
  }
  if (source.kind === 'shared' && source.factoryCall) {
    // The shared instance goes once nothing uses it; requests call its factory.
    edit.dead.add(source.reference);
    const variable = params.names.includes('server') ? 'mcpServer' : 'server';
    return {
      prelude: source.prelude ?? [],
      build: [`const ${variable} = ${source.factoryCall};`],
      variable,
      factory: `() => ${source.factoryCall}`,
    };
  }
  if (source.kind === 'shared' && source.hoist) {
    const factory = source.hoist.field ? `this.${source.hoist.factory}` : importedFactory(edit, source.reference, source.hoist);
    const variable = params.names.includes('server') ? 'mcpServer' : 'server';
    return { prelude: source.prelude ?? [], build: [`const ${variable} = ${factory}();`], variable, factory: `() => ${factory}()` };
  }
  throw new Error(`no server for ${plan.id}`);
}

/**
 * The factory's name here: declared in this file, passed in as the renamed parameter, or imported from the module the
 * file imported the shared server from (the old import goes once nothing uses it).
 */
function importedFactory(edit: FileEdit, reference: string, hoist: ServerHoist): string {
  if (hoist.file === edit.file || hoist.parameter) return hoist.factory;
  const module = importModuleOf(edit.context, reference);
  if (!module) throw new Error(`the import of \`${reference}\` was not found`);
  edit.dead.add(reference);
  return ensureNamedImport(edit.context, [module], hoist.factory);
}

/**
 * 2026-07-28: the app made in this file with no options (`express()`, `Fastify()`, `new Hono()`) becomes the
 * framework's `createMcp*App()` on a local server, which validates Host and Origin (the guard is then not needed), or
 * `createMcp*App({ host: '0.0.0.0' })` on one that may be deployed (no validation: the guard stays).
 */
function replaceApp(edit: FileEdit, plan: EndpointPlan, region: Region): { validated: boolean; note?: string[] } {
  const factory = adapterFor(region.framework).appFactory;
  const route = region.arrivals.find((a) => a.kind === 'route');
  const unchanged = { validated: false };
  if (!factory || !route || route.kind !== 'route' || !/^[A-Za-z_$][\w$]*$/.test(route.receiver)) return unchanged;
  const { context } = edit;
  const { j, root } = context;
  const declarator = root.find(j.VariableDeclarator, { id: { name: route.receiver } }).nodes()[0] as unknown as AnyNode | undefined;
  const init = declarator?.init as AnyNode | undefined;
  if (!init || (init.type !== 'CallExpression' && init.type !== 'NewExpression') || (init.arguments as AnyNode[]).length > 0)
    return unchanged;
  const callee = init.callee as AnyNode;
  if (callee.type !== 'Identifier') return unchanged;
  const origin = importOriginOf(context, callee.name as string);
  if (!origin || !factory.replaces.some((r) => r.module === origin.module && r.name === origin.name)) return unchanged;
  const local = plan.local || edit.guard.local;
  const createApp = ensureNamedImport(context, [factory.module], factory.name);

  declarator!.init = j.identifier(
    inlinePlaceholder(context, `${createApp}(${local ? '' : `{ host: ${quoted(edit.style.quote, '0.0.0.0')} }`})`),
  ) as never;
  edit.dead.add(callee.name as string);
  if (local) return { validated: true };
  return {
    validated: false,
    note: [
      `// \`${route.receiver}\` is ${factory.name}({ host: '0.0.0.0' }): the server listens on every interface, so the app checks no`,
      `// Host (it warns at start-up) and the Origin guard stays. A local server listens on 127.0.0.1 and drops the option.`,
    ],
  };
}

function importOriginOf(context: TransformContext, local: string): { module: string; name: string } | undefined {
  const { j, root } = context;
  for (const declaration of root.find(j.ImportDeclaration).nodes() as unknown as AnyNode[]) {
    const specifier = ((declaration.specifiers as AnyNode[]) ?? []).find((s) => (s.local as AnyNode | undefined)?.name === local);
    if (!specifier) continue;
    const name =
      specifier.type === 'ImportDefaultSpecifier'
        ? 'default'
        : specifier.type === 'ImportNamespaceSpecifier'
          ? '*'
          : ((specifier.imported as AnyNode).name as string);
    return { module: (declaration.source as AnyNode).value as string, name };
  }
  return undefined;
}

// ---- a new endpoint beside HTTP+SSE ---------------------------------------------------------------------------------

/** HTTP+SSE had no POST endpoint to rewrite: add one beside the stream's route or branch, with 405 on GET/DELETE. */
function addEndpointBeside(edit: FileEdit, plan: EndpointPlan, stream: Region, endpoint: { code: string; display: string }): boolean {
  const adapter = adapterFor(stream.framework);
  // The new handler's own parameters: the stream handler's names (its prelude uses them), without an "unused" `_`.
  const streamParams: HandlerParams = {
    names: stream.params.map((name, i) => name.replace(/^_+/, '') || adapter.defaultParams[i] || ''),
    types: stream.paramTypes,
    decorators: stream.paramDecorators,
    written: stream.paramText,
  };
  const params = adapter.endpointParams?.(streamParams) ?? streamParams;
  const route = stream.arrivals.find((a) => a.kind === 'route');
  if (route && route.kind === 'route' && adapter.route) {
    const registration = pathAt(edit.context, route.registration, ['CallExpression']);
    // A route call is a statement; a NestJS route decorator sits on a method of the controller.
    const holder = registration && (statementHolding(registration) ?? memberHolding(registration));
    if (!holder) throw new Error('the stream route is not a statement');
    const imports = adapter.routeImports?.(params);
    if (imports) ensureNamedImports(edit.context, [imports.module], imports.names);
    const body = endpointBody(edit, plan, stream, adapter, params, false, registration);
    const code = [
      `// mcp-migrate: stateless Streamable HTTP on ${endpoint.display}: POST only, a fresh server per request, no sessions.`,
      ...adapter.route(route.receiver, 'post', endpoint.code, route.middlewares, params, body.slice(1)),
      '',
      ...methodNotAllowedRoutes(edit, adapter, route, endpoint.code, params, ['GET', 'DELETE']),
    ];
    const inserted =
      'member' in holder ? memberPlaceholder(edit.context, code.join('\n')) : placeholder(edit.context, code.join('\n'), 'block');
    holder.list.splice(holder.list.indexOf(holder.statement), 0, inserted);
    return true;
  }
  if (stream.kind === 'branch' && stream.branch && stream.pathSubject) {
    const branchPath = pathAt(edit.context, stream.branch, ['IfStatement', 'SwitchStatement']);
    let top: ASTPath | undefined = branchPath;
    while (top?.parent && (top.parent.node as AnyNode).type === 'IfStatement') top = top.parent;
    const holder = top && statementHolding(top);
    if (!holder) throw new Error('the stream branch is not a statement');
    const body = leaveAfter(adapter, params, endpointBody(edit, plan, stream, adapter, params, true, functionAt(edit.context, stream.fn)));
    const code = [`if (${stream.pathSubject} === ${endpoint.code}) {`, ...body.map(indent), `}`];
    holder.list.splice(holder.list.indexOf(holder.statement), 0, placeholder(edit.context, code.join('\n'), 'block'));
    return true;
  }
  throw new Error('no place for the new endpoint beside the HTTP+SSE stream');
}

/** A handler that only answers does not use its request: `_req` for Node-style handlers. */
/** `app.get(path, …)` and `app.delete(path, …)` answering 405, for the methods given. */
function methodNotAllowedRoutes(
  edit: FileEdit,
  adapter: FrameworkAdapter,
  route: Extract<Region['arrivals'][number], { kind: 'route' }>,
  pathCode: string,
  params: HandlerParams,
  methods: Array<'GET' | 'DELETE'>,
): string[] {
  const answering = renamedForAnswer(adapter, params);
  const answer405 = earlyAnswer(adapter, answering, METHOD_NOT_ALLOWED, edit.style).filter((l) => l !== 'return;');
  const which =
    methods.length === 2
      ? 'No standalone GET stream and no session to DELETE without sessions: both answer 405.'
      : methods[0] === 'GET'
        ? 'No standalone GET stream without sessions: GET answers 405.'
        : 'No session to DELETE without sessions: DELETE answers 405.';
  return [
    `// ${which}`,
    ...methods.flatMap((method, i) => [
      ...(i > 0 ? [''] : []),
      ...adapter.route!(
        route.receiver,
        method === 'GET' ? 'get' : 'delete',
        pathCode,
        route.middlewares,
        renamedForAnswer(adapter, params),
        answer405,
      ),
    ]),
  ];
}

/** A POST-only route rewritten in place: GET and DELETE get their 405 routes beside it, where nothing answers them. */
function answerUnrouted(edit: FileEdit, plan: EndpointPlan, endpoint: Region): boolean {
  const adapter = adapterFor(endpoint.framework);
  const route = endpoint.arrivals.find((a) => a.kind === 'route');
  if (plan.unrouted.length === 0 || !route || route.kind !== 'route' || !route.path || !adapter.route) return false;
  const registration = pathAt(edit.context, route.registration, ['CallExpression']);
  const holder = registration && (statementHolding(registration) ?? memberHolding(registration));
  if (!holder) return false;
  const params: HandlerParams = {
    names: endpoint.params.map((name, i) => name.replace(/^_+/, '') || adapter.defaultParams[i] || ''),
    types: endpoint.paramTypes,
    decorators: endpoint.paramDecorators,
    written: endpoint.paramText,
  };
  const imports = adapter.routeImports?.(params);
  const decorators = new Set<string>(plan.unrouted.map((method) => (method === 'GET' ? 'Get' : 'Delete')));
  if (imports)
    ensureNamedImports(
      edit.context,
      [imports.module],
      imports.names.filter((n) => decorators.has(n)),
    );
  const code = methodNotAllowedRoutes(edit, adapter, route, route.path, params, plan.unrouted as Array<'GET' | 'DELETE'>).join('\n');
  const inserted = 'member' in holder ? memberPlaceholder(edit.context, code) : placeholder(edit.context, code, 'block');
  holder.list.splice(holder.list.indexOf(holder.statement) + 1, 0, inserted);
  return true;
}

function renamedForAnswer(adapter: FrameworkAdapter, params: HandlerParams): HandlerParams {
  if (adapter.access(params)?.flavor !== 'node' || adapter.defaultParams.length < 2) return params;
  return { ...params, names: params.names.map((n, i) => (i === 0 ? `_${n.replace(/^_+/, '')}` : n)) };
}

// ---- shared servers -------------------------------------------------------------------------------------------------

/**
 * A shared server becomes `function createMcpServer() { const server = …; …setup; return server; }`; where other code
 * keeps using one instance (a stdio connect, shutdown), `const server = createMcpServer()` stands where it was
 * configured. Call sites pass the factory; a parameter that received the server receives the factory.
 */
function hoistServer(edit: FileEdit, hoist: ServerHoist): boolean {
  let changed = false;
  if (hoist.file === edit.file && !edit.hoisted.has(hoist.variable)) {
    edit.hoisted.add(hoist.variable);
    if (hoist.field) moveFieldIntoMethod(edit.context, hoist);
    else moveIntoFactory(edit, hoist);
    changed = true;
  }
  const registrations = hoist.registrations;
  for (const site of registrations?.sites.filter((s) => s.call.file === edit.file) ?? []) {
    passRegistrations(edit.context, registrations!, site);
    changed = true;
  }
  const parameter = hoist.parameter;
  if (parameter) {
    for (const site of parameter.callSites.filter((s) => s.file === edit.file)) changed = passFactory(edit, hoist, site) || changed;
    for (const site of parameter.wrapSites.filter((s) => s.file === edit.file)) changed = wrapInFactory(edit, site) || changed;
    if (parameter.fn.file === edit.file) changed = parameterTakesFactory(edit, hoist, parameter) || changed;
  }
  return changed;
}

function moveIntoFactory(edit: FileEdit, hoist: ServerHoist): void {
  const { context } = edit;
  const { j } = context;
  const declaratorPath = pathAt(context, hoist.declaration, ['VariableDeclarator']);
  const declaration = declaratorPath?.parent?.node as AnyNode | undefined;
  let statementPath = declaratorPath?.parent as ASTPath | undefined;
  if (statementPath?.parent && (statementPath.parent.node as AnyNode).type === 'ExportNamedDeclaration')
    statementPath = statementPath.parent;
  const list = (statementPath?.parent?.node as AnyNode | undefined)?.body as AnyNode[] | undefined;
  if (!declaration || !statementPath || !Array.isArray(list)) throw new Error(`the shared server \`${hoist.variable}\` was not found`);
  const statement = statementPath.node as unknown as AnyNode;
  const setup = hoist.setup.map((span) => nodeAt(context, span, ['ExpressionStatement']));
  if (setup.some((s) => !s || !list.includes(s))) throw new Error(`the setup of \`${hoist.variable}\` was not found`);
  const [factory] = statementsOf(j, `${hoist.exported ? 'export ' : ''}function ${hoist.factory}() {\n  return ${hoist.variable};\n}`);
  const fn = (factory.type === 'ExportNamedDeclaration' ? factory.declaration : factory) as AnyNode;
  const inner = declaration;
  // The callers' registrations run on every server it builds.
  const registered = hoist.registrations ? statementsOf(j, `${hoist.registrations.parameter}(${hoist.variable});`) : [];
  if (hoist.registrations) takeRegistrations(context, hoist.registrations);
  ((fn.body as AnyNode).body as AnyNode[]).unshift(inner, ...(setup as AnyNode[]), ...registered);
  factory.comments = [
    ...((statement.comments as AnyNode[] | undefined) ?? []),
    ...((statementsOf(
      j,
      `// mcp-migrate: a fresh server per request (stateless Streamable HTTP); it was shared by every connection.\nx;`,
    )[0].comments as AnyNode[]) ?? []),
  ];
  statement.comments = null;
  const lastSetup = setup.length > 0 ? list.indexOf(setup.at(-1)!) : list.indexOf(statement);
  const keep = hoist.keepsInstance
    ? placeholder(
        context,
        `${statement.type === 'ExportNamedDeclaration' ? 'export ' : ''}${inner.kind ?? 'const'} ${hoist.variable} = ${hoist.factory}();`,
        'tight',
      )
    : undefined;
  if (keep) list.splice(lastSetup + 1, 0, keep);
  for (const moved of [...(setup as AnyNode[])].reverse()) list.splice(list.indexOf(moved), 1);
  list.splice(list.indexOf(statement), 1, factory);
  // A function that builds the server may also hold the session table: its statements are pruned like the handler's.
  if ((statementPath.parent?.node as AnyNode | undefined)?.type === 'BlockStatement') edit.blocks.add(list);
}

/** The getter that cached one server builds a fresh one per call, once per file (endpoints may share it). */
function uncacheServer(edit: FileEdit, getter: CachedServerGetter): boolean {
  if (getter.fn.file !== edit.file || edit.hoisted.has(getter.variable)) return false;
  edit.hoisted.add(getter.variable);
  uncacheGetter(edit.context, getter);
  return true;
}

/** `startSseServer(server)` → `startSseServer(createMcpServer)`; an imported server brings the factory's import. */
function passFactory(edit: FileEdit, hoist: ServerHoist, span: EndpointPlan['regions'][number]['fn']): boolean {
  const { context } = edit;
  const call = nodeAt(context, span, ['CallExpression']);
  const index = hoist.parameter!.index;
  const argument = (call?.arguments as AnyNode[] | undefined)?.[index];
  if (!call || !argument || argument.type !== 'Identifier') throw new Error('the call that passes the server was not found');
  const local = argument.name as string;
  const module = hoist.file === edit.file ? undefined : importModuleOf(context, local);
  const factory = module ? ensureNamedImport(context, [module], hoist.factory) : hoist.factory;
  (call.arguments as AnyNode[])[index] = context.j.identifier(factory) as never;
  edit.dead.add(local);
  return true;
}

function importModuleOf(context: TransformContext, local: string): string | undefined {
  const { j, root } = context;
  for (const declaration of root.find(j.ImportDeclaration).nodes() as unknown as AnyNode[]) {
    if (((declaration.specifiers as AnyNode[]) ?? []).some((s) => (s.local as AnyNode | undefined)?.name === local))
      return (declaration.source as AnyNode).value as string;
  }
  return undefined;
}

/** A test's own server, passed where a factory is now expected: `start(server)` → `start(() => server)`. */
function wrapInFactory(edit: FileEdit, span: EndpointPlan['regions'][number]['fn']): boolean {
  const argumentPath = pathAt(edit.context, span, ['Identifier', 'MemberExpression', 'CallExpression', 'NewExpression']);
  if (!argumentPath) throw new Error(`the argument at ${span.file}:${span.line} was not found`);
  const text = edit.context.j(argumentPath.node as never).toSource();
  argumentPath.replace(edit.context.j.identifier(inlinePlaceholder(edit.context, `() => ${text}`)) as never);
  return true;
}

/** `function start(server: Server)` → `function start(createMcpServer: () => Server)`. */
function parameterTakesFactory(edit: FileEdit, hoist: ServerHoist, parameter: NonNullable<ServerHoist['parameter']>): boolean {
  const fnPath = functionAt(edit.context, parameter.fn);
  const param = ((fnPath?.node as unknown as AnyNode | undefined)?.params as AnyNode[] | undefined)?.[parameter.index];
  if (!param || param.type !== 'Identifier') throw new Error(`the parameter \`${parameter.name}\` was not found`);
  param.name = hoist.factory;
  const annotation = param.typeAnnotation as AnyNode | undefined;
  if (annotation?.typeAnnotation) {
    const type = edit.context.j(annotation.typeAnnotation as never).toSource();
    param.typeAnnotation = edit.context.j.tsTypeAnnotation(
      edit.context.j.tsTypeReference(edit.context.j.identifier(inlinePlaceholder(edit.context, `() => ${type}`))),
    ) as never;
  }
  return true;
}

/** The kept statements before the handler declare the body it is handed (`let parsed; … parsed = JSON.parse(body)`). */
function readsBodyFirst(prelude: string[], parsedBody: string | undefined): boolean {
  if (!parsedBody || !/^[A-Za-z_$][\w$]*$/.test(parsedBody)) return false;
  const declared = new RegExp(`\\b(?:const|let|var)\\s+(?:\\{[^}]*\\b)?${parsedBody.replace(/\$/g, '\\$')}\\b`);
  return prelude.some((statement) => declared.test(statement));
}
