// The author's error handling around the transport's `handleRequest`: `try { await transport.handleRequest(…) }
// catch (error) { if (error instanceof InvalidTokenError) { …401… } throw error; }`. The new endpoint serves the
// request inside the same catch, so what the old handler answered on an error it still answers.
import { Node, type CallExpression } from 'ts-morph';
import type { ServedCatch } from './model';
import { contains, freeIdentifiers, templateText, valueSymbol, type FunctionNode } from './spans';

/**
 * The catch clause of the nearest `try` (in the handler) whose block holds the serve call, when the rewritten handler
 * can keep it: no `finally`, and it reads nothing the handler declares but its parameters (the session code and its
 * locals go; a catch that closes the session's transport is not kept, the template's answers instead).
 */
export function servedCatchOf(fn: FunctionNode, serve: Node): ServedCatch | undefined {
  for (let node = serve.getParent(); node && node !== fn; node = node.getParent()) {
    if (!Node.isTryStatement(node)) continue;
    const clause = node.getCatchClause();
    if (!contains(node.getTryBlock(), serve) || !clause || node.getFinallyBlock()) return undefined;
    const name = clause.getVariableDeclaration()?.getNameNode();
    if (name && !Node.isIdentifier(name)) return undefined;
    const parameters = fn.getParameters();
    const readsLocal = freeIdentifiers(clause).some((id) => {
      const declaration = valueSymbol(id)?.getDeclarations()[0];
      return !!declaration && contains(fn, declaration) && !parameters.some((p) => contains(p, declaration));
    });
    if (readsLocal) return undefined;
    return {
      param: name?.getText(),
      statements: clause
        .getBlock()
        .getStatements()
        .map((statement) => templateText(statement)),
    };
  }
  return undefined;
}

/**
 * The call the serve call runs in the callback of (`scope.run(value, async () => { await transport.handleRequest(…) })`,
 * the callback its last argument, taking no parameters), when there is exactly one such call between the serve and the
 * handler: an AsyncLocalStorage scope the tools read, a tracing span, a lock. Undefined when there is none.
 */
export function servedWithinOf(fn: FunctionNode, serve: Node): CallExpression | undefined {
  let found: CallExpression | undefined;
  for (let node = serve.getParent(); node && node !== fn; node = node.getParent()) {
    if (!Node.isArrowFunction(node) && !Node.isFunctionExpression(node)) continue;
    const call = node.getParent();
    if (found || !Node.isCallExpression(call) || call.getArguments().at(-1) !== node || node.getParameters().length > 0) return undefined;
    found = call;
  }
  return found;
}
