/**
 * zod-record-key — zod 4 (needed by the v2 SDK) dropped the one-argument `z.record(valueSchema)`: the key schema is
 * required (`error TS2554: Expected 2-3 arguments, but got 1`; zod 3's single argument meant string keys). Writes
 * `z.record(z.string(), valueSchema)`, which both zod 3 and zod 4 read the same way.
 */
import type { API, FileInfo } from 'jscodeshift';
import { createContext, print, type TransformOptions } from '../lib/context';
import type { AnyNode } from '../lib/ast';
import { inlinePlaceholder } from '../lib/emit';
import { zodNamespaces } from './lib';

export const id = 'zod-record-key';

export function mayApply(text: string): boolean {
  return text.includes('.record(') && /['"]zod(?:\/v4)?['"]/.test(text);
}

export default function transform(file: FileInfo, api: API, options: TransformOptions = {}): string | undefined {
  const context = createContext(file, api, { ...options, findings: [] }, []);
  const { j, root } = context;
  const namespaces = zodNamespaces(context);
  if (namespaces.size === 0) return undefined;
  let changed = false;
  root.find(j.CallExpression).forEach((p) => {
    const callee = p.node.callee as unknown as AnyNode;
    const args = p.node.arguments as unknown as AnyNode[];
    if (callee.type !== 'MemberExpression' || callee.computed || args.length !== 1 || args[0].type === 'SpreadElement') return;
    const object = callee.object as AnyNode;
    if (object.type !== 'Identifier' || !namespaces.has(object.name as string) || (callee.property as AnyNode).name !== 'record') return;
    (p.node.arguments as unknown[]).unshift(j.identifier(inlinePlaceholder(context, `${object.name as string}.string()`)));
    changed = true;
  });
  return changed ? print(context) : undefined;
}
