import { Node, SyntaxKind, type SourceFile } from 'ts-morph';
import type { Rule } from './rule';
import { staticString } from '../analysis/routes';
import { isMcpModule } from '../analysis/sdk-modules';

const ALL_INTERFACES = new Set(['0.0.0.0', '::', '[::]', '']);

export const localBind: Rule = {
  meta: {
    id: 'local-bind',
    title: 'An HTTP MCP listener bound to all interfaces',
    severity: 'warning',
    fix: 'unsafe',
    doc:
      'A local MCP server SHOULD bind only to localhost (127.0.0.1) rather than all network interfaces (0.0.0.0), so that ' +
      'other machines on the network cannot reach it. Node\'s `listen(port)` with no host binds all interfaces, as do Bun ' +
      'and fastify defaults. Changing the address can break a deployment that is meant to be remote, so the fix is `unsafe`.',
    hint: "Pass '127.0.0.1' as the host for a local server (or make the host explicit in configuration for a remote one).",
    sources: ['spec 2026-07-28 basic/transports/streamable-http.mdx § Security & Endpoint (2)'],
  },
  check({ sourceFile, facts, report }) {
    if (!facts.importsMcp && !importsMcpRelatedFile(sourceFile)) return;
    for (const call of sourceFile.getDescendantsOfKind(SyntaxKind.CallExpression)) {
      const callee = call.getExpression();
      const args = call.getArguments();
      if (Node.isPropertyAccessExpression(callee) && callee.getName() === 'listen') {
        const [first, second] = args;
        if (!first) continue;
        if (Node.isObjectLiteralExpression(first)) {
          // fastify.listen({ port, host })
          if (!first.getProperty('port')) continue;
          const host = first.getProperty('host');
          const value = host && Node.isPropertyAssignment(host) ? staticString(host.getInitializer()) : undefined;
          if (!host || (value !== undefined && ALL_INTERFACES.has(value))) report(call, bindMessage(value));
          continue;
        }
        if (!looksLikePort(first)) continue;
        if (!second || isFunction(second)) {
          report(call, bindMessage(undefined));
          continue;
        }
        const value = staticString(second);
        if (value !== undefined && ALL_INTERFACES.has(value)) report(call, bindMessage(value));
      } else if (callee.getText() === 'Bun.serve' || (Node.isIdentifier(callee) && callee.getText() === 'serve')) {
        const [options] = args;
        if (!options || !Node.isObjectLiteralExpression(options) || !options.getProperty('fetch')) continue;
        const host = options.getProperty('hostname');
        const value = host && Node.isPropertyAssignment(host) ? staticString(host.getInitializer()) : undefined;
        if (!host || (value !== undefined && ALL_INTERFACES.has(value))) report(call, bindMessage(value));
      }
    }
  },
};

function bindMessage(value: string | undefined): string {
  return value === undefined
    ? 'Binds all interfaces: `listen` without a host accepts connections from the whole network.'
    : `Binds all interfaces: host '${value}' accepts connections from the whole network.`;
}

function isFunction(node: Node): boolean {
  return Node.isArrowFunction(node) || Node.isFunctionExpression(node);
}

function looksLikePort(node: Node): boolean {
  if (Node.isNumericLiteral(node)) return true;
  const text = node.getText();
  return /port/i.test(text) || Node.isIdentifier(node) || /^Number\(|^parseInt\(/.test(text);
}

function importsMcpRelatedFile(file: SourceFile): boolean {
  for (const declaration of file.getImportDeclarations()) {
    const target = declaration.getModuleSpecifierSourceFile();
    if (!target) continue;
    const mcp = target.getImportDeclarations().some((d) => isMcpModule(d.getModuleSpecifierValue())) || /require\(\s*['"]@modelcontextprotocol\//.test(target.getFullText());
    if (mcp) return true;
  }
  return /require\(\s*['"]\.{1,2}\//.test(file.getFullText()) && /mcp/i.test(file.getFullText());
}
