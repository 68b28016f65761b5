import { Node, SyntaxKind, type ObjectLiteralExpression } from 'ts-morph';
import type { Rule } from './rule';
import { withoutWrappers } from '../analysis/tools';
import { descendantsOfKind } from '../analysis/node-index';

const OPTIONS = ['allowedHosts', 'allowedOrigins', 'enableDnsRebindingProtection'];

export const deprecatedTransportOptions: Rule = {
  meta: {
    id: 'deprecated-transport-options',
    title: 'Transport-level allowedHosts / allowedOrigins / enableDnsRebindingProtection',
    severity: 'warning',
    fix: 'manual',
    doc:
      "The SDK transports' `allowedHosts`, `allowedOrigins` and `enableDnsRebindingProtection` options are deprecated " +
      '("Use external middleware for host validation instead"): validation belongs in front of the transport, in ' +
      "middleware such as the SDK's host/origin validation or `createMcpExpressApp()`.",
    hint: 'Move the allow-lists to Host/Origin validation middleware in front of the MCP endpoint.',
    sources: [
      'typescript-sdk v1.x src/server/webStandardStreamableHttp.ts (options @deprecated)',
      'typescript-sdk v1.x src/server/sse.ts (options @deprecated)',
    ],
  },
  check({ facts, report }) {
    const constructions = [...facts.constructions('SSEServerTransport'), ...facts.constructions('StreamableHTTPServerTransport')];
    for (const construction of constructions) {
      for (const arg of construction.getArguments() ?? []) {
        for (const object of optionObjects(arg, 0, new Set())) {
          for (const name of OPTIONS) {
            const prop = object.getProperty(name);
            if (prop) report(prop, `Deprecated transport option \`${name}\`: validate Host/Origin in middleware in front of the endpoint.`);
          }
        }
      }
    }
  },
};

const MAX_DEPTH = 5;

/**
 * The object literals that make up an options argument: the literal itself and the objects it spreads, a variable's
 * initializer, or what a project function called to build the options returns.
 */
function optionObjects(node: Node | undefined, depth: number, seen: Set<Node>): ObjectLiteralExpression[] {
  const value = withoutWrappers(node);
  if (!value || depth > MAX_DEPTH || seen.has(value)) return [];
  seen.add(value);
  if (Node.isObjectLiteralExpression(value)) {
    const spreads = value
      .getProperties()
      .filter(Node.isSpreadAssignment)
      .flatMap((spread) => optionObjects(spread.getExpression(), depth + 1, seen));
    return [value, ...spreads];
  }
  if (Node.isIdentifier(value)) {
    const symbol = value.getSymbol();
    const target = symbol?.isAlias() ? symbol.getAliasedSymbol() : symbol;
    return (target?.getDeclarations() ?? []).flatMap((declaration) =>
      Node.isVariableDeclaration(declaration) ? optionObjects(declaration.getInitializer(), depth + 1, seen) : [],
    );
  }
  if (Node.isCallExpression(value)) {
    const callee = value.getExpression();
    if (!Node.isIdentifier(callee)) return [];
    return (callee.getSymbol()?.getDeclarations() ?? []).flatMap((declaration) => {
      const fn = Node.isVariableDeclaration(declaration) ? declaration.getInitializer() : declaration;
      if (!fn || !(Node.isFunctionDeclaration(fn) || Node.isArrowFunction(fn) || Node.isFunctionExpression(fn))) return [];
      const body = fn.getBody();
      if (body && !Node.isBlock(body)) return optionObjects(body, depth + 1, seen);
      return descendantsOfKind(fn, SyntaxKind.ReturnStatement)
        .filter((ret) => ret.getFirstAncestor((a) => Node.isFunctionLikeDeclaration(a)) === fn)
        .flatMap((ret) => optionObjects(ret.getExpression(), depth + 1, seen));
    });
  }
  return [];
}
