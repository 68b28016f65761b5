/**
 * mcp-framework-stateless — rules `legacy-sse-transport` (`transport: { type: 'sse' }`) and `session-id`
 * (`type: 'http-stream'`), from the plan the analysis put on the finding (src/analysis/mcp-frameworks/mcp-framework.ts).
 * mcp-framework has no stateless HTTP transport; its stateless entry point is `MCPServer.handleRequest(request)`, a
 * fresh SDK server and transport per Web request. The `transport` option goes (its `auth` moves to the server's own),
 * and `server.start()` becomes a node:http listener on the same port and host that checks Origin, answers GET/DELETE
 * with 405 and the old SSE paths with 410, and hands each POST to `handleRequest`.
 */
import type { API, FileInfo } from 'jscodeshift';
import { createContext, print, type TransformContext, type TransformOptions } from './lib/context';
import { propertyKey, type AnyNode } from './lib/ast';
import { inlinePlaceholder, placeholder } from './lib/emit';
import { afterImports, ensureNamedImport, ensureNamedImports } from './lib/imports';
import { addMarker, uniqueName } from './lib/markers';
import { startsAtPosition } from './lib/locate';
import { originalText, withoutProperties } from './lib/source-edit';
import { GUARD_NAME, guardFunction } from './lib/guard-templates';
import { freeGuardNames, ORIGIN_CHECK, writtenBefore } from './lib/guard';
import { jsonRpcError, quoted } from '../src/frameworks/code';
import type { McpFrameworkPlan } from '../src/analysis/mcp-frameworks/mcp-framework';

export const id = 'mcp-framework-stateless';
export const rules = ['legacy-sse-transport', 'session-id'];
export const parser = 'tsx';
/** `MCPServer.handleRequest` (read in 0.2.22 `dist/core/MCPServer.d.ts`; 0.2.11 has none). */
export const requires = {
  uses: /\.handleRequest\(/,
  packages: [
    { name: 'mcp-framework', floor: '0.2.22', range: '^0.2.22', why: '`MCPServer.handleRequest` serves one stateless request' },
    // mcp-framework 0.2.22 wants zod 3 (a peer) but depends on an SDK that takes zod 4, which npm then hoists: tools
    // that import zod without declaring it get zod 4, and every tools/call fails ("keyValidator._parse is not a function").
    {
      name: 'zod',
      // (a declared zod 3 range is left as it is: npm hoists the project's own zod)
      floor: '3.0.0',
      range: '^3.25.76',
      why: "mcp-framework 0.2.22 needs zod 3 (its peer) while its SDK takes zod 4, which npm hoists: tools built with that zod fail every call ('keyValidator._parse is not a function')",
      undeclared: true,
    },
  ],
};

const LISTENER = 'serveStatelessMcp';
/** The 2026-07-28 target: what mcp-framework cannot do yet (0.2.22 handles requests with the v1 SDK's transport). */
const MCP_FRAMEWORK_DEFERRED =
  "on 2025-11-25 (stateless): mcp-framework 0.2.22 answers through the v1 SDK's WebStandardStreamableHTTPServerTransport, " +
  'which does not speak 2026-07-28; run apply again once an mcp-framework release serves 2026-07-28';
/** mcp-framework's own default for its HTTP transports. */
const DEFAULT_HOST = '127.0.0.1';

export default function transform(file: FileInfo, api: API, options: TransformOptions = {}): string | undefined {
  const context = createContext(file, api, options, rules);
  const plans = context.findings.flatMap((f) => (f.data?.mcpFramework ? [f.data.mcpFramework as McpFrameworkPlan] : []));
  if (plans.length === 0) return undefined;
  const { j, root } = context;
  let changed = false;
  for (const plan of plans) {
    const config = root
      .find(j.ObjectExpression)
      .filter((p) => startsAtPosition(context, p.node as unknown as AnyNode, plan.config) && p.parent?.node.type === 'NewExpression')
      .paths()[0];
    const start = root
      .find(j.CallExpression)
      .filter((p) => startsAtPosition(context, p.node as unknown as AnyNode, plan.start))
      .paths()[0];
    if (!config || !start) continue;
    const listener = declareListener(context, plan);
    const s = (t: string) => quoted(context.quote, t);
    const gone = `[${plan.gone.map(s).join(', ')}]`;
    start.replace(
      j.identifier(
        inlinePlaceholder(
          context,
          `${listener}(${receiverOf(context, start.node as unknown as AnyNode)}, ${plan.port}, ${plan.host ?? s(DEFAULT_HOST)}, ${s(plan.endpoint)}, ${gone})`,
        ),
      ),
    );
    config.replace(j.identifier(inlinePlaceholder(context, configWithoutTransport(context, config.node as unknown as AnyNode, plan))));
    if ((options.target ?? '2026-07-28') === '2026-07-28') addMarker(context, plan.start.line, 'v2-deferred', MCP_FRAMEWORK_DEFERRED);
    changed = true;
  }
  return changed ? print(context) : undefined;
}

/** `server` of `server.start()`, as written. */
function receiverOf(context: TransformContext, call: AnyNode): string {
  return originalText(context, (call.callee as AnyNode).object as AnyNode);
}

/** The server's configuration without `transport`, or with `auth: <the transport's auth>` in its place. */
function configWithoutTransport(context: TransformContext, config: AnyNode, plan: McpFrameworkPlan): string {
  const properties = config.properties as AnyNode[];
  const keyOf = (p: AnyNode) => ((p.key as AnyNode | undefined)?.name ?? (p.key as AnyNode | undefined)?.value) as string | undefined;
  const transport = properties.find((p) => propertyKey(p) === 'transport')!;
  if (!plan.auth || properties.some((p) => propertyKey(p) === 'auth')) return withoutProperties(context, config, [transport]);
  const text = originalText(context, config);
  const base = config.start as number;
  return `${text.slice(0, (transport.start as number) - base)}auth: ${plan.auth}${text.slice((transport.end as number) - base)}`;
}

/** The listener, declared once per file after the imports (with the Origin guard it calls). */
function declareListener(context: TransformContext, plan: McpFrameworkPlan): string {
  const { j, root } = context;
  if (writtenBefore(context, LISTENER, /\.handleRequest\(/)) return LISTENER;
  const name = uniqueName(context, LISTENER);
  const createServer = ensureNamedImport(context, ['node:http', 'http'], 'createServer');
  const [request, response] = context.typescript
    ? ensureNamedImports(context, ['node:http', 'http'], ['IncomingMessage', 'ServerResponse'], { typeOnly: true })
    : ['IncomingMessage', 'ServerResponse'];
  const existing = writtenBefore(context, GUARD_NAME, ORIGIN_CHECK);
  const names = existing ? undefined : freeGuardNames(context, uniqueName(context, GUARD_NAME));
  const guard = names
    ? [
        guardFunction({ typescript: context.typescript, checkHost: plan.local, quote: context.quote, types: { request, response }, names }),
        '',
      ]
    : [];
  const listener = listenerCode(context, { name, guard: names?.guard ?? GUARD_NAME }, plan.serverClass, createServer);
  const body = root.find(j.Program).get('body').value as AnyNode[];
  body.splice(afterImports(body), 0, placeholder(context, [...guard, listener].join('\n'), 'block'));
  return name;
}

function listenerCode(
  context: TransformContext,
  { name, guard }: { name: string; guard: string },
  serverClass: string,
  createServer: string,
): string {
  const s = (t: string) => quoted(context.quote, t);
  const ts = context.typescript;
  const json = `${s('Content-Type')}: ${s('application/json')}`;
  const error = (message: string) => `JSON.stringify(${jsonRpcError(-32000, message, context.quote)})`;
  return [
    `// mcp-migrate: mcp-framework's \`sse\` transport is the deprecated HTTP+SSE transport, and its \`http-stream\` transport`,
    `// keeps a session per client. MCPServer.handleRequest serves one request statelessly (a fresh SDK server and transport`,
    `// each): this listener hands it every POST to the endpoint, after the Origin check; GET and DELETE get 405, the old SSE`,
    `// paths 410.`,
    `function ${name}(mcp${ts ? `: ${serverClass}` : ''}, port${ts ? ': number' : ''}, host${ts ? ': string' : ''}, endpoint${ts ? ': string' : ''}, gone${ts ? ': string[]' : ''})${ts ? ': Promise<void>' : ''} {`,
    `  const httpServer = ${createServer}(async (req, res) => {`,
    `    const url = new URL(req.url ?? ${s('/')}, ${s('http://localhost')});`,
    `    if (gone.includes(url.pathname)) {`,
    `      const message = \`The HTTP+SSE transport is gone: use POST \${endpoint} (Streamable HTTP).\`;`,
    `      res.writeHead(410, { ${json} }).end(JSON.stringify({ jsonrpc: ${s('2.0')}, error: { code: -32000, message }, id: null }));`,
    `      return;`,
    `    }`,
    `    if (url.pathname !== endpoint) {`,
    `      res.writeHead(404).end();`,
    `      return;`,
    `    }`,
    `    if (${guard}(req, res)) return;`,
    `    if (req.method !== ${s('POST')} && req.method !== ${s('OPTIONS')}) {`,
    `      res.writeHead(405, { Allow: ${s('POST')}, ${json} }).end(${error('Method not allowed.')});`,
    `      return;`,
    `    }`,
    `    let body = ${s('')};`,
    `    req.setEncoding(${s('utf8')});`,
    `    for await (const chunk of req) body += chunk;`,
    `    const headers = new Headers();`,
    `    for (const [header, value] of Object.entries(req.headers)) if (value !== undefined) headers.set(header, String(value));`,
    `    const answer = await mcp.handleRequest(new Request(url, { method: req.method, headers, body: req.method === ${s('POST')} ? body : undefined }));`,
    `    answer.headers.forEach((value${ts ? ': string' : ''}, header${ts ? ': string' : ''}) => res.setHeader(header, value));`,
    `    res.writeHead(answer.status).end(Buffer.from(await answer.arrayBuffer()));`,
    `  });`,
    `  return new Promise((resolve) => httpServer.listen(port, host, () => resolve()));`,
    `}`,
  ].join('\n');
}
