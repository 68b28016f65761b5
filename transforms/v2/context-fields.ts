/**
 * context-fields — a variable of v2's `ServerContext` type read with a v1 field name (`ctx.requestId`,
 * `extra?.signal`, `ctx.authInfo`): the codemod retypes it (`RequestHandlerExtra<…>` → `ServerContext`, also behind a
 * local alias) but rewrites `extra.x` only inside the handlers it recognises, so in a helper handed the context, or in
 * `const sdk = callContext as unknown as Extra`, the read fails (TS2339). Each read takes the field from its v2 place
 * (the codemod's map, as context-destructuring does): `ctx.mcpReq.id`, `extra?.mcpReq.signal`, `ctx.http?.authInfo`.
 * Only names declared with that type (a parameter or variable annotated with it, or a variable initialised by a cast to
 * it) are followed; a write to such a field is left to the type-check.
 */
import type { API, ASTPath, FileInfo } from 'jscodeshift';
import { createContext, print, type TransformContext, type TransformOptions } from '../lib/context';
import { isFunctionNode, type AnyNode } from '../lib/ast';
import { inlinePlaceholder } from '../lib/emit';
import { V2_CONTEXT_PLACES, v2ContextTypes } from './lib';

export const id = 'context-fields';

export function mayApply(text: string): boolean {
  return text.includes('ServerContext') && Object.keys(V2_CONTEXT_PLACES).some((field) => text.includes(`.${field}`));
}

export default function transform(file: FileInfo, api: API, options: TransformOptions = {}): string | undefined {
  const context = createContext(file, api, { ...options, findings: [] }, []);
  const { j, root } = context;
  const types = contextTypeNames(context);
  if (types.size === 0) return undefined;
  const declared = contextVariables(context, types);
  let changed = false;
  root.find(j.Node).forEach((p) => {
    const node = p.node as unknown as AnyNode;
    if ((node.type !== 'MemberExpression' && node.type !== 'OptionalMemberExpression') || node.computed) return;
    const object = node.object as AnyNode;
    const property = node.property as AnyNode;
    const place = Object.hasOwn(V2_CONTEXT_PLACES, property.name as string) ? V2_CONTEXT_PLACES[property.name as string] : undefined;
    if (object.type !== 'Identifier' || !place?.[0] || isWritten(p)) return;
    const scope = (p as unknown as { scope?: { lookup(name: string): { node: unknown } | null } }).scope?.lookup(object.name as string);
    if (!scope || !declared.get(object.name as string)?.has(scope.node)) return;
    const [group, field] = place;
    node.property = j.identifier(inlinePlaceholder(context, group === 'http' ? `http?.${field}` : `${group}.${field}`));
    changed = true;
  });
  return changed ? print(context) : undefined;
}

/** v2's `ServerContext` as the file names it: imported (perhaps renamed), and local aliases of it (`type Extra = ServerContext`). */
function contextTypeNames(context: TransformContext): Set<string> {
  const { j, root } = context;
  const names = v2ContextTypes(context);
  const aliases = root.find(j.TSTypeAliasDeclaration).nodes() as unknown as AnyNode[];
  for (let grew = names.size > 0; grew;) {
    grew = false;
    for (const alias of aliases) {
      const name = (alias.id as AnyNode).name as string;
      if (!names.has(name) && isContextType(alias.typeAnnotation as AnyNode, names)) grew = !!names.add(name);
    }
  }
  return names;
}

function isContextType(type: AnyNode | undefined, names: Set<string>): boolean {
  const typeName = type?.type === 'TSTypeReference' ? (type.typeName as AnyNode) : undefined;
  return typeName?.type === 'Identifier' && names.has(typeName.name as string);
}

/** Each name declared with a context type → the scopes (their nodes) that declare it so. */
function contextVariables(context: TransformContext, types: Set<string>): Map<string, Set<unknown>> {
  const { j, root } = context;
  const declared = new Map<string, Set<unknown>>();
  const add = (name: string, scopeNode: unknown) => declared.set(name, (declared.get(name) ?? new Set()).add(scopeNode));
  const annotated = (id: AnyNode) => isContextType((id.typeAnnotation as AnyNode | undefined)?.typeAnnotation as AnyNode, types);
  root.find(j.Node).forEach((p) => {
    const node = p.node as unknown as AnyNode;
    if (isFunctionNode(node))
      for (const param of node.params as AnyNode[]) {
        const id = param.type === 'AssignmentPattern' ? (param.left as AnyNode) : param;
        if (id.type === 'Identifier' && annotated(id)) add(id.name as string, node);
      }
    if (node.type !== 'VariableDeclarator' || (node.id as AnyNode).type !== 'Identifier') return;
    const id = node.id as AnyNode;
    if (annotated(id) || castTo(node.init as AnyNode | null, types))
      add(id.name as string, (p as unknown as { scope: { node: unknown } }).scope.node);
  });
  return declared;
}

/** `x as unknown as Extra`, `<Extra>x`: the outermost cast names a context type. */
function castTo(init: AnyNode | null, types: Set<string>): boolean {
  return (init?.type === 'TSAsExpression' || init?.type === 'TSTypeAssertion') && isContextType(init.typeAnnotation as AnyNode, types);
}

function isWritten(p: ASTPath<unknown>): boolean {
  const parent = p.parent?.node as AnyNode | undefined;
  if (!parent) return false;
  if (parent.type === 'AssignmentExpression') return parent.left === p.node;
  return parent.type === 'UpdateExpression' || (parent.type === 'UnaryExpression' && parent.operator === 'delete');
}
