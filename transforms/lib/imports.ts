// Adding and pruning imports (ESM `import` and CommonJS `require` destructuring), format-preserving.
import type { TransformContext } from './context';
import { declaredNames, referencedNames, type AnyNode } from './ast';
import { placeholder, rewritePlaceholder } from './emit';

/** Imports this transform is adding (placeholders, printed at the end), with what they import. */
const importPlaceholders = new WeakMap<object, { module: string; names: string[]; typeOnly: boolean }>();

/** An import, a top-level require, or an import this transform is adding. */
export function isImportLike(statement: AnyNode): boolean {
  if (statement.type === 'ImportDeclaration' || importPlaceholders.has(statement)) return true;
  return statement.type === 'VariableDeclaration' && (statement.declarations as AnyNode[]).some((d) => isRequireOf(d, [requireModule(d)]));
}

/** Index just after the leading block of imports (and imports being added). */
export function afterImports(body: AnyNode[]): number {
  let index = 0;
  body.forEach((statement, i) => {
    if (isImportLike(statement)) index = i + 1;
  });
  return index;
}

function importCode(context: TransformContext, module: string, names: string[], typeOnly: boolean): string {
  const quote = context.quote === 'double' ? '"' : "'";
  return context.commonjs
    ? `const { ${names.join(', ')} } = require(${quote}${module}${quote});`
    : `import ${typeOnly ? 'type ' : ''}{ ${names.join(', ')} } from ${quote}${module}${quote};`;
}

function importPlaceholder(context: TransformContext, module: string, names: string[], typeOnly: boolean): AnyNode {
  const node = placeholder(context, importCode(context, module, names, typeOnly), 'tight');
  importPlaceholders.set(node, { module, names, typeOnly });
  return node;
}

function programBody(context: TransformContext): AnyNode[] {
  return context.root.find(context.j.Program).get('body').value as AnyNode[];
}

function isRequireOf(declarator: AnyNode, modules: string[]): boolean {
  const init = declarator.init as AnyNode | null;
  if (!init || init.type !== 'CallExpression') return false;
  const callee = init.callee as AnyNode;
  const [arg] = init.arguments as AnyNode[];
  return (
    callee.type === 'Identifier' &&
    callee.name === 'require' &&
    !!arg &&
    (arg.type === 'StringLiteral' || arg.type === 'Literal') &&
    modules.includes(arg.value as string)
  );
}

/** Index after the last top-level import/require statement (and a leading 'use strict'). */
function insertionIndex(body: AnyNode[]): number {
  return afterImports(body);
}

/**
 * Make `name` from `module` available and return its local name. `modules` lists equivalent specifiers
 * (`node:http`, `http`) so an existing import is reused.
 */
export function ensureNamedImports(
  context: TransformContext,
  modules: string[],
  names: string[],
  options: { typeOnly?: boolean } = {},
): string[] {
  const missing: string[] = [];
  const bound = moduleBindings(context);
  const locals = names.map((name) => {
    const existing = findImported(context, modules, name, !!options.typeOnly);
    if (existing) return existing;
    // The file already binds the name to something else: import ours under another name.
    let local = name;
    for (let i = 2; bound.has(local); i++) local = `${name}${i}`;
    missing.push(local === name ? name : `${name}${context.commonjs ? ':' : ' as'} ${local}`);
    return local;
  });
  if (missing.length === 0) return locals;
  const body = programBody(context);
  if (context.commonjs && options.typeOnly) return locals;
  // An import of the same module added earlier in this run takes the new names too.
  const typeOnly = !context.commonjs && !!options.typeOnly;
  const added = body.findIndex((d) => importPlaceholders.get(d)?.module === modules[0] && importPlaceholders.get(d)?.typeOnly === typeOnly);
  if (added >= 0) {
    const record = importPlaceholders.get(body[added])!;
    record.names.push(...missing);
    rewritePlaceholder(context, body[added], importCode(context, record.module, record.names, typeOnly));
    return locals;
  }
  if (context.commonjs) {
    body.splice(insertionIndex(body), 0, importPlaceholder(context, modules[0], missing, false));
    return locals;
  }
  const target = body.find(
    (d) =>
      d.type === 'ImportDeclaration' &&
      modules.includes((d.source as AnyNode).value as string) &&
      (d.specifiers as AnyNode[]).length > 0 &&
      (d.specifiers as AnyNode[]).every((s) => s.type === 'ImportSpecifier') &&
      (options.typeOnly || d.importKind !== 'type'),
  );
  if (target) {
    for (const entry of missing) {
      const [name, local = name] = entry.split(' as ');
      const specifier = context.j.importSpecifier(context.j.identifier(name), context.j.identifier(local)) as unknown as AnyNode;
      if (options.typeOnly && target.importKind !== 'type') specifier.importKind = 'type';
      (target.specifiers as AnyNode[]).push(specifier);
    }
    return locals;
  }
  body.splice(insertionIndex(body), 0, importPlaceholder(context, modules[0], missing, typeOnly));
  return locals;
}

/** Names bound at module level: imports, requires and top-level declarations. */
function moduleBindings(context: TransformContext): Set<string> {
  const names = new Set<string>();
  for (const statement of programBody(context)) {
    if (statement.type === 'ImportDeclaration') {
      for (const specifier of statement.specifiers as AnyNode[])
        names.add(((specifier.local ?? specifier.imported) as AnyNode).name as string);
    } else {
      for (const name of declaredNames(statement)) names.add(name);
    }
  }
  return names;
}

/**
 * The local name under which `name` from one of `modules` is already imported or required, if it is. A value wanted
 * where the file imports the name for types only (`import type { X }`, `import { type X }`) turns that import into a
 * value import of it (the other names of an `import type` keep their type-only kind).
 */
function findImported(context: TransformContext, modules: string[], name: string, typeOnly: boolean): string | undefined {
  for (const statement of programBody(context)) {
    const added = importPlaceholders.get(statement);
    if (added && modules.includes(added.module)) {
      const entry = added.names.find((n) => n === name || n.startsWith(`${name} as `) || n.startsWith(`${name}: `));
      if (entry) return entry.split(/ as |: /).at(-1);
    }
    if (statement.type === 'ImportDeclaration' && modules.includes((statement.source as AnyNode).value as string)) {
      for (const specifier of statement.specifiers as AnyNode[]) {
        if (specifier.type !== 'ImportSpecifier' || (specifier.imported as AnyNode).name !== name) continue;
        if (!typeOnly) importAsValue(statement, specifier);
        return (specifier.local as AnyNode).name as string;
      }
    }
    if (statement.type === 'VariableDeclaration') {
      for (const declarator of statement.declarations as AnyNode[]) {
        if (!isRequireOf(declarator, modules) || (declarator.id as AnyNode).type !== 'ObjectPattern') continue;
        for (const property of (declarator.id as AnyNode).properties as AnyNode[]) {
          if ((property.key as AnyNode | undefined)?.name === name) return ((property.value as AnyNode)?.name as string) ?? name;
        }
      }
    }
  }
  return undefined;
}

/** `import type { A, B }` → `import { type A, B }` for `B`; `import { type B }` → `import { B }`. */
function importAsValue(declaration: AnyNode, specifier: AnyNode): void {
  if (declaration.importKind === 'type') {
    for (const other of declaration.specifiers as AnyNode[]) if (other !== specifier) other.importKind = 'type';
    declaration.importKind = 'value';
  }
  if (specifier.importKind === 'type') specifier.importKind = 'value';
}

export function ensureNamedImport(
  context: TransformContext,
  modules: string[],
  name: string,
  options: { typeOnly?: boolean } = {},
): string {
  return ensureNamedImports(context, modules, [name], options)[0];
}

/** Replace an import/require statement of `fromModules` that brings `name` with one of `toModule`'s `newName`. */
export function importStatementIndex(context: TransformContext, modules: string[]): number {
  const body = programBody(context);
  return body.findIndex(
    (s) =>
      (s.type === 'ImportDeclaration' && modules.includes((s.source as AnyNode).value as string)) ||
      (s.type === 'VariableDeclaration' && (s.declarations as AnyNode[]).some((d) => isRequireOf(d, modules))),
  );
}

/**
 * Remove import specifiers / require bindings among `candidates` that nothing in the file references any more;
 * drop declarations left empty. Only names that the transform made dead are candidates, so unrelated unused
 * imports stay as the author wrote them.
 */
export function pruneImports(context: TransformContext, candidates: Set<string>): void {
  if (candidates.size === 0) return;
  const { j } = context;
  const body = programBody(context);
  const used = new Set<string>();
  for (const statement of body) {
    if (statement.type === 'ImportDeclaration') continue;
    if (
      statement.type === 'VariableDeclaration' &&
      (statement.declarations as AnyNode[]).every((d) => isRequireOf(d, [requireModule(d)]))
    ) {
      continue;
    }
    for (const name of referencedNames(j, statement)) used.add(name);
  }
  for (let i = body.length - 1; i >= 0; i--) {
    const statement = body[i];
    if (statement.type === 'ImportDeclaration') {
      const specifiers = statement.specifiers as AnyNode[];
      const kept = specifiers.filter((s) => {
        const local = ((s.local ?? s.imported) as AnyNode).name as string;
        return !candidates.has(local) || used.has(local);
      });
      if (kept.length === specifiers.length) continue;
      if (kept.length === 0) removeStatement(body, i);
      else statement.specifiers = kept;
    } else if (statement.type === 'VariableDeclaration') {
      for (const declarator of statement.declarations as AnyNode[]) {
        if (!isRequireOf(declarator, [requireModule(declarator)])) continue;
        const id = declarator.id as AnyNode;
        if (id.type === 'ObjectPattern') {
          const properties = id.properties as AnyNode[];
          const kept = properties.filter((p) => {
            const local = ((p.value as AnyNode)?.name ?? (p.key as AnyNode)?.name) as string;
            return !candidates.has(local) || used.has(local);
          });
          if (kept.length !== properties.length) id.properties = kept;
        }
      }
      const declarators = (statement.declarations as AnyNode[]).filter((d) => {
        const id = d.id as AnyNode;
        if (id.type === 'ObjectPattern') return (id.properties as AnyNode[]).length > 0;
        if (id.type === 'Identifier' && isRequireOf(d, [requireModule(d)]))
          return !candidates.has(id.name as string) || used.has(id.name as string);
        return true;
      });
      if (declarators.length === 0) removeStatement(body, i);
      else if (declarators.length !== (statement.declarations as AnyNode[]).length) statement.declarations = declarators;
    }
  }
}

/** Remove a statement; the file's header comment (leading comments of the first statement) moves to the next one. */
export function removeStatement(body: AnyNode[], index: number): void {
  const [removed] = body.splice(index, 1);
  const leading = ((removed.comments as AnyNode[] | undefined) ?? []).filter((c) => c.leading);
  const next = body[index];
  if (index !== 0 || leading.length === 0 || !next) return;
  next.comments = [...leading, ...((next.comments as AnyNode[] | undefined) ?? [])];
}

function requireModule(declarator: AnyNode): string {
  const init = declarator.init as AnyNode | null;
  if (!init || init.type !== 'CallExpression') return '\u0000';
  const [arg] = init.arguments as AnyNode[];
  return arg && typeof arg.value === 'string' ? (arg.value as string) : '\u0000';
}
