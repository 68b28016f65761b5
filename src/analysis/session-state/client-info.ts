// What the client declared at `initialize`, as a tool or request handler reads it back: `getClientCapabilities()`,
// or a variable only the initialize hook sets.
import { Node, SyntaxKind, type CallExpression, type VariableDeclaration } from 'ts-morph';
import { isFunctionNode } from '../endpoints/spans';
import { changedAt } from '../state-changes';
import type { StateHandler } from './handlers';

const CLIENT_INFO = /^(?:getClientCapabilities|getClientVersion)$/;

/** `server.server.getClientCapabilities()` / `getClientVersion()` inside a tool or request handler. */
export function clientInfoReads(tools: readonly StateHandler[]): Array<{ call: CallExpression; reader: string }> {
  const found: Array<{ call: CallExpression; reader: string }> = [];
  for (const tool of tools) {
    for (const call of tool.handler?.getDescendantsOfKind(SyntaxKind.CallExpression) ?? []) {
      const callee = call.getExpression();
      if (!Node.isPropertyAccessExpression(callee) || !CLIENT_INFO.test(callee.getName()) || call.getArguments().length > 0) continue;
      if (!found.some((f) => f.call === call)) found.push({ call, reader: tool.name });
    }
  }
  return found;
}

/**
 * A factory variable assigned only in what runs when the session initializes (`server.server.oninitialized = () =>
 * { markdown = … }`, a `notifications/initialized` handler) and read by a tool or request handler.
 */
export function setAtInitialize(
  variable: VariableDeclaration,
  factory: Node,
  tools: readonly StateHandler[],
): { hook: string; reader: string } | undefined {
  const name = variable.getNameNode();
  if (!Node.isIdentifier(name)) return undefined;
  const symbol = name.getSymbol();
  const references = factory.getDescendantsOfKind(SyntaxKind.Identifier).filter((id) => id !== name && id.getSymbol() === symbol);
  const writes = references.filter((id) => changedAt(id));
  if (writes.length === 0) return undefined;
  let hook: string | undefined;
  for (const write of writes) {
    const at = initializeHook(write);
    if (!at) return undefined;
    hook ??= at;
  }
  const reader = tools.find((tool) => !!tool.handler && references.some((id) => tool.handler!.containsRange(id.getPos(), id.getEnd())));
  return hook && reader ? { hook, reader: reader.name } : undefined;
}

/** The initialize hook a node runs in: a function assigned to `….oninitialized` or handed to `setNotificationHandler(Initialized…)`. */
function initializeHook(node: Node): string | undefined {
  for (const fn of node.getAncestors().filter((a) => isFunctionNode(a))) {
    const parent = fn.getParent();
    if (Node.isBinaryExpression(parent) && (parent.getRight() as Node) === fn) {
      const left = parent.getLeft();
      if (Node.isPropertyAccessExpression(left) && left.getName() === 'oninitialized') return left.getText();
    }
    if (Node.isCallExpression(parent) && parent.getArguments()[1] === fn) {
      const callee = parent.getExpression();
      const [method] = parent.getArguments();
      if (
        Node.isPropertyAccessExpression(callee) &&
        callee.getName() === 'setNotificationHandler' &&
        /InitializedNotificationSchema|notifications\/initialized/.test(method?.getText() ?? '')
      )
        return 'notifications/initialized';
    }
  }
  return undefined;
}
