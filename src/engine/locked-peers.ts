// What the project has locked, against the ranges its manifest now declares. A manifest that moves a package (zod 3 → 4,
// agents 0.0 → 0.32) while a locked package that stays installed declares that package as a peer with a range the new
// one does not meet fails `npm install` (ERESOLVE), lockfile and all: jina-ai/MCP's locked `ai@4` wants zod ^3. Read
// from package-lock.json (its `packages` entries) or, without one, from the installed node_modules.
import * as fs from 'node:fs';
import * as path from 'node:path';
import semver from 'semver';
import { SECTIONS, type PackageJson } from './v2-dependencies';
import { readJson } from './package-files';

/** One installed or locked package, at its node_modules path (`node_modules/a/node_modules/b`). */
interface LockedPackage {
  location: string;
  name: string;
  version: string;
  /** What it asks for, with the ranges: dependencies, optional ones and peers. */
  requests: Record<string, string>;
  peerDependencies: Record<string, string>;
}

/** A locked package whose peer range the manifest's range for that peer does not meet. */
export interface LockedPeerConflict {
  /** The locked package, its version and where it is (package-lock.json, or node_modules). */
  locked: { name: string; version: string; source: string };
  /** The peer it declares, the range it wants, and the range the manifest now names. */
  peer: string;
  peerRange: string;
  declared: string;
}

/**
 * Locked packages that stay installed, cannot move, and want a moved package in a range its new one does not meet.
 * Moved: a declared range its locked version is outside of (or a package not locked yet). What stays: everything the
 * unmoved declared packages lead to through the lock, and what a moved package's locked version asked for (npm keeps
 * what the lock holds until the new tree says otherwise, as jina-ai/MCP's `ai@4` under agents shows); a package the
 * manifest no longer names leads nowhere. What cannot move: a package held only by an exact version, or only by what a
 * moved package used to ask for; one a staying package (or the manifest) asks for with a range npm may re-resolve to a
 * release that accepts the new peer (myst729/calc-mcp's zod-to-json-schema ^3.24.5 became 3.25, which accepts zod 4),
 * and without the registry that cannot be told.
 */
export function lockedPeerConflicts(manifest: PackageJson, projectDir: string): LockedPeerConflict[] {
  const lock = readLocked(projectDir);
  if (!lock) return [];
  const declared = new Map<string, string>();
  for (const section of SECTIONS) for (const [name, range] of Object.entries(manifest[section] ?? {})) declared.set(name, range);
  const top = (name: string) => lock.packages.get(`node_modules/${name}`);
  const moved = new Map(
    [...declared].filter(([name, range]) => {
      const locked = top(name);
      return semver.validRange(range) && (!locked || !semver.satisfies(locked.version, range, { includePrerelease: true }));
    }),
  );
  const kept = new Map<string, LockedPackage>();
  const movable = new Set<string>();
  const walk = (roots: Array<[from: string, requests: Record<string, string>]>, live: boolean) => {
    const queue = [...roots];
    while (queue.length > 0) {
      const [from, requests] = queue.shift()!;
      for (const [name, range] of Object.entries(requests)) {
        const found = resolve(lock.packages, from, name);
        if (!found || (moved.has(name) && found === top(name))) continue;
        if (live && !semver.valid(range)) movable.add(found.location);
        if (kept.has(found.location)) continue;
        kept.set(found.location, found);
        queue.push([found.location, found.requests]);
      }
    }
  };
  walk([['', Object.fromEntries([...declared].filter(([name]) => !moved.has(name)))]], true);
  const replaced = [...moved.keys()].flatMap((name) => top(name) ?? []);
  walk(
    replaced.map((old): [string, Record<string, string>] => [old.location, old.requests]),
    false,
  );
  const conflicts: LockedPeerConflict[] = [];
  for (const pkg of kept.values()) {
    if (movable.has(pkg.location)) continue;
    for (const [peer, peerRange] of Object.entries(pkg.peerDependencies)) {
      const range = moved.get(peer);
      const resolved = resolve(lock.packages, pkg.location, peer);
      if (!range || (resolved && resolved !== top(peer)) || !semver.validRange(peerRange)) continue;
      if (semver.intersects(peerRange, range, { includePrerelease: true })) continue;
      conflicts.push({ locked: { name: pkg.name, version: pkg.version, source: lock.source }, peer, peerRange, declared: range });
    }
  }
  return conflicts;
}

/** `name` as Node would find it from a package at `from` (its own node_modules, then each parent's, then the root's). */
function resolve(packages: Map<string, LockedPackage>, from: string, name: string): LockedPackage | undefined {
  for (let at = from; ;) {
    const found = packages.get(at ? `${at}/node_modules/${name}` : `node_modules/${name}`);
    if (found || !at) return found;
    const parent = at.lastIndexOf('/node_modules/');
    at = parent < 0 ? '' : at.slice(0, parent);
  }
}

/** The project's own lock (package-lock.json v2/v3 or npm-shrinkwrap.json), else its node_modules; none: undefined. */
function readLocked(projectDir: string): { source: string; packages: Map<string, LockedPackage> } | undefined {
  for (const file of ['npm-shrinkwrap.json', 'package-lock.json']) {
    const entries = readJson<{ packages?: unknown }>(path.join(projectDir, file))?.packages as Record<string, LockEntry> | undefined;
    if (entries) return { source: file, packages: fromLockEntries(entries) };
  }
  const installed = new Map<string, LockedPackage>();
  readNodeModules(projectDir, '', installed);
  return installed.size > 0 ? { source: 'node_modules', packages: installed } : undefined;
}

interface LockEntry extends PackageJson {
  link?: boolean;
}

function fromLockEntries(entries: Record<string, LockEntry>): Map<string, LockedPackage> {
  const packages = new Map<string, LockedPackage>();
  for (const [location, entry] of Object.entries(entries)) {
    const name = entry.name ?? location.slice(location.lastIndexOf('node_modules/') + 'node_modules/'.length);
    if (!location.includes('node_modules/') || entry.link || !entry.version) continue;
    packages.set(location, lockedPackage(location, name, entry));
  }
  return packages;
}

function lockedPackage(location: string, name: string, json: PackageJson): LockedPackage {
  return {
    location,
    name,
    version: json.version ?? '0.0.0',
    requests: { ...json.peerDependencies, ...json.optionalDependencies, ...json.dependencies },
    peerDependencies: json.peerDependencies ?? {},
  };
}

/** Deeper nesting than npm writes is a link loop (pnpm's layout followed through its symlinks). */
const MAX_NESTING = 8;

/** Every package under `<dir>/<at>/node_modules`, nested ones included (scoped names, symlinked copies followed). */
function readNodeModules(dir: string, at: string, into: Map<string, LockedPackage>): void {
  if (at.split('/node_modules/').length > MAX_NESTING) return;
  const folder = path.join(dir, at, 'node_modules');
  for (const name of packageFolders(folder)) {
    const location = at ? `${at}/node_modules/${name}` : `node_modules/${name}`;
    const json = readJson<PackageJson>(path.join(folder, name, 'package.json'));
    if (!json?.version) continue;
    into.set(location, lockedPackage(location, json.name ?? name, json));
    readNodeModules(dir, location, into);
  }
}

function packageFolders(folder: string): string[] {
  const names: string[] = [];
  for (const entry of readDir(folder)) {
    if (entry.startsWith('.')) continue;
    if (entry.startsWith('@')) names.push(...readDir(path.join(folder, entry)).map((inner) => `${entry}/${inner}`));
    else names.push(entry);
  }
  return names;
}

function readDir(folder: string): string[] {
  try {
    return fs.readdirSync(folder);
  } catch {
    return [];
  }
}
