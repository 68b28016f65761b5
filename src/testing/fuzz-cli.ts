// `npm run fuzz -- --count N --seed S [--start I] [--jobs J] [--target T] [--json] [--show] [--fixtures a,b]`
//
// Runs N mutants of the fixture servers (see fuzz.ts) and prints the counts and every failure with what the mutant
// did. Exit 1 when a mutant crashed the migration or got a broken output written, or failed idempotence or left an
// auto-fixable transport finding; 0 otherwise. `--jobs J` splits the run over J processes (same results).
// `--show` prints each mutant's diff and the migration's outputs (use with --start I --count 1 to reproduce one).
import { fork } from 'node:child_process';
import * as path from 'node:path';
import { createTwoFilesPatch } from 'diff';
import { candidates, checkMutant, formatSummary, loadCorpus, mergeSummaries, mutant, runFuzz, type FuzzSummary } from './fuzz';
import { migrateSources, TARGETS, type Target } from '../engine/apply';

interface Args {
  count: number;
  seed: number;
  start: number;
  jobs: number;
  json: boolean;
  show: boolean;
  fixtures: string[];
  fixturesDir: string;
  target?: Target;
  shard?: { index: number; of: number };
}

function parseArgs(argv: string[]): Args {
  const args: Args = {
    count: 200,
    seed: 1,
    start: 0,
    jobs: 1,
    json: false,
    show: false,
    fixtures: [],
    fixturesDir: path.resolve(__dirname, '..', '..', '..', 'fixtures', 'servers'),
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = (): string => {
      const next = argv[++i];
      if (next === undefined) throw new Error(`${arg} needs a value`);
      return next;
    };
    const int = (): number => {
      const n = Number(value());
      if (!Number.isInteger(n) || n < 0) throw new Error(`${arg} needs a non-negative integer`);
      return n;
    };
    if (arg === '--count' || arg === '-n') args.count = int();
    else if (arg === '--seed' || arg === '-s') args.seed = int();
    else if (arg === '--start') args.start = int();
    else if (arg === '--jobs' || arg === '-j') args.jobs = Math.max(1, int());
    else if (arg === '--json') args.json = true;
    else if (arg === '--show') args.show = true;
    else if (arg === '--fixtures') args.fixtures = value().split(',').filter(Boolean);
    else if (arg === '--fixtures-dir') args.fixturesDir = path.resolve(value());
    else if (arg === '--target') {
      const target = value();
      if (!(TARGETS as readonly string[]).includes(target)) throw new Error(`--target must be one of ${TARGETS.join(', ')}`);
      args.target = target as Target;
    } else if (arg === '--shard') {
      const [index, of] = value().split('/').map(Number);
      args.shard = { index, of };
    } else if (arg === '--help' || arg === '-h') {
      process.stdout.write(
        'usage: npm run fuzz -- [--count N] [--seed S] [--start I] [--jobs J] [--target T] [--json] [--show] [--fixtures a,b]\n',
      );
      process.exit(0);
    } else throw new Error(`unknown argument: ${arg}`);
  }
  return args;
}

function show(args: Args): void {
  const corpus = loadCorpus(args.fixturesDir, args.fixtures);
  for (let index = args.start; index < args.start + args.count; index++) {
    const m = mutant(corpus, args.seed, index);
    const result = checkMutant(m, args.target);
    process.stdout.write(`=== mutant ${m.id}: ${m.server}/${m.file}\n${m.operations.map((op) => `  ${op}\n`).join('')}`);
    process.stdout.write(createTwoFilesPatch(`original/${m.file}`, `mutant/${m.file}`, m.original, m.text, '', '', { context: 2 }));
    const migration = migrateSources(candidates(m.sources), { endpoint: '/mcp', target: args.target });
    for (const source of m.sources) {
      const output = migration.outputs.get(source.relPath);
      if (output === undefined || output === source.text) continue;
      process.stdout.write(
        createTwoFilesPatch(`mutant/${source.relPath}`, `migrated/${source.relPath}`, source.text, output, '', '', { context: 2 }),
      );
    }
    process.stdout.write(`problems: ${JSON.stringify(result.problems)}\nfailures: ${JSON.stringify(result.failures, null, 2)}\n`);
  }
}

async function parallel(args: Args): Promise<FuzzSummary> {
  const script = __filename;
  const parts = await Promise.all(
    Array.from({ length: args.jobs }, (_, index) => {
      const child = fork(
        script,
        [
          '--count',
          String(args.count),
          '--seed',
          String(args.seed),
          '--start',
          String(args.start),
          '--json',
          '--shard',
          `${index}/${args.jobs}`,
          '--fixtures-dir',
          args.fixturesDir,
          ...(args.target ? ['--target', args.target] : []),
          ...(args.fixtures.length ? ['--fixtures', args.fixtures.join(',')] : []),
        ],
        { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] },
      );
      let out = '';
      child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
      return new Promise<FuzzSummary>((resolve, reject) => {
        child.once('error', reject);
        child.once('exit', (code, signal) => {
          try {
            resolve(JSON.parse(out) as FuzzSummary);
          } catch {
            reject(new Error(`fuzz shard ${index}/${args.jobs} failed (exit ${code ?? signal}): ${out.slice(0, 500)}`));
          }
        });
      });
    }),
  );
  return mergeSummaries(parts);
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  if (args.show) {
    show(args);
    return 0;
  }
  const started = performance.now();
  let summary: FuzzSummary;
  if (args.jobs > 1 && !args.shard) {
    summary = await parallel(args);
    summary.ms = Math.round(performance.now() - started);
  } else {
    summary = runFuzz(loadCorpus(args.fixturesDir, args.fixtures), {
      seed: args.seed,
      count: args.count,
      start: args.start,
      shard: args.shard,
      target: args.target,
    });
  }
  process.stdout.write(args.json ? `${JSON.stringify(summary)}\n` : formatSummary(summary));
  return summary.crashes + summary.brokenOutputs + summary.idempotenceFailures + summary.leftovers > 0 ? 1 : 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: Error) => {
    process.stderr.write(`fuzz: ${error.message}\n`);
    process.exitCode = 2;
  },
);
