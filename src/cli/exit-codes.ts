// 0: clean. 1: deprecated constructs remain (check) or changes are pending (apply --dry-run). 2: the tool failed
// (bad usage, unreadable config, a file that could not be written). 2 always means "the tool broke", never "found".
import type { AnyResult } from '../model';
import { isApplyResult } from '../model';

export const EXIT_OK = 0;
export const EXIT_FINDINGS = 1;
export const EXIT_FAILURE = 2;

export interface GateOptions {
  maxWarnings?: number;
}

export function checkExitCode(result: AnyResult, gate: GateOptions = {}): number {
  const errors = result.findings.filter((f) => f.severity === 'error').length;
  const warnings = result.findings.filter((f) => f.severity === 'warning').length;
  if (errors > 0) return EXIT_FINDINGS;
  if (gate.maxWarnings !== undefined && gate.maxWarnings >= 0 && warnings > gate.maxWarnings) return EXIT_FINDINGS;
  return EXIT_OK;
}

export function applyExitCode(result: AnyResult): number {
  if (!isApplyResult(result)) return checkExitCode(result);
  const failed = result.problems.some(
    (p) => p.kind === 'invalid-output' || p.kind === 'write' || p.kind === 'transform' || p.kind === 'dirty',
  );
  if (failed) return EXIT_FAILURE;
  if (result.dryRun && result.changes.length > 0) return EXIT_FINDINGS;
  return EXIT_OK;
}
