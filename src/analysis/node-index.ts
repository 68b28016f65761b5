// One walk per file: every node bucketed by kind, identifiers by name. Rules and helpers ask this index instead of
// re-walking the tree (each ts-morph walk wraps every node it passes), which is most of what `check` costs. The walk
// is of the compiler's tree, and a node is wrapped (given its ts-morph node) only when someone asks for it: most are
// never asked for (the identifiers, above all, are asked for by name).
import { ts, type Identifier, type KindToNodeMappings, type Node, type SourceFile, type SyntaxKind } from 'ts-morph';

interface NodeIndex {
  byKind: Map<SyntaxKind, ts.Node[]>;
  identifiers: Map<string, ts.Identifier[]>;
  /** What has been asked for, wrapped. */
  wrappedByKind: Map<SyntaxKind, Node[]>;
  wrappedByName: Map<string, Identifier[]>;
}

const indexes = new WeakMap<SourceFile, NodeIndex>();

function indexOf(file: SourceFile): NodeIndex {
  let index = indexes.get(file);
  if (!index) {
    const sourceFile = file.compilerNode;
    const byKind = new Map<SyntaxKind, ts.Node[]>();
    const identifiers = new Map<string, ts.Identifier[]>();
    // In document order, as `forEachDescendant` visits them: each node before its children.
    const pending: ts.Node[] = [];
    const pushChildren = (node: ts.Node) => {
      const children: ts.Node[] = [];
      ts.forEachChild(node, (child) => {
        children.push(child);
      });
      for (let i = children.length - 1; i >= 0; i--) pending.push(children[i]);
    };
    pushChildren(sourceFile);
    while (pending.length > 0) {
      const node = pending.pop()!;
      let list = byKind.get(node.kind);
      if (!list) byKind.set(node.kind, (list = []));
      list.push(node);
      if (ts.isIdentifier(node)) {
        const name = node.getText(sourceFile);
        let named = identifiers.get(name);
        if (!named) identifiers.set(name, (named = []));
        named.push(node);
      }
      pushChildren(node);
    }
    index = { byKind, identifiers, wrappedByKind: new Map(), wrappedByName: new Map() };
    indexes.set(file, index);
  }
  return index;
}

/** The ts-morph node of a node of the file's compiler tree: the one every other way to it gives. */
function wrap<T extends Node>(file: SourceFile, node: ts.Node): T {
  return (file as unknown as { _getNodeFromCompilerNode(node: ts.Node): T })._getNodeFromCompilerNode(node);
}

/** All nodes of a kind in the file, in document order (like `getDescendantsOfKind`, cached). */
export function nodesOfKind<K extends SyntaxKind>(file: SourceFile, kind: K): Array<KindToNodeMappings[K]> {
  const index = indexOf(file);
  let wrapped = index.wrappedByKind.get(kind);
  if (!wrapped) index.wrappedByKind.set(kind, (wrapped = (index.byKind.get(kind) ?? []).map((node) => wrap(file, node))));
  return wrapped as Array<KindToNodeMappings[K]>;
}

/** Identifiers spelled `name` in the file. */
export function identifiersNamed(file: SourceFile, name: string): Identifier[] {
  const index = indexOf(file);
  let wrapped = index.wrappedByName.get(name);
  if (!wrapped) index.wrappedByName.set(name, (wrapped = (index.identifiers.get(name) ?? []).map((id) => wrap<Identifier>(file, id))));
  return wrapped;
}

/** Identifiers inside the node whose name passes the test, in no particular order (the index, not a walk of the node). */
export function identifiersWithin(node: Node, named: (name: string) => boolean): Identifier[] {
  const { pos, end } = node.compilerNode;
  const file = node.getSourceFile();
  const found: Identifier[] = [];
  for (const [name, identifiers] of indexOf(file).identifiers) {
    if (!named(name)) continue;
    for (const id of identifiers) if (id.pos >= pos && id.end <= end) found.push(wrap<Identifier>(file, id));
  }
  return found;
}

/**
 * The identifiers in the node's subtree, those in JSDoc included, in the order `getDescendantsOfKind(SyntaxKind.Identifier)`
 * gives them (each node's JSDoc before its children), from a walk of the compiler's tree: ts-morph's walk for a token
 * kind scans the tokens of every node it passes and wraps them.
 */
export function identifiersUnder(node: Node): Identifier[] {
  const file = node.getSourceFile();
  const found: Identifier[] = [];
  const pending: ts.Node[] = [];
  const pushChildren = (parent: ts.Node) => {
    const children: ts.Node[] = [...((parent as { jsDoc?: ts.JSDoc[] }).jsDoc ?? [])];
    ts.forEachChild(parent, (child) => {
      children.push(child);
    });
    for (let i = children.length - 1; i >= 0; i--) pending.push(children[i]);
  };
  pushChildren(node.compilerNode);
  while (pending.length > 0) {
    const current = pending.pop()!;
    if (ts.isIdentifier(current)) found.push(wrap<Identifier>(file, current));
    pushChildren(current);
  }
  return found;
}
