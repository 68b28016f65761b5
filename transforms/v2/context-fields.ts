/**
 * context-fields — a variable of v2's `ServerContext` type read with a v1 field name (`ctx.requestId`,
 * `extra?.signal`, `ctx.authInfo`): the codemod retypes it (`RequestHandlerExtra<…>` → `ServerContext`, also behind a
 * local alias) but rewrites `extra.x` only inside the handlers it recognises, so in a helper handed the context, or in
 * `const sdk = callContext as unknown as Extra`, the read fails (TS2339). Each read takes the field from its v2 place
 * (the codemod's map, as context-destructuring does): `ctx.mcpReq.id`, `extra?.mcpReq.signal`, `ctx.http?.authInfo`.
 * Only names declared with that type (a parameter or variable annotated with it, or a variable initialised by a cast to
 * it) are followed; a write to such a field is left to the type-check.
 */
import type { API, FileInfo } from 'jscodeshift';
import { createContext, print, type TransformOptions } from '../lib/context';
import type { AnyNode } from '../lib/ast';
import { inlinePlaceholder } from '../lib/emit';
import { isVariableOf, isWritten, v2TypeNames, variablesOfType, withTypeAliases } from './lib';
import { V2_CONTEXT_PLACES } from '../../src/analysis/v2-context';

export const id = 'context-fields';

export function mayApply(text: string): boolean {
  return text.includes('ServerContext') && Object.keys(V2_CONTEXT_PLACES).some((field) => text.includes(`.${field}`));
}

export default function transform(file: FileInfo, api: API, options: TransformOptions = {}): string | undefined {
  const context = createContext(file, api, { ...options, findings: [] }, []);
  const { j, root } = context;
  const types = withTypeAliases(context, v2TypeNames(context, 'ServerContext'));
  if (types.size === 0) return undefined;
  const declared = variablesOfType(context, types);
  let changed = false;
  root.find(j.Node).forEach((p) => {
    const node = p.node as unknown as AnyNode;
    if ((node.type !== 'MemberExpression' && node.type !== 'OptionalMemberExpression') || node.computed) return;
    const object = node.object as AnyNode;
    const property = node.property as AnyNode;
    const place = Object.hasOwn(V2_CONTEXT_PLACES, property.name as string) ? V2_CONTEXT_PLACES[property.name as string] : undefined;
    if (object.type !== 'Identifier' || !place?.[0] || isWritten(p) || !isVariableOf(p, object.name as string, declared)) return;
    const [group, field] = place;
    node.property = j.identifier(inlinePlaceholder(context, group === 'http' ? `http?.${field}` : `${group}.${field}`));
    changed = true;
  });
  return changed ? print(context) : undefined;
}
