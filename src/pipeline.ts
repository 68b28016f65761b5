// check and apply as the CLI and the API run them: the engine, then the baseline (check), then every path made
// relative to the working directory. Both return the one result model; reporters and the API serialise it.
import * as path from 'node:path';
import type { ApplyResult, CheckResult } from './model';
import { check as checkFiles, type CheckOptions } from './engine/check';
import type { ApplyOptions } from './engine/apply';
import { applyBaseline, baselineOf, readBaseline, writeBaseline } from './engine/baseline';
import { relativeTo } from './report/paths';

export interface CheckRunOptions extends CheckOptions {
  /** Leave out the findings this baseline file records (relative to `cwd`). */
  baseline?: string;
  /** Record today's findings in this baseline file first (relative to `cwd`), then check against it. */
  baselineWrite?: string;
}

export async function runCheck(options: CheckRunOptions): Promise<CheckResult> {
  let result = await checkFiles(options);
  if (options.baselineWrite) {
    const file = path.resolve(options.cwd, options.baselineWrite);
    writeBaseline(baselineOf(result, file), file);
    result = applyBaseline(result, readBaseline(file), file);
  } else if (options.baseline) {
    const file = path.resolve(options.cwd, options.baseline);
    result = applyBaseline(result, readBaseline(file), file);
  }
  return relativeTo(result, options.cwd);
}

export function runApply(options: ApplyOptions): ApplyResult {
  // Loaded on demand: `check` never pays for jscodeshift and the transforms.
  const { apply } = require('./engine/apply') as typeof import('./engine/apply');
  return relativeTo(apply(options), options.cwd);
}
