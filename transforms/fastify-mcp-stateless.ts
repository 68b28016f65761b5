/**
 * fastify-mcp-stateless — rule `session-id` on fastify-mcp's `app.register(streamableHttp, { stateful: true, … })`,
 * from the plan the analysis put on the finding (src/analysis/mcp-frameworks/fastify-mcp.ts): `stateful: false`, and
 * the `sessions` store the stateful plugin required leaves the options. The plugin then builds a server per POST with
 * the `createServer` it was given, and answers GET and DELETE with 405.
 */
import type { API, FileInfo } from 'jscodeshift';
import { createContext, print, type TransformOptions } from './lib/context';
import { propertyKey, type AnyNode } from './lib/ast';
import { inlinePlaceholder } from './lib/emit';
import { startsAtPosition } from './lib/locate';
import { removeDeadDeclarations } from './lib/dead-code';
import type { FastifyMcpPlan } from '../src/analysis/mcp-frameworks/fastify-mcp';

export const id = 'fastify-mcp-stateless';
export const rules = ['session-id'];
export const parser = 'tsx';

export default function transform(file: FileInfo, api: API, options: TransformOptions = {}): string | undefined {
  const context = createContext(file, api, options, rules);
  const positions = context.findings.flatMap((f) => {
    const plan = f.data?.fastifyMcp as FastifyMcpPlan | undefined;
    return plan?.form === 'session-stream' && plan.options ? [plan.options] : [];
  });
  const { j, root } = context;
  let changed = false;
  const unused = new Set<string>();
  for (const position of positions) {
    const object = root
      .find(j.ObjectExpression)
      .filter((p) => startsAtPosition(context, p.node as unknown as AnyNode, position))
      .nodes()[0] as unknown as AnyNode | undefined;
    const properties = (object?.properties ?? []) as AnyNode[];
    const stateful = properties.find((p) => propertyKey(p) === 'stateful');
    if (!object || !stateful) continue;
    stateful.value = j.identifier(inlinePlaceholder(context, 'false')) as never;
    const sessions = properties.find((p) => propertyKey(p) === 'sessions');
    if (sessions) {
      // (what only the store used — `new Sessions()`, `const sessions = …` — goes with it)
      const value = sessions.value as AnyNode;
      for (const name of j(value as never)
        .find(j.Identifier)
        .nodes())
        unused.add(name.name);
      if (value.type === 'Identifier') unused.add(value.name as string);
    }
    object.properties = properties.filter((p) => p !== sessions);
    changed = true;
  }
  removeDeadDeclarations(context, unused);
  return changed ? print(context) : undefined;
}
