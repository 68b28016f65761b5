// `check`: the stages of read-tree.ts, then the analysis in chunks of a few import groups each — on this thread, or
// with POOL_MIN_CANDIDATES candidates or more in a worker pool started while the files are still being read — then
// the result. ts-morph and the rules are loaded only when there is something to analyse (or a --rule / --skip-rule
// to check), and not at all on this thread when workers analyse. A chunk's projects are dropped when it is done.
import * as os from 'node:os';
import type { CheckResult } from '../model';
import { collectCheckResult, plannedSources, readTree, scanProblems, type ScanOptions } from './read-tree';
import { AnalysisPool, chunkPlans, type ChunkAnalysis } from './analysis-pool';
import type { PlannedSources } from './analyze-plans';

/** Below this many candidates `check` analyses on its own thread: starting workers would cost more than they save. */
export const POOL_MIN_CANDIDATES = 50;

/**
 * Threads to analyse with when `jobs` is not given: one per core but one. A thread that analyses keeps about one and a
 * half cores busy, V8 compiling and collecting for it on background threads (a one-thread `check` of the 10k bench
 * tree: 4.6 s of CPU on the main thread, 3.2 s on V8's), and every worker loads ts-morph and warms up its JIT again
 * (2 workers cost about 2 s of CPU more than one thread). On 2 cores one thread was faster: 4.0 s against 4.8 s idle
 * (before find-references and handler resolution got cheaper), 8.8–11.2 s against 9.9–14.7 s at a load of 6–9.
 */
export function defaultJobs(): number {
  return Math.max(1, os.availableParallelism() - 1);
}

/** How much a `check` analyses on one thread: the files its plans analyse and probe, with their texts' sizes. */
export interface AnalysisWork {
  files: number;
  /** Characters, over all those files. */
  chars: number;
  /** Characters of the largest import group (its files and probes): analysed in one project. */
  largestGroupChars: number;
}

export interface CheckOptions extends ScanOptions {
  /**
   * Called once when this thread is about to analyse (ts-morph and the rules loaded), with what it will analyse; not
   * called when workers analyse or when nothing is to be analysed. The CLI tunes V8 here (cli/jit.ts); the findings
   * never depend on it.
   */
  beforeAnalysis?: (work: AnalysisWork) => void;
}

/** The report is the same, byte for byte, whatever the number of workers (`jobs`). */
export async function check(options: CheckOptions): Promise<CheckResult> {
  const filtered = (options.rules?.length ?? 0) + (options.skipRules?.length ?? 0) > 0;
  const ruleIds = filtered ? (await import('./scan.js')).selectRules(options.rules, options.skipRules).map((r) => r.meta.id) : undefined;
  const jobs = Math.max(1, Math.floor(options.jobs ?? defaultJobs()));
  let pool: AnalysisPool | undefined;
  const startPool = (candidates: number) => {
    if (!pool && candidates === POOL_MIN_CANDIDATES && jobs > 1 && AnalysisPool.available()) pool = new AnalysisPool(jobs);
  };
  let read;
  try {
    read = readTree(options, startPool);
  } catch (error) {
    await pool?.close();
    throw error;
  }
  const chunks = chunkPlans(plannedSources(read).plans);
  const settled = { ...options, maxFileBytes: read.maxFileBytes };
  const analysed = pool ? await analyzePooled(pool, chunks, ruleIds, settled) : await analyzeHere(chunks, settled, options.beforeAnalysis);
  const files = analysed.flatMap((chunk) => chunk.files).sort((a, b) => a.relPath.localeCompare(b.relPath));
  const dropped = analysed.flatMap((chunk) => chunk.dropped);
  return collectCheckResult({
    root: read.root,
    filesScanned: read.filesScanned,
    filesSkipped: read.problems.length + dropped.length,
    analysis: { files },
    problems: scanProblems(read, dropped, files),
    startedAt: read.startedAt,
  });
}

/** The scan options with the file size limit settled (files of `rest` are read during the analysis). */
type AnalysisOptions = CheckOptions & { maxFileBytes: number };

/** The pool's results, with the chunks a worker ran out of heap on analysed on this thread. */
async function analyzePooled(
  pool: AnalysisPool,
  chunks: readonly PlannedSources[][],
  ruleIds: string[] | undefined,
  options: AnalysisOptions,
): Promise<ChunkAnalysis[]> {
  const pooled = await pool.analyze(chunks, ruleIds, options.maxFileBytes);
  const here = await analyzeHere(
    chunks.filter((_, index) => !pooled[index]),
    options,
  );
  return pooled.map((result) => result ?? here.shift()!);
}

async function analyzeHere(
  chunks: readonly PlannedSources[][],
  options: AnalysisOptions,
  beforeAnalysis?: CheckOptions['beforeAnalysis'],
): Promise<ChunkAnalysis[]> {
  if (chunks.length === 0) return [];
  const { selectRules } = await import('./scan.js');
  const { analyzePlans } = await import('./analyze-plans.js');
  const rules = selectRules(options.rules, options.skipRules);
  beforeAnalysis?.(analysisWork(chunks.flat()));
  return chunks.map((chunk) => {
    const { analysis, dropped } = analyzePlans(chunk, rules, options.maxFileBytes);
    return { files: analysis.files, dropped };
  });
}

/** What these plans analyse (see {@link AnalysisWork}). */
export function analysisWork(plans: readonly PlannedSources[]): AnalysisWork {
  const work: AnalysisWork = { files: 0, chars: 0, largestGroupChars: 0 };
  for (const plan of plans) {
    const files = [...plan.files, ...plan.originProbes];
    const chars = files.reduce((sum, file) => sum + file.text.length, 0);
    work.files += files.length;
    work.chars += chars;
    work.largestGroupChars = Math.max(work.largestGroupChars, chars);
  }
  return work;
}
