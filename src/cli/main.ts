// The thin CLI: parse arguments, call the engine, render one report, set the exit code.
import * as fs from 'node:fs';
import * as path from 'node:path';
import yargs from 'yargs';
import type { Argv } from 'yargs';
import { check } from '../engine/check';
import { DEFAULT_TARGET, TARGETS, type Target } from '../engine/targets';
import { isUsageError } from '../engine/errors';
import { REPORT_FORMATS, renderDiff, renderReport, type ReportFormat } from '../report';
import { allRuleMetas } from '../rules';
import { applyExitCode, checkExitCode, EXIT_FAILURE } from './exit-codes';
import { CONFIG_FILE, loadConfig, type Config } from '../config/load';
import type { AnyResult } from '../model';

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

function commonOptions<T>(y: Argv<T>) {
  return y
    .positional('paths', { type: 'string', array: true, default: ['.'], describe: 'Files or directories to scan' })
    .option('format', { alias: 'f', choices: REPORT_FORMATS, default: 'text' as ReportFormat, describe: 'Report format' })
    .option('output', { alias: 'o', type: 'string', describe: 'Write the report to this file instead of stdout' })
    .option('color', { type: 'boolean', describe: 'Colour the text report (default: when stdout is a TTY)' })
    .option('gitignore', { type: 'boolean', default: true, describe: 'Honour .gitignore (--no-gitignore to scan ignored files)' })
    .option('include', { type: 'string', array: true, default: [] as string[], describe: 'Only files matching these globs' })
    .option('exclude', { type: 'string', array: true, default: [] as string[], describe: 'Skip files matching these globs' })
    .option('rule', { type: 'string', array: true, default: [] as string[], describe: 'Run only these rule ids' })
    .option('skip-rule', { type: 'string', array: true, default: [] as string[], describe: 'Do not run these rule ids' })
    .option('max-file-size', { type: 'number', default: 1_000_000, describe: 'Skip files larger than this many bytes' });
}

function emit(result: AnyResult, args: CommonArgs, prefix = ''): void {
  const color = args.output ? false : (args.color ?? process.stdout.isTTY === true);
  const report = renderReport(result, args.format, { color, rules: [...allRuleMetas], toolVersion: VERSION });
  if (args.output) {
    fs.writeFileSync(path.resolve(args.output), report);
    if (prefix) process.stdout.write(prefix);
  } else {
    process.stdout.write(prefix + report);
  }
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

export async function main(argv: string[]): Promise<number> {
  let exitCode = 0;
  let config: Config | undefined;
  try {
    config = loadConfig(argv, process.cwd());
  } catch (error) {
    process.stderr.write(`mcp-migrate: ${(error as Error).message}\n`);
    return EXIT_FAILURE;
  }
  const parser = yargs(argv)
    .scriptName('mcp-migrate')
    .version(VERSION)
    .option('config', { type: 'string', describe: `Configuration file (default: ./${CONFIG_FILE} when present)` })
    .config(config ?? {})
    .strict()
    .command(
      'check [paths..]',
      'Find deprecated MCP transport constructs; exit 1 while error findings remain (the CI gate)',
      (y) =>
        commonOptions(y).option('max-warnings', {
          type: 'number',
          default: -1,
          describe: 'Also fail when warnings exceed this count (-1: never)',
        }),
      async (args) => {
        const result = await check(scanOptions(args as unknown as CommonArgs));
        emit(result, args as unknown as CommonArgs);
        exitCode = checkExitCode(result, { maxWarnings: args['max-warnings'] as number });
      },
    )
    .command(
      'apply [paths..]',
      'Rewrite to stateless single-endpoint Streamable HTTP and print the migration report',
      (y) =>
        commonOptions(y)
          .option('dry-run', {
            alias: 'n',
            type: 'boolean',
            default: false,
            describe: 'Write nothing; print the unified diff; exit 1 when changes are pending',
          })
          .option('unsafe', { type: 'boolean', default: false, describe: 'Also apply unsafe fixes (e.g. binding 127.0.0.1)' })
          .option('allow-dirty', {
            type: 'boolean',
            default: false,
            describe: 'Write even when the files to change have uncommitted git changes',
          })
          .option('target', {
            choices: TARGETS,
            default: DEFAULT_TARGET,
            describe: 'Protocol revision to migrate to: 2026-07-28 (v2 SDK packages, createMcpHandler) or 2025-11-25 (stay on the v1 SDK)',
          })
          .option('legacy', {
            choices: ['stateless', 'reject'] as const,
            default: 'stateless' as const,
            describe: '2026-07-28 target: serve 2025-era clients statelessly, or reject them',
          })
          .option('endpoint', {
            type: 'string',
            default: '/mcp',
            describe: 'Endpoint path for servers that only had the legacy HTTP+SSE transport',
          }),
      (args) => {
        const common = args as unknown as CommonArgs;
        // Loaded on demand: `check` never pays for jscodeshift and the transforms.
        const { apply } = require('../engine/apply') as typeof import('../engine/apply');
        const result = apply({
          ...scanOptions(common),
          dryRun: args['dry-run'] as boolean,
          unsafe: args.unsafe as boolean,
          allowDirty: args['allow-dirty'] as boolean,
          target: args.target as Target,
          endpoint: args.endpoint as string,
          legacy: args.legacy as 'stateless' | 'reject',
        });
        const color = common.output ? false : (common.color ?? process.stdout.isTTY === true);
        const diff = result.dryRun && common.format === 'text' ? renderDiff(result.changes, color) : '';
        emit(result, common, diff);
        exitCode = applyExitCode(result);
      },
    )
    .command(
      'rules',
      'List the rules with their ids, severities and fix levels',
      (y) => y,
      () => {
        for (const meta of allRuleMetas) {
          process.stdout.write(`${meta.id.padEnd(30)} ${meta.severity.padEnd(8)} fix:${meta.fix.padEnd(7)} ${meta.title}\n`);
        }
      },
    )
    .demandCommand(1, 'Give a command: check, apply or rules')
    .fail((message, error) => {
      throw error ?? new UsageMessage(message);
    })
    .help();
  try {
    await parser.parseAsync();
  } catch (error) {
    if (error instanceof UsageMessage || isUsageError(error)) {
      process.stderr.write(`mcp-migrate: ${(error as Error).message}\n`);
      return EXIT_FAILURE;
    }
    process.stderr.write(`mcp-migrate: internal error: ${(error as Error).stack ?? String(error)}\n`);
    return EXIT_FAILURE;
  }
  return exitCode;
}

class UsageMessage extends Error {}
