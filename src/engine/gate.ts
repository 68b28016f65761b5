// Whole or nothing, and never break the build: migrate, then check that every endpoint's change set held — each file
// transformed and parsed, and the type-check of the changed files (in their own tsconfig projects) gained no error.
// An endpoint whose change failed or introduced an error is rolled back everywhere it changed code, with a marker that
// says why, and the migration runs again without it. What still fails and belongs to no endpoint is restored.
import type { FileProblem } from '../model';
import { analyzeSources, type SourceInput } from './analyze';
import { allRules } from '../rules';
import { touchedFiles } from '../analysis/file-facts';
import { migrateSources, type MigrateOptions, type Migration } from './migrate';
import { TypeCheckGate, type TypeError } from './typecheck';
import { installedEnvironment } from './v2-fixups';

export interface RolledBack {
  endpoint: string;
  reason: string;
}

export interface GatedMigration {
  migration: Migration;
  rolledBack: RolledBack[];
  /** Changed files that could only be re-parsed, and why (no tsconfig, JavaScript without checkJs, no packages). */
  unchecked: Array<{ file: string; reason: string }>;
  /** Files restored because they gained type errors no endpoint accounts for. */
  restored: FileProblem[];
  /** The errors the whole migration introduced (its first round, before any roll-back). */
  introduced: TypeError[];
  /** The errors the final texts still introduce (in files that could not be restored: unchanged files, whose packages changed). */
  remaining: TypeError[];
}

const MAX_ROUNDS = 4;

export function migrateGated(root: string, sources: SourceInput[], options: MigrateOptions): GatedMigration {
  const rolledBack: Record<string, string> = { ...options.rolledBack };
  const gate = new TypeCheckGate(root);
  let migration = migrateSources(sources, { ...options, root, rolledBack });
  let unchecked: GatedMigration['unchecked'] = [];
  let introduced: TypeError[] | undefined;
  for (let round = 1; ; round++) {
    const failures = failedEndpoints(migration);
    const changes = sources
      .filter((s) => migration.outputs.get(s.relPath) !== s.text)
      .map((s) => ({ absPath: s.absPath, relPath: s.relPath, before: s.text, after: migration.outputs.get(s.relPath)! }));
    const environment = installedEnvironment(options.manifests, migration);
    const check = changes.length > 0 ? gate.check(changes, environment) : { introduced: [], checked: 0, unchecked: [] };
    unchecked = check.unchecked;
    introduced ??= check.introduced;
    const blamed = { ...failures, ...blame(migration, sources, check.introduced, migration.raised) };
    const fresh = Object.entries(blamed).filter(([id]) => !rolledBack[id]);
    if (fresh.length === 0 || round >= MAX_ROUNDS) {
      const restored = restoreUnaccounted(migration, sources, check.introduced);
      if (restored.length > 0)
        migration.analysis = analyzeSources(
          sources.map((s) => ({ ...s, text: migration.outputs.get(s.relPath)! })),
          options.rules ?? allRules,
          migration.analysis,
        );
      const restoredFiles = new Set(restored.map((r) => r.file));
      return {
        migration,
        rolledBack: Object.entries(rolledBack).map(([endpoint, reason]) => ({ endpoint, reason })),
        unchecked,
        restored,
        introduced,
        remaining: check.introduced.filter((e) => !restoredFiles.has(e.relPath)),
      };
    }
    for (const [id, reason] of fresh) rolledBack[id] = reason;
    migration = migrateSources(sources, { ...options, root, rolledBack });
  }
}

/** Endpoints with a change in a file whose transform failed or whose output did not parse. */
function failedEndpoints(migration: Migration): Record<string, string> {
  const blamed: Record<string, string> = {};
  for (const problem of migration.problems) {
    if (problem.kind !== 'transform' && problem.kind !== 'invalid-output') continue;
    for (const plan of migration.plans) {
      if (touchedFiles(plan).has(problem.file)) blamed[plan.id] ??= `its change to ${problem.file} failed (${problem.message})`;
    }
  }
  return blamed;
}

/**
 * Each new type error blames the endpoints carried out in its file. In a file the migration did not change (a raised
 * package broke it, or a changed file it imports), it blames all of them.
 */
function blame(migration: Migration, sources: SourceInput[], errors: TypeError[], raised: ReadonlySet<string>): Record<string, string> {
  const blamed: Record<string, string> = {};
  const everywhere = new Set([...migration.applied.values()].flatMap((ids) => [...ids]));
  const changed = new Set(sources.filter((s) => migration.outputs.get(s.relPath) !== s.text).map((s) => s.relPath));
  for (const error of errors) {
    const untouched = !migration.applied.has(error.relPath) && !changed.has(error.relPath);
    const ids = migration.applied.get(error.relPath) ?? (untouched ? everywhere : new Set<string>());
    // (an unchanged file breaks because of what the migration raised, or of a changed file it imports)
    const cause = untouched && raised.size > 0 ? ` with ${[...raised].sort().join(', ')} raised` : '';
    for (const id of ids)
      blamed[id] ??= `the type-check would fail${cause}: ${error.relPath}:${error.line} ${error.message} (TS${error.code})`;
  }
  return blamed;
}

/**
 * After the last round, files that still gain errors go back to their original text, with every other file of the
 * endpoints carried out in them: nothing half-migrated is written.
 */
function restoreUnaccounted(migration: Migration, sources: SourceInput[], errors: TypeError[]): FileProblem[] {
  const failing = new Set(errors.map((e) => e.relPath));
  const restore = new Set(failing);
  for (const file of failing) {
    for (const id of migration.applied.get(file) ?? []) {
      const plan = migration.plans.find((p) => p.id === id);
      for (const other of plan ? touchedFiles(plan) : []) restore.add(other);
    }
  }
  const restored: FileProblem[] = [];
  for (const source of sources) {
    if (!restore.has(source.relPath) || migration.outputs.get(source.relPath) === source.text) continue;
    migration.outputs.set(source.relPath, source.text);
    const first = errors.find((e) => e.relPath === source.relPath) ?? errors[0];
    restored.push({
      file: source.relPath,
      kind: 'type-check',
      message: `the migrated code would not type-check (${first.relPath}:${first.line} ${first.message}, TS${first.code}); file left unchanged`,
    });
  }
  return restored;
}
