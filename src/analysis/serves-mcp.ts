// Does a file serve MCP (as opposed to only consuming MCP servers, or not being MCP code at all)? A listener in a
// file that serves MCP, directly or through the project files it imports, is an MCP listener.
import { ENDPOINT_EVENT } from './file-facts';
import * as path from 'node:path';
import { Node, SyntaxKind, type SourceFile } from 'ts-morph';
import { nodesOfKind } from './node-index';
import { isMcpModule } from './sdk-modules';

/** MCP client modules: a file that only consumes MCP servers serves no MCP endpoint. */
function isClientModule(specifier: string): boolean {
  return /^@modelcontextprotocol\/(?:client(?:\/|$)|sdk\/(?:dist\/(?:esm|cjs)\/)?client\/)/.test(specifier);
}

const MAX_HOPS = 3;

/**
 * The file serves MCP: it imports (or requires, or re-exports) an MCP server module or hand-rolls the protocol, or
 * it imports a project file that does, up to {@link MAX_HOPS} imports away.
 */
export function servesMcp(file: SourceFile, hops = 0, seen = new Set<SourceFile>()): boolean {
  if (seen.has(file)) return false;
  seen.add(file);
  const text = file.getFullText();
  if (ENDPOINT_EVENT.test(text) || /mcp-session-id/i.test(text)) return true;
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
    if ((Node.isIdentifier(callee) && callee.getText() === 'require') || callee.getKind() === SyntaxKind.ImportKeyword)
      specifiers.push(arg.getLiteralValue());
  }
  return specifiers;
}

/** A relative specifier as a project file (`./app.js` may be `app.ts`; `./lib` may be `lib/index.ts`). */
function projectFile(from: SourceFile, specifier: string): SourceFile | undefined {
  const base = path.posix.join(path.posix.dirname(from.getFilePath()), specifier);
  const stem = base.replace(/\.(?:[cm]?js|[cm]?ts|jsx|tsx)$/, '');
  const candidates = [
    base,
    ...['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs'].flatMap((ext) => [stem + ext, `${base}/index${ext}`]),
  ];
  const project = from.getProject();
  for (const candidate of candidates) {
    const found = project.getSourceFile(candidate);
    if (found) return found;
  }
  return undefined;
}
