/**
 * agents-handler — rules `legacy-sse-transport` (`McpAgent.serveSSE`/`mount`/`serve(…, { transport: 'sse' })`) and
 * `session-id` (`McpAgent.serve(path)`: a session per client in a Durable Object), from the plan the analysis put on
 * the finding (src/analysis/mcp-frameworks/agents.ts). The `server` and `init()` of the McpAgent subclass become an
 * SDK v2 server factory served by `createMcpHandler(factory)` from `agents/mcp/server` (stateless; it validates Host
 * and Origin); the Streamable HTTP route calls the handler, the HTTP+SSE routes answer 410 naming it. The class stays
 * exported under its name as an empty Durable Object (wrangler's migrations and binding name it): McpAgent 0.32 holds
 * an SDK v1 server, which the v2 move does not keep. An agent that holds session state gets a marker instead.
 */
import type { API, FileInfo } from 'jscodeshift';
import { createContext, print, type TransformContext, type TransformOptions } from './lib/context';
import type { AnyNode } from './lib/ast';
import { inlinePlaceholder, placeholder } from './lib/emit';
import { ensureNamedImport, pruneImports } from './lib/imports';
import { addMarker, uniqueName } from './lib/markers';
import { babelColumn } from './lib/locate';
import { quoted } from '../src/frameworks/code';
import type { AgentsPlan } from '../src/analysis/mcp-frameworks/agents';

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
const DEFERRED_2025 =
  "agents' stateless `createMcpHandler` (agents/mcp/server) takes an SDK v2 server factory, which 2025-11-25 (v1 SDK only) does not allow: run `mcp-migrate apply --target 2026-07-28`";

/** The agent is not moved (a blocker, or the 2025-11-25 target): one marker stands for all of its routes. */
export function marksAgentInstead(plan: AgentsPlan, target: string): boolean {
  return !!plan.blocker || target !== '2026-07-28';
}

export default function transform(file: FileInfo, api: API, options: TransformOptions = {}): string | undefined {
  const context = createContext(file, api, options, rules);
  const plans = new Map<string, AgentsPlan>();
  for (const finding of context.findings) {
    const plan = finding.data?.agents as AgentsPlan | undefined;
    if (plan) plans.set(plan.agentClass, plan);
  }
  let changed = false;
  for (const plan of plans.values()) {
    if (plan.blocker)
      changed = addMarker(context, plan.blocker.at.line, 'legacy-sse-transport', `not migrated: ${plan.blocker.reason}`) || changed;
    else if (marksAgentInstead(plan, options.target ?? '2026-07-28'))
      changed = addMarker(context, plan.routes[0]?.call.line ?? plan.at.line, 'legacy-sse-transport', DEFERRED_2025) || changed;
    else changed = migrate(context, plan) || changed;
  }
  return changed ? print(context) : undefined;
}

function migrate(context: TransformContext, plan: AgentsPlan): boolean {
  const { j, root } = context;
  const agent = root.find(j.ClassDeclaration, { id: { name: plan.agentClass } }).paths()[0];
  if (!agent) return false;
  const s = (t: string) => quoted(context.quote, t);
  // The v1 McpServer import becomes the v2 one: the agent no longer holds a server, the factory does.
  retargetServerImport(context);
  const createMcpHandler = ensureNamedImport(context, ['agents/mcp/server'], 'createMcpHandler');
  const durableObject = ensureNamedImport(context, ['cloudflare:workers'], 'DurableObject');
  const factory = uniqueName(context, 'createMcpServer');
  const handler = uniqueName(context, 'mcpHandler');
  const props = plan.props ? uniqueName(context, 'props') : undefined;
  const setup = plan.setup.map((statement) =>
    statement.replace(/\bthis\.server\b/g, 'server').replace(/\bthis\.props\b/g, props ?? 'this.props'),
  );
  // The agent's props were the request's (`ctx.props`, or the verified OAuth props): the stateless handler runs the
  // factory inside the request and hands them over through getMcpAuthContext().
  const readProps = props
    ? [
        `  const ${props} = (${ensureNamedImport(context, ['agents/mcp/server'], 'getMcpAuthContext')}()?.props ?? {})${plan.propsType && context.typescript ? ` as ${plan.propsType}` : ''};`,
      ]
    : [];
  const code = [
    `// mcp-migrate: the tools ${plan.agentClass}.init() registered, in an SDK v2 server factory. createMcpHandler`,
    `// (agents/mcp/server) serves a fresh server per request on ${plan.endpoint}, statelessly, and validates Host and Origin.`,
    `function ${factory}() {`,
    ...readProps,
    `  const server = ${plan.server};`,
    ...setup.flatMap((statement) => statement.split('\n').map((line) => `  ${line}`)),
    `  return server;`,
    `}`,
    ``,
    `const ${handler} = ${createMcpHandler}(() => ${factory}()${plan.endpoint === '/mcp' ? '' : `, { route: ${s(plan.endpoint)} }`});`,
  ].join('\n');
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
    const request = route.args[0] ?? 'request';
    const json = `${s('Content-Type')}: ${s('application/json')}`;
    // (the handler answers other methods 405 without an Allow header: the route answers them itself)
    const replacement =
      route.kind === 'endpoint'
        ? `${request}.method === ${s('POST')} || ${request}.method === ${s('OPTIONS')} ? ${handler}(${route.args.join(', ')}) : ${errorResponse(405, 'Method not allowed.', `Allow: ${s('POST')}, ${json}`, s)}`
        : errorResponse(410, `The HTTP+SSE transport is gone: use POST ${plan.endpoint} (Streamable HTTP).`, json, s);
    call.replace(j.identifier(inlinePlaceholder(context, replacement)));
  }
  pruneImports(context, new Set(['McpAgent']));
  return true;
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
