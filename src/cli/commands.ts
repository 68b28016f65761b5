// What each command does once its arguments are parsed: run the pipeline, render one report, return the exit code.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AnyResult } from '../model';
import type { Target } from '../engine/targets';
import { UsageError } from '../engine/errors';
import { renderDiff, renderReport, gitRoot, linksFromEnv, type ReportFormat } from '../report';
import { defaultColor } from '../report/ansi';
import { ruleHelpText } from '../report/rule-help';
import { ruleCatalog } from '../rules/catalog';
import { applyExitCode, checkExitCode } from './exit-codes';
import { showProgress } from './progress';
import { tuneJitForCheck } from './jit';

const VERSION: string = require('../../../package.json').version;

interface CommonArgs {
  paths: string[];
  format: ReportFormat;
  output?: string;
  color?: boolean;
  gitignore: boolean;
  include: string[];
  exclude: string[];
  rule: string[];
  'skip-rule': string[];
  'max-file-size': number;
}

export interface CheckArgs extends CommonArgs {
  'max-warnings': number;
  baseline?: string;
  'baseline-write'?: string;
}

export interface ApplyArgs extends CommonArgs {
  'dry-run': boolean;
  unsafe: boolean;
  'allow-dirty': boolean;
  target: Target;
  legacy: 'stateless' | 'reject';
  endpoint: string;
}

function scanOptions(args: CommonArgs) {
  return {
    paths: args.paths,
    cwd: process.cwd(),
    gitignore: args.gitignore,
    include: args.include,
    exclude: args.exclude,
    rules: args.rule,
    skipRules: args['skip-rule'],
    maxFileBytes: args['max-file-size'],
  };
}

type Pipeline = typeof import('../pipeline');
const pipeline = (): Pipeline => require('../pipeline') as Pipeline;

export async function check(args: CheckArgs): Promise<number> {
  const result = await showProgress(() =>
    pipeline().runCheck({
      ...scanOptions(args),
      baseline: args.baseline,
      baselineWrite: args['baseline-write'],
      beforeAnalysis: tuneJitForCheck,
    }),
  );
  emit(result, args);
  return checkExitCode(result, { maxWarnings: args['max-warnings'] });
}

export function apply(args: ApplyArgs): number {
  const result = showProgress(() =>
    pipeline().runApply({
      ...scanOptions(args),
      dryRun: args['dry-run'],
      unsafe: args.unsafe,
      allowDirty: args['allow-dirty'],
      target: args.target,
      endpoint: args.endpoint,
      legacy: args.legacy,
    }),
  );
  const diff = result.dryRun && args.format === 'text' ? renderDiff(result.changes, colorFor(args)) : '';
  emit(result, args, diff);
  return applyExitCode(result);
}

export function rules(): void {
  for (const meta of ruleCatalog()) {
    process.stdout.write(`${meta.id.padEnd(30)} ${meta.severity.padEnd(8)} fix:${meta.fix.padEnd(7)} ${meta.title}\n`);
  }
}

export function explain(id: string): void {
  const catalog = ruleCatalog();
  const meta = catalog.find((m) => m.id === id);
  if (!meta) {
    const near = catalog.map((m) => m.id).filter((known) => editDistance(known, id) <= 3 || known.includes(id));
    const hint = near.length > 0 ? `did you mean ${near.join(' or ')}?` : 'see `mcp-migrate rules`';
    throw new UsageError(`unknown rule id: ${id} (${hint})`);
  }
  process.stdout.write(ruleHelpText(meta));
}

function colorFor(args: CommonArgs): boolean {
  return args.output ? false : (args.color ?? defaultColor());
}

/** The report to `--output` (its folder created) or stdout; `prefix` (the dry-run diff) always goes to stdout. */
function emit(result: AnyResult, args: CommonArgs, prefix = ''): void {
  const cwd = process.cwd();
  const report = renderReport(result, args.format, {
    color: colorFor(args),
    // The catalog, not the rules' code: by now the analysis is done (on worker threads for a large `check`), and
    // loading the rules here would load ts-morph on this thread just to print their titles.
    rules: ruleCatalog(),
    toolVersion: VERSION,
    repoRoot: process.env.CI_PROJECT_DIR ?? gitRoot(cwd) ?? cwd,
    links: linksFromEnv(process.env),
  });
  if (!args.output) {
    process.stdout.write(prefix + report);
    return;
  }
  const file = path.resolve(cwd, args.output);
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, report);
  } catch (error) {
    throw new UsageError(`cannot write ${args.output} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  if (prefix) process.stdout.write(prefix);
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length];
}
