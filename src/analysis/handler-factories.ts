// The factories handed to the SDK's `createMcpHandler(factory, …)`: it calls one for every request and connects what
// it returns to that request's transport, so the factory must build a fresh server each time.
import { Node, SyntaxKind, type SourceFile, type VariableDeclaration } from 'ts-morph';
import { nodesOfKind } from './node-index';
import { resolveOrigin } from './resolve';
import { isPerRequestMcpHandler } from './sdk-modules';
import type { FileFacts } from './file-facts';

/** What each factory written inline at a `createMcpHandler` call returns (its expression body, or its `return`s). */
export function handlerFactoryResults(sourceFile: SourceFile): Array<{ factory: Node; result: Node }> {
  const results: Array<{ factory: Node; result: Node }> = [];
  if (!sourceFile.getFullText().includes('createMcpHandler')) return results;
  for (const call of nodesOfKind(sourceFile, SyntaxKind.CallExpression)) {
    const origin = resolveOrigin(call.getExpression());
    if (!isPerRequestMcpHandler(origin)) continue;
    const [factory] = call.getArguments();
    if (!Node.isArrowFunction(factory) && !Node.isFunctionExpression(factory)) continue;
    const body = factory.getBody();
    if (!Node.isBlock(body)) results.push({ factory, result: body });
    else
      for (const statement of body.getStatements()) {
        const returned = Node.isReturnStatement(statement) ? statement.getExpression() : undefined;
        if (returned) results.push({ factory, result: returned });
      }
  }
  return results;
}

/**
 * Servers a `createMcpHandler` factory returns without building them: a module-level variable that holds an SDK server
 * (`const server = new McpServer(…)`; `createMcpHandler(() => server)`). Every request is then served by that one
 * server, and overlapping requests fail (the SDK answers 500).
 */
export function serversSharedByHandlerFactories(facts: FileFacts): Array<{ result: Node; declaration: VariableDeclaration }> {
  return handlerFactoryResults(facts.sourceFile).flatMap(({ factory, result }) => {
    if (!Node.isIdentifier(result)) return [];
    const symbol = result.getSymbol();
    const declaration = (symbol?.isAlias() ? symbol.getAliasedSymbol() : symbol)?.getDeclarations()[0];
    if (!declaration || !Node.isVariableDeclaration(declaration)) return [];
    // (one made in a function beside the handler — a Worker's fetch making both per request — is not shared)
    if (!Node.isSourceFile(declaration.getVariableStatement()?.getParent())) return [];
    const init = declaration.getInitializer();
    return init && Node.isNewExpression(init) && facts.is(init.getExpression(), 'McpServer') ? [{ result, declaration }] : [];
  });
}
