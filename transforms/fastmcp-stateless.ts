/**
 * fastmcp-stateless — rules `legacy-sse-transport` (1.x `transportType: 'sse'`) and `session-id` (`httpStream`
 * without `stateless: true`), from the plan the analysis put on the finding (src/analysis/mcp-frameworks/fastmcp.ts).
 * `start(…)` becomes `start({ transportType: 'httpStream', httpStream: { …as written, stateless: true } })`. fastmcp's
 * HTTP server still serves HTTP+SSE at /sse and checks no Origin, so the server's `authenticate` hook gets a guard
 * that answers 410 there and 403 to a foreign Origin (an `authenticate` the author wrote runs after it).
 */
import type { API, FileInfo } from 'jscodeshift';
import { createContext, print, type TransformContext, type TransformOptions } from './lib/context';
import { containsLocation, propertyKey, type AnyNode } from './lib/ast';
import { inlinePlaceholder, placeholder } from './lib/emit';
import { afterImports, ensureNamedImport } from './lib/imports';
import { addMarker, uniqueName } from './lib/markers';
import { appendProperty, originalText, sourceText, lineIndentation } from './lib/source-edit';
import { fastmcpGuardFunction } from './lib/guard-templates';
import { freeGuardNames, ORIGIN_CHECK, writtenBefore } from './lib/guard';
import { quoted } from '../src/frameworks/code';
import type { FastmcpStartPlan } from '../src/analysis/mcp-frameworks/fastmcp';

export const id = 'fastmcp-stateless';
export const rules = ['legacy-sse-transport', 'session-id'];
export const parser = 'tsx';
/**
 * `httpStream.stateless` exists since 3.x, but fastmcp 3.24's mcp-proxy (5.12) answers 400 to protocol 2025-11-25
 * after initialize; 4.20.16 (mcp-proxy 6.7) serves 2025-era and 2026-07-28 clients statelessly (read and run here).
 */
export const requires = {
  uses: /\bstateless: true\b/,
  packages: [
    { name: 'fastmcp', floor: '4.20.16', range: '^4.20.16', why: 'stateless `httpStream` that 2025-11-25 and 2026-07-28 clients can use' },
  ],
};
export const note = {
  message:
    "fastmcp's HTTP server (mcp-proxy) still serves the HTTP+SSE transport at /sse; no fastmcp option turns it off. " +
    "`guardMcpRequest`, hooked into the server's `authenticate`, answers 410 there (naming the Streamable HTTP endpoint) and 403 to a " +
    'foreign Origin: keep it, and tell clients still on /sse to use the endpoint. To close /sse at the network edge as well, route only ' +
    'POST to the endpoint path to this server.',
  anchor: /\bstateless: true\b/,
};

const GUARD = 'guardMcpRequest';
/** The 2026-07-28 target: what fastmcp cannot do yet (mcp-proxy 6.7.19's answer to a 2026-07-28 request, read here). */
const FASTMCP_DEFERRED =
  'on 2025-11-25 (stateless): fastmcp 4.20 builds its servers with the v1 SDK, so its HTTP server answers 2026-07-28 requests 400 ' +
  '(server_missing_modern_protocol_support); run apply again once a fastmcp release serves 2026-07-28';

export default function transform(file: FileInfo, api: API, options: TransformOptions = {}): string | undefined {
  const context = createContext(file, api, options, rules);
  const plans = context.findings.flatMap((f) => (f.data?.fastmcp ? [{ at: f, plan: f.data.fastmcp as FastmcpStartPlan }] : []));
  if (plans.length === 0) return undefined;
  const { j, root } = context;
  let changed = false;
  for (const { at, plan } of plans) {
    const call = root
      .find(j.CallExpression, { callee: { property: { name: 'start' } } })
      .filter((p) => containsLocation(p.node as unknown as AnyNode, at) && p.node.loc!.start.line === at.line)
      .nodes()[0] as unknown as AnyNode | undefined;
    const written = (call?.arguments as AnyNode[] | undefined)?.[0];
    if (!call || written?.type !== 'ObjectExpression') continue;
    (call.arguments as AnyNode[])[0] = j.identifier(inlinePlaceholder(context, startOptions(context, written, plan))) as unknown as AnyNode;
    guardServer(context, plan, at.line);
    if ((options.target ?? '2026-07-28') === '2026-07-28') addMarker(context, at.line, 'v2-deferred', FASTMCP_DEFERRED);
    changed = true;
  }
  return changed ? print(context) : undefined;
}

/** The `start` options, written in the layout of the old ones: `transportType` and `httpStream` replaced in place. */
function startOptions(context: TransformContext, options: AnyNode, plan: FastmcpStartPlan): string {
  const s = (t: string) => quoted(context.quote, t);
  const endpoint = plan.form === 'sse' ? [`endpoint: ${s(plan.endpoint)}`] : [];
  const props = [...plan.httpStream, ...endpoint, 'stateless: true'];
  const multiline = originalText(context, options).includes('\n');
  const indentation = multiline ? lineIndentation(context, (options.properties as AnyNode[])[0].start as number) : '';
  const unit = context.useTabs ? '\t' : ' '.repeat(context.tabWidth);
  const httpStream = multiline
    ? `{\n${props.map((p) => `${indentation}${unit}${p},`).join('\n')}\n${indentation}}`
    : `{ ${props.join(', ')} }`;
  const kept = (options.properties as AnyNode[]).filter((p) => !['transportType', 'httpStream', 'sse'].includes(propertyKey(p)));
  const lines = [
    `transportType: ${s('httpStream')}`,
    `httpStream: ${httpStream}`,
    ...kept.map((p) => sourceText(context, p.start as number, p.end as number)),
  ];
  if (!multiline) return `{ ${lines.join(', ')} }`;
  const closing = lineIndentation(context, options.end as number);
  return `{\n${lines.map((line) => `${indentation}${line},`).join('\n')}\n${closing}}`;
}

/** Hook the guard into the server's `authenticate` (declared once per file), or mark the server when it cannot be. */
function guardServer(context: TransformContext, plan: FastmcpStartPlan, startLine: number): void {
  const { j, root } = context;
  const configPath = plan.server
    ? root
        .find(j.ObjectExpression)
        .filter((p) => p.node.loc?.start.line === plan.server!.line && p.parent?.node.type === 'NewExpression')
        .paths()[0]
    : undefined;
  const config = configPath?.node as unknown as AnyNode | undefined;
  const reason = `fastmcp still serves HTTP+SSE at ${plan.ssePath} and checks no Origin: reject both in the server's \`authenticate\` (410 on ${plan.ssePath}, 403 on a foreign Origin).`;
  if (!config || plan.server!.authenticate === 'other') {
    addMarker(context, plan.server?.line ?? startLine, 'origin-validation', reason);
    return;
  }
  const name = declareGuard(context, plan);
  const authenticate = (config.properties as AnyNode[]).find((p) => propertyKey(p) === 'authenticate');
  if (!authenticate) {
    configPath!.replace(j.identifier(inlinePlaceholder(context, appendProperty(context, config, `authenticate: ${name}`))));
    return;
  }
  const value = authenticate.value as AnyNode;
  const own = value.type === 'Identifier' ? (value.name as string) : `(${originalText(context, value)})`;
  authenticate.value = j.identifier(
    inlinePlaceholder(
      context,
      `async (request${context.typescript ? ': IncomingMessage' : ''}) => {\n  await ${name}(request);\n  return ${own}(request);\n}`,
    ),
  ) as never;
}

function declareGuard(context: TransformContext, plan: FastmcpStartPlan): string {
  const { j, root } = context;
  if (writtenBefore(context, GUARD, ORIGIN_CHECK)) return GUARD;
  const name = uniqueName(context, GUARD);
  if (context.typescript) ensureNamedImport(context, ['node:http', 'http'], 'IncomingMessage', { typeOnly: true });
  const code = fastmcpGuardFunction({
    typescript: context.typescript,
    checkHost: plan.local,
    quote: context.quote,
    names: freeGuardNames(context, name),
    ssePath: plan.ssePath,
    endpoint: plan.endpoint,
  });
  const body = root.find(j.Program).get('body').value as AnyNode[];
  body.splice(afterImports(body), 0, placeholder(context, code, 'block'));
  return name;
}
