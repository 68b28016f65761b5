// The package.json files that own the scanned code, and the `v2-peer-ranges` check on them: a manifest that depends
// on v2 SDK packages must name ranges those packages accept (read from the packages, see v2-dependencies.ts), or the
// project installs and then fails to compile or to list its tools.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Finding } from '../model';
import {
  conflicts,
  declared as declaredRange,
  undeclaredRequirements,
  undeclaredV2Packages,
  type Conflict,
  type PackageJson,
  type Requirement,
} from './v2-dependencies';
import { readJson, workspaceRootAbove } from './package-files';
import { lockedPeerConflicts, type LockedPeerConflict } from './locked-peers';
import { V2_VERSIONS } from './sdk-v2-surface';

export const PEER_RANGES_RULE = 'v2-peer-ranges';

/**
 * The package.json that owns each source file (the nearest one up from it), by path relative to the scan root: a
 * monorepo's members each get their own manifest. Only manifests inside the scanned root are `inside`; one above it
 * belongs to a project we were not asked to change.
 */
export function ownerManifests(
  root: string,
  absPaths: string[],
): { inside: Map<string, string>; outside: Set<string>; owned: Map<string, string[]> } {
  const inside = new Map<string, string>();
  const outside = new Set<string>();
  /** The files each inside manifest owns (by its path relative to the root). */
  const owned = new Map<string, string[]>();
  const rootPrefix = root.endsWith(path.sep) ? root : root + path.sep;
  for (const file of absPaths) {
    for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
      const candidate = path.join(dir, 'package.json');
      if (fs.existsSync(candidate)) {
        if (candidate.startsWith(rootPrefix)) {
          const rel = path.relative(root, candidate).split(path.sep).join('/');
          inside.set(rel, candidate);
          owned.set(rel, [...(owned.get(rel) ?? []), file]);
        } else outside.add(candidate);
        break;
      }
      if (path.dirname(dir) === dir) break;
    }
  }
  return { inside, outside, owned };
}

/**
 * `v2-peer-ranges` findings for the manifests that own `absPaths`; `texts` (by path relative to the root) stands in for
 * a manifest's file when given (apply's migrated manifests, before or instead of writing them). `packagesOf` gives the
 * packages a file imports: a v2 package, or what one requires (zod), that the code imports and no package.json from
 * its own up declares is reported too.
 */
export function manifestFindings(
  root: string,
  absPaths: string[],
  texts: ReadonlyMap<string, string> = new Map(),
  packagesOf: (absPath: string) => readonly string[] = () => [],
): Finding[] {
  const findings: Finding[] = [];
  const owners = ownerManifests(root, absPaths);
  for (const [rel, absPath] of owners.inside) {
    let text: string;
    let manifest: PackageJson;
    try {
      text = texts.get(rel) ?? fs.readFileSync(absPath, 'utf8');
      manifest = JSON.parse(text) as PackageJson;
    } catch {
      continue;
    }
    for (const conflict of conflicts(manifest, path.dirname(absPath))) findings.push(peerFinding(rel, text, conflict));
    const importers = (name: string) => (owners.owned.get(rel) ?? []).filter((file) => packagesOf(file).includes(name));
    const imports = (name: string) => importers(name).length > 0 && !declaredAbove(path.dirname(absPath), name);
    const importedBy = (name: string) => importers(name).map((file) => path.relative(root, file).split(path.sep).join('/'));
    for (const name of undeclaredV2Packages(manifest, imports)) findings.push(undeclaredFinding(rel, text, name, importedBy(name)));
    for (const requirement of undeclaredRequirements(manifest, path.dirname(absPath), imports))
      findings.push(undeclaredFinding(rel, text, requirement.name, importedBy(requirement.name), requirement));
    for (const conflict of lockConflicts(manifest, path.dirname(absPath))) findings.push(lockFinding(rel, text, manifest, conflict));
  }
  return findings;
}

/**
 * The packages a v2 manifest's project has locked (or installed) that will not install beside the ranges it declares
 * (see locked-peers.ts). A manifest that names no v2 package is not this tool's to judge.
 */
export function lockConflicts(manifest: PackageJson, projectDir: string): LockedPeerConflict[] {
  return Object.keys(V2_VERSIONS).some((name) => declaredRange(manifest, name)) ? lockedPeerConflicts(manifest, projectDir) : [];
}

/** `ai 4.3.19 (package-lock.json) wants zod ^3.23.8 as a peer; package.json names zod ^4.2.0`. */
export function describeLockConflict(conflict: LockedPeerConflict): string {
  const { locked, peer, peerRange, declared } = conflict;
  return `${locked.name} ${locked.version} (${locked.source}) wants ${peer} ${peerRange} as a peer; the v2 move needs ${peer} ${declared}`;
}

function lockFinding(file: string, text: string, manifest: PackageJson, conflict: LockedPeerConflict): Finding {
  const { locked, peer, peerRange, declared } = conflict;
  return {
    ruleId: PEER_RANGES_RULE,
    severity: 'error',
    message: `${peer} ${declared} cannot install beside the locked ${locked.name} ${locked.version} (${locked.source}), which wants ${peer} ${peerRange} as a peer: npm install stops with ERESOLVE.`,
    hint: `Move ${locked.name} to a version that accepts ${peer} ${declared} (or drop it), then install and run \`mcp-migrate apply\` again.`,
    fix: 'manual',
    data: { name: peer, declared, required: peerRange, by: `${locked.name}@${locked.version}` },
    file,
    ...entryPosition(text, { name: peer, section: declaredRange(manifest, peer)?.section ?? 'dependencies' }),
  };
}

/** The workspace root above the package declares `name`: its install hoists it where the package resolves it. */
function declaredAbove(projectDir: string, name: string): boolean {
  const root = workspaceRootAbove(projectDir);
  const manifest = root && readJson<PackageJson>(path.join(root, 'package.json'));
  return !!manifest && !!declaredRange(manifest, name);
}

function undeclaredFinding(file: string, text: string, name: string, importers: string[], requirement?: Requirement): Finding {
  const required = requirement ? `; ${requirement.by} requires ${name} ${requirement.range} (${requirement.kind})` : '';
  const range = requirement?.range ?? V2_VERSIONS[name];
  const section = /"dependencies"\s*:/.test(text) ? 'dependencies' : undefined;
  return {
    ruleId: PEER_RANGES_RULE,
    severity: 'error',
    message:
      `${importers.join(', ')} ${importers.length === 1 ? 'imports' : 'import'} ${name}, which this package.json does not declare: ` +
      `npm install does not bring it for this package, so the code gets another package's copy, if any (pnpm gives none)${required}.`,
    hint: `Add ${name} ${range} to dependencies, then install.`,
    fix: 'manual',
    data: { name, declared: null, required: range, by: requirement?.by ?? importers[0] },
    file,
    ...(section ? sectionPosition(text, section) : { line: 1, column: 1, endLine: 1, endColumn: 1 }),
  };
}

/** 1-based position of a section's key (`"dependencies"`). */
function sectionPosition(text: string, section: string): { line: number; column: number; endLine: number; endColumn: number } {
  const at = text.search(new RegExp(`"${section}"\\s*:`));
  const before = text.slice(0, at).split('\n');
  const column = before[before.length - 1].length + 1;
  return { line: before.length, column, endLine: before.length, endColumn: column + section.length + 2 };
}

function peerFinding(file: string, text: string, conflict: Conflict): Finding {
  const { name, declared, requirement } = conflict;
  const at = entryPosition(text, conflict);
  return {
    ruleId: PEER_RANGES_RULE,
    severity: 'error',
    message: `${name} ${declared} allows versions ${requirement.by} does not accept: it requires ${name} ${requirement.range} (${requirement.kind}).`,
    hint: `Raise ${name} to a range inside ${requirement.range} (\`mcp-migrate apply\` does), then install.`,
    fix: 'auto',
    data: { name, declared, required: requirement.range, by: requirement.by },
    file,
    ...at,
  };
}

/** 1-based position of `"name": "range"` in its section (line 1 when it cannot be found). */
function entryPosition(
  text: string,
  conflict: Pick<Conflict, 'name' | 'section'>,
): { line: number; column: number; endLine: number; endColumn: number } {
  const section = text.search(new RegExp(`"${conflict.section}"\\s*:`));
  const entry = text.indexOf(`"${conflict.name}"`, Math.max(section, 0));
  if (section < 0 || entry < 0) return { line: 1, column: 1, endLine: 1, endColumn: 1 };
  const before = text.slice(0, entry).split('\n');
  const line = before.length;
  const column = before[before.length - 1].length + 1;
  const length = /^"[^"]*"\s*:\s*"[^"]*"/.exec(text.slice(entry))?.[0].length ?? conflict.name.length + 2;
  return { line, column, endLine: line, endColumn: column + length };
}
