// Per-session values that own something to release: a browser, a database or API client, a connection.
import { Node, SyntaxKind, type VariableDeclaration } from 'ts-morph';
import type { StateHandler } from './handlers';
import { descendantsOfKind, identifiersReferringTo } from '../node-index';

const RELEASE = /^(?:close|dispose|destroy|disconnect|quit|end)$/;
const RESOURCE_CONSTRUCTOR =
  /^(?:new\s+[\w$.]*(?:Browser|Client|Pool|Connection|Sandbox|Page|Database|Driver)\b|(?:await\s+)?[\w$.]*\b(?:launch|connect|createClient|createConnection|createPool|newPage|newContext)\()/;

/**
 * The variable holds something that must be closed: its type has `close()` (when the analysis can see its class),
 * the code around it releases it (`browser.close()`, `db.end()`), or it is built the way browsers and clients are.
 */
function ownsResource(variable: VariableDeclaration): boolean {
  const close = variable.getType().getProperty('close');
  if (close?.getDeclarations().some((d) => Node.isMethodDeclaration(d) || Node.isMethodSignature(d) || Node.isPropertySignature(d)))
    return true;
  if (RESOURCE_CONSTRUCTOR.test(variable.getInitializer()?.getText() ?? '')) return true;
  const symbol = variable.getSymbol();
  const scope = variable.getFirstAncestor((node) => Node.isBlock(node) || Node.isSourceFile(node));
  return (
    !!scope &&
    descendantsOfKind(scope, SyntaxKind.CallExpression).some((call) => {
      const callee = call.getExpression();
      return (
        Node.isPropertyAccessExpression(callee) &&
        RELEASE.test(callee.getName()) &&
        Node.isIdentifier(callee.getExpression()) &&
        callee.getExpression().getSymbol() === symbol
      );
    })
  );
}

/**
 * A factory variable that owns a resource — its value has a `close()` method (a browser, a database or API client,
 * a connection) — and that a tool uses: the description of the first such tool.
 */
export function sessionResource(variable: Node, tools: readonly StateHandler[]): string | undefined {
  if (!Node.isVariableDeclaration(variable) || !Node.isIdentifier(variable.getNameNode())) return undefined;
  if (!ownsResource(variable)) return undefined;
  const symbol = variable.getSymbol();
  const user = tools.find((tool) => !!tool.handler && identifiersReferringTo(tool.handler, symbol).length > 0);
  return user?.name;
}
