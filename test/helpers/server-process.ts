// Copies, compiles and boots the fixture servers in fixtures/servers/<name>/ as real child processes.
//
// A fixture is copied under <repo>/.tmp/fixtures/ (gitignored) rather than the OS temp dir so that Node and tsc
// resolve @modelcontextprotocol/sdk, express and zod from the repo's own node_modules by walking up.

import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { cp, mkdir, readFile, rm, symlink } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';

export type FixtureFamily = 'A' | 'B' | 'C' | 'D' | 'E' | 'F' | 'none';
export type LegacyClientKind = 'sse' | 'streamable';

/** The shape of fixtures/servers/<name>/fixture.json. */
export interface FixtureManifest {
  /** Pattern family from PATTERNS.md; `none` for negative fixtures (nothing legacy to find). */
  family: FixtureFamily;
  /** One line: the shape this server exercises. */
  description: string;
  language: 'ts' | 'js';
  /** Source file to run, relative to the fixture dir (TS entries run from the compiled outDir). */
  entry: string;
  /** Which official client the unmigrated server answers: SSEClientTransport at ssePath, StreamableHTTPClientTransport at mcpPath, or none. */
  legacyClient: LegacyClientKind | 'none';
  /** Further client kinds the unmigrated server also serves (the backwards-compatible C family serves both). */
  extraClients?: LegacyClientKind[];
  ssePath?: string;
  mcpPath?: string;
  /** Extra request headers every client request needs (e.g. a bearer token). */
  headers?: Record<string, string>;
  /** A tool to list and call, and text its result must contain. */
  tool?: { name: string; arguments: Record<string, unknown>; expectText: string };
  /** Annotations `tools/list` must show after `apply`, by tool name. */
  annotations?: Record<string, Record<string, unknown>>;
  /** Rule ids the detector should report on the unmigrated code (a set; order is irrelevant). */
  expectedRules: string[];
  /** false where a rewrite is not possible or not meaningful; `notes` says why. */
  autoMigratable: boolean;
  /** `apply --unsafe` moves all of its session state behind explicit handles (the end-to-end suites run it so). */
  handles?: boolean;
  notes?: string;
  /** The server speaks MCP over stdio (no HTTP): the test drives it with StdioClientTransport. */
  stdio?: boolean;
  /** Text the server prints to stdout once the tool was called: what the handler does after serving still runs. */
  expectStdout?: string;
  /** A non-MCP smoke check for HTTP fixtures without an MCP endpoint: GET path, status, content type, body prefix. */
  probe?: { path: string; expectStatus: number; expectContentType?: string; expectBody?: string };
  /** What the migrated server serves beyond mcpPath (the end-to-end suites check it). */
  migrated?: MigratedExpectations;
  /**
   * Built on an MCP framework this repository does not install (fastmcp, mcp-framework): its runtime packages come
   * from its own package.json (`installFixture`), and the framework suite (e2e-frameworks) proves its migration.
   */
  installs?: boolean;
  /** A Cloudflare Worker (with `installs`): its own `wrangler dev` serves it on 127.0.0.1; wrangler bundles it, no tsc step. */
  worker?: boolean;
  /** The targets `apply` migrates it on (default: both); on the others it leaves an error marker that says why. */
  migratesOn?: Array<'2025-11-25' | '2026-07-28'>;
  /** Packages from fixtures/packages/ it imports: linked into the copy's node_modules (never scanned as its code). */
  packages?: string[];
}

export interface MigratedExpectations {
  /** Further MCP endpoints (a second endpoint in the same app): each gets the same client and wire checks as mcpPath. */
  endpoints?: string[];
  /** Old HTTP+SSE paths that must answer 410 with a message naming the new endpoint (`POST /admin/mcp`). */
  gone?: Array<{ method: 'GET' | 'POST'; path: string; names: string }>;
}

export interface PreparedFixture {
  dir: string;
  manifest: FixtureManifest;
}

export interface RunningFixture {
  /** Base URL, e.g. http://127.0.0.1:40123 (no trailing slash). */
  url: string;
  port: number;
  /** Everything the server wrote to stderr so far (its last 64 KiB). */
  stderr(): string;
  /** The same for stdout. */
  stdout(): string;
  stop(): Promise<void>;
}

const BOOT_TIMEOUT_MS = 15_000;
const STOP_TIMEOUT_MS = 5_000;
const OUTPUT_LIMIT = 64 * 1024;

function findRepoRoot(): string {
  const fromEnv = process.env.MCP_MIGRATE_ROOT;
  if (fromEnv) return path.resolve(fromEnv);
  const starts = [typeof __dirname === 'string' ? __dirname : undefined, process.cwd()];
  for (const start of starts) {
    let dir = start;
    while (dir) {
      const pkg = path.join(dir, 'package.json');
      if (existsSync(pkg) && existsSync(path.join(dir, 'fixtures', 'servers'))) {
        try {
          if ((JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'mcp-migrate') return dir;
        } catch {
          // unreadable package.json: keep walking up
        }
      }
      const parent = path.dirname(dir);
      if (parent === dir) break;
      dir = parent;
    }
  }
  throw new Error('Cannot locate the mcp-migrate repository root (set MCP_MIGRATE_ROOT)');
}

export const REPO_ROOT = findRepoRoot();
export const FIXTURES_DIR = path.join(REPO_ROOT, 'fixtures', 'servers');
export const FIXTURE_PACKAGES_DIR = path.join(REPO_ROOT, 'fixtures', 'packages');
export const DEFAULT_DEST_ROOT = path.join(REPO_ROOT, '.tmp', 'fixtures');

export async function readManifest(dir: string): Promise<FixtureManifest> {
  return JSON.parse(await readFile(path.join(dir, 'fixture.json'), 'utf8')) as FixtureManifest;
}

/** A fresh empty directory under <repo>/.tmp/<group>/ (inside the repo, so node resolves the repo's packages). */
export function scratchDir(group: string, name = 'case'): string {
  const dir = path.join(REPO_ROOT, '.tmp', group, `${name}-${randomBytes(4).toString('hex')}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** Names of the fixture servers whose manifest satisfies the predicate, sorted (synchronous: for test tables). */
export function fixtureNames(predicate: (manifest: FixtureManifest) => boolean): string[] {
  return readdirSync(FIXTURES_DIR)
    .filter((name) => existsSync(path.join(FIXTURES_DIR, name, 'fixture.json')))
    .filter((name) => predicate(JSON.parse(readFileSync(path.join(FIXTURES_DIR, name, 'fixture.json'), 'utf8')) as FixtureManifest))
    .sort();
}

/** Copies fixtures/servers/<name> into a fresh directory under <repo>/.tmp/fixtures (or opts.destRoot). */
export async function prepareFixture(name: string, opts: { destRoot?: string } = {}): Promise<PreparedFixture> {
  const source = path.join(FIXTURES_DIR, name);
  if (!existsSync(path.join(source, 'fixture.json'))) {
    throw new Error(`No fixture named ${name} (missing ${path.join(source, 'fixture.json')})`);
  }
  const destRoot = opts.destRoot ?? DEFAULT_DEST_ROOT;
  await mkdir(destRoot, { recursive: true });
  const dir = path.join(destRoot, `${name}-${randomBytes(4).toString('hex')}`);
  await cp(source, dir, {
    recursive: true,
    filter: (src) => {
      const base = path.basename(src);
      return base !== 'node_modules' && base !== 'dist';
    },
  });
  const manifest = await readManifest(dir);
  for (const name of manifest.packages ?? []) {
    await mkdir(path.join(dir, 'node_modules'), { recursive: true });
    await symlink(path.join(FIXTURE_PACKAGES_DIR, name), path.join(dir, 'node_modules', name), 'dir');
  }
  return { dir, manifest };
}

/** `npm install` of a fixture's own runtime dependencies (through the npm cache), for fixtures that `installs`. */
export async function installFixture(dir: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    execFile(
      'npm',
      ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', '--omit=dev', '--no-package-lock'],
      { cwd: dir, timeout: 300_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => (error ? reject(new Error(`npm install failed in ${dir}:\n${stdout}${stderr}`)) : resolve()),
    );
  });
}

/** Deletes a directory made by prepareFixture. */
export async function disposeFixture(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

/** For TS fixtures, runs the repo's tsc on <dir>/tsconfig.json; throws with tsc's output on failure. JS fixtures: no-op. */
export async function compileFixture(dir: string): Promise<void> {
  const manifest = await readManifest(dir);
  if (manifest.language !== 'ts' || manifest.worker) return;
  const tsc = path.join(REPO_ROOT, 'node_modules', '.bin', process.platform === 'win32' ? 'tsc.cmd' : 'tsc');
  await new Promise<void>((resolve, reject) => {
    execFile(tsc, ['-p', path.join(dir, 'tsconfig.json')], { cwd: dir, timeout: 60_000 }, (error, stdout, stderr) => {
      if (error) {
        reject(new Error(`tsc failed for ${dir} (exit ${String(error.code ?? error.signal)}):\n${stdout}${stderr}`));
      } else {
        resolve();
      }
    });
  });
}

/** The file `node` runs: the entry itself for JS, its compiled counterpart (tsconfig rootDir → outDir) for TS. */
export function compiledEntry(dir: string, manifest: FixtureManifest): string {
  if (manifest.language !== 'ts') return path.join(dir, manifest.entry);
  let rootDir = 'src';
  let outDir = 'dist';
  try {
    const tsconfig = JSON.parse(readFileSync(path.join(dir, 'tsconfig.json'), 'utf8')) as {
      compilerOptions?: { rootDir?: string; outDir?: string };
    };
    rootDir = tsconfig.compilerOptions?.rootDir ?? rootDir;
    outDir = tsconfig.compilerOptions?.outDir ?? outDir;
  } catch {
    // keep the conventional src → dist
  }
  const relative = path.relative(path.join(dir, rootDir), path.join(dir, manifest.entry));
  const js = relative
    .replace(/\.mts$/, '.mjs')
    .replace(/\.cts$/, '.cjs')
    .replace(/\.tsx?$/, '.js');
  return path.join(dir, outDir, js);
}

/** Asks the OS for a free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.unref();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => (port ? resolve(port) : reject(new Error('Could not read the probe port'))));
    });
  });
}

/** Whether something accepts TCP connections on 127.0.0.1:port. */
export function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    const done = (ok: boolean) => {
      socket.removeAllListeners();
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

function waitForExit(child: ChildProcess, timeoutMs: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.off('exit', onExit);
      resolve(false);
    }, timeoutMs);
    const onExit = () => {
      clearTimeout(timer);
      resolve(true);
    };
    child.once('exit', onExit);
  });
}

/** Whether any process of the group led by pid is still alive. */
function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitForGroupExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (groupAlive(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // the group is already gone
  }
}

/** Stops a child (and, with processGroup, every process in its group): SIGTERM, then SIGKILL after 5 s. */
export async function stopProcess(child: ChildProcess, processGroup: boolean): Promise<void> {
  if (processGroup && child.pid !== undefined) {
    signalGroup(child.pid, 'SIGTERM');
    if (!(await waitForGroupExit(child.pid, STOP_TIMEOUT_MS))) {
      signalGroup(child.pid, 'SIGKILL');
      await waitForGroupExit(child.pid, STOP_TIMEOUT_MS);
    }
    await waitForExit(child, STOP_TIMEOUT_MS);
    return;
  }
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  if (!(await waitForExit(child, STOP_TIMEOUT_MS))) {
    child.kill('SIGKILL');
    await waitForExit(child, STOP_TIMEOUT_MS);
  }
}

export interface ServerProcessOptions {
  /** What is started, for error messages. */
  label: string;
  command: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The port the server is expected to listen on (127.0.0.1 must accept connections on it). */
  port: number;
  bootTimeoutMs?: number;
  /** Start it in its own process group and stop the whole group, so that a shell command's children go too. */
  processGroup?: boolean;
}

/**
 * Starts a server process and resolves once 127.0.0.1:port accepts TCP connections.
 * Rejects (and stops it) if it exits first or is not listening in time; the error carries its output.
 */
export async function startServerProcess(options: ServerProcessOptions): Promise<RunningFixture> {
  const { label, port, processGroup = false } = options;
  const bootTimeoutMs = options.bootTimeoutMs ?? BOOT_TIMEOUT_MS;
  const child = spawn(options.command, options.args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: processGroup,
  });

  let stderr = '';
  let stdout = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-OUTPUT_LIMIT);
  });
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    stdout = (stdout + chunk).slice(-OUTPUT_LIMIT);
  });
  let spawnError: Error | undefined;
  child.once('error', (error) => {
    spawnError = error;
  });
  const stop = () => stopProcess(child, processGroup);

  const deadline = Date.now() + bootTimeoutMs;
  for (;;) {
    if (spawnError || child.exitCode !== null || child.signalCode !== null) {
      await waitForExit(child, 1_000);
      await stop();
      throw new Error(
        `${label} exited before listening (code ${String(child.exitCode)}, signal ${String(child.signalCode)}` +
          `${spawnError ? `, ${spawnError.message}` : ''}).\nstderr:\n${stderr}\nstdout:\n${stdout}`,
      );
    }
    if (await canConnect(port)) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`${label} did not listen on port ${port} within ${bootTimeoutMs / 1000} s.\nstderr:\n${stderr}\nstdout:\n${stdout}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }

  return { url: `http://127.0.0.1:${port}`, port, stderr: () => stderr, stdout: () => stdout, stop };
}

/** `node <script>` in `dir` with PORT set to a free port (and `env` on top of this process's), once it listens. */
export async function bootNodeScript(dir: string, script: string, env: NodeJS.ProcessEnv = {}): Promise<RunningFixture> {
  const port = await freePort();
  return startServerProcess({
    label: `node ${script} in ${dir}`,
    command: process.execPath,
    args: [script],
    cwd: dir,
    env: { ...process.env, ...env, PORT: String(port) },
    port,
  });
}

/**
 * Starts `node <compiled entry>` with PORT set to a free port and resolves once the port accepts TCP connections.
 * Rejects (and kills the child) if the server exits first or is not listening within 15 s; the error carries its stderr.
 */
export async function bootFixture(dir: string, manifest: FixtureManifest): Promise<RunningFixture> {
  if (manifest.worker) return bootWorker(dir);
  const entry = compiledEntry(dir, manifest);
  if (!existsSync(entry)) {
    throw new Error(`Entry ${entry} does not exist${manifest.language === 'ts' ? ' (did you call compileFixture?)' : ''}`);
  }
  const port = await freePort();
  return startServerProcess({
    label: `Fixture server ${entry}`,
    command: process.execPath,
    args: [entry],
    cwd: dir,
    env: { ...process.env, PORT: String(port), NODE_ENV: 'test' },
    port,
  });
}

/** `wrangler dev` (workerd, local mode) from the fixture's own install, on 127.0.0.1. */
async function bootWorker(dir: string): Promise<RunningFixture> {
  const port = await freePort();
  return startServerProcess({
    label: `wrangler dev in ${dir}`,
    command: path.join(dir, 'node_modules', '.bin', 'wrangler'),
    args: ['dev', '--ip', '127.0.0.1', '--port', String(port), '--inspector-port', '0', '--show-interactive-dev-session=false'],
    cwd: dir,
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CI: '1' },
    port,
    bootTimeoutMs: 90_000,
    processGroup: true,
  });
}
