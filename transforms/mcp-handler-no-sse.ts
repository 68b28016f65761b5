/**
 * mcp-handler-no-sse — rule `legacy-sse-transport` on mcp-handler 1.x's `createMcpHandler(initialize, serverOptions,
 * config)` (and @vercel/mcp-adapter's, raised to 1.0, which re-exports it), from the plan the analysis put on the finding (src/analysis/mcp-frameworks/mcp-handler.ts). `disableSse:
 * true` goes into the config: into the object literal written there (replacing a `disableSse` with another value), or
 * as a third argument (after `{}` when the server options are missing too). The handler's Streamable HTTP endpoint is
 * stateless already (GET and DELETE answer 405); with SSE off, `/sse` and `/message` answer 404 and Redis goes unused.
 */
import type { API, FileInfo } from 'jscodeshift';
import { createContext, print, type TransformContext, type TransformOptions } from './lib/context';
import { propertyKey, type AnyNode } from './lib/ast';
import { inlinePlaceholder } from './lib/emit';
import { addMarker } from './lib/markers';
import { startsAtPosition } from './lib/locate';
import { appendProperty, sourceText } from './lib/source-edit';
import type { McpHandlerPlan } from '../src/analysis/mcp-frameworks/mcp-handler';

export const id = 'mcp-handler-no-sse';
export const rules = ['legacy-sse-transport'];
export const parser = 'tsx';
/** `disableSse` is in mcp-handler 1.0.0's config (read in its sources); 1.x is the last line on the v1 SDK. */
export const requires = {
  uses: /\bdisableSse: true\b/,
  packages: [
    { name: 'mcp-handler', floor: '1.0.0', range: '^1.1.0', why: '`disableSse` turns the HTTP+SSE transport off' },
    // (mcp-handler's name before 1.0; its 1.0 is `export * from 'mcp-handler'`, so the flag is there too)
    {
      name: '@vercel/mcp-adapter',
      floor: '1.0.0',
      range: '^1.0.0',
      why: 'its 1.0 re-exports mcp-handler 1.x, whose config has `disableSse`',
    },
  ],
};

/** The 2026-07-28 target: mcp-handler 1.x cannot serve it; its 2.x can, with another API. */
const MCP_HANDLER_DEFERRED =
  'on 2025-11-25 (stateless, SSE off): mcp-handler 1.x builds its server with the v1 SDK; mcp-handler 2 serves 2026-07-28 ' +
  'with another API (`createMcpHandler(initialize, options)`, `registerTool`, zod 4: its README\'s "Migrating from 1.x"). ' +
  'Move to it by hand, then run apply again';

export default function transform(file: FileInfo, api: API, options: TransformOptions = {}): string | undefined {
  const context = createContext(file, api, options, rules);
  const plans = context.findings.flatMap((f) => (f.data?.mcpHandler ? [f.data.mcpHandler as McpHandlerPlan] : []));
  if (plans.length === 0) return undefined;
  const { j, root } = context;
  let changed = false;
  for (const plan of plans) {
    const call = root
      .find(j.CallExpression)
      .filter((p) => startsAtPosition(context, p.node as unknown as AnyNode, plan.call))
      .nodes()[0] as unknown as AnyNode | undefined;
    if (!call || !withoutSse(context, call, plan)) continue;
    if ((options.target ?? '2026-07-28') === '2026-07-28') addMarker(context, plan.call.line, 'v2-deferred', MCP_HANDLER_DEFERRED);
    changed = true;
  }
  return changed ? print(context) : undefined;
}

/** The call with `disableSse: true` in its config; false when the plan no longer fits what is written. */
function withoutSse(context: TransformContext, call: AnyNode, plan: McpHandlerPlan): boolean {
  const { j } = context;
  const args = call.arguments as AnyNode[];
  if (args.length !== plan.args) return false;
  const flag = 'disableSse: true';
  if (plan.config === 'absent') {
    // (written after the last argument as it stands, so that the call keeps its layout)
    const last = args[args.length - 1];
    const added = [...(args.length === 1 ? ['{}'] : []), `{ ${flag} }`];
    const text = [sourceText(context, last.start as number, last.end as number), ...added].join(', ');
    args[args.length - 1] = j.identifier(inlinePlaceholder(context, text)) as unknown as AnyNode;
    return true;
  }
  const config = args[2];
  if (plan.config !== 'literal' || config?.type !== 'ObjectExpression') return false;
  const written = (config.properties as AnyNode[]).find((p) => propertyKey(p) === 'disableSse');
  if (written) written.value = j.identifier(inlinePlaceholder(context, 'true')) as never;
  else args[2] = j.identifier(inlinePlaceholder(context, appendProperty(context, config, flag))) as unknown as AnyNode;
  return true;
}
