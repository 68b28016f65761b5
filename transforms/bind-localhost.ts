/**
 * bind-localhost — rule `local-bind` (unsafe: a server meant to be remote would become unreachable).
 * `listen(port)` / `listen(port, cb)` / `listen(port, '0.0.0.0')` → `listen(port, '127.0.0.1'…)`.
 */
import type { API, FileInfo } from 'jscodeshift';
import { createContext, print, type TransformOptions } from './lib/context';
import { containsLocation, type AnyNode } from './lib/ast';

export const id = 'bind-localhost';
export const rules = ['local-bind'];
export const parser = 'tsx';

const ALL_INTERFACES = new Set(['0.0.0.0', '::', '[::]', '']);

export default function transform(file: FileInfo, api: API, options: TransformOptions = {}): string | undefined {
  const context = createContext(file, api, options, rules);
  if (context.findings.length === 0) return undefined;
  const { j, root } = context;
  let changed = false;
  root.find(j.CallExpression, { callee: { property: { name: 'listen' } } }).forEach((path) => {
    const call = path.node as unknown as AnyNode;
    if (!context.findings.some((f) => containsLocation(call, f) && call.loc!.start.line === f.line)) return;
    const args = call.arguments as AnyNode[];
    const host = j.stringLiteral('127.0.0.1') as unknown as AnyNode;
    if (args[0]?.type === 'ObjectExpression') {
      const props = args[0].properties as AnyNode[];
      const existing = props.find((p) => (p.key as AnyNode)?.name === 'host');
      if (existing) existing.value = host;
      else props.push(j.objectProperty(j.identifier('host'), host as never) as unknown as AnyNode);
      changed = true;
      return;
    }
    const second = args[1];
    if (!second || second.type === 'ArrowFunctionExpression' || second.type === 'FunctionExpression') {
      args.splice(1, 0, host);
      changed = true;
    } else if ((second.type === 'StringLiteral' || second.type === 'Literal') && ALL_INTERFACES.has(second.value as string)) {
      args[1] = host;
      changed = true;
    }
  });
  return changed ? print(context) : undefined;
}
