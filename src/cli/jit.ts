// V8's optimising compiler (TurboFan) and `check`. TurboFan compiles hot functions on a background thread; in a `check`
// most of that code is compiled too late, or for paths taken too few times, to pay for itself: the analysis runs a
// great deal of different code (TypeScript's parser, binder and checker, ts-morph, the rules) over many small files.
// Without it, `check` used about a fifth to a third less CPU (user+sys; five or three interleaved runs each, load
// 5-11): the 10k bench tree (350 files, 0.5 M characters, 172 groups) 5.6 -> 4.5 s, fixtures/ (882 files, 816 groups)
// 14.8 -> 11.1 s, corpus repositories of 21-69 files 1.9 -> 1.4 s, 2.3 -> 1.5 s, 2.6 -> 1.9 s; its peak RSS was lower
// too. Where one import group is very large, though, the same functions run over and over on one tree, and TurboFan
// pays: gitlab-mcp (one group of 0.95 M characters, one file of 0.49 M) took 5.7 s with it and 6.3 s without. So a
// `check` keeps it when an import group is larger than LARGE_GROUP_CHARS, or when it analyses more than
// MANY_FILES files (no tree that large was measured). Only the CLI does this: the flag holds for the whole process,
// which an API caller owns. Findings do not depend on it (test/check-jit.test.ts).
import * as v8 from 'node:v8';
import type { AnalysisWork } from '../engine/check';

/** A `check` with an import group larger than this (characters of its files) keeps TurboFan. */
export const LARGE_GROUP_CHARS = 500_000;
/** A `check` that analyses more files than this keeps TurboFan. */
export const MANY_FILES = 1_000;

/** Whether a `check` that analyses `work` on its own thread turns TurboFan off. */
export function turbofanOffFor(work: AnalysisWork): boolean {
  return work.files <= MANY_FILES && work.largestGroupChars <= LARGE_GROUP_CHARS;
}

/**
 * Called by `check` on the thread that analyses, after the parser and the rules are loaded and before the analysis
 * starts. Not earlier: V8 checks its flags when it reads the compile cache (compile-cache.ts), and an entry made under
 * other flags is rejected and written again.
 */
export function tuneJitForCheck(work: AnalysisWork): void {
  if (turbofanOffFor(work)) v8.setFlagsFromString('--no-opt');
}
