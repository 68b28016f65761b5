// What the v2 SDK packages need from the project that depends on them, read from the packages themselves (their
// package.json and type declarations), never from a list of ours: every peer dependency, and every dependency their
// public types import — the project hands its zod schemas to the server, so the project's zod must be one the server
// accepts (zod >= 4.2 for server 2.4). A migrated manifest names ranges inside those; `check` reports one that does not.
import * as fs from 'node:fs';
import * as path from 'node:path';
import semver from 'semver';
import { manifestText, V2_VERSIONS } from './sdk-v2-surface';
import { packageName } from '../analysis/package-name';
import { readJson } from './package-files';

export interface PackageJson {
  name?: string;
  version?: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

/** A range a v2 package needs the project's own copy of another package to be in. */
export interface Requirement {
  /** The package required (zod, express). */
  name: string;
  range: string;
  /** The v2 package that requires it, as `name@version`. */
  by: string;
  kind: 'peer' | 'typed dependency';
}

/** A declared range that admits versions a v2 package does not accept. */
export interface Conflict {
  name: string;
  section: DependencySection;
  declared: string;
  requirement: Requirement;
}

/**
 * A range the migration raised so that it satisfies a requirement, or added: a package the project's code imports but
 * its manifest never named (it had the copy another package brought: zod through the v1 SDK). `declared` is then the
 * version of that copy (`*` when none is installed).
 */
export interface Raise extends Conflict {
  to: string;
  added?: boolean;
}

export type DependencySection = 'dependencies' | 'devDependencies' | 'optionalDependencies';
export const SECTIONS: DependencySection[] = ['dependencies', 'devDependencies', 'optionalDependencies'];

interface Installed {
  dir: string;
  json: PackageJson;
}

/** The installed copy of `name` that Node would load from `fromDir` (walking up node_modules), if any. */
export function installedPackage(name: string, fromDir: string): Installed | undefined {
  for (let dir = path.resolve(fromDir); ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name);
    const json = readJson<PackageJson>(path.join(candidate, 'package.json'));
    if (json) return { dir: fs.realpathSync(candidate), json };
    if (path.dirname(dir) === dir) return undefined;
  }
}

/** mcp-migrate's own copies of the v2 packages: what the migration writes ranges for. */
const TOOL_DIR = __dirname;

const requirementCache = new Map<string, Requirement[]>();

/** What one installed v2 package requires: its peers, and the dependencies its type declarations import. */
function requirementsOf(pkg: Installed): Requirement[] {
  const cached = requirementCache.get(pkg.dir);
  if (cached) return cached;
  const by = `${pkg.json.name}@${pkg.json.version}`;
  const typed = typedImports(pkg.dir);
  const requirements: Requirement[] = [
    ...Object.entries(pkg.json.peerDependencies ?? {}).map(([name, range]) => ({ name, range, by, kind: 'peer' as const })),
    // A typed dependency of the same scope is a sibling released with it (server 2.4.0 pins core 2.4.0): the package
    // manager keeps those in step.
    ...Object.entries(pkg.json.dependencies ?? {})
      .filter(([name]) => typed.has(name) && !sameScope(name, pkg.json.name ?? ''))
      .map(([name, range]) => ({ name, range, by, kind: 'typed dependency' as const })),
  ];
  requirementCache.set(pkg.dir, requirements);
  return requirements;
}

function sameScope(a: string, b: string): boolean {
  return a.startsWith('@') && a.split('/')[0] === b.split('/')[0];
}

/** Package names the declaration files of a package import (bare specifiers; `zod/v4` counts as zod). */
function typedImports(dir: string): Set<string> {
  const names = new Set<string>();
  const visit = (folder: string) => {
    for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
      if (entry.name === 'node_modules') continue;
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) visit(full);
      else if (/\.d\.[cm]?ts$/.test(entry.name)) {
        for (const match of fs.readFileSync(full, 'utf8').matchAll(/(?:from|import\()\s*['"]([^'".][^'"]*)['"]/g)) {
          names.add(packageName(match[1]));
        }
      }
    }
  };
  visit(dir);
  return names;
}

/** The range a manifest declares for `name`, and where. */
export function declared(manifest: PackageJson, name: string): { section: DependencySection; range: string } | undefined {
  for (const section of SECTIONS) {
    const range = manifest[section]?.[name];
    if (range !== undefined) return { section, range };
  }
  return undefined;
}

/**
 * The requirements of the v2 packages a manifest declares. Each is read from the copy the project has installed when
 * it matches the declared range, else from mcp-migrate's own copy (what `apply` wrote the range for).
 */
export function v2Requirements(manifest: PackageJson, projectDir: string): Requirement[] {
  const requirements: Requirement[] = [];
  for (const name of Object.keys(V2_VERSIONS)) {
    const range = declared(manifest, name)?.range;
    if (range === undefined) continue;
    const own = installedPackage(name, projectDir);
    const pkg =
      own && semver.validRange(range) && semver.satisfies(own.json.version ?? '', range) ? own : (installedPackage(name, TOOL_DIR) ?? own);
    if (pkg) requirements.push(...requirementsOf(pkg));
  }
  return requirements;
}

/**
 * What the v2 packages require that the code imports (`imports`) and the manifest does not declare: the copy the code
 * gets is another package's, at a version the project did not choose (npm may hoist one; pnpm does not). A peer the
 * package declares is its users' to install.
 */
export function undeclaredRequirements(manifest: PackageJson, projectDir: string, imports: (name: string) => boolean): Requirement[] {
  const seen = new Set<string>();
  return v2Requirements(manifest, projectDir).filter(({ name }) => {
    if (seen.has(name) || declared(manifest, name) || manifest.peerDependencies?.[name] || !imports(name)) return false;
    seen.add(name);
    return true;
  });
}

/** The v2 SDK packages the code imports that the manifest does not declare: npm install does not bring them for it. */
export function undeclaredV2Packages(manifest: PackageJson, imports: (name: string) => boolean): string[] {
  return Object.keys(V2_VERSIONS).filter((name) => imports(name) && !declared(manifest, name));
}

/** Declared ranges that admit versions outside what a v2 package requires (ranges that are not semver are left alone). */
export function conflicts(manifest: PackageJson, projectDir: string): Conflict[] {
  const found: Conflict[] = [];
  for (const requirement of v2Requirements(manifest, projectDir)) {
    const own = declared(manifest, requirement.name);
    if (!own || !semver.validRange(own.range) || !semver.validRange(requirement.range)) continue;
    if (semver.subset(own.range, requirement.range)) continue;
    found.push({ name: requirement.name, section: own.section, declared: own.range, requirement });
  }
  return found;
}

/**
 * The manifest with every conflicting range raised into its requirement, keeping its layout: the lowest change that
 * satisfies it (`^4.0.0` → `^4.2.0`, `^3.25.0` → `^4.2.0`, express `^4.17.1` → `^4.18.0`, never a major further than needed).
 * A required package the manifest does not name but the package's code imports (`imports`) is added to `dependencies`
 * at the required range: the copy the code had came with the v1 SDK, which the v2 move takes away, and the code hands
 * its schemas to the v2 server, which needs its own version of them.
 */
export function satisfyRequirements(
  text: string,
  projectDir: string,
  imports: (name: string) => boolean = () => false,
): { text: string; raised: Raise[] } {
  let manifest: PackageJson;
  try {
    manifest = JSON.parse(text) as PackageJson;
  } catch {
    return { text, raised: [] };
  }
  const raised: Raise[] = [];
  let edited = text;
  for (const requirement of undeclaredRequirements(manifest, projectDir, imports)) {
    const { name } = requirement;
    if (!semver.validRange(requirement.range)) continue;
    const to = raisedRange('*', requirement.range);
    const had = installedPackage(name, projectDir)?.json.version ?? '*';
    raised.push({ name, section: 'dependencies', declared: had, requirement, to, added: true });
    manifest = { ...manifest, dependencies: { ...manifest.dependencies, [name]: to } };
    edited = addRange(edited, 'dependencies', name, to);
  }
  for (;;) {
    const conflict = conflicts(manifest, projectDir).find((c) => !raised.some((r) => r.name === c.name && r.to === c.declared));
    if (!conflict) break;
    const to = raisedRange(conflict.declared, conflict.requirement.range);
    raised.push({ ...conflict, to });
    manifest = { ...manifest, [conflict.section]: { ...manifest[conflict.section], [conflict.name]: to } };
    edited = replaceRange(edited, conflict.section, conflict.name, to);
  }
  return { text: edited, raised };
}

/** The lowest range inside `required` that is not below `from` (`^4.2.0` for `^3` under `^4.2.0`). */
export function raisedRange(from: string, required: string): string {
  const floor = semver.minVersion(from) ?? new semver.SemVer('0.0.0');
  const sets = required.split('||').map((set) => set.trim());
  const lowest = (set: string) => semver.minVersion(set) ?? new semver.SemVer('0.0.0');
  const overlapping = sets.find((set) => semver.intersects(from, set));
  const chosen = overlapping ?? sets.find((set) => semver.gte(lowest(set), floor)) ?? sets[sets.length - 1];
  const start = overlapping && semver.gt(floor, lowest(chosen)) ? floor : lowest(chosen);
  const caret = `^${start.version}`;
  return semver.subset(caret, chosen) ? caret : chosen;
}

/** Replaces one dependency's range inside its section, leaving every other byte of the manifest as it was. */
function replaceRange(text: string, section: DependencySection, name: string, range: string): string {
  const sectionAt = text.search(new RegExp(`"${section}"\\s*:\\s*\\{`));
  if (sectionAt < 0) return text;
  const entry = new RegExp(`("${name.replace(/[/.]/g, '\\$&')}"\\s*:\\s*)"[^"]*"`, 'g');
  entry.lastIndex = sectionAt;
  const match = entry.exec(text);
  if (!match) return text;
  return `${text.slice(0, match.index)}${match[1]}"${range}"${text.slice(match.index + match[0].length)}`;
}

/**
 * The manifest with `name` added to a section at `range` (the section made when missing), written with the manifest's
 * indentation; an alphabetical section stays alphabetical.
 */
function addRange(text: string, section: DependencySection, name: string, range: string): string {
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return text;
  }
  const entries = Object.entries((json[section] as Record<string, string> | undefined) ?? {});
  const alphabetical = entries.every(([key], i) => i === 0 || entries[i - 1][0].localeCompare(key) <= 0);
  const added = [...entries, [name, range]];
  if (alphabetical) added.sort(([a], [b]) => a.localeCompare(b));
  json[section] = Object.fromEntries(added);
  return manifestText(json, text);
}
