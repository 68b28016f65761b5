/**
 * mcp-handler — rule `per-request-transport`; target 2026-07-28 only.
 * The hand-wired stateless idiom (fresh server + `StreamableHTTPServerTransport({ sessionIdGenerator: undefined })`
 * per POST, 405 on GET/DELETE) becomes one `createMcpHandler(() => buildServer(), { legacy })` endpoint: the only v2
 * entry that serves protocol 2026-07-28 (and 2025-era clients statelessly). On a local server, an app made in the
 * same file moves to `createMcpExpressApp()` / `createMcpFastifyApp()` / `createMcpHonoApp()`, which validate Host
 * and Origin; elsewhere the Origin guard stays.
 */
import type { API, FileInfo } from 'jscodeshift';
import { createContext, print, type TransformContext, type TransformOptions } from './lib/context';
import { containsLocation, isFunctionNode, referencedNames, type AnyNode } from './lib/ast';
import { asRouteStatement, guardClauseRoute, parsedBodyArgument, sourceOf, statementLists, type RouteStatement } from './lib/routes';
import { inlinePlaceholder, placeholder } from './lib/emit';
import { afterImports, ensureNamedImport } from './lib/imports';
import { removeDeadDeclarations } from './lib/dead-code';
import { GUARD_NAME, quoted, WEB_GUARD_NAME } from './lib/templates';
import { factoryArrow, serverFactoryOf } from './lib/server-factory';
import { importOrigin, isLocalServer, routeFramework } from './lib/framework';
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
    else if (typeof result === 'string' && result !== 'handled')
      changed = addMarker(context, anchor.line, 'per-request-transport', result) || changed;
  }
  return changed ? print(context) : undefined;
}

function handlerLegacyMode(context: TransformContext): string {
  return context.options.legacy === 'reject' ? 'reject' : 'stateless';
}

/**
 * createMcpHandler's options: `legacy`, plus what the old transport's options still mean per request
 * (`enableJsonResponse: true` is `responseMode: 'json'`; the DNS-rebinding options are the app's job now).
 */
function handlerOptions(context: TransformContext, region: AnyNode): string {
  const { j } = context;
  const options = [`legacy: ${quoted(context.quote, handlerLegacyMode(context))}`];
  const construction = (
    j(region as never)
      .find(j.NewExpression)
      .nodes() as unknown as AnyNode[]
  ).find((n) => /StreamableHTTPServerTransport$/.test(sourceOf(j, n.callee as AnyNode)));
  const [argument] = (construction?.arguments as AnyNode[] | undefined) ?? [];
  for (const property of argument?.type === 'ObjectExpression' ? (argument.properties as AnyNode[]) : []) {
    const name = (property.key as AnyNode | undefined)?.name;
    const value = property.value as AnyNode | undefined;
    if (name === 'enableJsonResponse' && value && (value.value === true || sourceOf(j, value) === 'true'))
      options.push(`responseMode: ${quoted(context.quote, 'json')}`);
  }
  return `{ ${options.join(', ')} }`;
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
    const framework = routeFramework(context, hit.receiver, handler);
    if (framework === 'unknown')
      return 'this endpoint is served by an unrecognised framework; serve it with createMcpHandler(() => buildServer()) by hand';
    const factory = serverFactoryOf(context, handler, handler, paramNames(handler));
    if (typeof factory === 'string') return `${factory}; serve the endpoint with createMcpHandler(() => buildServer()) by hand`;
    if (!factory)
      return 'no request-independent server factory found; serve the endpoint with createMcpHandler(() => buildServer()) by hand';
    const handlerSource = sourceOf(j, handler);
    // createMcp*App() validates Host and Origin against localhost: right for a local server, a break for one that
    // may be deployed (bound to every interface): that one gets `{ host: '0.0.0.0' }` (no validation, and a warning
    // at start-up) and keeps the Origin guard.
    const local = isLocalServer(context);
    const replaced = replaceApp(context, hit.receiverText, framework, local);
    const validated = !!replaced && local;
    const mount = MOUNTS[framework]({
      context,
      receiver: hit.receiverText,
      path: hit.pathText,
      middlewares: post.middlewares.map((m) => `${sourceOf(j, m)}, `).join(''),
      params: ((handler.params as AnyNode[]) ?? []).map((p) => (p.type === 'Identifier' ? (p.name as string) : undefined)),
      annotations: ((handler.params as AnyNode[]) ?? []).map((p) =>
        p.type === 'Identifier' && p.typeAnnotation ? sourceOf(j, p.typeAnnotation as AnyNode) : '',
      ),
      handlerName: uniqueName(context, 'mcpHandler'),
      factory: factoryArrow(factory),
      options: handlerOptions(context, handler),
      guarded: !validated && handlerSource.includes(`${framework === 'hono' ? WEB_GUARD_NAME : GUARD_NAME}(`),
      appReplaced: !!replaced,
      parsedBody: parsedBodyArgument(j, [handler]),
    });
    const code = [
      `// mcp-migrate: createMcpHandler serves protocol 2026-07-28 with a fresh server per request; legacy: ${quoted(context.quote, handlerLegacyMode(context))}`,
      handlerLegacyMode(context) === 'stateless'
        ? `// also serves 2025-era clients, and GET/DELETE answer 405.`
        : `// refuses 2025-era clients (400), and GET/DELETE answer 405.`,
      ...(replaced && !local
        ? [
            `// The server listens on every interface, so \`${hit.receiverText}\` is made with { host: '0.0.0.0' }: no Host/Origin checks there (it warns`,
            `// at start-up) and the Origin guard stays. For a local server, listen on 127.0.0.1 and drop that option.`,
          ]
        : []),
      ...mount,
    ].join('\n');
    const deadCandidates = new Set<string>();
    for (const route of siblings) for (const name of referencedNames(j, route.statement)) deadCandidates.add(name);
    if (replaced) deadCandidates.add(replaced);
    if (validated) [GUARD_NAME, WEB_GUARD_NAME].forEach((name) => deadCandidates.add(name));
    const insertAt = body.indexOf(siblings[0].statement);
    for (const route of siblings) body.splice(body.indexOf(route.statement), 1);
    body.splice(insertAt, 0, placeholder(context, code, 'block'));
    removeDeadDeclarations(context, deadCandidates);
    return true;
  }
  return undefined;
}

interface MountInput {
  context: TransformContext;
  receiver: string;
  path: string;
  /** Route arguments between the path and the handler (express middleware, fastify route options), with `, `. */
  middlewares: string;
  /** The old handler's parameter names (undefined for patterns), reused so the route reads like the old one. */
  params: Array<string | undefined>;
  /** Their type annotations as written (`: FastifyRequest`), or '': kept where contextual typing may not reach. */
  annotations: string[];
  handlerName: string;
  /** `() => buildServer()`, or a block arrow that also configures the server. */
  factory: string;
  /** createMcpHandler's options object, as code. */
  options: string;
  /** The old handler started with our Origin guard and the app does not validate: keep the guard. */
  guarded: boolean;
  /** The app is now made by createMcp*App (Host and Origin validation, parsed body). */
  appReplaced: boolean;
  /** The parsed body as the old handler passed it to the transport (koa), if it did. */
  parsedBody?: string;
}

function handlerDeclaration(input: MountInput, node: boolean): string {
  const { context, handlerName, factory, options } = input;
  const createMcpHandler = ensureNamedImport(context, V2_SERVER, 'createMcpHandler');
  const handler = `${createMcpHandler}(${factory}, ${options})`;
  return `const ${handlerName} = ${node ? `${ensureNamedImport(context, V2_NODE, 'toNodeHandler')}(${handler})` : handler};`;
}

/** The route serving every method of the endpoint through createMcpHandler, per framework. */
const MOUNTS: Record<'express' | 'fastify' | 'hono' | 'koa', (input: MountInput) => string[]> = {
  express(input) {
    const { receiver, path, middlewares, handlerName: h } = input;
    const declaration = handlerDeclaration(input, true);
    if (!input.guarded) return [declaration, `${receiver}.all(${path}, ${middlewares}(req, res) => void ${h}(req, res, req.body));`];
    return [
      declaration,
      `${receiver}.all(${path}, ${middlewares}(req, res) => {`,
      `  if (${GUARD_NAME}(req, res)) return;`,
      `  void ${h}(req, res, req.body);`,
      `});`,
    ];
  },
  // fastify parsed the body; hijack() hands the raw response to the Node handler (no reply.send() after it).
  fastify(input) {
    const { receiver, path, middlewares, handlerName: h } = input;
    const request = input.params[0]?.replace(/^_+/, '') || 'request';
    const reply = input.params[1]?.replace(/^_+/, '') || 'reply';
    return [
      handlerDeclaration(input, true),
      `${receiver}.all(${path}, ${middlewares}async (${request}${input.annotations[0] ?? ''}, ${reply}${input.annotations[1] ?? ''}) => {`,
      `  ${reply}.hijack();`,
      ...(input.guarded ? [`  if (${GUARD_NAME}(${request}.raw, ${reply}.raw)) return;`] : []),
      `  await ${h}(${request}.raw, ${reply}.raw, ${request}.body);`,
      `});`,
    ];
  },
  // koa: no createMcpKoaApp exists, so the Origin guard stays; respond = false hands ctx.res to the Node handler.
  koa(input) {
    const { receiver, path, middlewares, handlerName: h } = input;
    const ctx = input.params[0]?.replace(/^_+/, '') || 'ctx';
    return [
      handlerDeclaration(input, true),
      `${receiver}.all(${path}, ${middlewares}async (${ctx}${input.annotations[0] ?? ''}) => {`,
      `  ${ctx}.respond = false;`,
      ...(input.guarded ? [`  if (${GUARD_NAME}(${ctx}.req, ${ctx}.res)) return;`] : []),
      `  await ${h}(${ctx}.req, ${ctx}.res${input.parsedBody ? `, ${input.parsedBody}` : ''});`,
      `});`,
    ];
  },
  // hono is Web-standard: the handler's fetch() takes the Request and returns the Response. (createMcpHonoApp's
  // body parser reads a clone, so the raw body is still there; its `c.get('parsedBody')` is untyped on a plain Hono.)
  hono(input) {
    const { receiver, path, middlewares, handlerName: h } = input;
    const c = input.params[0]?.replace(/^_+/, '') || 'c';
    const call = input.guarded ? `${WEB_GUARD_NAME}(${c}.req.raw) ?? ${h}.fetch(${c}.req.raw)` : `${h}.fetch(${c}.req.raw)`;
    return [handlerDeclaration(input, false), `${receiver}.all(${path}, ${middlewares}(${c}${input.annotations[0] ?? ''}) => ${call});`];
  },
};

/**
 * The app made in this file with no options (`express()`, `Fastify()`, `new Hono()`) becomes the framework's
 * `createMcp*App()`, which validates Host and Origin (127.0.0.1 by default), or `createMcp*App({ host: '0.0.0.0' })`
 * for a server that is not known to be local. Returns the replaced callee's name.
 */
function replaceApp(
  context: TransformContext,
  receiver: string,
  framework: 'express' | 'fastify' | 'hono' | 'koa',
  localServer: boolean,
): string | undefined {
  if (framework === 'koa') return undefined;
  const { j, root } = context;
  const declarator = root.find(j.VariableDeclarator, { id: { name: receiver } }).nodes()[0] as unknown as AnyNode | undefined;
  const init = declarator?.init as AnyNode | undefined;
  if (
    !init ||
    (init.type !== 'CallExpression' && init.type !== 'NewExpression') ||
    (init.arguments as AnyNode[]).length > 0 ||
    init.typeParameters ||
    init.typeArguments
  )
    return undefined;
  const callee = init.callee as AnyNode;
  const local = callee.type === 'Identifier' ? (callee.name as string) : undefined;
  const origin = local ? importOrigin(context, local) : undefined;
  if (!local || !origin || !APP_CONSTRUCTORS[framework].some(([module, name]) => origin.module === module && origin.name === name))
    return undefined;
  const createApp = ensureNamedImport(context, APP_MODULES[framework], APP_FACTORIES[framework]);
  const options = localServer ? '' : `{ host: ${quoted(context.quote, '0.0.0.0')} }`;
  declarator!.init = j.identifier(inlinePlaceholder(context, `${createApp}(${options})`)) as never;
  return local;
}

/** The app constructors createMcp*App replaces: express's default export, fastify's, hono's `Hono` class. */
const APP_CONSTRUCTORS: Record<'express' | 'fastify' | 'hono', Array<[string, string]>> = {
  express: [
    ['express', 'default'],
    ['express', '*'],
  ],
  fastify: [
    ['fastify', 'default'],
    ['fastify', '*'],
    ['fastify', 'fastify'],
  ],
  hono: [['hono', 'Hono']],
};
const APP_MODULES = { express: V2_EXPRESS, fastify: ['@modelcontextprotocol/fastify'], hono: ['@modelcontextprotocol/hono'] };
const APP_FACTORIES = { express: 'createMcpExpressApp', fastify: 'createMcpFastifyApp', hono: 'createMcpHonoApp' };

/** The path half of `req.method === 'POST' && url.pathname === '/mcp'` (either order); the test itself when it has no method. */
function pathTest(j: TransformContext['j'], test: AnyNode): AnyNode | undefined {
  const mentionsPath = (node: AnyNode) => /(?:url|pathname|path)\b/i.test(sourceOf(j, node));
  const mentionsMethod = (node: AnyNode) => /\.method\b/.test(sourceOf(j, node));
  if (!mentionsMethod(test)) return mentionsPath(test) ? test : undefined;
  if (test.type !== 'LogicalExpression' || test.operator !== '&&') return undefined;
  const sides = [test.left as AnyNode, test.right as AnyNode];
  const path = sides.find((side) => mentionsPath(side) && !mentionsMethod(side));
  const method = sides.find((side) => side !== path);
  return path && method && mentionsMethod(method) && !mentionsPath(method) ? path : undefined;
}

interface BranchRegion {
  fn: AnyNode;
  /** The block that becomes the call to the handler. */
  block: AnyNode;
  /** The `if` whose consequent the block is (none for a method-named handler). */
  branch?: AnyNode;
  /** A guard-clause route (`if (url.pathname !== '/mcp') return …`): only the statements from here on are the route. */
  from?: number;
}

/** The innermost `if (path…)` (or `if (method && path)`) block around the anchor, in its function. */
function branchRegion(context: TransformContext, anchor: Finding): BranchRegion | undefined {
  const { j, root } = context;
  const branch = root
    .find(j.IfStatement)
    .filter((p) => containsLocation(p.node.consequent as unknown as AnyNode, anchor) && !!pathTest(j, p.node.test as unknown as AnyNode))
    .paths()
    .at(-1);
  if (!branch) return undefined;
  let fnPath = branch.parent;
  while (fnPath && !isFunctionNode(fnPath.node as unknown as AnyNode)) fnPath = fnPath.parent;
  if (!fnPath) return undefined;
  const node = branch.node as unknown as AnyNode;
  return { fn: fnPath.node as unknown as AnyNode, block: node.consequent as AnyNode, branch: node };
}

/** `export async function POST(request)`, `export const POST = async (request) => {…}`, `{ POST: async (req) => {…} }`. */
function methodHandlerRegion(context: TransformContext, anchor: Finding): BranchRegion | undefined {
  const { j, root } = context;
  const named = (path: { node: unknown; parent?: { node: unknown; parent?: unknown } | null }): boolean => {
    const node = path.node as AnyNode;
    const parent = path.parent?.node as AnyNode | undefined;
    if (node.type === 'FunctionDeclaration')
      return (node.id as AnyNode | null)?.name === 'POST' && parent?.type === 'ExportNamedDeclaration';
    if (parent?.type === 'VariableDeclarator') {
      const statement = (path.parent?.parent as { parent?: { node: AnyNode } } | undefined)?.parent?.node;
      return (parent.id as AnyNode).name === 'POST' && statement?.type === 'ExportNamedDeclaration';
    }
    if (parent?.type === 'ObjectProperty' || parent?.type === 'Property')
      return ((parent.key as AnyNode).name ?? (parent.key as AnyNode).value) === 'POST';
    if (node.type === 'ObjectMethod') return ((node.key as AnyNode).name ?? (node.key as AnyNode).value) === 'POST';
    return false;
  };
  const fn = root
    .find(j.Function)
    // (the body: babel gives an exported function declaration no location of its own)
    .filter((p) => !!p.node.body.loc && containsLocation(p.node.body as unknown as AnyNode, anchor) && named(p as never))
    .nodes()
    .at(-1) as unknown as AnyNode | undefined;
  return fn && (fn.body as AnyNode).type === 'BlockStatement' ? { fn, block: fn.body as AnyNode } : undefined;
}

/** After a path guard, every statement serves MCP: it uses the server or the transport, or checks the method. */
function onlyServesMcp(context: TransformContext, region: AnyNode): boolean {
  const { j } = context;
  const mcpNames = new Set<string>();
  for (const call of j(region as never)
    .find(j.CallExpression, { callee: { property: { name: 'connect' } } })
    .nodes() as unknown as AnyNode[]) {
    const object = (call.callee as AnyNode).object as AnyNode;
    if (object.type === 'Identifier') mcpNames.add(object.name as string);
    for (const argument of call.arguments as AnyNode[]) if (argument.type === 'Identifier') mcpNames.add(argument.name as string);
  }
  return ((region.body as AnyNode[]) ?? []).every((statement) => {
    if (statement.type === 'IfStatement' && /\.method\b/.test(sourceOf(j, statement.test as AnyNode))) return true;
    const names = referencedNames(j, statement);
    const declared =
      statement.type === 'VariableDeclaration' ? (statement.declarations as AnyNode[]).map((d) => (d.id as AnyNode).name as string) : [];
    return declared.some((name) => mcpNames.has(name)) || [...names].some((name) => mcpNames.has(name));
  });
}

/**
 * node:http and fetch-handler style: the `if (path…)` branch holding the per-request idiom answers through the
 * handler, for every method (a method check in the test goes: the handler answers GET/DELETE with 405 itself).
 */
function rewriteBranch(context: TransformContext, anchor: Finding, handled: Set<AnyNode>): true | string | undefined {
  const { j } = context;
  const region: BranchRegion | undefined =
    branchRegion(context, anchor) ?? methodHandlerRegion(context, anchor) ?? guardClauseRoute(context, anchor);
  if (!region)
    return 'the per-request transport is not in a recognisable route; serve it with createMcpHandler(() => buildServer()) by hand';
  const { fn, block, branch } = region;
  if (handled.has(block)) return undefined;
  handled.add(block);
  const from = region.from ?? 0;
  // The statements that become the handler call; a guard-clause route keeps what comes before its route.
  const kept = ((block.body as AnyNode[]) ?? []).slice(0, from);
  const consequent = from === 0 ? block : (j.blockStatement(((block.body as AnyNode[]) ?? []).slice(from) as never) as unknown as AnyNode);
  if (from > 0 && !onlyServesMcp(context, consequent))
    return 'the route does more than serve MCP after its path check; serve it with createMcpHandler(() => buildServer()) by hand';
  const params = (fn.params as AnyNode[] | undefined) ?? [];
  // A method-named handler (Next.js `export async function POST(request)`, Bun `routes`) is Web-standard.
  const methodNamed = !branch && region.from === undefined;
  const web = methodNamed || (params.length === 1 && params[0].type === 'Identifier');
  const [req, res] = params;
  if (req?.type !== 'Identifier' || (!web && res?.type !== 'Identifier') || !fn.async)
    return 'the branch is not in an async (req, res) or (request) handler; serve it with createMcpHandler by hand';
  if (consequent.type !== 'BlockStatement') return 'the branch is not a block; serve it with createMcpHandler by hand';
  const factory = serverFactoryOf(context, consequent, from === 0 ? consequent : block, paramNames(fn));
  if (typeof factory === 'string') return `${factory}; serve the endpoint with createMcpHandler(() => buildServer()) by hand`;
  if (!factory) return 'no request-independent server factory found; serve the endpoint with createMcpHandler(() => buildServer()) by hand';
  const options = handlerOptions(context, consequent);
  const guarded = sourceOf(j, consequent).includes(`${GUARD_NAME}(`);
  const endsWithReturn = ((consequent.body as AnyNode[]) ?? []).at(-1)?.type === 'ReturnStatement';
  const deadCandidates = referencedNames(j, consequent);
  deadCandidates.add(WEB_GUARD_NAME);
  if (branch) branch.test = pathTest(j, branch.test as AnyNode) as never;
  const handlerName = uniqueName(context, 'mcpHandler');
  const createMcpHandler = ensureNamedImport(context, V2_SERVER, 'createMcpHandler');
  const declarations: string[] = [];
  if (web) {
    const request = req.name as string;
    const checkHost = isLocalServer(context);
    const hostnames = uniqueName(context, 'mcpAllowedHostnames');
    const origins = uniqueName(context, 'mcpAllowedOrigins');
    const checks = [
      ...(checkHost ? [`${ensureNamedImport(context, V2_SERVER, 'hostHeaderValidationResponse')}(${request}, ${hostnames})`] : []),
      `${ensureNamedImport(context, V2_SERVER, 'originValidationResponse')}(${request}, ${origins})`,
    ];
    block.body = [
      ...kept,
      placeholder(
        context,
        [
          `// mcp-migrate: createMcpHandler serves protocol 2026-07-28 with a fresh server per request${methodNamed ? '' : ' (GET/DELETE answer 405)'},`,
          `// after the ${checkHost ? 'Host and Origin checks' : 'Origin check'} the spec requires (DNS rebinding).`,
          `return ${checks.join(' ?? ')} ?? ${handlerName}.fetch(${request});`,
        ].join('\n'),
        'tight',
      ),
    ];
    declarations.push(
      checkHost
        ? `// mcp-migrate: only localhost passes the Host and Origin checks (DNS rebinding); add the hostnames you serve from.`
        : `// mcp-migrate: only pages on localhost pass the Origin check (DNS rebinding); add the hostnames of your web clients.`,
      ...(checkHost ? [`const ${hostnames} = ${ensureNamedImport(context, V2_SERVER, 'localhostAllowedHostnames')}();`] : []),
      `const ${origins} = ${ensureNamedImport(context, V2_SERVER, 'localhostAllowedOrigins')}();`,
      `const ${handlerName} = ${createMcpHandler}(${factoryArrow(factory)}, ${options});`,
    );
  } else {
    const toNodeHandler = ensureNamedImport(context, V2_NODE, 'toNodeHandler');
    block.body = [
      ...kept,
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
    declarations.push(`const ${handlerName} = ${toNodeHandler}(${createMcpHandler}(${factoryArrow(factory)}, ${options}));`);
  }
  const body = context.root.find(j.Program).get('body').value as AnyNode[];
  let index = afterImports(body);
  // After the imports and the declarations the factory needs (a function declaration is hoisted; a const is not).
  const factoryRoot = /^(?:new\s+)?([\w$]+)/.exec(factory.init)?.[1];
  body.forEach((s, i) => {
    if (
      s.type === 'VariableDeclaration' &&
      factoryRoot &&
      (s.declarations as AnyNode[]).some((d) => (d.id as AnyNode).name === factoryRoot)
    )
      index = Math.max(index, i + 1);
  });
  body.splice(index, 0, placeholder(context, declarations.join('\n'), 'block'));
  removeDeadDeclarations(context, deadCandidates);
  return true;
}
