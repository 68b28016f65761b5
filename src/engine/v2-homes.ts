// Where a v1 SDK export lives in the v2 packages: the official codemod's own import mapping (its `imports` transform,
// run on a one-line file), kept only when the v2 package it names declares that export. For v1 names the codemod does
// not reach itself (`import("@modelcontextprotocol/sdk/shared/auth.js").OAuthClientInformationFull` in a type).
import * as path from 'node:path';
import { Project, ts } from 'ts-morph';

/** The codemod's `TransformContext.projectType`: which v2 package takes the protocol types both re-export. */
export type ProjectType = 'client' | 'server' | 'both' | 'unknown';

export interface V2Home {
  /** The v2 module specifier (`@modelcontextprotocol/server`, `@modelcontextprotocol/server-legacy/auth`). */
  module: string;
  /** The name it exports there (`ResourceTemplate` is `ResourceTemplateType` in v2). */
  name: string;
}

type Codemod = typeof import('@modelcontextprotocol/codemod');
type ImportsTransform = NonNullable<ReturnType<Codemod['getMigration']>>['transforms'][number];

const LOCAL = '__v2Home';
const homes = new Map<string, V2Home | undefined>();
const exportsByModule = new Map<string, ReadonlySet<string>>();
let importsTransform: ImportsTransform | undefined;
let scratch: Project | undefined;

/** The v2 home of `import { name } from v1Module`, or undefined when v2 removed it or no v2 package exports it. */
export function v2HomeOf(v1Module: string, name: string, projectType: ProjectType): V2Home | undefined {
  const key = `${v1Module}\u0000${name}\u0000${projectType}`;
  if (!homes.has(key)) homes.set(key, findHome(v1Module, name, projectType));
  return homes.get(key);
}

function findHome(v1Module: string, name: string, projectType: ProjectType): V2Home | undefined {
  scratch ??= new Project({ useInMemoryFileSystem: true });
  const file = scratch.createSourceFile('/home.ts', `import { ${name} as ${LOCAL} } from ${JSON.stringify(v1Module)};\n`, {
    overwrite: true,
  });
  codemodImports().apply(file, { projectType });
  const home = file.getImportDeclarations().flatMap((declaration) =>
    declaration
      .getNamedImports()
      .filter((specifier) => specifier.getAliasNode()?.getText() === LOCAL)
      .map((specifier) => ({ module: declaration.getModuleSpecifierValue(), name: specifier.getName() })),
  )[0];
  return home && home.module !== v1Module && exportsOf(home.module).has(home.name) ? home : undefined;
}

function codemodImports(): ImportsTransform {
  if (importsTransform) return importsTransform;
  const codemod = require('@modelcontextprotocol/codemod') as Codemod;
  const transform = codemod.getMigration('v1-to-v2')?.transforms.find((t) => t.id === 'imports');
  if (!transform) throw new Error("the official codemod's v1-to-v2 migration has no 'imports' transform");
  return (importsTransform = transform);
}

/** The names a v2 module's type declarations export (mcp-migrate's own copy: what the migrated manifest installs). */
function exportsOf(module: string): ReadonlySet<string> {
  let names = exportsByModule.get(module);
  if (!names) {
    const options = { module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler };
    const resolved = ts.resolveModuleName(module, __filename, options, ts.sys).resolvedModule?.resolvedFileName;
    names = resolved ? declaredExports(resolved, new Set()) : new Set();
    exportsByModule.set(module, names);
  }
  return names;
}

/** Exported names of a declaration file, following its `export * from './chunk'` re-exports. */
function declaredExports(file: string, seen: Set<string>): Set<string> {
  const names = new Set<string>();
  if (seen.has(file) || !ts.sys.fileExists(file)) return names;
  seen.add(file);
  const source = ts.createSourceFile(file, ts.sys.readFile(file) ?? '', ts.ScriptTarget.Latest);
  for (const statement of source.statements) {
    if (ts.isExportDeclaration(statement)) {
      const clause = statement.exportClause;
      if (clause && ts.isNamedExports(clause)) for (const element of clause.elements) names.add(element.name.text);
      else if (clause) names.add(clause.name.text);
      else if (statement.moduleSpecifier && ts.isStringLiteral(statement.moduleSpecifier)) {
        const target = ts.resolveModuleName(
          statement.moduleSpecifier.text,
          file,
          { moduleResolution: ts.ModuleResolutionKind.Bundler },
          ts.sys,
        ).resolvedModule?.resolvedFileName;
        if (target && path.isAbsolute(target)) for (const name of declaredExports(target, seen)) names.add(name);
      }
      continue;
    }
    const exported = ts.canHaveModifiers(statement) && ts.getModifiers(statement)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
    if (!exported) continue;
    if (ts.isVariableStatement(statement))
      for (const declaration of statement.declarationList.declarations) {
        if (ts.isIdentifier(declaration.name)) names.add(declaration.name.text);
      }
    else if ('name' in statement && statement.name && ts.isIdentifier(statement.name as ts.Node))
      names.add((statement.name as ts.Identifier).text);
  }
  return names;
}
