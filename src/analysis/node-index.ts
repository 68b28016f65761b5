// One walk per file: every node bucketed by kind, identifiers by name. Rules and helpers ask this index instead of
// re-walking the tree (each ts-morph walk wraps every node it passes), which is most of what `check` costs.
import { Node, SyntaxKind, type Identifier, type KindToNodeMappings, type SourceFile } from 'ts-morph';

interface NodeIndex {
  byKind: Map<SyntaxKind, Node[]>;
  identifiers: Map<string, Identifier[]>;
}

const indexes = new WeakMap<SourceFile, NodeIndex>();

function indexOf(file: SourceFile): NodeIndex {
  let index = indexes.get(file);
  if (!index) {
    const byKind = new Map<SyntaxKind, Node[]>();
    const identifiers = new Map<string, Identifier[]>();
    file.forEachDescendant((node) => {
      const kind = node.getKind();
      let list = byKind.get(kind);
      if (!list) byKind.set(kind, (list = []));
      list.push(node);
      if (Node.isIdentifier(node)) {
        const name = node.getText();
        let named = identifiers.get(name);
        if (!named) identifiers.set(name, (named = []));
        named.push(node);
      }
    });
    index = { byKind, identifiers };
    indexes.set(file, index);
  }
  return index;
}

/** All nodes of a kind in the file, in document order (like `getDescendantsOfKind`, cached). */
export function nodesOfKind<K extends SyntaxKind>(file: SourceFile, kind: K): Array<KindToNodeMappings[K]> {
  return (indexOf(file).byKind.get(kind) ?? []) as Array<KindToNodeMappings[K]>;
}

/** Identifiers spelled `name` in the file. */
export function identifiersNamed(file: SourceFile, name: string): Identifier[] {
  return indexOf(file).identifiers.get(name) ?? [];
}

/** Identifiers inside the node whose name passes the test, in no particular order (the index, not a walk of the node). */
export function identifiersWithin(node: Node, named: (name: string) => boolean): Identifier[] {
  const { pos, end } = node.compilerNode;
  const found: Identifier[] = [];
  for (const [name, identifiers] of indexOf(node.getSourceFile()).identifiers) {
    if (!named(name)) continue;
    for (const id of identifiers) if (id.compilerNode.pos >= pos && id.compilerNode.end <= end) found.push(id);
  }
  return found;
}
