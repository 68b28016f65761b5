// V8's optimising compiler (TurboFan) for a short `check`. TurboFan compiles hot functions on a background thread; in a
// run that analyses a few hundred files, most of that code is compiled too late to pay for itself. On the 10k bench
// tree (311 files analysed) a `check` without it used about a fifth less CPU (user+sys, and wall time at a load of
// 5-10), and its peak RSS was lower; a warm process, though, analyses those files about a quarter faster with it, so a
// run that analyses more than SHORT_CHECK_FILES keeps it (the two break even at about 900 files). Only the CLI does
// this: the flag holds for the whole process, which an API caller owns. Findings do not depend on it.
import * as v8 from 'node:v8';

/** A `check` that analyses at most this many files (the plans' files and Origin probes) runs without TurboFan. */
export const SHORT_CHECK_FILES = 500;

/** Whether a `check` analysing `files` files on its own thread turns TurboFan off. */
export function turbofanOffFor(files: number): boolean {
  return files <= SHORT_CHECK_FILES;
}

/**
 * Called by `check` on the thread that analyses, after the parser and the rules are loaded and before the analysis
 * starts. Not earlier: V8 checks its flags when it reads the compile cache (compile-cache.ts), and an entry made under
 * other flags is rejected and written again.
 */
export function tuneJitForCheck(files: number): void {
  if (turbofanOffFor(files)) v8.setFlagsFromString('--no-opt');
}
