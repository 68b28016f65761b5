// What the v2 fix-ups share: the local names a module's exports are bound to in a file (ESM imports and top-level
// CommonJS requires), for transforms that must only touch calls on the real import.
import type { TransformContext } from '../lib/context';
import type { ASTPath } from 'jscodeshift';
import { isFunctionNode, type AnyNode } from '../lib/ast';
import { originalText } from '../lib/source-edit';
import { V2_CONTEXT_PLACES } from '../../src/analysis/v2-context';

export interface ModuleBindings {
  /** `import * as z from 'zod'`, `import z from 'zod'`, `const z = require('zod')`. */
  namespaces: Set<string>;
  /** Named imports by imported name → local name (`import { z } from 'zod'` → z → z). */
  named: Map<string, string>;
}

/** How a file binds `modules` (equivalent specifiers, e.g. `zod` and `zod/v4`). */
export function moduleBindings(context: TransformContext, modules: string[]): ModuleBindings {
  const { j, root } = context;
  const bindings: ModuleBindings = { namespaces: new Set(), named: new Map() };
  root.find(j.ImportDeclaration).forEach((p) => {
    if (!modules.includes(p.node.source.value as string) || p.node.importKind === 'type') return;
    for (const specifier of (p.node.specifiers ?? []) as unknown as AnyNode[]) {
      const local = (specifier.local as AnyNode).name as string;
      if (specifier.type === 'ImportSpecifier' && specifier.importKind !== 'type')
        bindings.named.set((specifier.imported as AnyNode).name as string, local);
      else if (specifier.type === 'ImportNamespaceSpecifier' || specifier.type === 'ImportDefaultSpecifier') bindings.namespaces.add(local);
    }
  });
  root.find(j.VariableDeclarator).forEach((p) => {
    const init = p.node.init as unknown as AnyNode | null;
    if (!init || init.type !== 'CallExpression') return;
    const callee = init.callee as AnyNode;
    const [argument] = init.arguments as AnyNode[];
    if (callee.type !== 'Identifier' || callee.name !== 'require' || !argument || !modules.includes(argument.value as string)) return;
    const id = p.node.id as unknown as AnyNode;
    if (id.type === 'Identifier') bindings.namespaces.add(id.name as string);
    if (id.type !== 'ObjectPattern') return;
    for (const property of id.properties as AnyNode[]) {
      const key = (property.key as AnyNode | undefined)?.name as string | undefined;
      const value = (property.value as AnyNode | undefined)?.name as string | undefined;
      if (key) bindings.named.set(key, value ?? key);
    }
  });
  return bindings;
}

/** The zod entry points whose `z` is the zod 4 API once zod 4 is installed. */
export const ZOD_MODULES = ['zod', 'zod/v4'];

/** Local names that reach zod's `z` namespace in this file (`z` from `import { z }`, or the namespace itself). */
export function zodNamespaces(context: TransformContext): Set<string> {
  const bindings = moduleBindings(context, ZOD_MODULES);
  const names = new Set(bindings.namespaces);
  const z = bindings.named.get('z');
  if (z) names.add(z);
  return names;
}

/** Local names of a type a v2 package exports (`ServerContext`, `McpServer`), as imported (`import { type ServerContext as Ctx }`). */
export function v2TypeNames(context: TransformContext, exported: string): Set<string> {
  const { j, root } = context;
  const names = new Set<string>();
  root.find(j.ImportDeclaration).forEach((p) => {
    if (!String(p.node.source.value).startsWith('@modelcontextprotocol/')) return;
    for (const specifier of (p.node.specifiers ?? []) as unknown as AnyNode[]) {
      if (specifier.type === 'ImportSpecifier' && (specifier.imported as AnyNode).name === exported)
        names.add((specifier.local as AnyNode).name as string);
    }
  });
  return names;
}

/** `names` with the file's local aliases of them (`type Extra = ServerContext`). */
export function withTypeAliases(context: TransformContext, names: Set<string>): Set<string> {
  const { j, root } = context;
  const all = new Set(names);
  const aliases = root.find(j.TSTypeAliasDeclaration).nodes() as unknown as AnyNode[];
  for (let grew = all.size > 0; grew;) {
    grew = false;
    for (const alias of aliases) {
      const name = (alias.id as AnyNode).name as string;
      if (!all.has(name) && namesType(alias.typeAnnotation as AnyNode, all)) grew = !!all.add(name);
    }
  }
  return all;
}

function namesType(type: AnyNode | undefined, names: Set<string>): boolean {
  const typeName = type?.type === 'TSTypeReference' ? (type.typeName as AnyNode) : undefined;
  return typeName?.type === 'Identifier' && names.has(typeName.name as string);
}

/**
 * Variables of one of these types: each name → the scopes (their nodes) that declare it so, by a parameter or variable
 * annotated with it, or a variable initialised by a cast to it (`x as unknown as Extra`). Compare with
 * `path.scope.lookup(name).node` at a use.
 */
export function variablesOfType(context: TransformContext, types: Set<string>): Map<string, Set<unknown>> {
  const { j, root } = context;
  const declared = new Map<string, Set<unknown>>();
  const add = (name: string, scopeNode: unknown) => declared.set(name, (declared.get(name) ?? new Set()).add(scopeNode));
  const annotated = (id: AnyNode) => namesType((id.typeAnnotation as AnyNode | undefined)?.typeAnnotation as AnyNode, types);
  const cast = (init: AnyNode | null) =>
    (init?.type === 'TSAsExpression' || init?.type === 'TSTypeAssertion') && namesType(init.typeAnnotation as AnyNode, types);
  root.find(j.Node).forEach((p) => {
    const node = p.node as unknown as AnyNode;
    if (isFunctionNode(node))
      for (const param of node.params as AnyNode[]) {
        const id = param.type === 'AssignmentPattern' ? (param.left as AnyNode) : param;
        if (id.type === 'Identifier' && annotated(id)) add(id.name as string, node);
      }
    if (node.type !== 'VariableDeclarator' || (node.id as AnyNode).type !== 'Identifier') return;
    const id = node.id as AnyNode;
    if (annotated(id) || cast(node.init as AnyNode | null))
      add(id.name as string, (p as unknown as { scope: { node: unknown } }).scope.node);
  });
  return declared;
}

/** The identifier at this path is one of `variables` (declared where they were found). */
export function isVariableOf(p: ASTPath<unknown>, name: string, variables: Map<string, Set<unknown>>): boolean {
  const scope = (p as unknown as { scope?: { lookup(name: string): { node: unknown } | null } }).scope?.lookup(name);
  return !!scope && !!variables.get(name)?.has(scope.node);
}

/** The pattern names a v1 field that v2 keeps elsewhere (`sessionId` stays where it was). */
export function movesAField(pattern: AnyNode): boolean {
  return (pattern.properties as AnyNode[]).some((property) => {
    const place = v2Place(property.key as AnyNode | undefined);
    return !!place && place[0] !== undefined;
  });
}

export function v2Place(key: AnyNode | undefined): (typeof V2_CONTEXT_PLACES)[string] | undefined {
  const name = key?.type === 'Identifier' ? (key.name as string) : undefined;
  return name !== undefined && Object.hasOwn(V2_CONTEXT_PLACES, name) ? V2_CONTEXT_PLACES[name] : undefined;
}

/** The v2 pattern binding the same names, or undefined when a field has no v2 place or the pattern is not plain. */
export function v2Pattern(context: TransformContext, pattern: AnyNode): string | undefined {
  const groups = new Map<string | undefined, string[]>();
  for (const property of pattern.properties as AnyNode[]) {
    if ((property.type !== 'ObjectProperty' && property.type !== 'Property') || property.computed) return undefined;
    const place = v2Place(property.key as AnyNode);
    if (!place) return undefined;
    const [group, field] = place;
    groups.set(group, [...(groups.get(group) ?? []), element(context, property, field)]);
  }
  const elements = [...groups].map(([group, fields]) => {
    if (group === undefined) return fields.join(', ');
    return `${group}: { ${fields.join(', ')} }${group === 'http' ? ' = {}' : ''}`;
  });
  const annotation = pattern.typeAnnotation as AnyNode | undefined;
  const kept = annotation && (annotation.typeAnnotation as AnyNode).type !== 'TSTypeLiteral' ? originalText(context, annotation) : '';
  return `{ ${elements.join(', ')} }${kept}`;
}

/** One field of the v2 pattern, bound to the local the v1 pattern bound (its default kept). */
function element(context: TransformContext, property: AnyNode, field: string): string {
  const value = property.value as AnyNode;
  const local = value.type === 'AssignmentPattern' ? (value.left as AnyNode) : value;
  if (local.type === 'Identifier' && local.name === field) return originalText(context, value);
  return `${field}: ${originalText(context, value)}`;
}

/** The member expression at the path is assigned, updated or deleted, not read. */
export function isWritten(p: ASTPath<unknown>): boolean {
  const parent = p.parent?.node as AnyNode | undefined;
  if (!parent) return false;
  if (parent.type === 'AssignmentExpression') return parent.left === p.node;
  return parent.type === 'UpdateExpression' || (parent.type === 'UnaryExpression' && parent.operator === 'delete');
}

/**
 * The file is on the v2 packages: it imports one, or no v1 SDK module at all (a module that registers tools on a server
 * its caller passes in, in a package the v2 move took off the v1 SDK). A file still importing the v1 SDK keeps v1's context.
 */
export function onV2Packages(context: TransformContext): boolean {
  const { j, root } = context;
  const sources = [
    ...root
      .find(j.ImportDeclaration)
      .nodes()
      .map((node) => String(node.source.value)),
    ...root
      .find(j.CallExpression, { callee: { type: 'Identifier', name: 'require' } })
      .nodes()
      .map((node) => String((node.arguments[0] as unknown as AnyNode | undefined)?.value)),
  ];
  if (sources.some((source) => /^@modelcontextprotocol\/(?:server|node|express|hono|fastify)(?:\/|$)/.test(source))) return true;
  return !sources.some((source) => /^@modelcontextprotocol\/sdk(?:\/|$)/.test(source));
}
