import { nodesOfKind } from '../analysis/node-index';
import * as path from 'node:path';
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
  check({ sourceFile, report }) {
    if (!servesMcp(sourceFile)) return;
    for (const call of nodesOfKind(sourceFile, SyntaxKind.CallExpression)) {
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
          if (!host || (value !== undefined && ALL_INTERFACES.has(value))) report(call, bindMessage(value, 'listen'));
          continue;
        }
        if (!looksLikePort(first)) continue;
        if (!second || isFunction(second)) {
          report(call, bindMessage(undefined, 'listen'));
          continue;
        }
        const value = staticString(second);
        if (value !== undefined && ALL_INTERFACES.has(value)) report(call, bindMessage(value, 'listen'));
      } else if (callee.getText() === 'Bun.serve' || (Node.isIdentifier(callee) && callee.getText() === 'serve')) {
        const [options] = args;
        if (!options || !Node.isObjectLiteralExpression(options) || !options.getProperty('fetch')) continue;
        const host = options.getProperty('hostname');
        const value = host && Node.isPropertyAssignment(host) ? staticString(host.getInitializer()) : undefined;
        if (!host || (value !== undefined && ALL_INTERFACES.has(value))) report(call, bindMessage(value, callee.getText()));
      }
    }
  },
};

function bindMessage(value: string | undefined, call: string): string {
  return value === undefined
    ? `Binds all interfaces: \`${call}\` without a host accepts connections from the whole network.`
    : `Binds all interfaces: host '${value}' accepts connections from the whole network.`;
}

function isFunction(node: Node): boolean {
  return Node.isArrowFunction(node) || Node.isFunctionExpression(node);
}

function looksLikePort(node: Node): boolean {
  if (Node.isNumericLiteral(node)) return true;
  // A constant string is a port only when it is numeric: '/run/app.sock' and 'tools-changed' are not.
  const value = staticString(node);
  if (value !== undefined) return /^\d+$/.test(value);
  const text = node.getText();
  return /port/i.test(text) || Node.isIdentifier(node) || /^Number\(|^parseInt\(/.test(text);
}

/** MCP client modules: a file that only consumes MCP servers serves no MCP endpoint. */
function isClientModule(specifier: string): boolean {
  return /^@modelcontextprotocol\/(?:client(?:\/|$)|sdk\/(?:dist\/(?:esm|cjs)\/)?client\/)/.test(specifier);
}

const MAX_HOPS = 3;

/**
 * The file serves MCP: it imports (or requires, or re-exports) an MCP server module or hand-rolls the protocol, or
 * it imports a project file that does, up to {@link MAX_HOPS} imports away.
 */
function servesMcp(file: SourceFile, hops = 0, seen = new Set<SourceFile>()): boolean {
  if (seen.has(file)) return false;
  seen.add(file);
  const text = file.getFullText();
  if (/event:\s*endpoint\b|mcp-session-id/i.test(text)) return true;
  const specifiers = moduleSpecifiers(file);
  if (specifiers.some((specifier) => isMcpModule(specifier) && !isClientModule(specifier))) return true;
  if (hops >= MAX_HOPS) return false;
  for (const specifier of specifiers) {
    if (!specifier.startsWith('.')) continue;
    const target = projectFile(file, specifier);
    if (target && servesMcp(target, hops + 1, seen)) return true;
  }
  return false;
}

/** `import … from 'm'`, `export … from 'm'`, `require('m')` and `import('m')` specifiers. */
function moduleSpecifiers(file: SourceFile): string[] {
  const specifiers = file.getImportDeclarations().map((d) => d.getModuleSpecifierValue());
  for (const declaration of file.getExportDeclarations()) {
    const specifier = declaration.getModuleSpecifierValue();
    if (specifier) specifiers.push(specifier);
  }
  for (const call of nodesOfKind(file, SyntaxKind.CallExpression)) {
    const callee = call.getExpression();
    const [arg] = call.getArguments();
    if (!arg || !Node.isStringLiteral(arg)) continue;
    if ((Node.isIdentifier(callee) && callee.getText() === 'require') || callee.getKind() === SyntaxKind.ImportKeyword) specifiers.push(arg.getLiteralValue());
  }
  return specifiers;
}

/** A relative specifier as a project file (`./app.js` may be `app.ts`; `./lib` may be `lib/index.ts`). */
function projectFile(from: SourceFile, specifier: string): SourceFile | undefined {
  const base = path.posix.join(path.posix.dirname(from.getFilePath()), specifier);
  const stem = base.replace(/\.(?:[cm]?js|[cm]?ts|jsx|tsx)$/, '');
  const candidates = [base, ...['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs'].flatMap((ext) => [stem + ext, `${base}/index${ext}`])];
  const project = from.getProject();
  for (const candidate of candidates) {
    const found = project.getSourceFile(candidate);
    if (found) return found;
  }
  return undefined;
}
