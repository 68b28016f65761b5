// Fields of a class instantiated per connection that its tools change.
import { Node, SyntaxKind, ts, type ClassDeclaration, type NewExpression } from 'ts-morph';
import type { ToolRegistration } from '../tools';
import { isFunctionNode } from '../endpoints/spans';
import { referencesOf } from '../references';
import { changedAt } from '../state-changes';
import { thisUnder } from '../node-index';

/**
 * Tools registered inside a class (an `McpServer` subclass, or a class whose method builds the server) that change
 * the instance's own fields, where the class is instantiated inside a function (per connection, not once per
 * process): each connection had its own instance.
 */
export function instanceStateChangedByTools(
  tools: readonly ToolRegistration[],
): Array<{ field: Node; name: string; className: string; made: Node; tool: string }> {
  const found: Array<{ field: Node; name: string; className: string; made: Node; tool: string }> = [];
  for (const tool of tools) {
    for (const self of tool.handler ? thisUnder(tool.handler) : []) {
      // (`this` of an arrow is the enclosing method's, constructor's or field initializer's: the class instance)
      const owner = self.getFirstAncestor(
        (a) => Node.isClassDeclaration(a) || (ts.isFunctionLike(a.compilerNode) && !Node.isArrowFunction(a)),
      );
      const classNode = Node.isClassDeclaration(owner) ? owner : owner?.getParent();
      const member = self.getParent();
      if (!Node.isClassDeclaration(classNode) || !Node.isPropertyAccessExpression(member) || !changedAt(self)) continue;
      const field = classNode.getProperty(member.getName()) ?? member;
      if (found.some((f) => f.field === field)) continue;
      const made = perCallInstance(classNode);
      if (made) found.push({ field, name: member.getName(), className: classNode.getName() ?? 'the class', made, tool: tool.name });
    }
  }
  return found;
}

/** A `new C(…)` of the class inside a function (per call), when the class is never instantiated once at module level. */
function perCallInstance(classNode: ClassDeclaration): Node | undefined {
  const name = classNode.getNameNode();
  const made = (name ? referencesOf(name) : [])
    .map((reference) => reference.getParent())
    .filter((parent): parent is NewExpression => Node.isNewExpression(parent));
  if (made.some((n) => !n.getFirstAncestor((a) => isFunctionNode(a)))) return undefined;
  return made[0];
}
