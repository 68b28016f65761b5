// Degrade, never break. The 2026-07-28 move (v2 packages, the official codemod, the v2 fix-ups) is kept only when the
// type-check gate finds nothing it broke. When it broke something — an endpoint it had to roll back that the
// 2025-11-25 migration carries out, a file it had to restore, or errors it leaves where nothing can be restored — the
// project gets the 2025-11-25 stateless migration instead (v1 SDK, which the gate checked too), the report lists the
// errors of the v2 move (file:line, message, the line itself), and a `v2-deferred` marker at the endpoint keeps it
// visible to `check` as a warning: nothing deprecated remains, but the project is not on 2026-07-28.
import { analyzeSources, type SourceInput } from './analyze';
import { allRules } from '../rules';
import { markerComment } from './markers';
import { migrateGated, type GatedMigration } from './gate';
import type { MigrateOptions } from './migrate';
import type { TypeError } from './typecheck';

export const V2_DEFERRED_RULE = 'v2-deferred';
export const FALLBACK_TARGET = '2025-11-25';

/** Why a project stayed on 2025-11-25: the errors the v2 move introduced. */
export interface V2Deferral {
  target: typeof FALLBACK_TARGET;
  errors: TypeError[];
}

export interface TargetedMigration extends GatedMigration {
  deferred?: V2Deferral;
}

/** Stable on every run (a re-run must change nothing): the errors themselves go to the report. */
const DEFERRED_MESSAGE =
  'on 2025-11-25 (stateless, v1 SDK) because the move to 2026-07-28 did not type-check; `mcp-migrate apply --dry-run` lists the errors: fix them, then run apply again';
// (only this engine's own: a framework transform may defer a project for its framework's reasons, and keeps its marker)
const DEFERRED_LINE = /^[ \t]*\/\*\s*mcp-migrate:\s*v2-deferred:\s*on 2025-11-25 \(stateless, v1 SDK\) because[^\n]*\*\/[ \t]*\n/gm;

export function migrateOrDefer(root: string, sources: SourceInput[], options: MigrateOptions): TargetedMigration {
  const v2 = migrateGated(root, sources, options);
  if (options.target !== '2026-07-28') return v2;
  if (!brokeSomething(v2)) return withoutDeferredMarkers(v2, sources, options);
  const v1 = migrateGated(root, sources, { ...options, target: FALLBACK_TARGET, rolledBack: undefined });
  // The 2025-11-25 result is the fallback only when it holds where the v2 move did not.
  if (v1.remaining.length > 0 || v1.restored.length > 0 || !movesMore(v1, v2)) return v2;
  return { ...markDeferred(v1, v2, sources, options), deferred: { target: FALLBACK_TARGET, errors: v2.introduced } };
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

/** One `v2-deferred` marker in the project (a re-run finds it and adds none): above the first endpoint it serves. */
function markDeferred(v1: GatedMigration, v2: GatedMigration, sources: SourceInput[], options: MigrateOptions): GatedMigration {
  const outputs = v1.migration.outputs;
  if ([...outputs.values()].some((text) => new RegExp(DEFERRED_LINE.source, 'm').test(text))) return v1;
  // Nothing moved to 2025-11-25 either (its endpoints were rolled back, and say so): no claim to make.
  if (v1.migration.applied.size === 0 && v1.rolledBack.length > 0) return v1;
  const at = servedAt(v1) ?? { file: v2.migration.plans[0]?.regions[0]?.fn.file, line: 1 };
  if (!at.file || !outputs.has(at.file)) return v1;
  const lines = outputs.get(at.file)!.split('\n');
  const index = Math.min(at.line - 1, lines.length - 1);
  const indentation = /^[ \t]*/.exec(lines[index])![0];
  lines.splice(index, 0, `${indentation}${markerComment(V2_DEFERRED_RULE, DEFERRED_MESSAGE)}`);
  outputs.set(at.file, lines.join('\n'));
  return reanalyzed(v1, sources, options);
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

/** The analysis of the final texts, after an edit made here. */
function reanalyzed(gated: GatedMigration, sources: SourceInput[], options: MigrateOptions): GatedMigration {
  gated.migration.analysis = analyzeSources(
    sources.map((source) => ({ ...source, text: gated.migration.outputs.get(source.relPath) ?? source.text })),
    options.rules ?? allRules,
  );
  return gated;
}
