/**
 * resource-calls — `server.resource(name, uriOrTemplate, [metadata,] readCallback)` on a v2 `McpServer`: v2 has only
 * `registerResource(name, uriOrTemplate, config, readCallback)` (TS2339, and the callback's parameters go implicitly
 * `any`, TS7006). The codemod rewrites the call only when the name is a string literal; a name held in a variable
 * (`server.resource(def.name, template, metadata, handler)`) keeps the v1 call. Where the receiver is declared as v2's
 * `McpServer` (a parameter or variable annotated with it, or cast to it), the call gets the codemod's own rewrite:
 * renamed, and `{}` as the config of the three-argument form.
 */
import type { API, FileInfo } from 'jscodeshift';
import { createContext, print, type TransformOptions } from '../lib/context';
import type { AnyNode } from '../lib/ast';
import { inlinePlaceholder } from '../lib/emit';
import { isVariableOf, v2TypeNames, variablesOfType, withTypeAliases } from './lib';

export const id = 'resource-calls';

export function mayApply(text: string): boolean {
  return text.includes('.resource(') && text.includes('McpServer');
}

export default function transform(file: FileInfo, api: API, options: TransformOptions = {}): string | undefined {
  const context = createContext(file, api, { ...options, findings: [] }, []);
  const { j, root } = context;
  const types = withTypeAliases(context, v2TypeNames(context, 'McpServer'));
  if (types.size === 0) return undefined;
  const servers = variablesOfType(context, types);
  let changed = false;
  root.find(j.CallExpression).forEach((p) => {
    const callee = p.node.callee as unknown as AnyNode;
    const args = p.node.arguments as unknown as AnyNode[];
    if (callee.type !== 'MemberExpression' || callee.computed || (callee.property as AnyNode).name !== 'resource') return;
    const receiver = callee.object as AnyNode;
    if (receiver.type !== 'Identifier' || (args.length !== 3 && args.length !== 4) || args.some((a) => a.type === 'SpreadElement')) return;
    if (!isVariableOf(p, receiver.name as string, servers)) return;
    (callee.property as AnyNode).name = 'registerResource';
    if (args.length === 3) (p.node.arguments as unknown[]).splice(2, 0, j.identifier(inlinePlaceholder(context, '{}')));
    changed = true;
  });
  return changed ? print(context) : undefined;
}
