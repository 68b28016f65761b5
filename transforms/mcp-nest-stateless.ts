/**
 * mcp-nest-stateless — rules `legacy-sse-transport` and `session-id` on @rekog/mcp-nest's `McpModule.forRoot({…})`,
 * from the plan the analysis put on the findings (src/analysis/mcp-frameworks/mcp-nest.ts). `transport` lists the
 * plan's members (Streamable HTTP in, SSE out, stdio kept), written or added, and a written `streamableHttp` gets
 * `statelessMode: true`: the module then serves one stateless POST endpoint at its `mcpEndpoint` (`/mcp`); `/sse` and
 * `/messages` answer 404. 1.x is on the v1 SDK: on 2026-07-28 a `v2-deferred` marker says the project stays on
 * 2025-11-25.
 */
import type { API, ASTPath, FileInfo } from 'jscodeshift';
import { createContext, print, type TransformContext, type TransformOptions } from './lib/context';
import { propertyKey, type AnyNode } from './lib/ast';
import { inlinePlaceholder, placeholder } from './lib/emit';
import { afterImports, ensureNamedImport, ensureNamedImports } from './lib/imports';
import { startsAtPosition } from './lib/locate';
import { addMarker, uniqueName } from './lib/markers';
import { nestGuardClass } from './lib/guard-templates';
import { appendProperty } from './lib/source-edit';
import type { McpNestPlan } from '../src/analysis/mcp-frameworks/mcp-nest';

export const id = 'mcp-nest-stateless';
export const rules = ['legacy-sse-transport', 'session-id', 'origin-validation'];
export const parser = 'tsx';

const MCP_NEST = '@rekog/mcp-nest';
const MCP_NEST_DEFERRED =
  'on 2025-11-25 (stateless Streamable HTTP, SSE off): @rekog/mcp-nest 1.x builds its servers with the v1 SDK; its 2.x is ' +
  'built on the v2 SDK (peers @modelcontextprotocol/server, zod 4). Move to it by hand, then run apply again';

export default function transform(file: FileInfo, api: API, options: TransformOptions = {}): string | undefined {
  const context = createContext(file, api, options, rules);
  const plans = new Map<string, McpNestPlan>();
  const guarded = new Set<string>();
  for (const finding of context.findings) {
    const plan = finding.data?.mcpNest as McpNestPlan | undefined;
    if (!plan || plan.opaque) continue;
    const key = `${plan.options.line}:${plan.options.column}`;
    plans.set(key, plan);
    if (finding.ruleId === 'origin-validation') guarded.add(key);
  }
  const { j, root } = context;
  let changed = false;
  for (const plan of plans.values()) {
    const object = root
      .find(j.ObjectExpression)
      .filter((p) => startsAtPosition(context, p.node as unknown as AnyNode, plan.options))
      .paths()[0];
    if (!object) continue;
    const guard = guarded.has(`${plan.options.line}:${plan.options.column}`) && plan.guards !== 'opaque' ? guardClass(context) : undefined;
    stateless(context, object, plan, guard);
    if ((options.target ?? '2026-07-28') === '2026-07-28') addMarker(context, plan.options.line, 'v2-deferred', MCP_NEST_DEFERRED);
    changed = true;
  }
  return changed ? print(context) : undefined;
}

/** The Nest guard that answers a present, foreign Origin with 403, declared after the imports; its name. */
function guardClass(context: TransformContext): string {
  const { j, root } = context;
  const name = uniqueName(context, 'McpOriginGuard');
  context.claimedNames.add(name);
  const [injectable, forbidden, canActivate, executionContext] = ensureNamedImports(
    context,
    ['@nestjs/common'],
    ['Injectable', 'ForbiddenException'],
  ).concat(ensureNamedImports(context, ['@nestjs/common'], ['CanActivate', 'ExecutionContext'], { typeOnly: true }));
  const body = root.find(j.Program).get('body').value as AnyNode[];
  body.splice(
    afterImports(body),
    0,
    placeholder(context, nestGuardClass({ name, quote: context.quote, injectable, forbidden, canActivate, executionContext }), 'block'),
  );
  return name;
}

/** The options with the plan's transports and a stateless `streamableHttp`. */
function stateless(context: TransformContext, path: ASTPath, plan: McpNestPlan, guard: string | undefined): void {
  const { j } = context;
  const object = path.node as unknown as AnyNode;
  const properties = object.properties as AnyNode[];
  const property = (key: string) => properties.find((p) => propertyKey(p) === key);
  const code = (text: string) => j.identifier(inlinePlaceholder(context, text)) as never;
  // Values written in place, and properties the options did not have (key, value).
  let edited = false;
  const added: Array<[string, string]> = [];
  const guards = property('guards');
  if (guard && guards) {
    guards.value = code(`[${[guard, ...(plan.guards as string[])].join(', ')}]`);
    edited = true;
  } else if (guard) added.push(['guards', `[${guard}]`]);
  const streamable = property('streamableHttp');
  const value = streamable?.value as AnyNode | undefined;
  if (plan.sessions && streamable && value?.type === 'ObjectExpression') {
    const written = (value.properties as AnyNode[]).find((p) => propertyKey(p) === 'statelessMode');
    if (written) written.value = code('true');
    else streamable.value = code(appendProperty(context, value, 'statelessMode: true'));
    edited = true;
  }
  if (plan.sse) {
    const type = ensureNamedImport(context, [MCP_NEST], 'McpTransportType');
    const listOf = (members: string[]) => `[${members.map((member) => `${type}.${member}`).join(', ')}]`;
    const list = plan.choice
      ? `${plan.choice.test} ? ${listOf(plan.choice.whenTrue)} : ${listOf(plan.choice.whenFalse)}`
      : listOf(plan.transports);
    const transport = property('transport');
    if (transport) {
      transport.value = code(list);
      edited = true;
    } else added.push(['transport', list]);
  }
  if (added.length === 0) return;
  // Only additions: the object as written with them appended (appendProperty keeps its layout). After edits in
  // place, which are in the tree and not in the text appendProperty copies, they join the tree too.
  if (edited) for (const [key, text] of added) properties.push(j.objectProperty(j.identifier(key), code(text)) as never);
  else
    path.replace(
      code(
        appendProperty(
          context,
          object,
          added.map(([key, text]) => `${key}: ${text}`),
        ),
      ),
    );
}
