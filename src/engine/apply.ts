// The apply pipeline: scan → run each transform on the files that have its findings (re-analysing between
// transforms so positions are current) → verify that every output parses → report what changed, what is left
// for a human, and which endpoint now serves MCP → write atomically (unless --dry-run).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createTwoFilesPatch } from 'diff';
import { Node, SyntaxKind } from 'ts-morph';
import type { ApplyResult, FileChange, FileProblem, Finding, ManualItem, ServedEndpoint } from '../model';
import { FileFacts } from '../analysis/file-facts';
import { routeContextsOf } from '../analysis/routes';
import { type Analysis } from './analyze';
import { scan, collectCheckResult, selectRules, type ScanOptions, type LoadedSource } from './scan';
import { writeSourceText } from './read-source';
import { dirtyFiles, writeFileAtomic } from './write';
import { DEFAULT_TARGET, type Target } from './targets';
import { rulesOf, type Migration } from './migrate';
import { MARKER_PATTERN } from './markers';
import { migrateOrDefer, V2_DEFERRED_RULE } from './v2-fallback';
import { zodCompanions } from './v2-fixups';
import { describeLockConflict, ownerManifests } from './manifests';
import { joinPath } from '../analysis/endpoints/model';

export { DEFAULT_TARGET, TARGETS, type Target } from './targets';
export { migrateSources, type MigrateOptions, type Migration } from './migrate';

/** The rules of the markers a migration added to a file (a file it only marked has no transform's rules). */
function markedRules(before: string, after: string): string[] {
  const rules = (text: string) => [...text.matchAll(MARKER_PATTERN)].map((m) => m[1]);
  const old = new Set(rules(before));
  return rules(after).filter((id) => !old.has(id));
}

export interface ApplyOptions extends ScanOptions {
  dryRun?: boolean;
  unsafe?: boolean;
  allowDirty?: boolean;
  target?: Target;
  /** Endpoint path for servers that had only the legacy HTTP+SSE transport. */
  endpoint?: string;
  legacy?: 'stateless' | 'reject';
}

export function apply(options: ApplyOptions): ApplyResult {
  const target = options.target ?? DEFAULT_TARGET;
  const scanned = scan(options);
  // Transforms work on LF text; the writer restores CRLF (files with mixed endings are left as they are).
  let normalized = false;
  const sources = scanned.sources.map((loaded) => {
    const crlf = loaded.source.eol === '\r\n' && !loaded.source.mixedEol;
    normalized ||= crlf;
    return { absPath: loaded.absPath, relPath: loaded.relPath, text: crlf ? loaded.text.replace(/\r\n/g, '\n') : loaded.text };
  });
  const rules = selectRules(options.rules, options.skipRules);
  const owners = ownerManifests(
    scanned.root,
    scanned.sources.map((s) => s.absPath),
  );
  // Files outside the MCP code that the v2 move's zod 3 → 4 fix-ups must reach (they are migrated and written too).
  const companions = target === '2026-07-28' ? zodCompanions(options, scanned, owners.inside) : [];
  scanned.sources.push(...companions);
  sources.push(...companions.map(({ absPath, relPath, text }) => ({ absPath, relPath, text })));
  const manifestPaths = owners.inside;
  const manifestTexts = new Map([...manifestPaths].map(([rel, abs]) => [rel, fs.readFileSync(abs, 'utf8')]));
  const gated = migrateOrDefer(scanned.root, sources, {
    rules,
    target,
    legacy: options.legacy,
    manifests: manifestTexts,
    unsafe: options.unsafe,
    endpoint: options.endpoint,
    initialAnalysis: normalized || companions.length > 0 ? undefined : scanned.analysis,
  });
  const migration = gated.migration;
  const problems: FileProblem[] = [...scanned.problems, ...migration.problems, ...gated.restored];
  const after = collectCheckResult({ ...scanned, analysis: migration.analysis, problems, manifests: migration.manifests });
  const changes: FileChange[] = [];
  for (const source of sources) {
    const relPath = source.relPath;
    const output = migration.outputs.get(relPath)!;
    if (output === source.text) continue;
    const found = migration.foundRules.get(relPath)!;
    changes.push({
      file: relPath,
      ruleIds: [
        ...new Set([
          ...rulesOf(migration.transformIds.get(relPath)!).filter((id) => found.has(id) || id === 'sdk-v2-surface'),
          ...markedRules(source.text, output),
        ]),
      ],
      diff: createTwoFilesPatch(`a/${relPath}`, `b/${relPath}`, source.text, output, '', '', { context: 3 }),
    });
  }
  const manifestChanges: FileChange[] = [];
  for (const [rel, before] of manifestTexts) {
    const after = migration.manifests.get(rel) ?? before;
    if (after === before) continue;
    manifestChanges.push({
      file: rel,
      // (2025-11-25: the SDK range the stateless transport needs)
      ruleIds: [migration.movedToV2 ? 'sdk-v2-surface' : 'per-request-transport'],
      diff: createTwoFilesPatch(`a/${rel}`, `b/${rel}`, before, after, '', '', { context: 3 }),
    });
  }
  changes.sort((a, b) => a.file.localeCompare(b.file));
  const loadedByRel = new Map(scanned.sources.map((l) => [l.relPath, l]));
  const targets = new Map<string, { absPath: string; text: string; source?: LoadedSource['source'] }>();
  for (const change of changes) {
    const loaded = loadedByRel.get(change.file)!;
    targets.set(change.file, { absPath: loaded.absPath, text: migration.outputs.get(change.file)!, source: loaded.source });
  }
  for (const change of manifestChanges)
    targets.set(change.file, { absPath: manifestPaths.get(change.file)!, text: migration.manifests.get(change.file)! });
  const allChanges = [...changes, ...manifestChanges];
  if (!options.dryRun) writeChanges(targets, allChanges, options, problems);
  return {
    ...after,
    problems,
    dryRun: options.dryRun ?? false,
    target,
    changes: allChanges,
    manual: [
      ...manualItems(after.findings),
      ...migration.surfaceNotes,
      ...(gated.deferred?.errors ?? []).map((error) => ({
        file: error.relPath,
        line: error.line,
        ruleId: V2_DEFERRED_RULE,
        message: `The v2 move needs a human (the project stays on ${gated.deferred!.target}): TS${error.code} ${error.message} — at \`${error.lineText}\` in the v2 version of this file.`,
      })),
      ...(gated.deferred?.lockConflicts ?? []).map((conflict) => ({
        file: conflict.manifest,
        line: 1,
        ruleId: V2_DEFERRED_RULE,
        message: `The v2 move needs a human (the project stays on ${gated.deferred!.target}): its package.json would not install, ${describeLockConflict(conflict)} (npm install: ERESOLVE). Update ${conflict.locked.name} or take it out of ${conflict.locked.source}, then run apply again.`,
      })),
      ...(migration.movedToV2
        ? manifestChanges.map((c) => ({
            file: c.file,
            line: 1,
            ruleId: 'sdk-v2-surface',
            message: "Dependencies changed to the v2 SDK packages: run your package manager's install.",
          }))
        : []),
      ...(migration.movedToV2 && changes.length > 0
        ? [...owners.outside].map((manifest) => ({
            file: manifest,
            line: 1,
            ruleId: 'sdk-v2-surface',
            message:
              'This package.json is outside the scanned root and was not edited: add the v2 packages the migrated code imports (@modelcontextprotocol/server, /node, /express) and drop @modelcontextprotocol/sdk once nothing imports it.',
          }))
        : []),
    ],
    endpoints: servedEndpoints(migration, options.endpoint),
    rolledBack: gated.rolledBack,
    typeUnchecked: gated.unchecked,
    ...(gated.deferred ? { deferred: gated.deferred } : {}),
  };
}

function writeChanges(
  targets: Map<string, { absPath: string; text: string; source?: LoadedSource['source'] }>,
  changes: FileChange[],
  options: ApplyOptions,
  problems: FileProblem[],
): void {
  const absPaths = changes.map((c) => targets.get(c.file)!.absPath);
  if (!options.allowDirty) {
    const dirty = new Set(dirtyFiles(path.dirname(absPaths[0] ?? '.'), absPaths));
    if (dirty.size > 0) {
      for (const change of changes) {
        if (dirty.has(targets.get(change.file)!.absPath))
          problems.push({
            file: change.file,
            kind: 'dirty',
            message: 'has uncommitted changes; commit or stash them, or pass --allow-dirty (nothing was written)',
          });
      }
      changes.length = 0;
      return;
    }
  }
  for (let i = changes.length - 1; i >= 0; i--) {
    const target = targets.get(changes[i].file)!;
    try {
      writeFileAtomic(target.absPath, target.source ? writeSourceText(target.text, target.source) : target.text);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      problems.push({
        file: changes[i].file,
        kind: 'write',
        message: `could not be written (${code ?? (error as Error).message}); left unchanged`,
      });
      changes.splice(i, 1);
    }
  }
}

function manualItems(findings: Finding[]): ManualItem[] {
  return findings
    .filter((f) => f.severity !== 'info')
    .map((f) => ({ file: f.file, line: f.line, ruleId: f.ruleId, message: f.hint ? `${f.message} ${f.hint}` : f.message }));
}

/** The endpoints the migration carried out: where each is handled, and its path. */
function servedEndpoints(migration: Migration, newEndpoint = '/mcp'): ServedEndpoint[] {
  const applied = new Set([...migration.applied.values()].flatMap((ids) => [...ids]));
  return migration.plans
    .filter((plan) => applied.has(plan.id))
    .map((plan) => {
      const region = plan.regions.find((r) => r.endpoint) ?? plan.regions.find((r) => r.role === 'sse-stream') ?? plan.regions[0];
      const route = region.arrivals.find((a) => a.kind === 'route');
      const at = route?.kind === 'route' ? route.registration : region.fn;
      const prefix = route?.kind === 'route' ? route.mountPrefix : undefined;
      return { file: at.file, line: at.line, path: plan.path.display || joinPath(prefix, newEndpoint) };
    });
}
