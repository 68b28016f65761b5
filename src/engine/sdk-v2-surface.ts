// The v1 → v2 SDK surface (imports, `.tool()` → `registerTool`, `extra.*` → `ctx.*`, error classes, package.json)
// is the official `@modelcontextprotocol/codemod`'s job: we run its runner, unchanged, on a scratch copy of the
// working texts, read the results back, and fold its diagnostics into our report. Nothing here re-implements it.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { restoreHeaderSpacing } from '../../transforms/lib/context';

export interface SurfaceInput {
  /** Source texts by POSIX path relative to the scan root. */
  files: Map<string, string>;
  /** package.json texts by path relative to the scan root (may start with `../`). */
  manifests: Map<string, string>;
}

export interface SurfaceDiagnostic {
  file: string;
  line: number;
  level: 'error' | 'warning' | 'info';
  message: string;
}

export interface SurfaceResult {
  files: Map<string, string>;
  manifests: Map<string, string>;
  diagnostics: SurfaceDiagnostic[];
  /** Manifest-level warnings (e.g. a zod range below the v2 floor), by manifest path. */
  manifestWarnings: Array<{ manifest: string; message: string }>;
}

/** Current versions of the v2 packages (what this release was tested with), for manifests the codemod edits. */
export const V2_VERSIONS: Record<string, string> = {
  '@modelcontextprotocol/server': '^2.4.0',
  '@modelcontextprotocol/client': '^2.4.0',
  '@modelcontextprotocol/core': '^2.4.0',
  '@modelcontextprotocol/node': '^2.1.2',
  '@modelcontextprotocol/express': '^2.0.2',
  '@modelcontextprotocol/hono': '^2.0.2',
  '@modelcontextprotocol/fastify': '^2.0.1',
  '@modelcontextprotocol/server-legacy': '^2.3.1',
};

type Codemod = typeof import('@modelcontextprotocol/codemod');

export function migrateSdkSurface(input: SurfaceInput): SurfaceResult {
  const codemod = require('@modelcontextprotocol/codemod') as Codemod;
  const migration = codemod.getMigration('v1-to-v2');
  if (!migration) throw new Error('the official codemod has no v1-to-v2 migration');
  const result: SurfaceResult = { files: new Map(input.files), manifests: new Map(input.manifests), diagnostics: [], manifestWarnings: [] };
  // One codemod run per package: its runner edits the manifest nearest to its target directory, so each monorepo
  // member gets a run of its own with its own files and manifest.
  const packages = new Map<string, string[]>();
  const dirs = [...input.manifests.keys()].map((m) => path.posix.dirname(m)).sort((a, b) => b.length - a.length);
  for (const rel of input.files.keys()) {
    const owner = dirs.find((dir) => dir === '.' || rel.startsWith(`${dir}/`)) ?? '';
    packages.set(owner, [...(packages.get(owner) ?? []), rel]);
  }
  for (const [dir, files] of packages) {
    const manifest = dir === '' ? undefined : dir === '.' ? 'package.json' : `${dir}/package.json`;
    runOnePackage(codemod, migration, input, result, dir === '' || dir === '.' ? '' : dir, files, manifest);
  }
  return result;
}

function runOnePackage(
  codemod: Codemod,
  migration: NonNullable<ReturnType<Codemod['getMigration']>>,
  input: SurfaceInput,
  result: SurfaceResult,
  dir: string,
  files: string[],
  manifest: string | undefined,
): void {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-migrate-v2-'));
  const local = (rel: string) => (dir ? path.posix.relative(dir, rel) : rel);
  try {
    // The codemod reads ESM imports only; CommonJS files go through it with their requires spelled as imports.
    const bridged = new Set<string>();
    const write = (rel: string, text: string) => {
      const target = path.resolve(scratch, local(rel));
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.writeFileSync(target, text);
    };
    for (const rel of files) {
      const text = input.files.get(rel)!;
      const esm = requiresToImports(text);
      if (esm !== undefined) bridged.add(rel);
      write(rel, esm ?? text);
    }
    if (manifest) write(manifest, input.manifests.get(manifest)!);
    const run = codemod.run(migration, { targetDir: scratch, dryRun: false });
    const read = (rel: string) => fs.readFileSync(path.resolve(scratch, local(rel)), 'utf8');
    const toRel = (abs: string) => path.posix.join(dir || '.', path.relative(scratch, abs).split(path.sep).join('/'));
    const unused = new Map<string, Set<string>>();
    for (const rel of files) {
      const cleaned = withoutUnusedImportMarkers(read(rel));
      unused.set(path.resolve(scratch, local(rel)), cleaned.names);
      const migrated = bridged.has(rel) ? importsToRequires(cleaned.text) : cleaned.text;
      // The codemod drops the blank line after a header comment when it replaces the first import.
      result.files.set(rel, migrated === input.files.get(rel) ? migrated : restoreHeaderSpacing(input.files.get(rel)!, migrated));
    }
    if (manifest) {
      const edited = pinV2Versions(read(manifest), input.manifests.get(manifest)!);
      const texts = files.map((rel) => result.files.get(rel)!);
      const imported = importedV2Packages(texts);
      result.manifests.set(manifest, addMissingDependencies(v2Peers(edited, imported, texts), imported));
    }
    result.diagnostics.push(
      ...run.diagnostics
        .filter((d) => ![...(unused.get(path.resolve(d.file)) ?? [])].some((name) => d.message.startsWith(`${name} is not exported`)))
        .map((d) => ({
          file: toRel(d.file),
          line: d.line,
          level: d.level as SurfaceDiagnostic['level'],
          message: d.message,
        })),
    );
    result.manifestWarnings.push(
      ...(run.packageJsonChanges ?? [])
        .filter((change) => change.applied)
        .flatMap((change) => (change.warnings ?? []).map((message) => ({ manifest: toRel(change.packageJsonPath), message }))),
    );
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

const IMPORT_MARKER =
  /^[ \t]*\/\*\s*@mcp-codemod-error\s+([\w$]+) is not exported by the v2 packages\b[^\n]*?No direct member access could be rewritten here[^\n]*?\*\/[ \t]*\n/gm;

/**
 * The codemod marks a v1 import it removed and could not follow (`ErrorCode is not exported by the v2 packages … No
 * direct member access could be rewritten here`) even where the file never used it. With no use left, the import is
 * simply gone and the marker asks nothing of anyone, so it goes too.
 */
export function withoutUnusedImportMarkers(text: string): { text: string; names: Set<string> } {
  const names = new Set<string>();
  const cleaned = text.replace(IMPORT_MARKER, (marker, name: string) => {
    const rest = text.replace(marker, '');
    if (new RegExp(`(?<![\\w$.])${name.replace(/\$/g, '\\$')}(?![\\w$])`).test(rest)) return marker;
    names.add(name);
    return '';
  });
  return { text: cleaned, names };
}

/** The v2 packages the migrated files import (our transforms add `@modelcontextprotocol/hono`, `/node`, …). */
function importedV2Packages(texts: string[]): string[] {
  const found = new Set<string>();
  for (const text of texts) {
    for (const match of text.matchAll(/(?:from\s*|require\(\s*|import\(\s*)['"](@modelcontextprotocol\/[\w-]+)(?:\/[^'"]*)?['"]/g)) {
      if (V2_VERSIONS[match[1]]) found.add(match[1]);
    }
  }
  return [...found].sort();
}

export const LEGACY_PACKAGE = '@modelcontextprotocol/server-legacy';
const V1_PACKAGE = '@modelcontextprotocol/sdk';

/** The module imports or requires `name` (or a subpath of it). */
export function importsPackage(text: string, name: string): boolean {
  return importedV2Packages([text]).includes(name);
}

/** The manifest without `name` in any dependency section (its indentation kept, as addMissingDependencies writes it). */
export function withoutDependency(manifest: string, name: string): string {
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(manifest) as Record<string, unknown>;
  } catch {
    return manifest;
  }
  let removed = false;
  for (const section of ['dependencies', 'devDependencies', 'optionalDependencies']) {
    const deps = json[section] as Record<string, string> | undefined;
    if (deps && name in deps) {
      delete deps[name];
      removed = true;
    }
  }
  if (!removed) return manifest;
  return manifestText(json, manifest);
}

const V1_IMPORT = /(?:from\s*|require\(\s*|import\(\s*)['"]@modelcontextprotocol\/sdk(?:\/[^'"]*)?['"]/;

/**
 * A package whose users bring the SDK (`peerDependencies: { "@modelcontextprotocol/sdk": "^1.23.0" }`, a shared tools
 * package of a workspace) asks them for the v2 packages it now imports instead, once none of its files imports the v1
 * SDK: the codemod moves the SDK's dependency and devDependency and leaves the peer, which would keep installing a v1
 * SDK nothing uses and never ask for the server the code needs. `peerDependenciesMeta` follows (optional stays optional).
 */
export function v2Peers(manifest: string, imported: string[], texts: string[]): string {
  let json: { peerDependencies?: Record<string, string>; peerDependenciesMeta?: Record<string, unknown> };
  try {
    json = JSON.parse(manifest);
  } catch {
    return manifest;
  }
  const peers = json.peerDependencies;
  if (!peers || !(V1_PACKAGE in peers) || imported.length === 0 || texts.some((text) => V1_IMPORT.test(text))) return manifest;
  const replacement = imported.filter((name) => name !== LEGACY_PACKAGE && !(name in peers));
  json.peerDependencies = Object.fromEntries(
    Object.entries(peers).flatMap(([name, range]) =>
      name === V1_PACKAGE ? replacement.map((v2) => [v2, V2_VERSIONS[v2]] as const) : [[name, range] as const],
    ),
  );
  const meta = json.peerDependenciesMeta?.[V1_PACKAGE];
  if (json.peerDependenciesMeta && meta !== undefined) {
    json.peerDependenciesMeta = Object.fromEntries(
      Object.entries(json.peerDependenciesMeta).flatMap(([name, value]) =>
        name === V1_PACKAGE ? replacement.map((v2) => [v2, meta] as const) : [[name, value] as const],
      ),
    );
  }
  return manifestText(json, manifest);
}

/** Every imported v2 package is a dependency (the codemod adds only the ones its own rewrites import). */
function addMissingDependencies(manifest: string, packages: string[]): string {
  let json: { dependencies?: Record<string, string>; devDependencies?: Record<string, string>; peerDependencies?: Record<string, string> };
  try {
    json = JSON.parse(manifest);
  } catch {
    return manifest;
  }
  const declared = (name: string) => [json.dependencies, json.devDependencies, json.peerDependencies].some((deps) => deps && name in deps);
  const missing = packages.filter((name) => !declared(name));
  if (missing.length === 0) return manifest;
  json.dependencies = { ...(json.dependencies ?? {}) };
  for (const name of missing) json.dependencies[name] = V2_VERSIONS[name];
  return manifestText(json, manifest);
}

/** A manifest edited as JSON, written with the indentation and final newline of the text it was read from. */
export function manifestText(json: unknown, original: string): string {
  const indent = /^[ \t]+(?=")/m.exec(original)?.[0] ?? '  ';
  return `${JSON.stringify(json, null, indent)}${original.endsWith('\n') ? '\n' : ''}`;
}

/** The codemod writes the ranges it knows; raise added v2 packages to the current releases, keeping the layout. */
function pinV2Versions(after: string, before: string): string {
  if (after === before) return after;
  let text = after;
  for (const [name, version] of Object.entries(V2_VERSIONS)) {
    if (before.includes(`"${name}"`)) continue;
    text = text.replace(new RegExp(`("${name.replace(/[/.]/g, '\\$&')}"\\s*:\\s*)"[^"]*"`), `$1"${version}"`);
  }
  return text;
}

const TOP_REQUIRE = /^([ \t]*)(?:const|let|var)\s+(\{[^}]*\}|[\w$]+)\s*=\s*require\((['"])([^'"]+)\3\);?[ \t]*$/gm;

/**
 * In a CommonJS file that requires the v1 SDK: every top-level `const { A, B: C } = require('m')` becomes
 * `import { A, B as C } from 'm'` (and `const x = require('m')` becomes `import * as x from 'm'`), so the codemod
 * sees the SDK and zod as it would in an ES module. Undefined when the file is not such a file.
 */
export function requiresToImports(text: string): string | undefined {
  if (/^\s*import\s/m.test(text) || !/require\((['"])@modelcontextprotocol\/sdk\//.test(text)) return undefined;
  return text.replace(TOP_REQUIRE, (_all, indent: string, binding: string, quote: string, specifier: string) => {
    const names = binding.startsWith('{')
      ? `{ ${binding
          .slice(1, -1)
          .split(',')
          .map((part) => part.trim())
          .filter(Boolean)
          .map((part) => part.replace(/\s*:\s*/, ' as '))
          .join(', ')} }`
      : `* as ${binding}`;
    return `${indent}import ${names} from ${quote}${specifier}${quote};`;
  });
}

/** The way back, for every import the codemod left or added in a bridged CommonJS file. */
export function importsToRequires(text: string): string {
  return text.replace(
    /^([ \t]*)import\s+(\{[^}]*\}|\*\s+as\s+[\w$]+)\s+from\s+(['"])([^'"]+)\3;?[ \t]*$/gm,
    (_all, indent: string, names: string, quote: string, specifier: string) => {
      const binding = names.startsWith('{')
        ? `{ ${names
            .slice(1, -1)
            .split(',')
            .map((part) => part.trim())
            .filter(Boolean)
            .map((part) => part.replace(/^type\s+/, '').replace(/\s+as\s+/, ': '))
            .join(', ')} }`
        : names.replace(/^\*\s+as\s+/, '');
      return `${indent}const ${binding} = require(${quote}${specifier}${quote});`;
    },
  );
}
