// Degrade, never break. The 2026-07-28 move (v2 packages, the official codemod, the v2 fix-ups) is kept only when the
// type-check gate finds nothing it broke and its manifests can install beside what the project has locked. When it
// broke something — an endpoint it had to roll back that the 2025-11-25 migration carries out, a file it had to
// restore, errors it leaves where nothing can be restored, or a locked package whose peer range a raised package
// leaves (npm install: ERESOLVE) — the project gets the 2025-11-25 stateless migration instead (v1 SDK, which the gate
// checked too), the report lists the errors of the v2 move (file:line, message, the line itself) and the lock
// conflicts, and a `v2-deferred` marker at the endpoint quotes the first of them and keeps it visible to `check` as a
// warning: nothing deprecated remains, but the project is not on 2026-07-28.
import * as path from 'node:path';
import { analyzeSources, type SourceInput } from './analyze';
import { allRules } from '../rules';
import { markerComment } from './markers';
import { migrateGated, type GatedMigration } from './gate';
import { describeLockConflict, lockConflicts } from './manifests';
import type { LockedPeerConflict } from './locked-peers';
import type { MigrateOptions } from './migrate';
import type { TypeError } from './typecheck';
import type { PackageJson } from './v2-dependencies';

export const V2_DEFERRED_RULE = 'v2-deferred';
export const FALLBACK_TARGET = '2025-11-25';

/** A locked package the v2 move's manifest would not install beside, and the manifest (relative to the root). */
export interface ManifestLockConflict extends LockedPeerConflict {
  manifest: string;
}

/** Why a project stayed on 2025-11-25: the errors the v2 move introduced, the lock conflicts its manifests meet. */
export interface V2Deferral {
  target: typeof FALLBACK_TARGET;
  errors: TypeError[];
  lockConflicts: ManifestLockConflict[];
}

export interface TargetedMigration extends GatedMigration {
  deferred?: V2Deferral;
}

const DEFERRED_PREFIX = 'on 2025-11-25 (stateless, v1 SDK) because';
// (only this engine's own: a framework transform may defer a project for its framework's reasons, and keeps its marker)
const DEFERRED_LINE = /^[ \t]*\/\*\s*mcp-migrate:\s*v2-deferred:\s*on 2025-11-25 \(stateless, v1 SDK\) because[^\n]*\*\/[ \t]*\n/gm;

export function migrateOrDefer(root: string, sources: SourceInput[], options: MigrateOptions): TargetedMigration {
  const v2 = migrateGated(root, sources, options);
  if (options.target !== '2026-07-28') return v2;
  const conflicts = manifestLockConflicts(root, v2, options.manifests);
  if (!brokeSomething(v2) && conflicts.length === 0) return withoutDeferredMarkers(v2, sources, options);
  const withoutAgents = conflicts.length > 0 ? servedWithoutAgents(root, sources, options, v2) : undefined;
  if (withoutAgents) return withoutDeferredMarkers(withoutAgents, sources, options);
  const v1 = migrateGated(root, sources, { ...options, target: FALLBACK_TARGET, rolledBack: undefined });
  // The 2025-11-25 result is the fallback only when it holds where the v2 move did not (a v2 move that cannot install
  // holds nowhere).
  if (v1.remaining.length > 0 || v1.restored.length > 0 || (conflicts.length === 0 && !movesMore(v1, v2))) return v2;
  const deferral: V2Deferral = { target: FALLBACK_TARGET, errors: v2.introduced, lockConflicts: conflicts };
  return { ...markDeferred(v1, v2, deferral, sources, options), deferred: deferral };
}

/**
 * The v2 move once more, with the McpAgent served by the SDK's createMcpHandler instead of agents' (which takes
 * agents to 0.32): when the lock conflicts came with that raise (jina-ai/MCP's agents 0.0 keeps `ai@4`, which wants
 * zod 3), `agents` may go from the manifest instead. Kept only when it installs and the gate finds nothing broken.
 */
function servedWithoutAgents(
  root: string,
  sources: SourceInput[],
  options: MigrateOptions,
  v2: GatedMigration,
): GatedMigration | undefined {
  if (options.agentsHandlerModule || !v2.migration.raised.has('agents')) return undefined;
  const retry = migrateGated(root, sources, { ...options, agentsHandlerModule: '@modelcontextprotocol/server' });
  if (brokeSomething(retry) || manifestLockConflicts(root, retry, options.manifests).length > 0) return undefined;
  return retry;
}

/** The lock conflicts of each manifest the v2 move changed, against the project's lock (or node_modules) beside it. */
function manifestLockConflicts(root: string, v2: GatedMigration, before: ReadonlyMap<string, string> = new Map()): ManifestLockConflict[] {
  return [...v2.migration.manifests]
    .filter(([rel, text]) => text !== before.get(rel))
    .flatMap(([rel, text]) => {
      const manifest = parseManifest(text);
      return manifest ? lockConflicts(manifest, path.join(root, path.dirname(rel))).map((c) => ({ ...c, manifest: rel })) : [];
    });
}

function parseManifest(text: string): PackageJson | undefined {
  try {
    return JSON.parse(text) as PackageJson;
  } catch {
    return undefined;
  }
}

/**
 * The marker's text: the first reason, quoted (a lock conflict, else the first type error, at its line in the v2
 * version of the file, which is not written). The report lists every one.
 */
function deferredMessage(deferral: V2Deferral): string {
  const conflict = deferral.lockConflicts[0];
  if (conflict)
    return `${DEFERRED_PREFIX} its package.json would not install: ${describeLockConflict(conflict)} (npm: ERESOLVE); update ${conflict.locked.name} or take it out of ${conflict.locked.source}, then run apply again`;
  const error = deferral.errors[0];
  const quote = error ? `: ${errorQuote(error, error.line)} in the v2 version of the file` : '';
  return `${DEFERRED_PREFIX} the move to 2026-07-28 did not type-check${quote}; \`mcp-migrate apply --dry-run\` lists every error: fix them, then run apply again`;
}

function errorQuote(error: TypeError, line: number): string {
  return `${error.relPath}:${line} ${oneLine(error.head)} (TS${error.code})`;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ');
}

/**
 * An existing marker still holds while it quotes a reason that remains (a type error by file, message and code: its
 * line in the v2 version moves when the 2025-11-25 result is migrated again), so a re-run changes nothing.
 */
function stillHolds(marker: string, deferral: V2Deferral): boolean {
  if (deferral.lockConflicts.some((c) => marker.includes(describeLockConflict(c)))) return true;
  return deferral.errors.some((e) =>
    new RegExp(`${escapeRegExp(e.relPath)}:\\d+ ${escapeRegExp(oneLine(e.head))} \\(TS${e.code}\\)`).test(marker),
  );
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function brokeSomething(gated: GatedMigration): boolean {
  return gated.rolledBack.length > 0 || gated.restored.length > 0 || gated.remaining.length > 0;
}

/** The 2025-11-25 migration leaves fewer endpoints behind, or the v2 one leaves errors or restored files. */
function movesMore(v1: GatedMigration, v2: GatedMigration): boolean {
  if (v2.remaining.length > 0 || v2.restored.length > 0) return true;
  const kept = new Set(v1.rolledBack.map((r) => r.endpoint));
  return v2.rolledBack.some((r) => !kept.has(r.endpoint));
}

/**
 * One `v2-deferred` marker in the project, above the first endpoint it serves; a re-run keeps it while what it quotes
 * still holds, and rewrites it in place when it does not.
 */
function markDeferred(
  v1: GatedMigration,
  v2: GatedMigration,
  deferral: V2Deferral,
  sources: SourceInput[],
  options: MigrateOptions,
): GatedMigration {
  const outputs = v1.migration.outputs;
  const message = deferredMessage(deferral);
  for (const [file, text] of outputs) {
    const existing = new RegExp(DEFERRED_LINE.source, 'm').exec(text);
    if (!existing) continue;
    if (stillHolds(existing[0], deferral)) return v1;
    const indentation = /^[ \t]*/.exec(existing[0])![0];
    outputs.set(file, text.replace(existing[0], `${indentation}${markerComment(V2_DEFERRED_RULE, message)}\n`));
    return reanalyzed(v1, sources, options);
  }
  // Nothing moved to 2025-11-25 either (its endpoints were rolled back, and say so): no claim to make.
  if (v1.migration.applied.size === 0 && v1.rolledBack.length > 0) return v1;
  const planned = v2.migration.plans[0]?.regions[0]?.fn.file;
  const at = servedAt(v1) ?? (planned ? { file: planned, line: 1 } : firstMarker(outputs));
  if (!at?.file || !outputs.has(at.file)) return v1;
  const lines = outputs.get(at.file)!.split('\n');
  const index = Math.min(at.line - 1, lines.length - 1);
  const indentation = /^[ \t]*/.exec(lines[index])![0];
  lines.splice(index, 0, `${indentation}${markerComment(V2_DEFERRED_RULE, message)}`);
  outputs.set(at.file, lines.join('\n'));
  return reanalyzed(v1, sources, options);
}

/** The first marker the 2025-11-25 migration left (a framework transform's: no endpoint plan to place it by). */
function firstMarker(outputs: Map<string, string>): { file: string; line: number } | undefined {
  for (const [file, text] of [...outputs].sort(([a], [b]) => a.localeCompare(b))) {
    const index = text.split('\n').findIndex((line) => /\/\*\s*mcp-migrate:\s*[a-z][\w-]*:/.test(line));
    if (index >= 0) return { file, line: index + 1 };
  }
  return undefined;
}

/** Where the migrated code's first endpoint is registered (its route, or its handler), in the migrated text. */
function servedAt(gated: GatedMigration): { file: string; line: number } | undefined {
  const region = gated.migration.analysis.endpoints().flatMap((plan) => plan.regions.filter((r) => r.endpoint))[0];
  if (!region) return undefined;
  const route = region.arrivals.find((a) => a.kind === 'route');
  return route?.kind === 'route' ? route.registration : region.fn;
}

/** A project the v2 move now works for loses the marker an earlier fallback left. */
function withoutDeferredMarkers(v2: GatedMigration, sources: SourceInput[], options: MigrateOptions): GatedMigration {
  let changed = false;
  for (const [file, text] of v2.migration.outputs) {
    const cleaned = text.replace(DEFERRED_LINE, '');
    if (cleaned === text) continue;
    v2.migration.outputs.set(file, cleaned);
    changed = true;
  }
  return changed ? reanalyzed(v2, sources, options) : v2;
}

/** The analysis of the final texts, after an edit made here (only the edited file's import group is analysed again). */
function reanalyzed(gated: GatedMigration, sources: SourceInput[], options: MigrateOptions): GatedMigration {
  gated.migration.analysis = analyzeSources(
    sources.map((source) => ({ ...source, text: gated.migration.outputs.get(source.relPath) ?? source.text })),
    options.rules ?? allRules,
    gated.migration.analysis,
  );
  return gated;
}
