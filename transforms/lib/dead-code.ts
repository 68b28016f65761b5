// After routes are replaced, the session machinery they used (transport maps, lookup helpers, id imports) is dead.
// Remove exactly what the removed code referenced and nothing references any more; never touch exports.
import type { TransformContext } from './context';
import { declaredNames, referencedNames, type AnyNode } from './ast';
import { pruneImports } from './imports';
import { placeholderNames } from './emit';

export function removeDeadDeclarations(context: TransformContext, candidates: Set<string>, blocks: AnyNode[][] = []): void {
  const { j } = context;
  const program = context.root.find(j.Program).get('body').value as AnyNode[];
  const generatedUses = placeholderNames(context);
  for (const name of generatedUses) candidates.delete(name);
  // Inner blocks first (a map declared in the function that registered the routes), then the program.
  for (const body of [...blocks, program]) pruneList(context, body, candidates, generatedUses, body === program ? [] : [program]);
  for (const name of generatedUses) candidates.delete(name);
  pruneImports(context, candidates);
}

/** Remove declarations of `body` whose names are all candidates and referenced nowhere else in it (or `outer`). */
function pruneList(
  context: TransformContext,
  body: AnyNode[],
  candidates: Set<string>,
  generatedUses: Set<string>,
  outer: AnyNode[][],
): void {
  const { j } = context;
  for (let pass = 0; pass < 8; pass++) {
    let removed = false;
    for (let i = body.length - 1; i >= 0; i--) {
      const statement = body[i];
      if (
        statement.type === 'ExportNamedDeclaration' ||
        statement.type === 'ExportDefaultDeclaration' ||
        statement.type === 'ImportDeclaration'
      )
        continue;
      const names = declaredNames(statement);
      if (names.length === 0 || !names.every((n) => candidates.has(n) && !generatedUses.has(n))) continue;
      if (isRequireStatement(statement)) continue;
      // Never delete code this run generated (a route cluster may have been rewritten inside a now-unused function).
      if (
        j(statement as never)
          .find(j.Identifier)
          .some((p) => /^__mcpMigrate(?:Generated|Inline)/.test(p.node.name))
      )
        continue;
      const usedElsewhere =
        body.some((other, k) => k !== i && [...referencedNames(j, other)].some((n) => names.includes(n))) ||
        outer.some((list) =>
          list.some((other) => !containsNode(other, statement) && [...referencedNames(j, other)].some((n) => names.includes(n))),
        );
      if (usedElsewhere) continue;
      // What the dead declaration referenced may now be dead too.
      for (const name of referencedNames(j, statement)) candidates.add(name);
      body.splice(i, 1);
      removed = true;
    }
    if (!removed) break;
  }
}

function containsNode(outer: AnyNode, inner: AnyNode): boolean {
  return (
    outer === inner ||
    (typeof outer.start === 'number' &&
      typeof inner.start === 'number' &&
      (inner.start as number) >= (outer.start as number) &&
      (inner.end as number) <= (outer.end as number))
  );
}

function isRequireStatement(statement: AnyNode): boolean {
  return (
    statement.type === 'VariableDeclaration' &&
    (statement.declarations as AnyNode[]).every((d) => {
      const init = d.init as AnyNode | null;
      return (
        !!init &&
        init.type === 'CallExpression' &&
        (init.callee as AnyNode).type === 'Identifier' &&
        (init.callee as AnyNode).name === 'require'
      );
    })
  );
}
