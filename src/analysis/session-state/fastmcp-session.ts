// fastmcp: the object `authenticate` returned is the session's (`context.session`), changed by a tool.
import { Node, SyntaxKind, type ParameterDeclaration } from 'ts-morph';
import type { ToolRegistration } from '../tools';
import { isFunctionNode } from '../endpoints/spans';
import { changedAt } from '../state-changes';
import { identifiersReferringTo } from '../node-index';

/** Where an `addTool` handler changes `context.session` (or the `session` it destructures from its context). */
export function fastmcpSessionChanges(tools: readonly ToolRegistration[]): Array<{ at: Node; tool: string }> {
  const found: Array<{ at: Node; tool: string }> = [];
  for (const tool of tools) {
    if (tool.form !== 'addTool' || !isFunctionNode(tool.handler)) continue;
    const context = tool.handler.getParameters()[1] as ParameterDeclaration | undefined;
    if (!context) continue;
    const name = context.getNameNode();
    const sessions: Node[] = [];
    if (Node.isIdentifier(name)) {
      const symbol = name.getSymbol();
      for (const access of tool.handler.getDescendantsOfKind(SyntaxKind.PropertyAccessExpression)) {
        const object = access.getExpression();
        if (access.getName() === 'session' && Node.isIdentifier(object) && object.getSymbol() === symbol) sessions.push(access);
      }
    } else if (Node.isObjectBindingPattern(name)) {
      for (const element of name.getElements()) {
        if ((element.getPropertyNameNode()?.getText() ?? element.getName()) !== 'session') continue;
        const symbol = element.getNameNode().getSymbol();
        for (const id of identifiersReferringTo(tool.handler, symbol)) if (id !== element.getNameNode()) sessions.push(id);
      }
    }
    for (const session of sessions) {
      let at: Node = session;
      while (Node.isNonNullExpression(at.getParent()) || Node.isParenthesizedExpression(at.getParent())) at = at.getParent()!;
      if (!changedAt(at)) continue;
      // (shown as the field it changes, `session.cart`, when it changes one)
      const field = at.getParent();
      const shown = Node.isPropertyAccessExpression(field) && field.getExpression() === at ? field : at;
      if (!found.some((f) => f.at === shown)) found.push({ at: shown, tool: tool.name });
    }
  }
  return found;
}
