// The thin CLI: parse arguments (options from src/config/options.ts, defaults from the configuration file), then hand
// over to ./commands, loaded only when a command runs: `--version`, `--help`, `rules` and `explain` never load the
// engine (ts-morph, jscodeshift).
import yargs from 'yargs';
import type { Argv, Options } from 'yargs';
import { isUsageError, UsageError } from '../engine/errors';
import { configFor, loadConfig, CONFIG_FILE, PACKAGE_KEY, type LoadedConfig } from '../config/load';
import { specsFor, type Command, type OptionSpec } from '../config/options';
import { EXIT_FAILURE } from './exit-codes';
import type { ApplyArgs, CheckArgs } from './commands';

const VERSION: string = require('../../../package.json').version;

type Commands = typeof import('./commands');
const commands = (): Commands => require('./commands') as Commands;

export async function main(argv: string[]): Promise<number> {
  let exitCode = 0;
  let config: LoadedConfig | undefined;
  try {
    config = loadConfig(argv, process.cwd());
  } catch (error) {
    process.stderr.write(`mcp-migrate: ${(error as Error).message}\n`);
    return EXIT_FAILURE;
  }
  const parser = yargs(argv)
    .scriptName('mcp-migrate')
    .version(VERSION)
    .option('config', {
      type: 'string',
      requiresArg: true,
      describe: `Configuration file (default: the nearest ${CONFIG_FILE}, or package.json "${PACKAGE_KEY}", up to the git root)`,
    })
    .strict()
    .recommendCommands()
    .parserConfiguration({ 'populate--': true })
    .command(
      'check [paths..]',
      'Find deprecated MCP transport constructs; exit 1 while error findings remain (the CI gate)',
      (y) => withOptions(y, 'check', config).conflicts('baseline', 'baseline-write'),
      async (args) => {
        exitCode = await commands().check(withPaths(args) as unknown as CheckArgs);
      },
    )
    .command(
      'apply [paths..]',
      'Rewrite to stateless single-endpoint Streamable HTTP and print the migration report',
      (y) => withOptions(y, 'apply', config),
      (args) => {
        exitCode = commands().apply(withPaths(args) as unknown as ApplyArgs);
      },
    )
    .command(
      'rules',
      'List the rules with their ids, severities and fix levels',
      (y) => y,
      () => commands().rules(),
    )
    .command(
      'explain <rule-id>',
      "Print a rule's documentation, sources and a before/after example",
      (y) => y.positional('rule-id', { type: 'string', demandOption: true, describe: 'A rule id (see `mcp-migrate rules`)' }),
      (args) => commands().explain(args['rule-id'] as string),
    )
    .demandCommand(1, 'Give a command: check, apply, rules or explain')
    .fail((message, error) => {
      // yargs reports bad usage (and throws from `coerce`) as YError: a usage error like ours.
      if (error && error.name !== 'YError') throw error;
      throw new UsageMessage(error?.message ?? message);
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

function withOptions<T>(y: Argv<T>, command: Command, config: LoadedConfig | undefined): Argv<T> {
  let built = y.positional('paths', { type: 'string', array: true, describe: 'Files or directories to scan (default: .)' }) as Argv<T>;
  for (const spec of specsFor(command)) built = built.option(spec.name, yargsOption(spec)) as Argv<T>;
  return built.config(configFor(config?.values, command));
}

/** Paths given after `--` are paths too (`check --exclude x -- src`); none at all means the working directory. */
function withPaths(args: Record<string, unknown>): Record<string, unknown> {
  const paths = [...((args.paths as string[] | undefined) ?? []), ...((args['--'] as string[] | undefined) ?? [])].map(String);
  return { ...args, paths: paths.length > 0 ? paths : ['.'] };
}

/** Every value-taking flag takes exactly one value: `--exclude X path` leaves `path` a path. */
function yargsOption(spec: OptionSpec): Options {
  const base: Options = { describe: spec.describe, alias: spec.alias, default: spec.default, choices: spec.choices };
  switch (spec.kind) {
    case 'boolean':
      return { ...base, type: 'boolean' };
    case 'string':
      return { ...base, type: 'string', requiresArg: true, coerce: (v: unknown) => lastOf(v) };
    case 'string[]':
      return { ...base, type: 'string', requiresArg: true, coerce: (v: unknown) => (Array.isArray(v) ? v : [v]).map(String) };
    case 'integer':
      return { ...base, type: 'string', requiresArg: true, coerce: (v: unknown) => integer(spec, lastOf(v)) };
  }
}

function lastOf(value: unknown): unknown {
  return Array.isArray(value) ? value[value.length - 1] : value;
}

function integer(spec: OptionSpec, value: unknown): number {
  const n = typeof value === 'number' ? value : /^\s*-?\d+\s*$/.test(String(value)) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n)) throw new UsageError(`--${spec.name} must be a whole number, got ${JSON.stringify(value)}`);
  if (spec.minimum !== undefined && n < spec.minimum) throw new UsageError(`--${spec.name} must be at least ${spec.minimum}, got ${n}`);
  return n;
}
