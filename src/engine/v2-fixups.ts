// After the official v1→v2 codemod (2026-07-28 target): the manifest ranges the v2 packages need (zod ^3 → ^4.2.0,
// read from the packages themselves), then the fix-ups in transforms/v2 for what the codemod leaves broken. migrate.ts
// calls this once per migration; the type-check gate then checks the result against the raised packages.
import * as fs from 'node:fs';
import * as path from 'node:path';
import semver from 'semver';
import type { ManualItem } from '../model';
import { fixups, type FixupModule } from '../../transforms/v2';
import { satisfyRequirements, type PackageJson, type Raise } from './v2-dependencies';
import { discoverScanned } from './read-tree';
import { DEFAULT_MAX_FILE_BYTES, isReadProblem, readSource } from './read-source';
import type { LoadedSource, Scan, ScanOptions } from './scan';
import type { Migration } from './migrate';
import type { Environment } from './typecheck';
import { V2_VERSIONS } from './sdk-v2-surface';

export interface DependencyStep {
  manifests: Map<string, string>;
  /** Ranges raised, by manifest path relative to the root. */
  raised: Map<string, Raise[]>;
  notes: ManualItem[];
}

/**
 * Every migrated manifest's ranges raised into what its v2 packages require (its layout kept), and what they require
 * that the manifest's own `sources` import without declaring it added.
 */
export function satisfyV2Dependencies(
  manifests: Map<string, string>,
  root: string,
  sources: ReadonlyArray<{ relPath: string; text: string }>,
): DependencyStep {
  const result: DependencyStep = { manifests: new Map(manifests), raised: new Map(), notes: [] };
  for (const [rel, text] of manifests) {
    const owned = sources.filter((source) => ownerOf(source.relPath, [...manifests.keys()]) === rel);
    const imports = (name: string) => owned.some((source) => importsModule(source.text, name));
    const { text: edited, raised } = satisfyRequirements(text, path.join(root, path.posix.dirname(rel)), imports);
    if (raised.length === 0) continue;
    result.manifests.set(rel, edited);
    result.raised.set(rel, raised);
    result.notes.push(...raised.map((r) => ({ file: rel, line: 1, ruleId: 'sdk-v2-surface', message: describeRaise(r) })));
  }
  return result;
}

function describeRaise(r: Raise): string {
  const required = `${r.requirement.by} requires ${r.name} ${r.requirement.range} (${r.requirement.kind})`;
  if (!r.added) return `${r.name} ${r.declared} → ${r.to}: ${required}.`;
  const had = r.declared === '*' ? '' : ` (${r.declared} installed)`;
  return `${r.name} ${r.to} added: the code imports ${r.name} without declaring it, and had it only through another package${had}; ${required}.`;
}

/** The manifest (path relative to the root) of the package a file belongs to: the nearest one above it. */
function ownerOf(relPath: string, manifests: string[]): string | undefined {
  return manifests
    .filter((manifest) => path.posix.dirname(manifest) === '.' || relPath.startsWith(`${path.posix.dirname(manifest)}/`))
    .sort((a, b) => b.length - a.length)[0];
}

/** The codemod's own warning about a zod range, once the range was raised past it. */
export function settledByRaise(note: ManualItem, raised: Map<string, Raise[]>): boolean {
  return /^zod range '/.test(note.message) && !!raised.get(note.file)?.some((r) => r.name === 'zod');
}

const CODEMOD_NOTE = /^\(from @modelcontextprotocol\/codemod\) ([\s\S]+)$/;

/**
 * The codemod's notes without those whose marker a fix-up took out with what it marked: each marker fewer in a file's
 * final text than in the codemod's answers one note with its text (`before`, `after`: texts by path).
 */
export function withoutAnsweredCodemodNotes(
  notes: ManualItem[],
  before: ReadonlyMap<string, string>,
  after: ReadonlyMap<string, string>,
): ManualItem[] {
  const answered = new Map<string, number>();
  const count = (text: string | undefined, marker: string) => (text ?? '').split(marker).length - 1;
  return notes.filter((note) => {
    const body = CODEMOD_NOTE.exec(note.message)?.[1];
    if (!body) return true;
    const marker = `@mcp-codemod-error ${body}`;
    const key = `${note.file}\u0000${marker}`;
    const left = answered.get(key) ?? count(before.get(note.file), marker) - count(after.get(note.file), marker);
    answered.set(key, left - 1);
    return left <= 0;
  });
}

/**
 * What the migrated code compiles against once its manifests are installed: the packages whose range was raised
 * (resolved anew) and those no migrated manifest lists any more (the v1 SDK).
 */
export function installedEnvironment(before: ReadonlyMap<string, string> = new Map(), migration: Migration): Environment {
  const after = declaredPackages(migration.manifests.values());
  return {
    // (what the raised packages bring resolves from mcp-migrate's copy with them, as the install brings it)
    raised: new Set([...migration.raised, ...migration.brought]),
    removed: new Set([...declaredPackages(before.values())].filter((name) => !after.has(name))),
  };
}

function declaredPackages(texts: Iterable<string>): Set<string> {
  const names = new Set<string>();
  for (const text of texts) {
    try {
      const json = JSON.parse(text) as PackageJson & { peerDependencies?: Record<string, string> };
      for (const deps of [json.dependencies, json.devDependencies, json.peerDependencies, json.optionalDependencies])
        for (const name of Object.keys(deps ?? {})) names.add(name);
    } catch {
      // not JSON: declares nothing we can read
    }
  }
  return names;
}

/** The fix-ups for a file: the v2 ones, and the zod 4 ones when its package's zod moved from 3 to 4. */
export function fixupsFor(relPath: string, raised: Map<string, Raise[]>): FixupModule[] {
  const owner = ownerOf(relPath, [...raised.keys()]);
  const zod = owner === undefined ? undefined : raised.get(owner)?.find((r) => r.name === 'zod');
  return fixups.filter((fixup) => fixup.when === 'v2' || (fixup.when === 'zod-4' && !!zod && crossesZod4(zod.declared, zod.to)));
}

function crossesZod4(from: string, to: string): boolean {
  return (semver.minVersion(from)?.major ?? 0) < 4 && (semver.minVersion(to)?.major ?? 0) >= 4;
}

/** The text imports package `name` or one of its subpaths (`zod`, `zod/v4`), by import, export, require or import(). */
export function importsModule(text: string, name: string): boolean {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?:from\\s*|require\\(\\s*|import\\(\\s*|import\\s+)['"]${escaped}(?:/[^'"]*)?['"]`).test(text);
}

/** What a file the zod fix-ups may change imports: zod, or zod-to-json-schema alone (a schema converted where it is not built). */
const ZOD_FIXUP_MODULES = ['zod', 'zod-to-json-schema'];

/**
 * The files the zod fix-ups must also see beyond the scanned MCP code: when the v2 move takes a manifest's zod from 3
 * to 4, every source file of its package that imports zod or zod-to-json-schema (schemas often live in files with
 * nothing MCP in them).
 */
export function zodCompanions(options: ScanOptions, scanned: Scan, manifests: Map<string, string>): LoadedSource[] {
  const moving = [...manifests]
    .filter(([, absPath]) => zodMoves(absPath))
    .map(([rel]) => path.posix.dirname(rel))
    .map((dir) => (dir === '.' ? '' : `${dir}/`));
  if (moving.length === 0) return [];
  const known = new Set(scanned.sources.map((s) => s.relPath));
  const discovery = discoverScanned(options);
  const companions: LoadedSource[] = [];
  for (const file of discovery.files) {
    if (known.has(file.relPath) || !moving.some((dir) => file.relPath.startsWith(dir))) continue;
    const read = readSource(file.absPath, { maxBytes: options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES });
    if (isReadProblem(read) || !ZOD_FIXUP_MODULES.some((name) => importsModule(read.text, name))) continue;
    companions.push({ absPath: file.absPath, relPath: file.relPath, text: read.text, source: read });
  }
  return companions;
}

/** This v1 manifest's zod moves from 3 to 4 once the v2 server replaces its SDK. */
function zodMoves(manifestPath: string): boolean {
  let manifest: PackageJson;
  try {
    manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8')) as PackageJson;
  } catch {
    return false;
  }
  if (!manifest.dependencies?.['@modelcontextprotocol/sdk'] && !manifest.devDependencies?.['@modelcontextprotocol/sdk']) return false;
  const server = '@modelcontextprotocol/server';
  const migrated = { ...manifest, dependencies: { ...manifest.dependencies, [server]: V2_VERSIONS[server] } };
  // (a package that imports zod without declaring it gets zod added: only zod importers become companions)
  const zod = satisfyRequirements(JSON.stringify(migrated), path.dirname(manifestPath), (name) => name === 'zod').raised.find(
    (r) => r.name === 'zod',
  );
  return !!zod && crossesZod4(zod.declared, zod.to);
}
