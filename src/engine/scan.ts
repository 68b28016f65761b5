// `scan`: the stages of read-tree.ts, then the analysis of the selected files on this thread — what `apply` starts
// from. (`check` is in check.ts: it may use a worker pool.)
import type { FileProblem } from '../model';
import type { Rule } from '../rules/rule';
import { allRules } from '../rules';
import type { Analysis } from './analyze';
import { analyzePlans, type Guarded } from './analyze-plans';
import { plannedSources, readTree, scanProblems, type LoadedSource, type ScanOptions } from './read-tree';
import { UsageError } from './errors';

export { collectCheckResult, type LoadedSource, type ScanOptions } from './read-tree';

export interface Scan {
  root: string;
  filesScanned: number;
  filesSkipped: number;
  /** The files analysed: candidates and the files linked to them (see select.ts), in discovery order. */
  sources: LoadedSource[];
  analysis: Analysis;
  problems: FileProblem[];
  startedAt: number;
}

export function selectRules(only: string[] = [], skip: string[] = []): Rule[] {
  const known = new Set(allRules.map((r) => r.meta.id));
  for (const id of [...only, ...skip]) {
    if (!known.has(id)) throw new UsageError(`unknown rule id: ${id} (see \`mcp-migrate rules\`)`);
  }
  return allRules.filter((r) => (only.length === 0 || only.includes(r.meta.id)) && !skip.includes(r.meta.id));
}

export function scan(options: ScanOptions): Scan {
  const rules = selectRules(options.rules, options.skipRules);
  const read = readTree(options);
  const { plans, loaded } = plannedSources(read);
  const guarded: Guarded =
    plans.length > 0
      ? analyzePlans(plans, rules, read.maxFileBytes)
      : { sources: [], restRead: [], analysis: { files: [], shape: () => undefined, endpoints: () => [] }, dropped: [] };
  const analysed = new Set(guarded.sources.map((source) => source.relPath));
  const discoveryOrder = new Map(read.prefiltered.map((file, index) => [file.relPath, index]));
  return {
    root: read.root,
    filesScanned: read.filesScanned,
    filesSkipped: read.problems.length + guarded.dropped.length,
    sources: [...loaded, ...guarded.restRead]
      .filter((file) => analysed.has(file.relPath))
      .sort((a, b) => discoveryOrder.get(a.relPath)! - discoveryOrder.get(b.relPath)!),
    analysis: guarded.analysis,
    problems: scanProblems(read, guarded.dropped, guarded.analysis.files),
    startedAt: read.startedAt,
  };
}
