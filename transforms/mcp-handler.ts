/**
 * mcp-handler — rule `per-request-transport`; target 2026-07-28 only.
 * The hand-wired stateless idiom (fresh server + `StreamableHTTPServerTransport({ sessionIdGenerator: undefined })`
 * per POST, 405 on GET/DELETE) becomes one `createMcpHandler(() => buildServer(), { legacy })` endpoint: the only v2
 * entry that serves protocol 2026-07-28 (and 2025-era clients statelessly). Express apps made in the same file move
 * to `createMcpExpressApp()`, which validates Host and Origin; elsewhere the Origin guard stays.
 */
import type { API, FileInfo } from 'jscodeshift';
import { createContext, print, type TransformContext, type TransformOptions } from './lib/context';
import { containsLocation, isFunctionNode, referencedNames, type AnyNode } from './lib/ast';
import { asRouteStatement, sourceOf, statementLists, type RouteStatement } from './lib/routes';
import { placeholder } from './lib/emit';
import { afterImports, ensureNamedImport } from './lib/imports';
import { removeDeadDeclarations } from './lib/dead-code';
import { GUARD_NAME } from './lib/templates';
import { addMarker, uniqueName } from './hoist-server-factory';
import type { Finding } from '../src/model';

export const id = 'mcp-handler';
export const rules = ['per-request-transport'];
export const parser = 'tsx';

const V2_SERVER = ['@modelcontextprotocol/server'];
const V2_NODE = ['@modelcontextprotocol/node'];
const V2_EXPRESS = ['@modelcontextprotocol/express'];

export default function transform(file: FileInfo, api: API, options: TransformOptions = {}): string | undefined {
  const context = createContext(file, api, options, rules);
  const anchors = context.findings;
  if (anchors.length === 0) return undefined;
  let changed = false;
  const handled = new Set<AnyNode>();
  for (const anchor of anchors) {
    const result = rewriteRoutes(context, anchor, handled) ?? rewriteBranch(context, anchor, handled);
    if (result === true) changed = true;
    else if (typeof result === 'string' && result !== 'handled') changed = addMarker(context, anchor.line, 'per-request-transport', result) || changed;
  }
  return changed ? print(context) : undefined;
}

function handlerLegacyMode(context: TransformContext): string {
  return context.options.legacy === 'reject' ? 'reject' : 'stateless';
}

/** `const server = F` (F a call or `new`) in the handler, with the server `connect()`ed: F builds a fresh server. */
function factoryOf(context: TransformContext, region: AnyNode, params: Set<string>): string | undefined {
  const { j } = context;
  for (const call of j(region as never).find(j.CallExpression, { callee: { property: { name: 'connect' } } }).nodes() as unknown as AnyNode[]) {
    const object = (call.callee as AnyNode).object as AnyNode;
    let init: AnyNode | undefined = object.type === 'CallExpression' || object.type === 'NewExpression' ? object : undefined;
    if (object.type === 'Identifier') {
      init = (j(region as never).find(j.VariableDeclarator, { id: { name: object.name as string } }).nodes()[0] as unknown as AnyNode | undefined)?.init as AnyNode | undefined;
    }
    if (init?.type === 'AwaitExpression') init = init.argument as AnyNode;
    if (!init || (init.type !== 'CallExpression' && init.type !== 'NewExpression')) continue;
    // The factory runs outside the request handler: it may not use the request.
    if ([...referencedNames(j, init)].some((name) => params.has(name))) return undefined;
    return sourceOf(j, init);
  }
  return undefined;
}

function paramNames(fn: AnyNode): Set<string> {
  return new Set(((fn.params as AnyNode[]) ?? []).filter((p) => p.type === 'Identifier').map((p) => p.name as string));
}

function rewriteRoutes(context: TransformContext, anchor: Finding, handled: Set<AnyNode>): true | 'handled' | string | undefined {
  const { j } = context;
  for (const body of statementLists(context)) {
    const routes = body.map((s, i) => asRouteStatement(j, s, i)).filter((r): r is RouteStatement => !!r);
    const hit = routes.find((r) => containsLocation(r.statement, anchor));
    if (!hit) continue;
    // Another anchor of the same endpoint already rewrote it.
    if (handled.has(hit.statement)) return 'handled';
    const siblings = routes.filter((r) => r.receiverText === hit.receiverText && r.pathText === hit.pathText);
    siblings.forEach((r) => handled.add(r.statement));
    const post = hit.registrations.find((g) => g.method === 'post' || g.method === 'all') ?? hit.registrations[0];
    const handler = post.handler;
    if (!isFunctionNode(handler)) return 'the endpoint handler is not inline; serve it with createMcpHandler(() => buildServer()) by hand';
    const factory = factoryOf(context, handler, paramNames(handler));
    if (!factory) return 'no request-independent server factory found; serve the endpoint with createMcpHandler(() => buildServer()) by hand';
    const guarded = sourceOf(j, handler).includes(`${GUARD_NAME}(`);
    const appCreated = replaceExpressApp(context, hit.receiverText);
    const handlerName = uniqueName(context, 'mcpHandler');
    const toNodeHandler = ensureNamedImport(context, V2_NODE, 'toNodeHandler');
    const createMcpHandler = ensureNamedImport(context, V2_SERVER, 'createMcpHandler');
    const middlewares = post.middlewares.map((m) => `${sourceOf(j, m)}, `).join('');
    const quote = context.quote === 'double' ? '"' : "'";
    const keepGuard = guarded && !appCreated;
    const route = keepGuard
      ? `${hit.receiverText}.all(${hit.pathText}, ${middlewares}(req, res) => {\n  if (${GUARD_NAME}(req, res)) return;\n  void ${handlerName}(req, res, req.body);\n});`
      : `${hit.receiverText}.all(${hit.pathText}, ${middlewares}(req, res) => void ${handlerName}(req, res, req.body));`;
    const code = [
      `// mcp-migrate: createMcpHandler serves protocol 2026-07-28 with a fresh server per request; legacy: ${quote}stateless${quote}`,
      `// also serves 2025-era clients, and GET/DELETE answer 405.`,
      `const ${handlerName} = ${toNodeHandler}(${createMcpHandler}(() => ${factory}, { legacy: ${quote}${handlerLegacyMode(context)}${quote} }));`,
      route,
    ].join('\n');
    const deadCandidates = new Set<string>();
    for (const route of siblings) for (const name of referencedNames(j, route.statement)) deadCandidates.add(name);
    if (appCreated) deadCandidates.add(GUARD_NAME);
    const insertAt = body.indexOf(siblings[0].statement);
    for (const route of siblings) body.splice(body.indexOf(route.statement), 1);
    body.splice(insertAt, 0, placeholder(context, code, 'block'));
    removeDeadDeclarations(context, deadCandidates);
    return true;
  }
  return undefined;
}

/** `const app = express()` in this file becomes `createMcpExpressApp()` (Host + Origin validation). */
function replaceExpressApp(context: TransformContext, receiver: string): boolean {
  const { j, root } = context;
  const declarator = root
    .find(j.VariableDeclarator, { id: { name: receiver } })
    .filter((p) => {
      const init = p.node.init as unknown as AnyNode | null;
      return !!init && init.type === 'CallExpression' && /^(?:express|express\.default)$/.test(sourceOf(j, init.callee as AnyNode)) && (init.arguments as AnyNode[]).length === 0;
    })
    .nodes()[0] as unknown as AnyNode | undefined;
  if (!declarator) return false;
  const createApp = ensureNamedImport(context, V2_EXPRESS, 'createMcpExpressApp');
  declarator.init = j.callExpression(j.identifier(createApp), []) as never;
  return true;
}

/** node:http style: the `if (path…)` branch holding the per-request idiom answers through the handler. */
function rewriteBranch(context: TransformContext, anchor: Finding, handled: Set<AnyNode>): true | string | undefined {
  const { j, root } = context;
  const branch = root
    .find(j.IfStatement)
    .filter((p) => containsLocation(p.node.consequent as unknown as AnyNode, anchor) && /(?:url|pathname|path)\b/i.test(sourceOf(j, p.node.test as unknown as AnyNode)) && !/\.method\b/.test(sourceOf(j, p.node.test as unknown as AnyNode)))
    .paths()
    .at(-1);
  if (!branch) return 'the per-request transport is not in a recognisable route; serve it with createMcpHandler(() => buildServer()) by hand';
  const node = branch.node as unknown as AnyNode;
  if (handled.has(node)) return undefined;
  handled.add(node);
  let fnPath = branch.parent;
  while (fnPath && !isFunctionNode(fnPath.node as unknown as AnyNode)) fnPath = fnPath.parent;
  const fn = fnPath?.node as unknown as AnyNode | undefined;
  const [req, res] = (fn?.params as AnyNode[] | undefined) ?? [];
  if (!fn || req?.type !== 'Identifier' || res?.type !== 'Identifier' || !fn.async) return 'the branch is not in an async (req, res) handler; serve it with createMcpHandler by hand';
  const consequent = node.consequent as AnyNode;
  const factory = factoryOf(context, consequent, paramNames(fn));
  if (!factory) return 'no request-independent server factory found; serve the endpoint with createMcpHandler(() => buildServer()) by hand';
  const guarded = sourceOf(j, consequent).includes(`${GUARD_NAME}(`);
  const endsWithReturn = ((consequent.body as AnyNode[]) ?? []).at(-1)?.type === 'ReturnStatement';
  const handlerName = uniqueName(context, 'mcpHandler');
  const toNodeHandler = ensureNamedImport(context, V2_NODE, 'toNodeHandler');
  const createMcpHandler = ensureNamedImport(context, V2_SERVER, 'createMcpHandler');
  const quote = context.quote === 'double' ? '"' : "'";
  const deadCandidates = referencedNames(j, consequent);
  consequent.body = [
    placeholder(
      context,
      [
        `// mcp-migrate: createMcpHandler serves protocol 2026-07-28 with a fresh server per request (GET/DELETE answer 405).`,
        ...(guarded ? [`if (${GUARD_NAME}(${req.name}, ${res.name})) return;`] : []),
        `await ${handlerName}(${req.name}, ${res.name});`,
        ...(endsWithReturn ? ['return;'] : []),
      ].join('\n'),
      'tight',
    ),
  ];
  const body = root.find(j.Program).get('body').value as AnyNode[];
  let index = afterImports(body);
  // After the imports and the declarations the factory needs (a function declaration is hoisted; a const is not).
  const factoryRoot = /^(?:new\s+)?([\w$]+)/.exec(factory)?.[1];
  body.forEach((s, i) => {
    if (s.type === 'VariableDeclaration' && factoryRoot && (s.declarations as AnyNode[]).some((d) => (d.id as AnyNode).name === factoryRoot)) index = Math.max(index, i + 1);
  });
  body.splice(index, 0, placeholder(context, `const ${handlerName} = ${toNodeHandler}(${createMcpHandler}(() => ${factory}, { legacy: ${quote}${handlerLegacyMode(context)}${quote} }));`, 'block'));
  removeDeadDeclarations(context, deadCandidates);
  return true;
}
