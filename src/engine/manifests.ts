// The package.json files that own the scanned code, and the `v2-peer-ranges` check on them: a manifest that depends
// on v2 SDK packages must name ranges those packages accept (read from the packages, see v2-dependencies.ts), or the
// project installs and then fails to compile or to list its tools.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Finding } from '../model';
import { conflicts, declared as declaredRange, type Conflict, type PackageJson } from './v2-dependencies';
import { lockedPeerConflicts, type LockedPeerConflict } from './locked-peers';
import { V2_VERSIONS } from './sdk-v2-surface';

export const PEER_RANGES_RULE = 'v2-peer-ranges';

/**
 * The package.json that owns each source file (the nearest one up from it), by path relative to the scan root: a
 * monorepo's members each get their own manifest. Only manifests inside the scanned root are `inside`; one above it
 * belongs to a project we were not asked to change.
 */
export function ownerManifests(root: string, absPaths: string[]): { inside: Map<string, string>; outside: Set<string> } {
  const inside = new Map<string, string>();
  const outside = new Set<string>();
  const rootPrefix = root.endsWith(path.sep) ? root : root + path.sep;
  for (const file of absPaths) {
    for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
      const candidate = path.join(dir, 'package.json');
      if (fs.existsSync(candidate)) {
        if (candidate.startsWith(rootPrefix)) inside.set(path.relative(root, candidate).split(path.sep).join('/'), candidate);
        else outside.add(candidate);
        break;
      }
      if (path.dirname(dir) === dir) break;
    }
  }
  return { inside, outside };
}

/**
 * `v2-peer-ranges` findings for the manifests that own `absPaths`; `texts` (by path relative to the root) stands in for
 * a manifest's file when given (apply's migrated manifests, before or instead of writing them).
 */
export function manifestFindings(root: string, absPaths: string[], texts: ReadonlyMap<string, string> = new Map()): Finding[] {
  const findings: Finding[] = [];
  for (const [rel, absPath] of ownerManifests(root, absPaths).inside) {
    let text: string;
    let manifest: PackageJson;
    try {
      text = texts.get(rel) ?? fs.readFileSync(absPath, 'utf8');
      manifest = JSON.parse(text) as PackageJson;
    } catch {
      continue;
    }
    for (const conflict of conflicts(manifest, path.dirname(absPath))) findings.push(peerFinding(rel, text, conflict));
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
