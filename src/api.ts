// The programmatic API (`require('mcp-migrate')` / `import { check, apply } from 'mcp-migrate'`): the same runs as the
// CLI, returning the objects `--format json` prints (the JSON report contract in the README). Paths are relative to
// `cwd`. Both functions are synchronous; usage errors (a missing path, an unknown rule id) throw.
import { runApply, runCheck } from './pipeline';
import { toJsonReport, type JsonApplyReport, type JsonCheckReport } from './report/json';
import type { Target } from './engine/targets';

export type { JsonApplyReport, JsonCheckReport } from './report/json';
export type {
  Finding,
  FileProblem,
  Suppression,
  Summary,
  FileChange,
  ManualItem,
  ServedEndpoint,
  BaselineSummary,
  StaleBaselineEntry,
  Severity,
  FixKind,
} from './model';
export { UsageError } from './engine/errors';

const VERSION: string = require('../../package.json').version;

export interface CheckOptions {
  /** Files or directories (default `['.']`), relative to `cwd`. */
  paths?: string[];
  /** Default `process.cwd()`. */
  cwd?: string;
  /** Honour .gitignore (default true). */
  gitignore?: boolean;
  /** Only files matching these globs. */
  include?: string[];
  /** Skip files matching these globs. */
  exclude?: string[];
  /** Only these rule ids (default: all). */
  rules?: string[];
  skipRules?: string[];
  /** Skip files larger than this many bytes (default 1,000,000). */
  maxFileSize?: number;
  /** A baseline file (relative to `cwd`): its findings are left out. */
  baseline?: string;
}

export interface ApplyOptions extends Omit<CheckOptions, 'baseline'> {
  /** Write nothing; `changes[].diff` holds what would change (default false: files are written). */
  dryRun?: boolean;
  /** Also apply unsafe fixes. */
  unsafe?: boolean;
  /** Write even when a file to change has uncommitted git changes. */
  allowDirty?: boolean;
  /** Default '2026-07-28'. */
  target?: Target;
  legacy?: 'stateless' | 'reject';
  /** Endpoint path for servers that only had HTTP+SSE (default '/mcp'). */
  endpoint?: string;
}

function scanOptions(options: CheckOptions) {
  return {
    paths: options.paths ?? ['.'],
    cwd: options.cwd ?? process.cwd(),
    gitignore: options.gitignore,
    include: options.include,
    exclude: options.exclude,
    rules: options.rules,
    skipRules: options.skipRules,
    maxFileBytes: options.maxFileSize,
  };
}

/** Finds deprecated MCP transport constructs. The gate fails when `findings` has an error (or warnings over your limit). */
export async function check(options: CheckOptions = {}): Promise<JsonCheckReport> {
  return toJsonReport(await runCheck({ ...scanOptions(options), baseline: options.baseline }), { toolVersion: VERSION });
}

/** Migrates (or, with `dryRun`, shows what it would change). */
export function apply(options: ApplyOptions = {}): JsonApplyReport {
  const result = runApply({
    ...scanOptions(options),
    dryRun: options.dryRun,
    unsafe: options.unsafe,
    allowDirty: options.allowDirty,
    target: options.target,
    legacy: options.legacy,
    endpoint: options.endpoint,
  });
  return toJsonReport(result, { toolVersion: VERSION });
}
