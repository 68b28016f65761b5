// The compile cache (src/engine/compile-cache.ts): a process that loads ts-morph leaves V8's code for its large modules
// in the cache directory; the next one is handed that code and V8 accepts it (a rejected entry would be written again);
// the modules work either way; `MCP_MIGRATE_COMPILE_CACHE=0` writes nothing.
import * as fs from 'node:fs';
import Module from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, expect, it } from 'vitest';

const CACHE = path.join(__dirname, '..', 'dist', 'src', 'engine', 'compile-cache.js');
const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

/** Loads ts-morph (and TypeScript) in a new process with the cache installed, and parses a file with it. */
function loadTsMorph(env: Record<string, string | undefined>): string {
  const script = [
    `require(${JSON.stringify(CACHE)}).installCompileCache();`,
    "const { Project } = require('ts-morph');",
    "const file = new Project({ useInMemoryFileSystem: true }).createSourceFile('/a.ts', 'export const answer = 42;');",
    'process.stdout.write(file.getVariableDeclarationOrThrow("answer").getInitializerOrThrow().getText());',
  ].join('\n');
  const run = spawnSync(process.execPath, ['-e', script], {
    cwd: path.join(__dirname, '..'),
    env: { ...process.env, MCP_MIGRATE_COMPILE_CACHE: undefined, XDG_CACHE_HOME: undefined, ...env },
    encoding: 'utf8',
  });
  expect(run.stderr).toBe('');
  return run.stdout;
}

function entries(dir: string): Map<string, number> {
  if (!fs.existsSync(dir)) return new Map();
  return new Map(fs.readdirSync(dir).map((name) => [name, fs.statSync(path.join(dir, name)).mtimeMs]));
}

it('keeps the compiled code of the large modules between runs, and V8 takes it', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-migrate-compile-cache-'));
  dirs.push(dir);
  expect(loadTsMorph({ MCP_MIGRATE_COMPILE_CACHE: dir })).toBe('42');
  const first = entries(dir);
  if (typeof (Module as unknown as { enableCompileCache?: unknown }).enableCompileCache === 'function') {
    // (Node's own cache, with a layout of its own)
    expect(fs.readdirSync(dir, { recursive: true }).length).toBeGreaterThan(0);
    return;
  }
  // typescript.js, ts-morph-common.js and ts-morph.js: the modules of 256 K characters or more
  expect([...first.keys()].filter((name) => name.endsWith('.bin'))).toHaveLength(3);
  expect(loadTsMorph({ MCP_MIGRATE_COMPILE_CACHE: dir })).toBe('42');
  expect(entries(dir)).toEqual(first);
  // Data V8 rejects (here: not what it wrote) costs only the compile, and is written again.
  const [name] = first.keys();
  fs.writeFileSync(path.join(dir, name), 'not a code cache');
  expect(loadTsMorph({ MCP_MIGRATE_COMPILE_CACHE: dir })).toBe('42');
  expect(fs.statSync(path.join(dir, name)).size).toBeGreaterThan(1000);
});

it('lives in the user cache directory, and writes nothing when turned off', () => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-migrate-xdg-'));
  dirs.push(home);
  expect(loadTsMorph({ XDG_CACHE_HOME: home, MCP_MIGRATE_COMPILE_CACHE: '0' })).toBe('42');
  expect(fs.readdirSync(home)).toEqual([]);
  expect(loadTsMorph({ XDG_CACHE_HOME: home })).toBe('42');
  expect(fs.readdirSync(path.join(home, 'mcp-migrate', 'v8')).length).toBeGreaterThan(0);
});
