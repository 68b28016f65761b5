// Keyed stores (`Map`s, records, `this.sessions`) followed through every reference to them in the project.
import { Node, SyntaxKind, type Identifier } from 'ts-morph';
import { unwrapExpression } from './endpoints/spans';
import { referencesOf } from './references';

/** The name node that identifies a store expression (`sessions`, or `sessions` in `this.sessions`). */
export function storeName(store: Node): Identifier | undefined {
  if (Node.isIdentifier(store)) return store;
  if (Node.isPropertyAccessExpression(store)) return store.getNameNode() as Identifier;
  return undefined;
}

/** The expression a reference to a store stands for: the reference, or `this.sessions` around its name. */
export function storeExpression(reference: Node): Node {
  const parent = reference.getParent();
  return Node.isPropertyAccessExpression(parent) && parent.getNameNode() === reference ? parent : reference;
}

/** Writes to a store anywhere in the project: `store.set(key, value)` calls and `store[key] = value` assignments. */
export function storeWrites(name: Identifier): Node[] {
  return referencesOf(name).flatMap((reference): Node[] => {
    const outer = storeExpression(reference).getParent();
    const call = outer?.getParent();
    if (Node.isPropertyAccessExpression(outer) && outer.getName() === 'set' && Node.isCallExpression(call)) return [call];
    if (Node.isElementAccessExpression(outer) && Node.isBinaryExpression(call) && call.getLeft() === outer) return [call];
    return [];
  });
}

/** `store.set(key, value)` or `store[key] = value`: the store, the key and the value it writes. */
export function storeWrite(node: Node): { store: Node; key: Node | undefined; value: Node } | undefined {
  if (Node.isCallExpression(node)) {
    const callee = node.getExpression();
    const [key, value] = node.getArguments();
    if (Node.isPropertyAccessExpression(callee) && callee.getName() === 'set' && value)
      return { store: callee.getExpression(), key, value };
    return undefined;
  }
  if (!Node.isBinaryExpression(node) || node.getOperatorToken().getKind() !== SyntaxKind.EqualsToken) return undefined;
  const target = node.getLeft();
  return Node.isElementAccessExpression(target)
    ? { store: target.getExpression(), key: target.getArgumentExpression(), value: node.getRight() }
    : undefined;
}

/** The keyed writes under `body` whose key is one of `keys` (parameters or variables), in order: `store[id] = …`. */
export function writesKeyedBy(body: Node, keys: readonly Node[]): Array<{ node: Node; store: Node; value: Node }> {
  const symbols = new Set(keys.map((key) => key.getSymbol()));
  return body.getDescendants().flatMap((node) => {
    const write = storeWrite(node);
    const key = write?.key && unwrapExpression(write.key);
    return write && key && Node.isIdentifier(key) && symbols.has(key.getSymbol()) ? [{ node, store: write.store, value: write.value }] : [];
  });
}
