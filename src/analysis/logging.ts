// What counts as logging: calls that write a line somewhere and change nothing a request or a tool call depends on.
import { Node, SyntaxKind, type CallExpression } from 'ts-morph';

/** Method names loggers use: `console.log`, pino's `fatal`, winston's `verbose` and `silly`. */
const LOG_METHODS = /^(?:log|info|debug|warn|warning|error|trace|fatal|verbose|silly|notice|critical)$/;
/** `console`, `logger`, `this.log`, `request.log`, `appLogger`, `this._logger`: receivers that only log. */
const LOGGERS = /(?:^|\.)(?:console|log|\w*logger)$/i;

/** A method call on a logger: `console.log(…)`, `logger.info(…)`, `this.log.debug(…)`. */
export function isLoggingMethod(method: string, receiverText: string): boolean {
  return LOG_METHODS.test(method) && LOGGERS.test(receiverText);
}

/** `console.log(…)`, `logger.info(…)`, `request.log.debug(…)` (optional chains too). */
export function isLoggingCall(node: Node): node is CallExpression {
  if (!Node.isCallExpression(node)) return false;
  const callee = node.getExpression();
  return Node.isPropertyAccessExpression(callee) && isLoggingMethod(callee.getName(), callee.getExpression().getText());
}

/** `console.log(…);` as a statement of its own. */
export function isLoggingStatement(statement: Node): boolean {
  return Node.isExpressionStatement(statement) && isLoggingCall(statement.getExpression());
}

/**
 * Whether the node is only an argument to a logging call, in the same function: the header value in
 * `console.log(JSON.stringify({ 'mcp-session-id': req.headers['mcp-session-id'] }))`. What it computes is written to a
 * log and nowhere else.
 */
export function onlyLogged(node: Node): boolean {
  for (let current = node.getParent(); current; current = current.getParent()) {
    if (isLoggingCall(current)) return node.getPos() >= current.getExpression().getEnd();
    if (isStatementOrBlock(current) || Node.isFunctionLikeDeclaration(current)) return false;
  }
  return false;
}

function isStatementOrBlock(node: Node): boolean {
  const kind = node.getKind();
  return kind === SyntaxKind.Block || (kind >= SyntaxKind.FirstStatement && kind <= SyntaxKind.LastStatement);
}
