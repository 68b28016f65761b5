// Find-references, asked once per node. The type checker's find-references is most of what the endpoint model costs
// (about 360 calls on the bench tree, 108 of them about a node already asked about). An analysis project is never
// changed once its files are created (a re-analysis builds a new one), so a node's references stay what they were;
// the cache is keyed on the node and goes with its project.
import { Node as NodeGuards, type Node, type ReferenceFindableNode } from 'ts-morph';

const cache = new WeakMap<Node, Node[]>();

/** `node.findReferencesAsNodes()`, cached: the same array for the same node (callers must not change it). */
export function referencesOf(node: Node & ReferenceFindableNode): readonly Node[] {
  let references = cache.get(node);
  if (!references) {
    references = node.findReferencesAsNodes();
    cache.set(node, references);
  }
  return references;
}

/** The other places an identifier's name is used (its references but itself); none when the checker cannot say. */
export function otherReferencesOf(nameNode: Node): readonly Node[] {
  if (!NodeGuards.isIdentifier(nameNode) && !NodeGuards.isPrivateIdentifier(nameNode)) return [];
  try {
    return referencesOf(nameNode as Node & ReferenceFindableNode).filter((reference) => reference !== nameNode);
  } catch {
    return [];
  }
}
