import { Node } from 'ts-morph';
import type { Rule } from './rule';

const OPTIONS = ['allowedHosts', 'allowedOrigins', 'enableDnsRebindingProtection'];

export const deprecatedTransportOptions: Rule = {
  meta: {
    id: 'deprecated-transport-options',
    title: 'Transport-level allowedHosts / allowedOrigins / enableDnsRebindingProtection',
    severity: 'warning',
    fix: 'manual',
    doc:
      'The SDK transports\' `allowedHosts`, `allowedOrigins` and `enableDnsRebindingProtection` options are deprecated ' +
      '("Use external middleware for host validation instead"): validation belongs in front of the transport, in ' +
      'middleware such as the SDK\'s host/origin validation or `createMcpExpressApp()`.',
    hint: 'Move the allow-lists to Host/Origin validation middleware in front of the MCP endpoint.',
    sources: ['typescript-sdk v1.x src/server/webStandardStreamableHttp.ts (options @deprecated)', 'typescript-sdk v1.x src/server/sse.ts (options @deprecated)'],
  },
  check({ facts, report }) {
    const constructions = [...facts.constructions('SSEServerTransport'), ...facts.constructions('StreamableHTTPServerTransport')];
    for (const construction of constructions) {
      for (const arg of construction.getArguments()) {
        const object = Node.isObjectLiteralExpression(arg) ? arg : objectOfIdentifier(arg);
        if (!object) continue;
        for (const name of OPTIONS) {
          const prop = object.getProperty(name);
          if (prop) report(prop, `Deprecated transport option \`${name}\`: validate Host/Origin in middleware in front of the endpoint.`);
        }
      }
    }
  },
};

function objectOfIdentifier(node: Node) {
  if (!Node.isIdentifier(node)) return undefined;
  const declaration = node.getSymbol()?.getDeclarations()[0];
  const init = declaration && Node.isVariableDeclaration(declaration) ? declaration.getInitializer() : undefined;
  return init && Node.isObjectLiteralExpression(init) ? init : undefined;
}
