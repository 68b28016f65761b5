// Issue 6, interrupts: `apply` killed at several moments (SIGINT, SIGTERM, SIGKILL) leaves every file byte-identical to
// either its original or its fully migrated version, and a second `apply` finishes the job (every file migrated, no
// temp file left). The expected migrated text comes from `migrateSources` in-process. The writes are slowed down with
// the test-only seam MCP_MIGRATE_FAULT_WRITE_DELAY so that signals land inside the write phase, and one lands while a
// temp file exists (after it is complete, before the rename).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPECTED_TARGET, expectedMigration, type ExpectedFile } from '../src/testing/expected';
import { FIXTURES_DIR, REPO_ROOT } from './helpers/server-process';

const WORK = path.join(REPO_ROOT, '.tmp', 'interrupt');
const SERVERS = [
  'a-express-shared-server',
  'a-router-split',
  'b-express-stateful',
  'b-router-mounted',
  'c-auth-middleware',
  'b-plain-js-esm',
];
const COPIES = 3;
const WRITE_DELAY_MS = 250;
const TEMP = /\.mcp-migrate-\d+-[0-9a-z]+\.tmp$/;

// Origin validation is a project-wide fact (see the KNOWN BUG test in robustness.test.ts): once some servers of the root
// are migrated (they validate Origin), a second run would not add the Origin guard to the rest. This file validates
// Origin from the start, so a resumed run and a single run agree; what is under test here is atomicity.
const ORIGIN_CHECK = `import type { IncomingMessage } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
export const allowed = (req: IncomingMessage): boolean => req.headers.origin === undefined || req.headers.origin === 'http://localhost';
export type Server = McpServer;
`;

let template: string;
let expected: Map<string, ExpectedFile>;
const made: string[] = [];

beforeAll(() => {
  template = path.join(WORK, `template-${randomBytes(4).toString('hex')}`);
  made.push(template);
  for (const name of SERVERS) {
    for (let copy = 1; copy <= COPIES; copy++) {
      fs.cpSync(path.join(FIXTURES_DIR, name), path.join(template, `${name}-${copy}`), { recursive: true });
    }
  }
  fs.writeFileSync(path.join(template, 'origin-check.ts'), ORIGIN_CHECK);
  expected = expectedMigration({ paths: [template], cwd: template });
  const changing = [...expected.values()].filter((f) => f.migrated !== f.original);
  expect(changing.length).toBeGreaterThanOrEqual(15);
});

afterAll(() => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
});

function freshCopy(label: string): string {
  const dir = path.join(WORK, `${label}-${randomBytes(4).toString('hex')}`);
  fs.cpSync(template, dir, { recursive: true });
  made.push(dir);
  return dir;
}

type State = 'old' | 'new' | 'other';

function states(dir: string): Map<string, State> {
  const result = new Map<string, State>();
  for (const file of expected.values()) {
    const text = fs.readFileSync(path.join(dir, file.relPath), 'utf8');
    result.set(file.relPath, text === file.migrated ? 'new' : text === file.original ? 'old' : 'other');
  }
  return result;
}

function changedCount(dir: string): number {
  let count = 0;
  for (const file of expected.values()) {
    if (file.migrated !== file.original && fs.readFileSync(path.join(dir, file.relPath), 'utf8') === file.migrated) count += 1;
  }
  return count;
}

function tempFiles(dir: string): string[] {
  return fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((name) => TEMP.test(name));
}

/** `dir/.name.mcp-migrate-<pid>-<stamp>.tmp` → `dir/name`. */
function targetOf(temp: string): string {
  const dir = path.posix.dirname(temp.split(path.sep).join('/'));
  const base = path.posix.basename(temp).replace(/^\./, '').replace(TEMP, '');
  return dir === '.' ? base : `${dir}/${base}`;
}

function spawnApply(dir: string): ChildProcess {
  return spawn(process.execPath, ['bin/mcp-migrate.js', 'apply', dir, '--allow-dirty', '--target', EXPECTED_TARGET, '--format', 'json'], {
    cwd: REPO_ROOT,
    env: { ...process.env, MCP_MIGRATE_FAULT_WRITE_DELAY: String(WRITE_DELAY_MS) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
}

/** A plain `apply` in its own process: an in-process one would block the polling of the cases running beside it. */
async function applyInChild(dir: string): Promise<{ problems: unknown[]; changes: Array<{ file: string }> }> {
  const child = spawn(
    process.execPath,
    [path.join(REPO_ROOT, 'bin/mcp-migrate.js'), 'apply', '.', '--allow-dirty', '--target', EXPECTED_TARGET, '--format', 'json'],
    { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  await exited(child);
  expect(stderr).toBe('');
  return JSON.parse(stdout);
}

function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

/** Polls until `ready()` or the child exits; returns whether `ready()` was seen while it still ran. */
async function waitFor(child: ChildProcess, ready: () => boolean, timeoutMs = 90_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) return false;
    if (ready()) return true;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return false;
}

interface Moment {
  name: string;
  signal: NodeJS.Signals;
  /** Sends the signal at this moment; returns false if the moment never came (the run ended first). */
  when(dir: string, child: ChildProcess): Promise<boolean>;
  /** Some files must be new and some old (the signal really landed in the write phase). */
  midway: boolean;
}

const moments: Moment[] = [
  {
    name: 'SIGINT during the scan (nothing written yet)',
    signal: 'SIGINT',
    midway: false,
    when: async () => (await new Promise((r) => setTimeout(r, 300)), true),
  },
  {
    name: 'SIGTERM while the first temp file exists (after it is complete, before the rename)',
    signal: 'SIGTERM',
    midway: false,
    when: (dir, child) => waitFor(child, () => tempFiles(dir).length > 0),
  },
  {
    name: 'SIGINT after a third of the files are written',
    signal: 'SIGINT',
    midway: true,
    when: (dir, child) => waitFor(child, () => changedCount(dir) >= 6),
  },
  {
    name: 'SIGKILL after two thirds of the files are written',
    signal: 'SIGKILL',
    midway: true,
    when: (dir, child) => waitFor(child, () => changedCount(dir) >= 12),
  },
];

// Each case runs apply twice in a repository-like tree whose type-check gate loads real SDK and express types.
describe.concurrent('interrupting apply', { timeout: 240_000 }, () => {
  for (const moment of moments) {
    it(`${moment.name}: every file old or new, and a second apply finishes the job`, async () => {
      const dir = freshCopy(moment.signal.toLowerCase());
      const child = spawnApply(dir);
      let stderr = '';
      child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      const reached = await moment.when(dir, child);
      expect(reached, `the moment came before apply ended (stderr: ${stderr})`).toBe(true);
      const tempsAtSignal = tempFiles(dir);
      child.kill(moment.signal);
      const exit = await exited(child);
      expect(exit.signal, `killed by ${moment.signal} (exit ${exit.code}, stderr: ${stderr})`).toBe(moment.signal);

      const after = states(dir);
      const other = [...after].filter(([, state]) => state === 'other').map(([file]) => file);
      expect(other, 'files neither old nor new').toEqual([]);
      const changing = [...expected.values()].filter((f) => f.migrated !== f.original).map((f) => f.relPath);
      const written = changing.filter((file) => after.get(file) === 'new');
      if (moment.midway) {
        expect(written.length).toBeGreaterThan(0);
        expect(written.length).toBeLessThan(changing.length);
      }
      // A temp file can only be left behind by a kill inside its window, and then the file it was for is still old.
      const temps = tempFiles(dir);
      for (const temp of temps) expect(after.get(targetOf(temp)), `${temp} is for a file that is still old`).toBe('old');
      if (moment.signal === 'SIGTERM')
        expect(temps.length, `killed inside the temp-file window (temps at signal: ${tempsAtSignal.join(', ')})`).toBeGreaterThan(0);

      const second = await applyInChild(dir);
      expect(second.problems).toEqual([]);
      expect(second.changes.map((c) => c.file).sort()).toEqual(changing.filter((file) => after.get(file) === 'old').sort());
      expect(
        [...states(dir)].filter(([, state]) => state !== 'new').map(([file]) => file),
        'not migrated after the second run',
      ).toEqual([]);
      expect(tempFiles(dir), 'temp files of the killed run are removed').toEqual([]);
      const third = await applyInChild(dir);
      expect(third.changes).toEqual([]);
    });
  }
});
