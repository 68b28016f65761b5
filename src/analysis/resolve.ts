// Resolve an expression to the module export it comes from, through aliases, `require`, namespaces,
// local re-export files and `const X = Y` chains. The SDK itself is never loaded: an import whose
// module is not a project file ends the walk and yields its specifier.
import { Node, SyntaxKind, type SourceFile, type Symbol as TsMorphSymbol } from 'ts-morph';
import { unwrapExpression } from './endpoints/spans';

export interface ImportOrigin {
  /** Module specifier as written (for relative modules, the specifier that left the project). */
  module: string;
  /** Exported name; `*` for a namespace, `default` for a default import. */
  name: string;
}

const MAX_DEPTH = 12;

/** The declarations an identifier names, through an import of a project module (`import { A } from './a'` → `class A`). */
export function declarationsBehind(identifier: Node): Node[] {
  const symbol = identifier.getSymbol();
  return ((symbol?.isAlias() ? symbol.getAliasedSymbol() : undefined) ?? symbol)?.getDeclarations() ?? [];
}

export function resolveOrigin(expression: Node, depth = 0): ImportOrigin | undefined {
  if (depth > MAX_DEPTH) return undefined;
  const node = unwrapExpression(expression);
  if (Node.isIdentifier(node)) return resolveIdentifier(node, depth);
  if (Node.isPropertyAccessExpression(node)) {
    const base = resolveOrigin(node.getExpression(), depth + 1);
    if (base && (base.name === '*' || base.name === 'default')) {
      // `bundle.X` where `bundle` is a namespace of a project file: follow that file's exports.
      const file = base.name === '*' ? node.getSourceFile().getProject().getSourceFile(base.module) : undefined;
      const followed = file ? resolveExport(file, node.getName(), depth + 1) : undefined;
      return followed ?? { module: base.module, name: node.getName() };
    }
    return undefined;
  }
  const required = requireSpecifier(node) ?? dynamicImportSpecifier(node);
  if (required !== undefined) return { module: required, name: '*' };
  return undefined;
}

/** `require('x')` → `'x'`. */
export function requireSpecifier(node: Node): string | undefined {
  if (!Node.isCallExpression(node)) return undefined;
  const callee = node.getExpression();
  if (!Node.isIdentifier(callee) || callee.getText() !== 'require') return undefined;
  const [arg] = node.getArguments();
  return arg && Node.isStringLiteral(arg) ? arg.getLiteralValue() : undefined;
}

/** `import('x')` (usually under `await`) → `'x'`. */
export function dynamicImportSpecifier(node: Node): string | undefined {
  if (!Node.isCallExpression(node) || node.getExpression().getKind() !== SyntaxKind.ImportKeyword) return undefined;
  const [arg] = node.getArguments();
  return arg && (Node.isStringLiteral(arg) || Node.isNoSubstitutionTemplateLiteral(arg)) ? arg.getLiteralValue() : undefined;
}

/** Where each binding comes from, resolved from the top (depth 0): rules ask about the same names again and again. */
const bindingOrigins = new WeakMap<TsMorphSymbol, ImportOrigin | null>();

function resolveIdentifier(identifier: Node, depth: number): ImportOrigin | undefined {
  const symbol = identifier.getSymbol();
  if (!symbol) return undefined;
  if (depth > 0) return originOfBinding(symbol, depth);
  let origin = bindingOrigins.get(symbol);
  if (origin === undefined) bindingOrigins.set(symbol, (origin = originOfBinding(symbol, 0) ?? null));
  return origin ?? undefined;
}

function originOfBinding(symbol: TsMorphSymbol, depth: number): ImportOrigin | undefined {
  for (const declaration of symbol.getDeclarations()) {
    const origin = originOfDeclaration(declaration, depth);
    if (origin) return origin;
  }
  return undefined;
}

function originOfDeclaration(declaration: Node, depth: number): ImportOrigin | undefined {
  if (Node.isImportSpecifier(declaration)) {
    const importDecl = declaration.getImportDeclaration();
    const exported = declaration.getAliasNode() ? declaration.getNameNode().getText() : declaration.getName();
    return followModule(importDecl.getModuleSpecifierValue(), importDecl.getModuleSpecifierSourceFile(), exported, depth);
  }
  if (Node.isNamespaceImport(declaration)) {
    const importDecl = declaration.getFirstAncestorByKindOrThrow(SyntaxKind.ImportDeclaration);
    return { module: moduleKey(importDecl.getModuleSpecifierValue(), importDecl.getModuleSpecifierSourceFile()), name: '*' };
  }
  if (Node.isImportClause(declaration)) {
    const importDecl = declaration.getParentOrThrow();
    if (!Node.isImportDeclaration(importDecl)) return undefined;
    return followModule(importDecl.getModuleSpecifierValue(), importDecl.getModuleSpecifierSourceFile(), 'default', depth);
  }
  if (Node.isImportEqualsDeclaration(declaration)) {
    const reference = declaration.getModuleReference();
    if (Node.isExternalModuleReference(reference)) {
      const expr = reference.getExpression();
      if (expr && Node.isStringLiteral(expr)) return { module: expr.getLiteralValue(), name: '*' };
    }
    return undefined;
  }
  if (Node.isBindingElement(declaration)) {
    // const { A: B } = require('m')  |  const { A } = sdk
    const pattern = declaration.getParent();
    const variable = pattern?.getParent();
    if (!Node.isObjectBindingPattern(pattern) || !variable || !Node.isVariableDeclaration(variable)) return undefined;
    const initializer = variable.getInitializer();
    if (!initializer) return undefined;
    const base = resolveOrigin(initializer, depth + 1);
    const exported = declaration.getPropertyNameNode()?.getText() ?? declaration.getName();
    if (base && (base.name === '*' || base.name === 'default')) return { module: base.module, name: exported };
    return undefined;
  }
  if (Node.isVariableDeclaration(declaration)) {
    // const X = require('m')  |  const X = sdk.X  |  const X = Y
    const initializer = declaration.getInitializer();
    if (!initializer || !Node.isIdentifier(declaration.getNameNode())) return undefined;
    if (!isConstDeclaration(declaration)) return undefined;
    const unwrapped = unwrapExpression(initializer);
    if (Node.isIdentifier(unwrapped) || Node.isPropertyAccessExpression(unwrapped) || Node.isCallExpression(unwrapped)) {
      return resolveOrigin(unwrapped, depth + 1);
    }
    return undefined;
  }
  if (Node.isExportSpecifier(declaration)) {
    return originOfExportSpecifier(declaration, depth);
  }
  if (Node.isClassDeclaration(declaration)) {
    // A project class that wraps an SDK class by inheritance (`class SSEServerTransport extends SdkSse`) is one.
    const base = declaration.getExtends()?.getExpression();
    return base ? resolveOrigin(base, depth + 1) : undefined;
  }
  return undefined;
}

function isConstDeclaration(declaration: Node): boolean {
  const list = declaration.getParent();
  return Node.isVariableDeclarationList(list) && list.getDeclarationKind() === 'const';
}

function moduleKey(specifier: string, file: SourceFile | undefined): string {
  return file ? file.getFilePath() : specifier;
}

/** An import of `name` from `specifier`: when the module is a project file, look for the export there. */
function followModule(specifier: string, file: SourceFile | undefined, name: string, depth: number): ImportOrigin | undefined {
  if (!file) return { module: specifier, name };
  return resolveExport(file, name, depth + 1) ?? { module: file.getFilePath(), name };
}

/** Find where `name`, exported by a project file, really comes from. */
export function resolveExport(file: SourceFile, name: string, depth: number): ImportOrigin | undefined {
  if (depth > MAX_DEPTH) return undefined;
  for (const exportDecl of file.getExportDeclarations()) {
    const target = exportDecl.getModuleSpecifierSourceFile();
    const specifier = exportDecl.getModuleSpecifierValue();
    const named = exportDecl.getNamedExports();
    const namespaceExport = exportDecl.getNamespaceExport();
    if (namespaceExport && namespaceExport.getName() === name && specifier) {
      return { module: moduleKey(specifier, target), name: '*' };
    }
    if (named.length === 0 && !namespaceExport && specifier) {
      // export * from 'm'
      if (target) {
        const found = resolveExport(target, name, depth + 1);
        if (found) return found;
      } else if (depth < MAX_DEPTH) {
        // Unknown external star export: cannot tell; keep looking at other exports.
        continue;
      }
    }
    for (const specifierNode of named) {
      const exportedName = specifierNode.getAliasNode()?.getText() ?? specifierNode.getName();
      if (exportedName !== name) continue;
      return originOfExportSpecifier(specifierNode, depth);
    }
  }
  // export const X = …  /  export { X } (local)
  const exported = file.getExportSymbols().find((symbol) => symbol.getName() === name);
  for (const declaration of exported?.getDeclarations() ?? []) {
    if (Node.isExportSpecifier(declaration)) continue;
    const origin = originOfDeclaration(declaration, depth + 1);
    if (origin) return origin;
  }
  return undefined;
}

function originOfExportSpecifier(specifierNode: Node, depth: number): ImportOrigin | undefined {
  if (!Node.isExportSpecifier(specifierNode)) return undefined;
  const exportDecl = specifierNode.getExportDeclaration();
  const specifier = exportDecl.getModuleSpecifierValue();
  const original = specifierNode.getName();
  if (specifier) {
    return followModule(specifier, exportDecl.getModuleSpecifierSourceFile(), original, depth + 1);
  }
  // export { X } of a local binding
  const localSymbol = specifierNode.getLocalTargetSymbol();
  for (const declaration of localSymbol?.getDeclarations() ?? []) {
    const origin = originOfDeclaration(declaration, depth + 1);
    if (origin) return origin;
  }
  return undefined;
}
