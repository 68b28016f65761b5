/**
 * agents-handler — rules `legacy-sse-transport` (`McpAgent.serveSSE`/`mount`/`serve(…, { transport: 'sse' })`) and
 * `session-id` (`McpAgent.serve(path)`: a session per client in a Durable Object), from the plan the analysis put on
 * the finding (src/analysis/mcp-frameworks/agents.ts). The `server` and `init()` of the McpAgent subclass become a
 * server factory, served statelessly on the Streamable HTTP route; the HTTP+SSE routes answer 410 naming it.
 * - 2026-07-28: an SDK v2 factory served by `createMcpHandler(factory)` from `agents/mcp/server` (it validates Host
 *   and Origin). When raising agents cannot install (jina-ai/MCP's lock keeps agents 0.0's `ai@4`, which wants zod 3),
 *   the engine asks for the SDK's own `createMcpHandler` (@modelcontextprotocol/server) instead: a fetch handler like
 *   the 2025-11-25 one (POST only, Origin checked, the route's `ctx.props` passed in), and `agents` is left unused.
 * - 2025-11-25: a v1 factory served by a fetch handler with the v1 SDK's `WebStandardStreamableHTTPServerTransport`
 *   (POST only, Origin checked); the agent's props come from the route's `ctx.props`.
 * The class stays exported under its name as an empty Durable Object (wrangler's migrations and binding name it). An
 * agent that holds session state gets a marker instead.
 */
import type { API, FileInfo } from 'jscodeshift';
import { createContext, print, type TransformContext, type TransformOptions } from './lib/context';
import type { AnyNode } from './lib/ast';
import { inlinePlaceholder, placeholder } from './lib/emit';
import { ensureNamedImport, pruneImports } from './lib/imports';
import { addMarker, uniqueName } from './lib/markers';
import { babelColumn } from './lib/locate';
import { quoted } from '../src/frameworks/code';
import { adapterFor } from '../src/frameworks';
import {
  agentBlocker,
  AGENTS_HANDLER_MODULE,
  type AgentRoute,
  type AgentsHandlerModule,
  type AgentsPlan,
} from '../src/analysis/mcp-frameworks/agents';
import { guardStatements, type GuardContext } from './lib/guard';
import { statelessBody, V1_WEB_TRANSPORT } from './lib/endpoint-body';

export const id = 'agents-handler';
export const rules = ['legacy-sse-transport', 'session-id'];
export const parser = 'tsx';
/** `createMcpHandler` in `agents/mcp/server` (read in 0.32.0 `dist/mcp/server/index.d.ts`), where it is imported. */
export const requires = {
  uses: /from ['"]agents\/mcp\/server['"]/,
  packages: [
    {
      name: 'agents',
      floor: '0.32.0',
      range: '^0.32.0',
      why: '`createMcpHandler(factory)` from `agents/mcp/server` serves a stateless SDK v2 server',
    },
    // (agents 0.32 pins the v1 SDK it peers with: a project that still lists the SDK must allow that version)
    {
      name: '@modelcontextprotocol/sdk',
      floor: '1.32.2',
      range: '^1.32.2',
      why: 'agents 0.32 peers with @modelcontextprotocol/sdk 1.32.2',
    },
  ],
};
export const note = {
  message:
    'The McpAgent class stays exported as an empty Durable Object so the Durable Object binding and the migrations in wrangler.jsonc ' +
    'keep working; nothing routes to it any more. To retire it, add a migration `{ "tag": "…", "deleted_classes": ["<class>"] }`, ' +
    'remove its `durable_objects` binding, then delete the class.',
  anchor: /extends DurableObject\b/,
};

const V1_SERVER = ['@modelcontextprotocol/sdk/server/mcp.js', '@modelcontextprotocol/sdk/server/mcp'];
const V2_TARGET = '2026-07-28';

export default function transform(file: FileInfo, api: API, options: TransformOptions = {}): string | undefined {
  const context = createContext(file, api, options, rules);
  const plans = new Map<string, AgentsPlan>();
  for (const finding of context.findings) {
    const plan = finding.data?.agents as AgentsPlan | undefined;
    if (plan) plans.set(plan.agentClass, plan);
  }
  const target = options.target ?? V2_TARGET;
  const handlerModule = options.agentsHandlerModule ?? AGENTS_HANDLER_MODULE;
  let changed = false;
  for (const plan of plans.values()) {
    const blocker = agentBlocker(plan, target, handlerModule);
    if (blocker) changed = addMarker(context, blocker.line, 'legacy-sse-transport', `not migrated: ${blocker.reason}`) || changed;
    else changed = migrate(context, plan, target, handlerModule) || changed;
  }
  return changed ? print(context) : undefined;
}

/** The names the migrated code declares, and the agent's init() statements rewritten for a factory. */
interface FactoryParts {
  factory: string;
  handler: string;
  /** The local that holds the request's props inside the factory, when init() read `this.props`. */
  props?: string;
  setup: string[];
}

function migrate(context: TransformContext, plan: AgentsPlan, target: string, handlerModule: AgentsHandlerModule): boolean {
  const { j, root } = context;
  const agent = root.find(j.ClassDeclaration, { id: { name: plan.agentClass } }).paths()[0];
  if (!agent) return false;
  const s = (t: string) => quoted(context.quote, t);
  const v2 = target === V2_TARGET;
  // On 2026-07-28 the v1 McpServer import becomes the v2 one: the agent no longer holds a server, the factory does.
  if (v2) retargetServerImport(context);
  const props = plan.props ? uniqueName(context, 'props') : undefined;
  const parts: FactoryParts = {
    factory: uniqueName(context, 'createMcpServer'),
    handler: uniqueName(context, 'mcpHandler'),
    props,
    setup: plan.setup.map((statement) =>
      statement.replace(/\bthis\.server\b/g, 'server').replace(/\bthis\.props\b/g, props ?? 'this.props'),
    ),
  };
  // (agents' own handler is called as the route was; the others are fetch handlers handed the route's props)
  const agentsHandler = v2 && handlerModule === AGENTS_HANDLER_MODULE;
  // (the props the route's ExecutionContext carries: `unknown` in recent workers types, the agent's Props to it)
  const routeProps = (ctx: string) =>
    context.typescript ? `${ctx}.props as ${plan.propsType ?? 'Record<string, unknown>'}` : `${ctx}.props`;
  // (what a Streamable HTTP route returns, handed the route's `fetch` arguments)
  const endpointResponse = (args: string[]) =>
    agentsHandler
      ? v2Route(args, parts.handler, s)
      : `${parts.handler}(${[args[0] ?? 'request', ...(props ? [routeProps(args[2])] : [])].join(', ')})`;
  const code = agentsHandler ? v2Handler(context, plan, parts) : v2 ? v2SdkHandler(context, plan, parts) : v1Handler(context, plan, parts);
  const durableObject = ensureNamedImport(context, ['cloudflare:workers'], 'DurableObject');
  const statement = (agent.parent?.node.type === 'ExportNamedDeclaration' ? agent.parent.node : agent.node) as unknown as AnyNode;
  const body = root.find(j.Program).get('body').value as AnyNode[];
  body.splice(body.indexOf(statement), 0, placeholder(context, code, 'block'));
  const node = agent.node as unknown as AnyNode;
  (node.superClass as AnyNode) = j.identifier(durableObject) as unknown as AnyNode;
  node.superTypeParameters = null;
  (node.body as AnyNode).body = [];
  for (const route of plan.routes) {
    const call = root
      .find(j.CallExpression)
      .filter(
        (p) =>
          p.node.loc?.start.line === route.call.line &&
          p.node.loc.start.column === babelColumn(context, route.call.line, route.call.column),
      )
      .paths()[0];
    if (!call) continue;
    const replacement =
      route.kind === 'gone'
        ? errorResponse(
            410,
            `The HTTP+SSE transport is gone: use POST ${plan.endpoint} (Streamable HTTP).`,
            `${s('Content-Type')}: ${s('application/json')}`,
            s,
          )
        : endpointResponse(route.args);
    // (a handler object in a map of handlers by path stays one)
    const handler = route.handlerObject ? `{ fetch: (${usedParameters(route.args, replacement)}) => ${replacement} }` : replacement;
    call.replace(j.identifier(inlinePlaceholder(context, handler)));
  }
  // (a Worker that routed only HTTP+SSE: the endpoint its 410 answers name gets a route of its own)
  if (plan.addedRoute) addRoute(context, plan.addedRoute, plan.endpoint, endpointResponse(plan.addedRoute.args));
  pruneImports(context, new Set(['McpAgent']));
  return true;
}

/** The factory's head and tail around init()'s statements. */
function factoryLines(plan: AgentsPlan, parts: FactoryParts, signature: string, head: string[]): string[] {
  return [
    `function ${parts.factory}(${signature}) {`,
    ...head,
    `  const server = ${plan.server};`,
    ...parts.setup.flatMap((statement) => statement.split('\n').map((line) => `  ${line}`)),
    `  return server;`,
    `}`,
  ];
}

/**
 * 2026-07-28: an SDK v2 factory served by `createMcpHandler` (agents/mcp/server), which validates Host and Origin and
 * hands the request's props to the factory through getMcpAuthContext().
 */
function v2Handler(context: TransformContext, plan: AgentsPlan, parts: FactoryParts): string {
  const createMcpHandler = ensureNamedImport(context, ['agents/mcp/server'], 'createMcpHandler');
  const readProps = parts.props
    ? [
        `  const ${parts.props} = (${ensureNamedImport(context, ['agents/mcp/server'], 'getMcpAuthContext')}()?.props ?? {})${plan.propsType && context.typescript ? ` as ${plan.propsType}` : ''};`,
      ]
    : [];
  return [
    `// mcp-migrate: the tools ${plan.agentClass}.init() registered, in an SDK v2 server factory. createMcpHandler`,
    `// (agents/mcp/server) serves a fresh server per request on ${plan.endpoint}, statelessly, and validates Host and Origin.`,
    ...factoryLines(plan, parts, '', readProps),
    ``,
    `const ${parts.handler} = ${createMcpHandler}(() => ${parts.factory}()${plan.endpoint === '/mcp' ? '' : `, { route: ${quoted(context.quote, plan.endpoint)} }`});`,
  ].join('\n');
}

/**
 * 2026-07-28 without agents: an SDK v2 factory served by the SDK's `createMcpHandler` from a fetch handler that
 * answers other methods 405 and a foreign Origin 403 (a Worker is reached under its deployed name: Host is not
 * checked). The props the agent read as `this.props` are the route's `ctx.props`, passed in.
 */
function v2SdkHandler(context: TransformContext, plan: AgentsPlan, parts: FactoryParts): string {
  const types = context.typescript;
  const s = (text: string) => quoted(context.quote, text);
  const request = 'request';
  const propsParam = parts.props ? `${parts.props}${types ? `: ${plan.propsType ?? 'Record<string, unknown>'}` : ''}` : '';
  const guard: GuardContext = { context, v2: true, local: false, declared: new Map() };
  const createMcpHandler = ensureNamedImport(context, ['@modelcontextprotocol/server'], 'createMcpHandler');
  const handlerParams = [`${request}${types ? ': Request' : ''}`, ...(propsParam ? [propsParam] : [])].join(', ');
  const methodNotAllowed = errorResponse(
    405,
    'Method not allowed.',
    `Allow: ${s('POST')}, ${s('Content-Type')}: ${s('application/json')}`,
    s,
  );
  return [
    `// mcp-migrate: the tools ${plan.agentClass}.init() registered, in an SDK v2 server factory that ${parts.handler} serves on`,
    `// ${plan.endpoint}: createMcpHandler (@modelcontextprotocol/server) builds a fresh server per request, statelessly; Origin checked.`,
    ...factoryLines(plan, parts, propsParam, []),
    ``,
    `async function ${parts.handler}(${handlerParams})${types ? ': Promise<Response>' : ''} {`,
    `  if (${request}.method !== ${s('POST')}) return ${methodNotAllowed};`,
    ...guardStatements(guard, { flavor: 'web', request }).map((line) => `  ${line}`),
    `  return ${createMcpHandler}(() => ${parts.factory}(${parts.props ?? ''})).fetch(${request});`,
    `}`,
  ].join('\n');
}

/**
 * The parameters a handler object's `fetch` declares: up to the last one the body reads, an unread one before it
 * prefixed with `_` (so `noUnusedParameters` projects still compile).
 */
function usedParameters(args: string[], body: string): string {
  const reads = (name: string) => new RegExp(`\\b${name}\\b`).test(body);
  const last = args.reduce((at, name, index) => (reads(name) ? index : at), -1);
  return args
    .slice(0, last + 1)
    .map((name) => (reads(name) ? name : `_${name}`))
    .join(', ');
}

/** `if (new URL(request.url).pathname === '/mcp') return …;` before the statement that held the first HTTP+SSE route. */
function addRoute(context: TransformContext, added: NonNullable<AgentsPlan['addedRoute']>, endpoint: string, response: string): void {
  const { j, root } = context;
  const statement = root
    .find(j.Statement)
    .filter(
      (p) =>
        p.node.loc?.start.line === added.before.line &&
        p.node.loc.start.column === babelColumn(context, added.before.line, added.before.column) &&
        Array.isArray((p.parent?.node as unknown as AnyNode | undefined)?.body),
    )
    .paths()[0];
  if (!statement) throw new Error('the statement the Streamable HTTP route goes before was not found');
  const list = (statement.parent.node as unknown as AnyNode).body as AnyNode[];
  const request = added.args[0] ?? 'request';
  const test = `new URL(${request}.url).pathname === ${quoted(context.quote, endpoint)}`;
  list.splice(list.indexOf(statement.node as unknown as AnyNode), 0, placeholder(context, `if (${test}) return ${response};`, 'tight'));
}

/** The 2026-07-28 endpoint route: POST (and CORS preflight) to the handler, other methods 405. */
function v2Route(args: string[], handler: string, s: (text: string) => string): string {
  const request = args[0] ?? 'request';
  const json = `${s('Content-Type')}: ${s('application/json')}`;
  // (the handler answers other methods 405 without an Allow header: the route answers them itself)
  return `${request}.method === ${s('POST')} || ${request}.method === ${s('OPTIONS')} ? ${handler}(${args.join(', ')}) : ${errorResponse(405, 'Method not allowed.', `Allow: ${s('POST')}, ${json}`, s)}`;
}

/**
 * 2025-11-25: a v1 server factory and a fetch handler that serves it statelessly with the v1 SDK's Web-standard
 * transport (POST only, Origin checked, a fresh server and transport per request). The props the agent read as
 * `this.props` are the route's `ctx.props`, passed in.
 */
function v1Handler(context: TransformContext, plan: AgentsPlan, parts: FactoryParts): string {
  const types = context.typescript;
  const propsType = plan.propsType ?? 'Record<string, unknown>';
  const propsParam = parts.props ? `${parts.props}${types ? `: ${propsType}` : ''}` : '';
  const request = 'request';
  const guard: GuardContext = { context, v2: false, local: false, declared: new Map() };
  const style = { quote: context.quote, typescript: types };
  const body = statelessBody(
    {
      adapter: adapterFor('web-fetch'),
      params: { names: [request], types: [types ? 'Request' : ''] },
      style,
      methodCheck: true,
      guard: guardStatements(guard, { flavor: 'web', request }),
      server: { prelude: [], build: [`const server = ${parts.factory}(${parts.props ?? ''});`], variable: 'server', factory: '' },
      names: { transport: 'transport', handler: parts.handler },
    },
    ensureNamedImport(context, V1_WEB_TRANSPORT, 'WebStandardStreamableHTTPServerTransport'),
    { jsonResponse: false, exactOptional: context.options.compiler?.exactOptionalPropertyTypes },
  );
  const handlerParams = [`${request}${types ? ': Request' : ''}`, ...(propsParam ? [propsParam] : [])].join(', ');
  return [
    `// mcp-migrate: the tools ${plan.agentClass}.init() registered, in a server factory that ${parts.handler} serves on`,
    `// ${plan.endpoint}: stateless Streamable HTTP, a fresh server and transport per request, Origin checked.`,
    ...factoryLines(plan, parts, propsParam, []),
    ``,
    `async function ${parts.handler}(${handlerParams})${types ? ': Promise<Response>' : ''} {`,
    ...body.flatMap((line) => line.split('\n')).map((line) => (line ? `  ${line}` : line)),
    `}`,
  ].join('\n');
}

/** `new Response(JSON.stringify(<JSON-RPC error>), { status, headers })`. */
function errorResponse(status: number, message: string, headers: string, s: (text: string) => string): string {
  return `new Response(JSON.stringify({ jsonrpc: ${s('2.0')}, error: { code: -32000, message: ${s(message)} }, id: null }), { status: ${status}, headers: { ${headers} } })`;
}

/** `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'` → from `@modelcontextprotocol/server`. */
function retargetServerImport(context: TransformContext): void {
  const { j, root } = context;
  root
    .find(j.ImportDeclaration)
    .filter((p) => V1_SERVER.includes(p.node.source.value as string))
    .forEach((p) => {
      p.node.source = j.stringLiteral('@modelcontextprotocol/server');
    });
}
