/**
 * legacy-transport-types — after the endpoints moved to Streamable HTTP, declarations the migration left unused can
 * still name the legacy class in a type (`_sessions: Map<string, SSEServerTransport>`, `new Map<string,
 * SSEServerTransport>()`, `Record<string, A | SSEServerTransport>`): that alone keeps an import of
 * `@modelcontextprotocol/server-legacy` (npm: deprecated, "a frozen copy … for migration purposes only") in the
 * manifest. Where the class is used in types only — nothing constructs it or checks `instanceof` — each type
 * reference goes: dropped from a union, `unknown` elsewhere; the import goes with it. A file that still uses the
 * class as a value serves the legacy transport on purpose and is left as it is.
 */
import type { API, ASTPath, FileInfo, JSCodeshift } from 'jscodeshift';
import { createContext, print, type TransformOptions } from '../lib/context';
import type { AnyNode } from '../lib/ast';
import { pruneImports } from '../lib/imports';
import { moduleBindings } from './lib';

export const id = 'legacy-transport-types';

const LEGACY_MODULES = ['@modelcontextprotocol/server-legacy/sse', '@modelcontextprotocol/sdk/server/sse.js'];

export function mayApply(text: string): boolean {
  return LEGACY_MODULES.some((module) => text.includes(module));
}

export default function transform(file: FileInfo, api: API, options: TransformOptions = {}): string | undefined {
  const context = createContext(file, api, { ...options, findings: [] }, []);
  const { j, root } = context;
  const bindings = moduleBindings(context, LEGACY_MODULES);
  const typeOnlyImports = root
    .find(j.ImportDeclaration)
    .filter((p) => LEGACY_MODULES.includes(p.node.source.value as string) && p.node.importKind === 'type')
    .nodes()
    .flatMap((node) => (node.specifiers ?? []).map((s) => (s.local as unknown as AnyNode).name as string));
  const names = new Set([...bindings.named.values(), ...typeOnlyImports]);
  const retyped = new Set<string>();
  for (const name of names) {
    const references = root.find(j.Identifier, { name }).filter((p) => !isDeclaration(p.parent?.node as AnyNode));
    const types = references.filter((p) => isTypeName(p.parent?.node as AnyNode));
    if (types.length === 0 || types.length !== references.length) continue;
    types.forEach((p) => retype(j, p.parent));
    retyped.add(name);
  }
  if (retyped.size === 0) return undefined;
  pruneImports(context, retyped);
  return print(context);
}

function isDeclaration(parent: AnyNode | undefined): boolean {
  return (
    !!parent &&
    ['ImportSpecifier', 'ImportDefaultSpecifier', 'ImportNamespaceSpecifier', 'ObjectProperty', 'Property'].includes(parent.type)
  );
}

/** The identifier names a type (`SSEServerTransport` in a type annotation, a type argument, `typeof X`). */
function isTypeName(parent: AnyNode | undefined): boolean {
  return !!parent && (parent.type === 'TSTypeReference' || parent.type === 'TSTypeQuery');
}

/** A union loses the member; any other position takes `unknown`. */
function retype(j: JSCodeshift, typePath: ASTPath): void {
  const parent = typePath.parent?.node as AnyNode | undefined;
  if (parent?.type === 'TSUnionType' && (parent.types as AnyNode[]).length > 1) {
    parent.types = (parent.types as AnyNode[]).filter((t) => t !== (typePath.node as unknown));
    return;
  }
  typePath.replace(j.tsUnknownKeyword());
}
