// npm run corpus -- DIR [--target 2025-11-25|2026-07-28|both] [--only ID,…] [--work SCRATCH] [--jobs N] [--out results.json] [--keep] [--unsafe]
//
// For every recipe in corpus/recipes/ whose repository is in DIR: a baseline of the unmigrated app, then, per target, a
// fresh copy migrated with `mcp-migrate apply`, installed, built, booted and probed. Prints one markdown table and
// writes every result as JSON. See corpus/README.md.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { canConnect, freePort, REPO_ROOT, startServerProcess } from '../test/helpers/server-process';
import { probeLegacy, probeMigrated } from './probe';
import { parseRecipe, withPort, type Recipe, type RecipeStart } from './recipe';
import {
  decideVerdict,
  renderTable,
  TARGETS,
  type ApplySummary,
  type BaselineResult,
  type BuildSteps,
  type Marker,
  type Probes,
  type RepoResult,
  type StepResult,
  type Target,
  type TargetResult,
} from './report';
import { runStep, stopEverything, track, truncateLog, withoutStdout } from './steps';

const RECIPES_DIR = path.join(REPO_ROOT, 'corpus', 'recipes');
// `--tool DIR` runs a snapshot of mcp-migrate (a copy with its dist/), so the repository can change during a long run.
const DEFAULT_CLI = path.join(REPO_ROOT, 'bin', 'mcp-migrate.js');
const TOOL_TIMEOUT_MS = 10 * 60_000;
const GIT_TIMEOUT_MS = 2 * 60_000;
const DEFAULT_BOOT_TIMEOUT_S = 30;

interface Options {
  dir: string;
  targets: Target[];
  only?: string[];
  work: string;
  jobs: number;
  out: string;
  keep: boolean;
  /** The mcp-migrate CLI to run (`--tool DIR`: a snapshot's bin/mcp-migrate.js). */
  cli: string;
  /** `apply --unsafe`: explicit session handles and binding 127.0.0.1 too. */
  unsafe: boolean;
  /** Where the recipes are (`--recipes DIR`; default corpus/recipes): one `<id>.json` per folder of DIR. */
  recipes: string;
}

const USAGE =
  'usage: npm run corpus -- DIR [--target 2025-11-25|2026-07-28|both] [--only ID,…] [--work SCRATCH] [--jobs N] [--out FILE] [--keep] [--tool DIR] [--unsafe] [--recipes DIR]';

function isInside(child: string, parent: string): boolean {
  const relative = path.relative(parent, child);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

function readOptions(argv: string[]): Options {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      target: { type: 'string', default: 'both' },
      only: { type: 'string' },
      work: { type: 'string' },
      jobs: { type: 'string', default: '1' },
      out: { type: 'string' },
      keep: { type: 'boolean', default: false },
      tool: { type: 'string' },
      unsafe: { type: 'boolean', default: false },
      recipes: { type: 'string' },
    },
  });
  if (positionals.length !== 1) throw new Error(USAGE);
  const dir = path.resolve(positionals[0]);
  if (!existsSync(dir)) throw new Error(`${dir} does not exist`);
  const target = values.target;
  if (target !== 'both' && !TARGETS.includes(target as Target)) throw new Error(`--target must be both, ${TARGETS.join(' or ')}`);
  const jobs = Number(values.jobs);
  if (!Number.isInteger(jobs) || jobs < 1) throw new Error('--jobs must be a positive integer');
  const work = values.work ? path.resolve(values.work) : mkdtempSync(path.join(os.tmpdir(), 'mcp-migrate-corpus-'));
  if (isInside(work, REPO_ROOT) || isInside(work, dir)) throw new Error(`--work ${work} must be outside ${REPO_ROOT} and ${dir}`);
  mkdirSync(work, { recursive: true });
  const recipes = values.recipes ? path.resolve(values.recipes) : RECIPES_DIR;
  if (!existsSync(recipes)) throw new Error(`--recipes ${recipes} does not exist`);
  return {
    dir,
    targets: target === 'both' ? [...TARGETS] : [target as Target],
    only: values.only?.split(',').map((id) => id.trim()),
    work,
    jobs,
    out: path.resolve(values.out ?? path.join(work, 'results.json')),
    keep: values.keep ?? false,
    cli: values.tool ? path.join(path.resolve(values.tool), 'bin', 'mcp-migrate.js') : DEFAULT_CLI,
    unsafe: values.unsafe ?? false,
    recipes,
  };
}

/** The recipes to run: --only's, or every recipe whose repository is in DIR. */
function loadRecipes(options: Options): Recipe[] {
  const ids = readdirSync(options.recipes)
    .filter((file) => file.endsWith('.json'))
    .map((file) => file.slice(0, -'.json'.length))
    .sort();
  const unknown = options.only?.filter((id) => !ids.includes(id)) ?? [];
  if (unknown.length > 0) throw new Error(`no recipe for ${unknown.join(', ')}`);
  const chosen = options.only ?? ids;
  const missing = chosen.filter((id) => !existsSync(path.join(options.dir, id)));
  if (options.only && missing.length > 0) throw new Error(`not in ${options.dir}: ${missing.join(', ')}`);
  if (missing.length > 0) process.stderr.write(`skipped (not in ${options.dir}): ${missing.join(', ')}\n`);
  return chosen
    .filter((id) => !missing.includes(id))
    .map((id) => parseRecipe(id, JSON.parse(readFileSync(path.join(options.recipes, `${id}.json`), 'utf8')) as unknown));
}

/** The runner's environment without what `npm run` adds (npm_* settings, this repository's node_modules/.bin). */
function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^npm_/i.test(key) && key !== 'INIT_CWD') env[key] = value;
  }
  env.PATH = (process.env.PATH ?? '')
    .split(path.delimiter)
    .filter((entry) => entry !== '' && !isInside(path.resolve(entry), REPO_ROOT))
    .join(path.delimiter);
  return env;
}

const shellQuote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

/** Copies the pinned tree (no node_modules, no .git) and commits it, as a user's repository would be. */
async function prepareCopy(source: string, dest: string): Promise<void> {
  await rm(dest, { recursive: true, force: true });
  await cp(source, dest, { recursive: true, filter: (src) => !['node_modules', '.git'].includes(path.basename(src)) });
  const git = await runStep(
    'git init -q && git add -A && git -c user.name=corpus -c user.email=corpus@local commit -q --no-verify -m pinned',
    {
      cwd: dest,
      env: cleanEnv(),
      timeoutMs: GIT_TIMEOUT_MS,
    },
  );
  if (git.status !== 'ok') throw new Error(`git commit of the copy failed: ${git.detail ?? ''}\n${git.log ?? ''}`);
}

const SKIPPED: StepResult = { status: 'skipped' };
const NOT_APPLICABLE: StepResult = { status: 'n/a' };

function shellStep(command: string | undefined, cwd: string, recipe: Recipe): Promise<StepResult> {
  if (!command) return Promise.resolve(NOT_APPLICABLE);
  return runStep(command, { cwd, env: cleanEnv(), timeoutMs: recipe.stepTimeout * 1000 }).then(withoutStdout);
}

/** install → build → typecheck in the app folder; a later step is skipped when install failed. */
async function buildApp(recipe: Recipe, copy: string): Promise<Omit<BuildSteps, 'boot'>> {
  const appDir = path.join(copy, recipe.app);
  const install = await shellStep(recipe.install, appDir, recipe);
  if (install.status !== 'ok')
    return { install, build: recipe.build ? SKIPPED : NOT_APPLICABLE, typecheck: recipe.typecheck ? SKIPPED : NOT_APPLICABLE };
  const build = await shellStep(recipe.build, appDir, recipe);
  const typecheck = await shellStep(recipe.typecheck, appDir, recipe);
  return { install, build, typecheck };
}

/** Boots the app (when it built), hands its base URL to `probe`, and always stops its whole process group. */
async function bootAndProbe<T>(
  recipe: Recipe,
  copy: string,
  built: boolean,
  probe: (base: string) => Promise<T>,
): Promise<{ boot: StepResult; probed?: T }> {
  const start = recipe.start;
  if (!recipe.runnable || !start) return { boot: NOT_APPLICABLE };
  if (!built) return { boot: SKIPPED };
  const port = start.port ?? (await freePort());
  let release: () => void;
  try {
    release = await claimPort(port, recipe.id);
  } catch (error) {
    return { boot: { status: 'failed', detail: (error as Error).message } };
  }
  try {
    return await bootClaimed(recipe, start, copy, port, probe);
  } finally {
    release();
  }
}

/** Fixed ports taken by a server of this run: a boot on the same port waits for the previous one to end. */
const claimedPorts = new Map<number, Promise<void>>();
const PORT_WAIT_MS = 3 * 60_000;

/** Waits until no server of this run uses the port and nothing else accepts connections on it; returns the release. */
async function claimPort(port: number, id: string): Promise<() => void> {
  while (claimedPorts.has(port)) await claimedPorts.get(port);
  let release!: () => void;
  claimedPorts.set(
    port,
    new Promise<void>((resolve) => {
      release = () => {
        claimedPorts.delete(port);
        resolve();
      };
    }),
  );
  const deadline = Date.now() + PORT_WAIT_MS;
  while (await canConnect(port)) {
    if (Date.now() > deadline) {
      release();
      throw new Error(`${id}: port ${port} is still taken by another process after ${PORT_WAIT_MS / 1000} s`);
    }
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  return release;
}

async function bootClaimed<T>(
  recipe: Recipe,
  start: RecipeStart,
  copy: string,
  port: number,
  probe: (base: string) => Promise<T>,
): Promise<{ boot: StepResult; probed?: T }> {
  const command = withPort(start.command, port);
  const env = { ...cleanEnv(), ...Object.fromEntries(Object.entries(start.env).map(([key, value]) => [key, withPort(value, port)])) };
  const started = Date.now();
  let server;
  try {
    server = await startServerProcess({
      label: `${recipe.id} (${command})`,
      command: 'bash',
      args: ['-c', command],
      cwd: path.join(copy, start.cwd ?? recipe.app),
      env,
      port,
      bootTimeoutMs: (start.bootTimeout ?? DEFAULT_BOOT_TIMEOUT_S) * 1000,
      processGroup: true,
    });
  } catch (error) {
    const message = (error as Error).message;
    return {
      boot: { status: 'failed', command, durationMs: Date.now() - started, detail: message.split('\n')[0], log: truncateLog(message) },
    };
  }
  const untrack = track(server.stop);
  const bootMs = Date.now() - started;
  try {
    const probed = await probe(server.url);
    return {
      boot: { status: 'ok', command, durationMs: bootMs, log: truncateLog(`stderr:\n${server.stderr()}\nstdout:\n${server.stdout()}`) },
      probed,
    };
  } finally {
    await server.stop();
    untrack();
  }
}

async function dropNodeModules(recipe: Recipe, copy: string, options: Options): Promise<void> {
  if (!options.keep) await rm(path.join(copy, recipe.app, 'node_modules'), { recursive: true, force: true });
}

async function runBaseline(recipe: Recipe, source: string, copy: string, options: Options): Promise<BaselineResult> {
  await prepareCopy(source, copy);
  const steps = await buildApp(recipe, copy);
  const legacy = recipe.legacy;
  const { boot, probed } = await bootAndProbe(recipe, copy, steps.install.status === 'ok' && steps.build.status !== 'failed', (base) =>
    legacy ? probeLegacy(base, legacy, recipe.headers, recipe.tools) : Promise.resolve(NOT_APPLICABLE),
  );
  await dropNodeModules(recipe, copy, options);
  return { ...steps, boot, probe: probed ?? (boot.status === 'n/a' ? NOT_APPLICABLE : SKIPPED) };
}

/** Markers left for a human: mcp-migrate's own, and the official codemod's (which `check` reports too). */
const MARKERS = ['/* mcp-migrate:', '/* @mcp-codemod-error'];
const SOURCE_FILE = /\.(?:[cm]?[jt]sx?|json)$/;

/** Every marker in the copy's source files (node_modules and .git aside). */
async function findMarkers(root: string): Promise<Marker[]> {
  const markers: Marker[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory() && entry.name !== 'node_modules' && entry.name !== '.git') await walk(full);
      else if (entry.isFile() && SOURCE_FILE.test(entry.name)) {
        const lines = (await readFile(full, 'utf8')).split('\n');
        lines.forEach((line, index) => {
          const at = Math.max(...MARKERS.map((marker) => line.indexOf(marker)));
          if (at >= 0) markers.push({ file: path.relative(root, full), line: index + 1, text: line.slice(at, at + 400).trim() });
        });
      }
    }
  };
  await walk(root);
  return markers;
}

interface JsonReport {
  changes?: Array<{ file: string }>;
  manual?: ApplySummary['manual'];
  problems?: unknown[];
  rolledBack?: unknown[];
  endpoints?: Array<{ path: string }>;
  summary?: { findingsByRule?: Record<string, number> };
}

function parseReport(stdout: string): JsonReport | undefined {
  try {
    return JSON.parse(stdout) as JsonReport;
  } catch {
    return undefined;
  }
}

async function runTool(options: Options, command: 'apply' | 'check', copy: string, recipe: Recipe, target: Target) {
  const scan = shellQuote(path.join(copy, recipe.scan));
  const args = command === 'apply' ? `--target ${target}${options.unsafe ? ' --unsafe' : ''} --format json` : '--format json';
  const result = await runStep(`${shellQuote(process.execPath)} ${shellQuote(options.cli)} ${command} ${scan} ${args}`, {
    cwd: copy,
    env: cleanEnv(),
    timeoutMs: TOOL_TIMEOUT_MS,
  });
  return { result, report: parseReport(result.stdout) };
}

async function applyTool(options: Options, copy: string, recipe: Recipe, target: Target): Promise<TargetResult['apply']> {
  const { result, report } = await runTool(options, 'apply', copy, recipe, target);
  const markers = await findMarkers(copy);
  const step = withoutStdout(result);
  if (!report) return { ...step, status: 'failed', detail: `${step.detail ?? 'exit 0'}; no JSON report`, summary: undefined };
  const summary: ApplySummary = {
    filesChanged: (report.changes ?? []).map((change) => change.file),
    markers,
    manual: report.manual ?? [],
    problems: report.problems ?? [],
    rollbacks: report.rolledBack ?? [],
    endpoints: (report.endpoints ?? []).map((endpoint) => endpoint.path.replace(/^['"`]|['"`]$/g, '')),
  };
  const problems =
    summary.problems.length > 0 ? `; ${summary.problems.length} problem(s): ${JSON.stringify(summary.problems).slice(0, 300)}` : '';
  return { ...step, detail: `${step.detail ?? 'exit 0'}${problems}`, log: undefined, summary };
}

async function checkTool(options: Options, copy: string, recipe: Recipe, target: Target): Promise<TargetResult['check']> {
  const { result, report } = await runTool(options, 'check', copy, recipe, target);
  return { ...withoutStdout(result), log: undefined, findingsByRule: report?.summary?.findingsByRule };
}

/** Every probe with one status: `skipped` when the app did not boot, `n/a` when it is not runnable. */
const allProbes = (step: StepResult): Probes => ({ v1: step, v2: step, methods405: step, noSessionId: step, foreignOrigin403: step });

async function runTarget(
  recipe: Recipe,
  source: string,
  copy: string,
  target: Target,
  baseline: BaselineResult,
  options: Options,
): Promise<TargetResult> {
  await prepareCopy(source, copy);
  // A user runs apply in a working tree that has its packages (the type-check gate needs them); the migrated manifest
  // is installed again below.
  await shellStep(recipe.install, path.join(copy, recipe.app), recipe);
  const apply = await applyTool(options, copy, recipe, target);
  const check = await checkTool(options, copy, recipe, target);
  const steps = await buildApp(recipe, copy);
  const built = steps.install.status === 'ok' && steps.build.status !== 'failed';
  const endpointPath = recipe.endpoint;
  const { boot, probed } = await bootAndProbe(recipe, copy, built, (base) =>
    probeMigrated(new URL(endpointPath, base), recipe.headers, recipe.tools, target === '2026-07-28'),
  );
  await dropNodeModules(recipe, copy, options);
  const probes: Probes = probed ?? allProbes(boot.status === 'n/a' ? NOT_APPLICABLE : SKIPPED);
  if (target !== '2026-07-28') probes.v2 = NOT_APPLICABLE;
  const result = { target, apply, check, ...steps, boot, probes };
  return { ...result, ...decideVerdict(recipe.runnable, baseline, result) };
}

function summarise(step: StepResult): string {
  const seconds = step.durationMs === undefined ? '' : ` ${Math.round(step.durationMs / 1000)}s`;
  return `${step.status}${seconds}${step.status === 'ok' || !step.detail ? '' : ` (${step.detail.slice(0, 160)})`}`;
}

function progress(id: string, phase: string, steps: Record<string, StepResult>): void {
  const parts = Object.entries(steps).map(([name, step]) => `${name} ${summarise(step)}`);
  process.stderr.write(`[${id}] ${phase}: ${parts.join(' · ')}\n`);
}

async function runRepo(recipe: Recipe, options: Options): Promise<RepoResult> {
  const source = path.join(options.dir, recipe.id);
  const root = path.join(options.work, recipe.id);
  process.stderr.write(`[${recipe.id}] copies under ${root}\n`);
  const baseline = await runBaseline(recipe, source, path.join(root, 'baseline'), options);
  progress(recipe.id, 'baseline', { ...baseline });
  const targets: RepoResult['targets'] = {};
  for (const target of options.targets) {
    const result = await runTarget(recipe, source, path.join(root, target), target, baseline, options);
    targets[target] = result;
    const { apply, check, install, build, typecheck, boot, probes } = result;
    progress(recipe.id, target, { apply, check, install, build, typecheck, boot, ...probes });
    process.stderr.write(`[${recipe.id}] ${target}: ${result.verdict} — ${result.reason}\n`);
  }
  return { id: recipe.id, runnable: recipe.runnable, framework: recipe.framework, family: recipe.family, baseline, targets };
}

/** Runs `work` over `items`, at most `jobs` at a time, keeping the order of the items in the results. */
async function pool<T, R>(items: T[], jobs: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(jobs, items.length) }, lane));
  return results;
}

function toolCommit(): string {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

async function main(): Promise<void> {
  const options = readOptions(process.argv.slice(2));
  const recipes = loadRecipes(options);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      process.stderr.write(`\n${signal}: stopping every process started…\n`);
      void stopEverything().finally(() => process.exit(130));
    });
  }
  const started = new Date();
  process.stderr.write(`${recipes.length} repositories, targets ${options.targets.join(', ')}, work ${options.work}\n`);
  const results = await pool(recipes, options.jobs, (recipe) =>
    runRepo(recipe, options).catch((error: unknown): RepoResult => {
      const message = error instanceof Error ? error.message : String(error);
      process.stderr.write(`[${recipe.id}] runner error: ${message}\n`);
      const baseline = { install: SKIPPED, build: SKIPPED, typecheck: SKIPPED, boot: SKIPPED, probe: SKIPPED };
      return {
        id: recipe.id,
        runnable: recipe.runnable,
        framework: recipe.framework,
        family: recipe.family,
        baseline,
        targets: {},
        error: message,
      };
    }),
  );
  const table = renderTable(results, options.targets, { unsafe: options.unsafe });
  const record = {
    startedAt: started.toISOString(),
    durationMs: Date.now() - started.getTime(),
    toolCommit: toolCommit(),
    node: process.version,
    dir: options.dir,
    work: options.work,
    targets: options.targets,
    unsafe: options.unsafe,
    table,
    results,
  };
  writeFileSync(options.out, `${JSON.stringify(record, null, 2)}\n`);
  process.stdout.write(`${table}\n`);
  process.stderr.write(`results: ${options.out}\n`);
}

main().catch(async (error: unknown) => {
  await stopEverything();
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(2);
});
