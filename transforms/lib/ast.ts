// Small AST helpers over jscodeshift's (babel) tree: positions, names, statements.
import type { ASTPath, JSCodeshift } from 'jscodeshift';
import type { Location } from '../../src/model';

type AnyNode = {
  type: string;
  loc?: { start: { line: number; column: number }; end: { line: number; column: number } } | null;
  [key: string]: unknown;
};

/** Does the node's source range contain the 1-based (line, column) position? */
export function containsPosition(node: AnyNode, line: number, column: number): boolean {
  const loc = node.loc;
  if (!loc) return false;
  const col0 = column - 1;
  const afterStart = line > loc.start.line || (line === loc.start.line && col0 >= loc.start.column);
  const beforeEnd = line < loc.end.line || (line === loc.end.line && col0 < loc.end.column);
  return afterStart && beforeEnd;
}

export function containsLocation(node: AnyNode, location: Pick<Location, 'line' | 'column'>): boolean {
  return containsPosition(node, location.line, location.column);
}

export function isFunctionNode(node: { type: string } | null | undefined): boolean {
  return (
    !!node &&
    (node.type === 'ArrowFunctionExpression' ||
      node.type === 'FunctionExpression' ||
      node.type === 'FunctionDeclaration' ||
      node.type === 'ObjectMethod' ||
      node.type === 'ClassMethod')
  );
}

/** The closest ancestor path (including itself) that satisfies the predicate. */
export function closest(path: ASTPath, predicate: (node: AnyNode) => boolean): ASTPath | undefined {
  let current: ASTPath | null = path;
  while (current) {
    if (predicate(current.node as unknown as AnyNode)) return current;
    current = current.parent;
  }
  return undefined;
}

/** The statement path that directly sits in a Program or block body. */
export function enclosingStatement(path: ASTPath): ASTPath | undefined {
  let current: ASTPath | null = path;
  while (current && current.parent) {
    const parentNode = current.parent.node as AnyNode;
    if ((parentNode.type === 'Program' || parentNode.type === 'BlockStatement') && Array.isArray(parentNode.body)) return current;
    current = current.parent;
  }
  return undefined;
}

/** The module-level statement (a child of `Program`) that holds the path. */
export function topStatement(path: ASTPath): ASTPath {
  let current = path;
  while (current.parent && (current.parent.node as AnyNode).type !== 'Program') current = current.parent;
  return current;
}

/** The leftmost identifier of `a.b.c(...)` / `a[b].c = …`. */
export function rootIdentifier(node: AnyNode | null | undefined): string | undefined {
  let current: AnyNode | null | undefined = node;
  for (let i = 0; i < 20 && current; i++) {
    switch (current.type) {
      case 'Identifier':
        return current.name as string;
      case 'MemberExpression':
      case 'OptionalMemberExpression':
        current = current.object as AnyNode;
        break;
      case 'CallExpression':
      case 'OptionalCallExpression':
        current = current.callee as AnyNode;
        break;
      case 'AssignmentExpression':
        current = current.left as AnyNode;
        break;
      case 'AwaitExpression':
      case 'TSNonNullExpression':
      case 'TSAsExpression':
        current = (current.argument ?? current.expression) as AnyNode | undefined;
        break;
      default:
        return undefined;
    }
  }
  return undefined;
}

/** Identifier names referenced by a subtree (object keys and non-computed member names excluded). */
/** The members a node reads through `this` (`this.sessions.get(id)` → `sessions`). */
export function thisMemberNames(j: JSCodeshift, node: unknown): Set<string> {
  const names = new Set<string>();
  j(node as never)
    .find(j.MemberExpression, { object: { type: 'ThisExpression' }, computed: false })
    .forEach((p) => {
      const property = (p.node as unknown as AnyNode).property as AnyNode;
      if (property.type === 'Identifier') names.add(property.name as string);
    });
  return names;
}

export function referencedNames(j: JSCodeshift, node: unknown): Set<string> {
  const names = new Set<string>();
  j(node as never)
    .find(j.Identifier)
    .forEach((p) => {
      const parent = p.parent?.node as AnyNode | undefined;
      if (parent) {
        if (
          (parent.type === 'MemberExpression' || parent.type === 'OptionalMemberExpression') &&
          parent.property === p.node &&
          !parent.computed
        )
          return;
        if (
          (parent.type === 'ObjectProperty' ||
            parent.type === 'Property' ||
            parent.type === 'ClassProperty' ||
            parent.type === 'ObjectMethod') &&
          parent.key === p.node &&
          !parent.computed &&
          !parent.shorthand
        )
          return;
        if (parent.type === 'TSPropertySignature' && parent.key === p.node) return;
      }
      names.add(p.node.name);
    });
  return names;
}

/** Names a top-level statement declares. */
export function declaredNames(statement: AnyNode): string[] {
  const target = statement.type === 'ExportNamedDeclaration' ? (statement.declaration as AnyNode | null) : statement;
  if (!target) return [];
  if (target.type === 'VariableDeclaration') {
    return (target.declarations as AnyNode[]).flatMap((d) => patternNames(d.id as AnyNode));
  }
  if (
    (target.type === 'FunctionDeclaration' ||
      target.type === 'ClassDeclaration' ||
      target.type === 'TSInterfaceDeclaration' ||
      target.type === 'TSTypeAliasDeclaration' ||
      target.type === 'TSEnumDeclaration') &&
    target.id
  ) {
    return [(target.id as AnyNode).name as string];
  }
  return [];
}

function patternNames(pattern: AnyNode): string[] {
  switch (pattern.type) {
    case 'Identifier':
      return [pattern.name as string];
    case 'ObjectPattern':
      return (pattern.properties as AnyNode[]).flatMap((p) => patternNames((p.value ?? p.argument) as AnyNode));
    case 'ArrayPattern':
      return (pattern.elements as Array<AnyNode | null>).flatMap((e) => (e ? patternNames(e) : []));
    case 'AssignmentPattern':
      return patternNames(pattern.left as AnyNode);
    case 'RestElement':
      return patternNames(pattern.argument as AnyNode);
    default:
      return [];
  }
}

/**
 * Parse a snippet with the file's parser and return its top-level statements, detached from the snippet's
 * source (no `loc`), so recast prints them as new code beside the file's own, untouched nodes.
 */
export function statementsOf(j: JSCodeshift, code: string): AnyNode[] {
  const statements = j(code).find(j.Program).get('body').value as AnyNode[];
  statements.forEach(detach);
  return statements;
}

function detach(node: unknown): void {
  if (!node || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    node.forEach(detach);
    return;
  }
  const record = node as Record<string, unknown>;
  for (const key of ['loc', 'start', 'end', 'tokens', 'original', 'extra']) {
    if (Object.prototype.hasOwnProperty.call(record, key)) {
      try {
        record[key] = null;
      } catch {
        // read-only bookkeeping property: nothing to detach
      }
    }
  }
  for (const key of Object.keys(record)) {
    if (key === 'type' || key === 'original') continue;
    const value = record[key];
    if (value && typeof value === 'object') detach(value);
  }
}

export type { AnyNode };

/** The name an object property is written with (`a: 1`, `'a': 1`); '' for a computed key or a spread. */
export function propertyKey(property: AnyNode): string {
  const key = property.key as AnyNode | undefined;
  return (key?.name as string | undefined) ?? (key?.value as string | undefined) ?? '';
}
