// Chunks of analysis plans, and the worker_threads pool `check` analyses them with once there are enough candidates.
// A plan (one import group) is never split: its files must be analysed together. Chunks hold the largest plans first;
// each worker asks for the next chunk when it is done with one, so a big group never holds up the others. Results
// come back in chunk order whatever finished first; the caller sorts them into the one report order. A chunk a worker
// runs out of heap on (WORKER_HEAP_MB) comes back empty, for the caller to analyse on its own thread.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { FileProblem } from '../model';
import type { FileAnalysis } from './analyze';
import type { PlannedSources } from './analyze-plans';

/**
 * About this many files go into one chunk: the unit a worker asks for. Each import group is analysed in its own
 * project whatever chunk it lands in (analyzeSources), so chunks only trade message overhead against balance.
 */
export const CHUNK_FILES = 16;

export interface ChunkRequest {
  plans: PlannedSources[];
  /** The rules to run; all when undefined. */
  ruleIds?: string[];
  /** For the files of `rest` read in the worker. */
  maxFileBytes: number;
}

export interface ChunkAnalysis {
  files: FileAnalysis[];
  dropped: FileProblem[];
}

export type ChunkResult = ChunkAnalysis | { error: string };

/** Chunks of plans of about {@link CHUNK_FILES} files each, largest plans first. */
export function chunkPlans(plans: readonly PlannedSources[]): PlannedSources[][] {
  const size = (plan: PlannedSources) => plan.files.length + plan.originProbes.length;
  const chunks: PlannedSources[][] = [];
  let current: PlannedSources[] = [];
  let files = 0;
  for (const plan of [...plans].sort((a, b) => size(b) - size(a))) {
    current.push(plan);
    files += size(plan);
    if (files >= CHUNK_FILES) {
      chunks.push(current);
      current = [];
      files = 0;
    }
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

const WORKER_SCRIPT = path.join(__dirname, 'analysis-worker.js');

/**
 * Each worker's heap limit. With V8's default limit (about 4 GB) a worker's heap grows in large steps and holds the
 * garbage of finished chunks: on the bench tree each of 2 workers reached 150 MB, more than half of it garbage. Under
 * a limit of 1 GB or less V8 grows the heap in smaller steps and collects sooner (100 MB each there). A chunk too big
 * for it is not lost: the worker dies on it and the caller analyses it with its own, default, heap.
 */
export const WORKER_HEAP_MB = 1024;

/**
 * Each worker's young generation (where new objects start; V8's default lets it reach 48 MB per thread). Parsing and
 * analysing churn through short-lived nodes and strings, and each of the threads kept its young generation near that
 * default: on the bench tree `check`'s peak RSS was 390–395 MB with 16 MB, 374–388 MB with 8 MB (and 378 MB with 4 MB),
 * 423–440 MB without a limit, for the same CPU time (11–13 s user at a load of 13–17).
 */
export const WORKER_YOUNG_MB = 8;

/**
 * Worker threads that analyse chunks. They start loading ts-morph as soon as they are created, so a pool made while
 * files are still being read is warm by the time the plans are known.
 */
export class AnalysisPool {
  private readonly workers: Worker[];

  /** The compiled worker script is there (not when the engine runs from its TypeScript sources). */
  static available(): boolean {
    return fs.existsSync(WORKER_SCRIPT);
  }

  constructor(size: number, heapMb = WORKER_HEAP_MB) {
    this.workers = Array.from(
      { length: size },
      () => new Worker(WORKER_SCRIPT, { resourceLimits: { maxOldGenerationSizeMb: heapMb, maxYoungGenerationSizeMb: WORKER_YOUNG_MB } }),
    );
  }

  /**
   * One result per chunk, in chunk order; undefined for a chunk no worker could analyse within its heap (the worker
   * that ran out is gone; the others go on). Rejects on the first other failure.
   */
  async analyze(
    chunks: readonly PlannedSources[][],
    ruleIds: string[] | undefined,
    maxFileBytes: number,
  ): Promise<Array<ChunkAnalysis | undefined>> {
    const results: Array<ChunkAnalysis | undefined> = new Array(chunks.length).fill(undefined);
    let next = 0;
    const drive = (worker: Worker) =>
      new Promise<void>((resolve, reject) => {
        let current = -1;
        const stop = () => worker.off('message', receive).off('error', failed).off('exit', exited);
        const send = () => {
          if (next >= chunks.length) {
            stop();
            resolve();
            return;
          }
          current = next++;
          worker.postMessage({ plans: chunks[current], ruleIds, maxFileBytes } satisfies ChunkRequest);
        };
        const receive = (result: ChunkResult) => {
          if ('error' in result) return reject(new Error(`analysis worker failed: ${result.error}`));
          results[current] = result;
          send();
        };
        const failed = (error: Error & { code?: string }) => {
          stop();
          if (error.code === 'ERR_WORKER_OUT_OF_MEMORY') resolve();
          else reject(error);
        };
        const exited = (code: number) => reject(new Error(`analysis worker exited with code ${code}`));
        worker.on('message', receive).on('error', failed).on('exit', exited);
        send();
      });
    try {
      await Promise.all(this.workers.map(drive));
    } finally {
      await this.close();
    }
    return results;
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.terminate()));
  }
}
