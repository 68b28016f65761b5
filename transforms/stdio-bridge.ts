/**
 * stdio-bridge — rule `legacy-sse-transport`, for stdio-to-HTTP bridges whose HTTP+SSE handler takes the
 * transport's messages over and writes them to one child process (`transport.onmessage = (m) => child.stdin.write(…)`,
 * the child's output sent to every stream). Carries out the plan's `bridge.relay`: one SDK `Client` speaks to the
 * child over its stdio and initializes it once (the child's own initialize, the only one it gets); a server factory
 * answers each client's initialize with the child's result and forwards every other request and notification through
 * that client; the SSE handler connects a server from the factory instead of the placeholder. The bridge is then an
 * ordinary server, which migrate-endpoint (next, on the re-analysed file) moves to stateless Streamable HTTP. Bridges
 * with a child per connection are not rewritten: their plan's verdict is a marker.
 */
import type { API, ASTPath, FileInfo } from 'jscodeshift';
import { createContext, print, type TransformContext, type TransformOptions } from './lib/context';
import { referencedNames, type AnyNode } from './lib/ast';
import { placeholder } from './lib/emit';
import { ensureNamedImport } from './lib/imports';
import { removeDeadDeclarations } from './lib/dead-code';
import { uniqueName } from './lib/markers';
import { pathAt } from './lib/locate';
import { quoted } from '../src/frameworks/code';
import { endpointPlanOf, type BridgeRelay, type EndpointPlan } from '../src/analysis/endpoints/model';

export const id = 'stdio-bridge';
export const rules = ['legacy-sse-transport'];
export const parser = 'tsx';

const SDK = '@modelcontextprotocol/sdk';
const STATEMENTS = ['ExpressionStatement', 'VariableDeclaration', 'ForOfStatement', 'IfStatement'];

export default function transform(file: FileInfo, api: API, options: TransformOptions = {}): string | undefined {
  const context = createContext(file, api, options, rules);
  const relPath = options.relPath ?? context.findings[0]?.file ?? file.path;
  const relays = relaysOf(context).filter((relay) => relay.declaration.file === relPath && relay.forward.file === relPath);
  const dead = new Set<string>();
  let changed = false;
  for (const relay of relays) changed = rewrite(context, relay, dead) || changed;
  if (!changed) return undefined;
  removeDeadDeclarations(context, dead);
  return print(context);
}

function relaysOf(context: TransformContext): BridgeRelay[] {
  const plans = new Map<string, EndpointPlan>((context.options.plans ?? []).map((plan) => [plan.id, plan]));
  for (const finding of context.findings) {
    const plan = endpointPlanOf(finding);
    if (plan && !plans.has(plan.id)) plans.set(plan.id, plan);
  }
  return [...plans.values()].flatMap((plan) => (plan.verdict.migratable && plan.bridge?.relay ? [plan.bridge.relay] : []));
}

function rewrite(context: TransformContext, relay: BridgeRelay, dead: Set<string>): boolean {
  const { j } = context;
  const names = {
    client: uniqueName(context, 'childClient'),
    ready: uniqueName(context, 'childReady'),
    factory: uniqueName(context, 'createBridgeServer'),
  };
  // (imports first: they change the program's statement list, and the paths below must be current)
  const code = bridgeCode(context, relay.child, names);
  const declaration = pathAt(context, relay.declaration, ['VariableDeclaration']);
  const server = pathAt(context, relay.server, ['Identifier', 'MemberExpression']);
  const forward = pathAt(context, relay.forward, ['ExpressionStatement']);
  const output = relay.output.map((span) => pathAt(context, span, STATEMENTS));
  if (!declaration || !server || !forward || output.some((p) => !p)) return false;
  dead.add((server.node as unknown as AnyNode).name as string);
  server.replace(j.awaitExpression(j.callExpression(j.identifier(names.factory), [])));
  for (const path of [forward, ...(output as ASTPath[])]) {
    for (const name of referencedNames(j, path.node)) dead.add(name);
    path.prune();
  }
  declaration.insertAfter(placeholder(context, code, 'block'));
  return true;
}

function bridgeCode(context: TransformContext, child: string, names: { client: string; ready: string; factory: string }): string {
  const ts = context.typescript;
  const q = (text: string) => quoted(context.quote, text);
  const server = ensureNamedImport(context, [`${SDK}/server/index.js`, `${SDK}/server/index`], 'Server');
  const client = ensureNamedImport(context, [`${SDK}/client/index.js`, `${SDK}/client/index`], 'Client');
  const stdio = ensureNamedImport(context, [`${SDK}/server/stdio.js`, `${SDK}/server/stdio`], 'StdioServerTransport');
  const resultSchema = ensureNamedImport(context, [`${SDK}/types.js`, `${SDK}/types`], 'ResultSchema');
  const [request, notification] = ts
    ? [
        ensureNamedImport(context, [`${SDK}/types.js`, `${SDK}/types`], 'ClientRequest', { typeOnly: true }),
        ensureNamedImport(context, [`${SDK}/types.js`, `${SDK}/types`], 'ClientNotification', { typeOnly: true }),
      ]
    : [];
  const bang = ts ? '!' : '';
  const as = (type: string | undefined) => (ts ? ` as ${type}` : '');
  return [
    `// mcp-migrate: stdio bridge. One SDK client speaks to the child over its stdio and initializes it once (the`,
    `// child's own initialize); each server from ${names.factory}() answers a client's initialize with the child's`,
    `// result and forwards every other request and notification to the child. Requests the child sends back`,
    `// (sampling, roots) are not relayed: stateless Streamable HTTP has no stream to send them on.`,
    `const ${names.client} = new ${client}({ name: ${q('mcp-migrate-bridge')}, version: ${q('1.0.0')} });`,
    `const ${names.ready} = ${names.client}.connect(new ${stdio}(${child}.stdout${bang}, ${child}.stdin${bang}));`,
    ``,
    `async function ${names.factory}() {`,
    `  await ${names.ready};`,
    `  const server = new ${server}(${names.client}.getServerVersion()${bang}, {`,
    `    capabilities: ${names.client}.getServerCapabilities() ?? {},`,
    `    instructions: ${names.client}.getInstructions(),`,
    `  });`,
    `  // The old bridge set no deadline on the child's answers: a day, rather than the client's default minute.`,
    `  server.fallbackRequestHandler = (request, extra) =>`,
    `    ${names.client}.request({ method: request.method, params: request.params }${as(request)}, ${resultSchema}, {`,
    `      signal: extra.signal,`,
    `      timeout: 24 * 60 * 60 * 1000,`,
    `    });`,
    `  server.fallbackNotificationHandler = (notification) => ${names.client}.notification(notification${as(notification)});`,
    `  return server;`,
    `}`,
  ].join('\n');
}
