import { Node, SyntaxKind } from 'ts-morph';
import type { Rule } from './rule';
import { routeContextsOf } from '../analysis/routes';
import { stringLiterals } from '../analysis/file-facts';

export const originValidation: Rule = {
  meta: {
    id: 'origin-validation',
    title: 'An HTTP MCP endpoint without Origin validation',
    severity: 'error',
    fix: 'auto',
    doc:
      'Servers MUST validate the `Origin` header on all incoming connections and answer an invalid one with 403 Forbidden; ' +
      'without it a web page can drive a local MCP server through DNS rebinding. The v1 `createMcpExpressApp` validates Host ' +
      'only (a foreign Origin still gets 200), so it does not count; the v2 `@modelcontextprotocol/express` app, ' +
      '`originValidation` middleware and code that reads the Origin header do. This rule reports every HTTP MCP endpoint ' +
      '(SDK transports and hand-rolled `event: endpoint` streams) when nothing in the project checks Origin.',
    hint: 'Reject requests whose Origin is present and not allowed with 403 before they reach the transport.',
    sources: [
      'spec 2026-07-28 basic/transports/streamable-http.mdx § Security & Endpoint',
      'typescript-sdk v1.x src/server/express.ts (Host validation only)',
    ],
  },
  check({ sourceFile, facts, report }) {
    if (facts.project.validatesOrigin) return;
    const endpoints = [
      ...facts.methodCalls('handleRequest', ['StreamableHTTPServerTransport']),
      ...facts.methodCalls('handlePostMessage', ['SSEServerTransport']),
      ...facts.constructions('SSEServerTransport'),
      ...stringLiterals(sourceFile, /event:\s*endpoint\b/),
    ];
    const reported = new Set<Node>();
    for (const endpoint of endpoints) {
      const contexts = routeContextsOf(endpoint);
      const sites = contexts.length > 0 ? contexts.map((c) => c.routes[0]?.call ?? endpoint) : [endpoint];
      for (const site of sites) {
        if (reported.has(site)) continue;
        reported.add(site);
        report(site, 'No Origin validation: this MCP endpoint accepts requests from any web origin (DNS rebinding).');
      }
    }
  },
};

/** Project-level: does any file check the Origin header or install an Origin-validating layer? */
export function fileValidatesOrigin(sourceFile: import('ts-morph').SourceFile): boolean {
  const text = sourceFile.getFullText();
  if (!/origin/i.test(text)) return false;
  for (const access of sourceFile.getDescendantsOfKind(SyntaxKind.PropertyAccessExpression)) {
    if (access.getName() === 'origin' && /headers$/i.test(access.getExpression().getText())) return true;
  }
  for (const literal of stringLiterals(sourceFile, /^origin$/i)) {
    const parent = literal.getParent();
    if (parent && (Node.isElementAccessExpression(parent) || Node.isCallExpression(parent))) return true;
  }
  for (const id of sourceFile.getDescendantsOfKind(SyntaxKind.Identifier)) {
    if (/^(?:originValidation|localhostOriginValidation|originValidationResponse)$/.test(id.getText())) return true;
  }
  for (const declaration of sourceFile.getImportDeclarations()) {
    if (declaration.getModuleSpecifierValue() === '@modelcontextprotocol/express' && declaration.getNamedImports().some((n) => n.getName() === 'createMcpExpressApp')) return true;
    if (/^@modelcontextprotocol\/(?:hono|fastify)$/.test(declaration.getModuleSpecifierValue())) return true;
  }
  return false;
}
