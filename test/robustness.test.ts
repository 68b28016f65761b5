// Issue 6: bad input, write faults, a transform that throws, and the security of the result. Every case runs the real
// CLI (`node bin/mcp-migrate.js`, JSON report) on a workspace under .tmp/robustness/ that holds a known-good legacy
// server (a copy of fixtures/servers/c-auth-middleware in good/) next to the bad input, and asserts: the exact
// problem kind, the file named, the good server still migrated byte-for-byte as `migrateSources` says, the exit code.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ApplyResult, FileProblem } from '../src/model';
import { apply, migrateSources } from '../src/engine/apply';
import { NOTHING_TO_MIGRATE } from '../src/report';
import { EXPECTED_TARGET, expectedMigration } from '../src/testing/expected';
import { bootFixture, compileFixture, FIXTURES_DIR, REPO_ROOT, readManifest, type RunningFixture } from './helpers/server-process';

const WORK = path.join(REPO_ROOT, '.tmp', 'robustness');
const GOOD_FIXTURE = 'c-auth-middleware';
const GOOD_CHANGED = 'good/src/index.ts';
const TOO_DEEP = /^too deeply nested: (\d+ levels, over the limit of 256|the parser or a rule ran out of stack); skipped$/;
const MCP_IMPORT = "import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';\n";

interface CliRun {
  status: number | null;
  stdout: string;
  stderr: string;
  /** The JSON report, when the run printed one. */
  report?: ApplyResult;
}

/**
 * The real CLI, as CI and users run it (`node bin/mcp-migrate.js`). JSON report unless `args` says otherwise. It runs
 * from the scanned folder (`args[1]`, or the folder of a scanned file), so report paths are relative to that folder.
 */
function cli(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  const scanned = args[1];
  const cwd =
    path.isAbsolute(scanned) && fs.existsSync(scanned) ? (fs.statSync(scanned).isDirectory() ? scanned : path.dirname(scanned)) : REPO_ROOT;
  const json = !args.includes('--format');
  // apply is pinned to the target `expectedMigration` models, so the suite does not change meaning with the default.
  const target = args[0] === 'apply' && !args.includes('--target') ? ['--target', EXPECTED_TARGET] : [];
  const bin = path.join(REPO_ROOT, 'bin', 'mcp-migrate.js');
  const child = spawn(process.execPath, [bin, ...args, ...target, ...(json ? ['--format', 'json'] : []), '--no-color'], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (status) => {
      const run: CliRun = { status, stdout: Buffer.concat(stdout).toString('utf8'), stderr: Buffer.concat(stderr).toString('utf8') };
      if (json && run.stdout.trim().startsWith('{')) run.report = JSON.parse(run.stdout) as ApplyResult;
      resolve(run);
    });
  });
}

const made: string[] = [];
/** A fresh directory under .tmp/robustness with good/ = a copy of the c-auth-middleware fixture server. */
function workspace(label: string, withGood = true): string {
  const dir = path.join(WORK, `${label}-${randomBytes(4).toString('hex')}`);
  fs.mkdirSync(dir, { recursive: true });
  made.push(dir);
  if (withGood) fs.cpSync(path.join(FIXTURES_DIR, GOOD_FIXTURE), path.join(dir, 'good'), { recursive: true });
  return dir;
}

function put(dir: string, relPath: string, content: string | Buffer): string {
  const abs = path.join(dir, relPath);
  fs.mkdirSync(path.dirname(abs), { recursive: true });
  fs.writeFileSync(abs, content);
  return abs;
}

/** The good server's migrated index.ts, as `migrateSources` computes it (same relPaths as in every workspace). */
let goodMigrated: string;
let goodOriginal: string;
beforeAll(() => {
  const dir = workspace('baseline');
  const expected = expectedMigration({ paths: [dir], cwd: dir });
  goodOriginal = expected.get(GOOD_CHANGED)!.original;
  goodMigrated = expected.get(GOOD_CHANGED)!.migrated;
  expect(goodMigrated).not.toBe(goodOriginal);
});

afterAll(() => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
});

/** The other files of the run were handled: the good server is migrated exactly as expected. */
function expectGoodMigrated(dir: string, run: CliRun): void {
  expect(run.report?.changes.map((c) => c.file)).toContain(GOOD_CHANGED);
  expect(fs.readFileSync(path.join(dir, GOOD_CHANGED), 'utf8')).toBe(goodMigrated);
}

function problemsOf(run: CliRun): FileProblem[] {
  expect(run.report, `a JSON report (stderr: ${run.stderr})`).toBeDefined();
  return run.report!.problems;
}

function tempFilesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((name) => /\.mcp-migrate-\d+-[0-9a-z]+\.tmp$/.test(name));
}

/** Root ignores permission bits: probe whether chmod 000 really stops a read here. */
function chmodIsEffective(): boolean {
  if (process.platform === 'win32') return false;
  const probe = path.join(WORK, `probe-${randomBytes(4).toString('hex')}`);
  fs.mkdirSync(WORK, { recursive: true });
  fs.writeFileSync(probe, 'x');
  fs.chmodSync(probe, 0o000);
  try {
    fs.readFileSync(probe);
    return false;
  } catch {
    return true;
  } finally {
    fs.chmodSync(probe, 0o644);
    fs.rmSync(probe, { force: true });
  }
}

// --- bad input -------------------------------------------------------------------------------------------------------

interface BadCase {
  name: string;
  /** Creates the bad input in `dir`; returns the relPath reported. */
  make(dir: string): string;
  kind: FileProblem['kind'];
  message: RegExp;
  /** apply's exit code (2 when the tool itself could not handle a file it meant to change). */
  exit: number;
  /** The bad file must stay byte-for-byte as it was (default true; false when it does not exist as a file). */
  unchanged?: boolean;
}

const legacyServer = (): string => fs.readFileSync(path.join(FIXTURES_DIR, GOOD_FIXTURE, 'src', 'index.ts'), 'utf8');

const badCases: BadCase[] = [
  {
    name: 'a syntax error',
    make: (dir) => (put(dir, 'bad/syntax.ts', `${MCP_IMPORT}const server = new McpServer({ name: 'x', version: '1' };\n`), 'bad/syntax.ts'),
    kind: 'parse',
    message: /^does not parse: 2:\d+ /,
    exit: 0,
  },
  {
    name: 'a half-written file (cut in the middle of a line)',
    make: (dir) => {
      const text = legacyServer();
      put(dir, 'bad/half.ts', text.slice(0, Math.floor(text.length * 0.55)));
      return 'bad/half.ts';
    },
    kind: 'parse',
    message: /^does not parse: \d+:\d+ \S/,
    exit: 0,
  },
  {
    name: 'a dialect the parser rejects: JSX in a .ts file',
    make: (dir) => (put(dir, 'bad/view.ts', `${MCP_IMPORT}export const view = <div>{String(McpServer)}</div>;\n`), 'bad/view.ts'),
    kind: 'parse',
    message: /^does not parse: 2:\d+ /,
    exit: 0,
  },
  {
    name: 'a dialect the parser rejects: Flow in a .js file',
    make: (dir) => (put(dir, 'bad/flow.js', `// @flow\nopaque type Token = string;\n${MCP_IMPORT}`), 'bad/flow.js'),
    kind: 'parse',
    message: /^does not parse: 2:1 /,
    exit: 0,
  },
  {
    name: 'a binary file with a source extension',
    make: (dir) => (
      put(dir, 'bad/blob.ts', Buffer.concat([Buffer.from('McpServer'), Buffer.from([0, 1, 2, 255, 254]), randomBytes(2048)])),
      'bad/blob.ts'
    ),
    kind: 'binary',
    message: /^binary file \(NUL byte at offset 9\); skipped$/,
    exit: 0,
  },
  {
    name: 'a Latin-1 (non-UTF-8) file',
    make: (dir) => (put(dir, 'bad/latin1.ts', Buffer.from(`${MCP_IMPORT}const greeting = 'Grüße';\n`, 'latin1')), 'bad/latin1.ts'),
    kind: 'encoding',
    message: /^not valid UTF-8$/,
    exit: 0,
  },
  {
    name: 'a UTF-16 file (with its BOM)',
    make: (dir) => (
      put(dir, 'bad/utf16.ts', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(MCP_IMPORT, 'utf16le')])),
      'bad/utf16.ts'
    ),
    kind: 'binary',
    message: /^binary file \(NUL byte at offset \d+\); skipped$/,
    exit: 0,
  },
  {
    name: 'a file over the documented 1 MB limit',
    make: (dir) => (
      put(dir, 'bad/huge.ts', `${MCP_IMPORT}${'// padding padding padding padding padding padding padding padding\n'.repeat(16_000)}`),
      'bad/huge.ts'
    ),
    kind: 'too-large',
    message: /^file is 1(\.\d)? MB, over the 1 MB limit; skipped \(raise with --max-file-size\)$/,
    exit: 0,
  },
  {
    name: '300 nested blocks in a legacy server: over the documented depth limit (256), skipped with a notice',
    make: (dir) => (
      put(
        dir,
        'bad/deep.ts',
        `${legacyServer()}\nexport function deep(): void {\n${'{'.repeat(300)}console.log(1);${'}'.repeat(300)}\n}\n`,
      ),
      'bad/deep.ts'
    ),
    kind: 'parse',
    message: /^too deeply nested: 306 levels, over the limit of 256; skipped$/,
    exit: 0,
  },
  {
    name: '10,000 nested parentheses: the parser would overflow; reported, the run goes on',
    make: (dir) => (
      put(dir, 'bad/parens.ts', `${MCP_IMPORT}export const p = ${'('.repeat(10_000)}1${')'.repeat(10_000)};\n`),
      'bad/parens.ts'
    ),
    kind: 'parse',
    message: TOO_DEEP,
    exit: 0,
  },
  {
    name: 'a 20,000-operand expression (flat text, a 20,000-level tree): reported, the run goes on',
    make: (dir) => (put(dir, 'bad/chain.ts', `${MCP_IMPORT}export const s = 'a'${" + 'a'".repeat(20_000)};\n`), 'bad/chain.ts'),
    kind: 'parse',
    message: TOO_DEEP,
    exit: 0,
  },
  {
    name: 'a symlink loop',
    make: (dir) => {
      fs.mkdirSync(path.join(dir, 'bad'), { recursive: true });
      fs.symlinkSync('..', path.join(dir, 'bad', 'loop'));
      return 'bad/loop';
    },
    kind: 'symlink',
    message: /^symlink loop: bad\/loop -> .* \(an ancestor of the link\); not followed$/,
    exit: 0,
    unchanged: false,
  },
  {
    name: 'a symlink pointing outside the scanned root (not followed, the outside file untouched)',
    make: (dir) => {
      const outside = put(path.dirname(dir), `outside-${path.basename(dir)}/server.ts`, legacyServer());
      made.push(path.dirname(outside));
      fs.mkdirSync(path.join(dir, 'bad'), { recursive: true });
      fs.symlinkSync(outside, path.join(dir, 'bad', 'outside.ts'));
      return 'bad/outside.ts';
    },
    kind: 'symlink',
    message: /^symlink points outside the scanned root: bad\/outside\.ts -> .*server\.ts; not scanned$/,
    exit: 0,
  },
  {
    name: 'a dangling symlink',
    make: (dir) => {
      fs.mkdirSync(path.join(dir, 'bad'), { recursive: true });
      fs.symlinkSync('gone.ts', path.join(dir, 'bad', 'dangling.ts'));
      return 'bad/dangling.ts';
    },
    kind: 'symlink',
    message: /^dangling symlink: bad\/dangling\.ts -> gone\.ts$/,
    exit: 0,
    unchanged: false,
  },
];

function snapshotBytes(abs: string): Buffer | string {
  const stat = fs.lstatSync(abs);
  if (stat.isSymbolicLink())
    return `-> ${fs.readlinkSync(abs)} ${fs.existsSync(abs) && fs.statSync(abs).isFile() ? fs.readFileSync(abs).toString('base64') : ''}`;
  return fs.readFileSync(abs);
}

describe.concurrent('bad input: reported with its file and reason, the other files still handled', () => {
  for (const bad of badCases) {
    it(
      bad.name,
      async () => {
        const dir = workspace(bad.name.replace(/\W+/g, '-').slice(0, 40));
        const relPath = bad.make(dir);
        const before = snapshotBytes(path.join(dir, relPath));
        const run = await cli(['apply', dir, '--allow-dirty']);
        const problems = problemsOf(run);
        const problem = problems.find((p) => p.file === relPath);
        expect(problem, JSON.stringify(problems)).toBeDefined();
        expect(problem!.kind).toBe(bad.kind);
        expect(problem!.message).toMatch(bad.message);
        expect(
          problems.filter((p) => p.file !== relPath),
          'no other problem',
        ).toEqual([]);
        expectGoodMigrated(dir, run);
        if (bad.unchanged !== false) expect(snapshotBytes(path.join(dir, relPath))).toEqual(before);
        expect(run.report!.changes.map((c) => c.file)).not.toContain(relPath);
        expect(run.status).toBe(bad.exit);
        // (34 concurrent applies: on a loaded 2-core machine one can take over a minute; this is not a speed test)
      },
      180_000,
    );
  }

  it('the text report names every bad file with its kind and reason, one line each', async () => {
    const dir = workspace('text-report');
    const lines = badCases.map((bad) => ({ relPath: bad.make(dir), bad }));
    const run = await cli(['check', dir, '--format', 'text']);
    expect(run.status).toBe(1); // the good server still has error findings: check keeps working through the bad files
    for (const { relPath, bad } of lines) {
      if (bad.kind === 'transform') continue; // check runs no transform
      const line = run.stdout.split('\n').find((l) => l.startsWith(`  ${relPath}: ${bad.kind}: `));
      expect(line, `${relPath} in\n${run.stdout}`).toBeDefined();
    }
    expect(run.stdout).toMatch(/good\/src\/index\.ts\n.*legacy-sse-transport/s);
  });

  it('2,000 nested blocks and 2,000 nested parentheses in a legacy server: reported, never a crash', async () => {
    const dir = workspace('deep-2000');
    const blocks = `\nexport function deepBlocks(): void {\n${'{'.repeat(2000)}console.log(1);${'}'.repeat(2000)}\n}\n`;
    const parens = `\nexport const deepParens = ${'('.repeat(2000)}1${')'.repeat(2000)};\n`;
    put(dir, 'bad/deep-blocks.ts', legacyServer() + blocks);
    put(dir, 'bad/deep-parens.ts', legacyServer() + parens);
    const before = [fs.readFileSync(path.join(dir, 'bad/deep-blocks.ts')), fs.readFileSync(path.join(dir, 'bad/deep-parens.ts'))];
    const run = await cli(['apply', dir, '--allow-dirty']);
    expect(run.stderr).not.toMatch(/internal error/);
    const problems = problemsOf(run);
    expect(problems.map((p) => [p.file, p.kind])).toEqual([
      ['bad/deep-blocks.ts', 'parse'],
      ['bad/deep-parens.ts', 'parse'],
    ]);
    for (const problem of problems) expect(problem.message).toMatch(TOO_DEEP);
    expect(fs.readFileSync(path.join(dir, 'bad/deep-blocks.ts'))).toEqual(before[0]);
    expect(fs.readFileSync(path.join(dir, 'bad/deep-parens.ts'))).toEqual(before[1]);
    expectGoodMigrated(dir, run);
    expect(run.status).toBe(0);
  });

  it('nesting just under the limit (240 blocks, 240 arrays) in a legacy server is migrated normally', async () => {
    const dir = workspace('deep-240', false);
    fs.cpSync(path.join(FIXTURES_DIR, GOOD_FIXTURE), path.join(dir, 'blocks'), { recursive: true });
    fs.cpSync(path.join(FIXTURES_DIR, GOOD_FIXTURE), path.join(dir, 'arrays'), { recursive: true });
    fs.appendFileSync(
      path.join(dir, 'blocks/src/index.ts'),
      `\nexport function deep(): void {\n${'{'.repeat(240)}console.log(1);${'}'.repeat(240)}\n}\n`,
    );
    fs.appendFileSync(path.join(dir, 'arrays/src/index.ts'), `\nexport const deep = ${'['.repeat(240)}${']'.repeat(240)};\n`);
    const run = await cli(['apply', dir, '--allow-dirty']);
    expect(problemsOf(run)).toEqual([]);
    expect(run.report!.changes.map((c) => c.file)).toEqual(['arrays/src/index.ts', 'blocks/src/index.ts']);
    expect(run.status).toBe(0);
  });

  it('a transform that overflows the stack (called without the depth limit of scan) is a transform problem, not a crash', () => {
    const text = `${legacyServer()}\nexport const deep = ${'['.repeat(600)}${']'.repeat(600)};\n`;
    const migration = migrateSources([{ absPath: path.join(WORK, 'in-memory', 'src', 'index.ts'), relPath: 'src/index.ts', text }], {
      endpoint: '/mcp',
      target: EXPECTED_TARGET,
    });
    expect(migration.problems).toHaveLength(1);
    expect(migration.problems[0]).toMatchObject({ file: 'src/index.ts', kind: 'transform' });
    expect(migration.problems[0].message).toMatch(/Maximum call stack size exceeded; file left unchanged$/);
    expect(migration.outputs.get('src/index.ts')).toBe(text);
  });

  it('a file over the limit is scanned when --max-file-size allows it', async () => {
    const dir = workspace('huge-allowed', false);
    put(
      dir,
      'huge.ts',
      `${MCP_IMPORT}${'// padding padding padding padding padding padding padding padding\n'.repeat(16_000)}export const s = new McpServer({ name: 'x', version: '1' });\n`,
    );
    const run = await cli(['check', dir, '--max-file-size', '2000000']);
    expect(run.report!.problems).toEqual([]);
    expect(run.report!.summary.filesParsed).toBe(1);
    expect(run.status).toBe(0);
  });

  it('very long lines: a 300 kB line in a migrated file survives byte for byte', async () => {
    const dir = workspace('long-line');
    const long = `const BLOB = '${'x'.repeat(300_000)}';`;
    const file = path.join(dir, GOOD_CHANGED);
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('const DOCS = [', `${long}\nvoid BLOB;\nconst DOCS = [`));
    const run = await cli(['apply', dir, '--allow-dirty']);
    expect(problemsOf(run)).toEqual([]);
    expect(run.report!.changes.map((c) => c.file)).toEqual([GOOD_CHANGED]);
    const after = fs.readFileSync(file, 'utf8');
    expect(after.split('\n')).toContain(long);
    expect(after.replace(`${long}\nvoid BLOB;\n`, '')).toBe(goodMigrated);
    expect(run.status).toBe(0);
  });
});

describe.concurrent('encodings and layout are kept by apply', () => {
  it('a UTF-8 BOM is kept byte for byte (exactly one, at the start)', async () => {
    const dir = workspace('bom');
    const file = path.join(dir, GOOD_CHANGED);
    fs.writeFileSync(file, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), fs.readFileSync(file)]));
    const run = await cli(['apply', dir, '--allow-dirty']);
    expect(problemsOf(run)).toEqual([]);
    const after = fs.readFileSync(file);
    expect([...after.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(after.subarray(3).toString('utf8')).toBe(goodMigrated);
    expect(run.status).toBe(0);
  });

  it('CRLF line endings: a CRLF copy of a multi-file fixture server stays CRLF everywhere (BOM kept too)', async () => {
    const dir = workspace('crlf', false);
    fs.cpSync(path.join(FIXTURES_DIR, 'b-router-mounted'), dir, { recursive: true });
    const lfExpected = expectedMigration({ paths: [dir], cwd: dir });
    const sources = [...lfExpected.keys()];
    expect(sources.length).toBeGreaterThanOrEqual(3);
    for (const [index, relPath] of sources.entries()) {
      const crlf = fs.readFileSync(path.join(dir, relPath), 'utf8').replace(/\n/g, '\r\n');
      fs.writeFileSync(path.join(dir, relPath), index === 0 ? `\uFEFF${crlf}` : crlf);
    }
    const run = await cli(['apply', dir, '--allow-dirty']);
    expect(problemsOf(run)).toEqual([]);
    expect(run.report!.changes.length).toBeGreaterThanOrEqual(2);
    for (const [index, relPath] of sources.entries()) {
      const after = fs.readFileSync(path.join(dir, relPath), 'utf8');
      expect(after, `${relPath}: no bare LF`).not.toMatch(/(^|[^\r])\n/);
      expect(after.startsWith('\uFEFF'), `${relPath}: BOM`).toBe(index === 0);
      expect(after.replace(/^\uFEFF/, '')).toBe(lfExpected.get(relPath)!.migrated.replace(/\n/g, '\r\n'));
    }
    expect(run.status).toBe(0);
    const again = await cli(['apply', dir, '--allow-dirty']);
    expect(again.report!.changes).toEqual([]);
    expect(again.status).toBe(0);
  }, 180_000);

  // recast re-indents statements the migration does not touch (a tab in a space-indented file came out as 4 spaces);
  // print() now gives unchanged lines of the same width their original indentation back.
  it('mixed indentation (tabs and spaces) is kept on the lines the migration does not rewrite', async () => {
    const dir = workspace('mixed-indent');
    const file = path.join(dir, GOOD_CHANGED);
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    // The DOCS table and the listen call are outside every statement the migration rewrites.
    const tabbed = new Set<string>();
    lines.forEach((line, i) => {
      if (/^ {2}\{ id: /.test(line)) lines[i] = line.replace(/^ {2}/, '\t');
      if (/^ {2}\{ id: /.test(line)) tabbed.add(lines[i]);
    });
    const listen = lines.findIndex((l) => l.startsWith('app.listen('));
    lines.splice(listen, 0, 'if (process.env.MCP_DEBUG) {', '\tconsole.log("debug");', '    console.log("mixed");', '}');
    tabbed.add('\tconsole.log("debug");').add('    console.log("mixed");');
    expect(tabbed.size).toBe(5);
    fs.writeFileSync(file, lines.join('\n'));
    const run = await cli(['apply', dir, '--allow-dirty']);
    expect(problemsOf(run)).toEqual([]);
    expect(run.report!.changes.map((c) => c.file)).toEqual([GOOD_CHANGED]);
    const after = fs.readFileSync(file, 'utf8');
    for (const line of tabbed) expect(after.split('\n')).toContain(line);
    // Everything else is exactly the normal migration.
    const normalised = after
      .replace(/^\t\{ id: /gm, '  { id: ')
      .replace('if (process.env.MCP_DEBUG) {\n\tconsole.log("debug");\n    console.log("mixed");\n}\n', '');
    expect(normalised).toBe(goodMigrated);
    expect(run.status).toBe(0);
  });
});

describe.concurrent('a shebang line', () => {
  // Found by this suite: transforms used to insert code above the shebang (output rejected, file left unchanged).
  it('is kept on line 1 of a migrated file', async () => {
    const dir = workspace('shebang', false);
    fs.cpSync(path.join(FIXTURES_DIR, 'a-express-alias-cjs'), dir, { recursive: true });
    const plain = expectedMigration({ paths: [dir], cwd: dir }).get('src/index.js')!;
    fs.writeFileSync(path.join(dir, 'src/index.js'), `#!/usr/bin/env node\n${plain.original}`);
    const run = await cli(['apply', dir, '--allow-dirty']);
    expect(problemsOf(run)).toEqual([]);
    expect(fs.readFileSync(path.join(dir, 'src/index.js'), 'utf8')).toBe(`#!/usr/bin/env node\n${plain.migrated}`);
    expect(run.status).toBe(0);
  });
});

describe.concurrent('tab-indented sources', () => {
  // Found by this suite: untouched statements of a tab-indented file came out with 4 tabs per level, and inserted
  // lines with spaces.
  it('a tab-indented server keeps its tabs: every untouched line is byte-identical', async () => {
    const dir = workspace('tabs');
    const file = path.join(dir, GOOD_CHANGED);
    const tabbed = fs.readFileSync(file, 'utf8').replace(/^((?: {2})+)/gm, (spaces) => '\t'.repeat(spaces.length / 2));
    fs.writeFileSync(file, tabbed);
    const run = await cli(['apply', dir, '--allow-dirty']);
    expect(problemsOf(run)).toEqual([]);
    const after = fs.readFileSync(file, 'utf8');
    const migratedLines = new Set(goodMigrated.replace(/^((?: {2})+)/gm, (spaces) => '\t'.repeat(spaces.length / 2)).split('\n'));
    expect(after.split('\n').filter((line) => !migratedLines.has(line))).toEqual([]);
    expect(after).not.toMatch(/^ /m);
  });
});

describe.concurrent('name hygiene', () => {
  // Found by this suite: the guard's `import type { IncomingMessage, ServerResponse }` ignored names the file already
  // binds (tsc TS2300). Imports added by a transform now take another local name when theirs is taken.
  it('a file that already imports a name the migration adds still compiles after apply', async () => {
    const dir = workspace('names', false);
    fs.cpSync(path.join(FIXTURES_DIR, 'a-same-path-array'), dir, { recursive: true });
    const index = path.join(dir, 'src/index.ts');
    const lines = fs.readFileSync(index, 'utf8').split('\n');
    lines.splice(1, 0, "import type { IncomingMessage } from './types.js';", 'export type Incoming = IncomingMessage;');
    fs.writeFileSync(index, lines.join('\n'));
    fs.writeFileSync(path.join(dir, 'src/types.ts'), 'export interface IncomingMessage {\n  id: string;\n}\n');
    await compileFixture(dir);
    const run = await cli(['apply', dir, '--allow-dirty']);
    expect(problemsOf(run)).toEqual([]);
    expect(run.report!.changes.map((c) => c.file)).toEqual(['src/index.ts']);
    await compileFixture(dir);
  }, 180_000);
});

describe.concurrent('paths, empty input, no MCP code', () => {
  it('a path that does not exist: exit 2 and a clear message', async () => {
    for (const command of ['check', 'apply']) {
      const run = await cli([command, '.tmp/robustness/definitely-not-here']);
      expect(run.status).toBe(2);
      expect(run.stderr.trim()).toBe('mcp-migrate: path not found: .tmp/robustness/definitely-not-here');
      expect(run.stdout).toBe('');
    }
  });

  it('an empty directory: exit 0, "nothing to migrate"', async () => {
    const dir = workspace('empty', false);
    for (const command of ['check', 'apply']) {
      const run = await cli([command, dir, '--format', 'text']);
      expect(run.stdout).toContain(NOTHING_TO_MIGRATE);
      expect(run.status).toBe(0);
    }
  });

  it('a repository with no MCP code at all: exit 0, "nothing to migrate", nothing written', async () => {
    const dir = workspace('no-mcp', false);
    fs.cpSync(path.join(FIXTURES_DIR, 'neg-dashboard-sse'), dir, { recursive: true });
    put(dir, 'src/util.js', "'use strict';\nmodule.exports = { add: (a, b) => a + b };\n");
    put(dir, 'README.md', '# not a server\n');
    const before = fs.readFileSync(path.join(dir, 'src/index.ts'));
    for (const command of ['check', 'apply']) {
      const run = await cli([command, dir, '--format', 'text']);
      expect(run.stdout).toContain(NOTHING_TO_MIGRATE);
      expect(run.status).toBe(0);
    }
    expect(fs.readFileSync(path.join(dir, 'src/index.ts'))).toEqual(before);
  });
});

describe.concurrent('symlinks when writing', () => {
  it('a file given through a symlink is migrated in its target and the link stays a link', async () => {
    const dir = workspace('link-write');
    fs.mkdirSync(path.join(dir, 'linked'));
    fs.symlinkSync(path.join('..', GOOD_CHANGED), path.join(dir, 'linked', 'index.ts'));
    const run = await cli(['apply', path.join(dir, 'linked', 'index.ts'), '--allow-dirty']);
    expect(problemsOf(run)).toEqual([]);
    expect(run.report!.changes.map((c) => c.file)).toEqual(['index.ts']);
    expect(fs.lstatSync(path.join(dir, 'linked', 'index.ts')).isSymbolicLink()).toBe(true);
    const migrated = fs.readFileSync(path.join(dir, GOOD_CHANGED), 'utf8');
    expect(migrated).not.toBe(goodOriginal);
    expect(migrated).toContain('StreamableHTTPServerTransport');
    expect(run.status).toBe(0);
  });
});

describe('unreadable files and directories (skipped when running as root)', () => {
  const locked: string[] = [];
  afterEach(() => {
    for (const p of locked.splice(0)) fs.chmodSync(p, 0o755);
  });

  it('an unreadable file is reported with EACCES and the run goes on', async (context) => {
    if (!chmodIsEffective()) context.skip();
    const dir = workspace('unreadable-file');
    const file = put(dir, 'bad/locked.ts', MCP_IMPORT);
    fs.chmodSync(file, 0o000);
    locked.push(file);
    const run = await cli(['apply', dir, '--allow-dirty']);
    expect(problemsOf(run)).toEqual([{ file: 'bad/locked.ts', kind: 'unreadable', message: 'cannot read file (EACCES)' }]);
    expectGoodMigrated(dir, run);
    expect(run.status).toBe(0);
  });

  it('an unreadable directory is reported with EACCES and the run goes on', async (context) => {
    if (!chmodIsEffective()) context.skip();
    const dir = workspace('unreadable-dir');
    put(dir, 'bad/locked/server.ts', MCP_IMPORT);
    fs.chmodSync(path.join(dir, 'bad/locked'), 0o000);
    locked.push(path.join(dir, 'bad/locked'));
    const run = await cli(['apply', dir, '--allow-dirty']);
    expect(problemsOf(run)).toEqual([{ file: 'bad/locked', kind: 'unreadable', message: 'cannot read directory (EACCES); skipped' }]);
    expectGoodMigrated(dir, run);
    expect(run.status).toBe(0);
  });

  it('apply on a read-only file: reported, left unchanged, the others written, exit 2', async (context) => {
    if (!chmodIsEffective()) context.skip();
    const dir = workspace('read-only');
    fs.cpSync(path.join(dir, 'good'), path.join(dir, 'locked'), { recursive: true });
    fs.chmodSync(path.join(dir, 'locked/src/index.ts'), 0o444);
    fs.chmodSync(path.join(dir, 'locked/src'), 0o555);
    locked.push(path.join(dir, 'locked/src'), path.join(dir, 'locked/src/index.ts'));
    const run = await cli(['apply', dir, '--allow-dirty']);
    expect(problemsOf(run)).toEqual([
      { file: 'locked/src/index.ts', kind: 'write', message: 'could not be written (EACCES); left unchanged' },
    ]);
    expect(fs.readFileSync(path.join(dir, 'locked/src/index.ts'), 'utf8')).toBe(goodOriginal);
    expectGoodMigrated(dir, run);
    expect(run.status).toBe(2);
  });
});

// --- write faults (injected: root ignores permission bits, and a full disk cannot be arranged in a test) -------------

describe.concurrent('write faults', () => {
  for (const code of ['EACCES', 'ENOSPC']) {
    it(`one file cannot be written (${code}): it is left unchanged, the others are written, the report and exit 2 say so`, async () => {
      const dir = workspace(`fault-${code}`);
      fs.cpSync(path.join(dir, 'good'), path.join(dir, 'other'), { recursive: true });
      const expected = expectedMigration({ paths: [dir], cwd: dir });
      const run = await cli(['apply', dir, '--allow-dirty'], { MCP_MIGRATE_FAULT_WRITE: `other/src/index.ts:${code}` });
      expect(problemsOf(run)).toEqual([
        { file: 'other/src/index.ts', kind: 'write', message: `could not be written (${code}); left unchanged` },
      ]);
      expect(run.report!.changes.map((c) => c.file)).toEqual([GOOD_CHANGED]);
      for (const file of expected.values()) {
        const onDisk = fs.readFileSync(file.absPath, 'utf8');
        expect(onDisk, file.relPath).toBe(file.relPath === 'other/src/index.ts' ? file.original : file.migrated);
      }
      expect(tempFilesUnder(dir), 'no temp file left behind').toEqual([]);
      expect(run.status).toBe(2);
      const text = await cli(['apply', dir, '--allow-dirty', '--format', 'text'], {
        MCP_MIGRATE_FAULT_WRITE: `other/src/index.ts:${code}`,
      });
      expect(text.stdout).toContain(`other/src/index.ts: write: could not be written (${code}); left unchanged`);
      expect(text.status).toBe(2);
      // Three whole migrations (the expected one and two CLI runs, each type-checked), run side by side: on a loaded
      // 2-core machine that takes longer than the default minute.
    }, 180_000);
  }

  it('keeps the file mode when it replaces a file', () => {
    const dir = workspace('mode');
    const file = path.join(dir, GOOD_CHANGED);
    fs.chmodSync(file, 0o640);
    const oldUmask = process.umask(0o077);
    try {
      const result = apply({ paths: [dir], cwd: dir, allowDirty: true, target: EXPECTED_TARGET });
      expect(result.problems).toEqual([]);
    } finally {
      process.umask(oldUmask);
    }
    expect(fs.statSync(file).mode & 0o777).toBe(0o640);
    expect(fs.readFileSync(file, 'utf8')).toBe(goodMigrated);
  });
});

describe.concurrent('a transform that throws', () => {
  it('reports that file (kind transform), leaves it unchanged, migrates the rest, exit 2', async () => {
    const dir = workspace('transform-throws');
    fs.cpSync(path.join(dir, 'good'), path.join(dir, 'other'), { recursive: true });
    const run = await cli(['apply', dir, '--allow-dirty'], { MCP_MIGRATE_FAULT_TRANSFORM: 'other/src/index.ts' });
    const problems = problemsOf(run);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ file: 'other/src/index.ts', kind: 'transform' });
    expect(problems[0].message).toMatch(/^[\w-]+ failed: injected transform fault \(MCP_MIGRATE_FAULT_TRANSFORM\); file left unchanged$/);
    expect(fs.readFileSync(path.join(dir, 'other/src/index.ts'), 'utf8')).toBe(goodOriginal);
    expectGoodMigrated(dir, run);
    expect(run.status).toBe(2);
  });

  it("names the parser when the rewrite's parser refuses a file TypeScript reads (an import declared twice)", async () => {
    const dir = workspace('babel-refuses');
    const twice = goodOriginal.replace(/^(import [^\n]*\n)/m, '$1$1');
    expect(twice).not.toBe(goodOriginal);
    put(dir, 'other/src/index.ts', twice);
    const run = await cli(['apply', dir, '--allow-dirty']);
    const problems = problemsOf(run);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ file: 'other/src/index.ts', kind: 'transform' });
    expect(problems[0].message).toMatch(/^the rewrite's parser \(babel\) refuses the file: Identifier '\w+' has already been declared/);
    expect(fs.readFileSync(path.join(dir, 'other/src/index.ts'), 'utf8')).toBe(twice);
    expectGoodMigrated(dir, run);
  });
});

describe.concurrent('a dirty git work tree', () => {
  const git = (dir: string, ...args: string[]) => {
    const result = spawnSync(
      'git',
      ['-C', dir, '-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'commit.gpgsign=false', ...args],
      { encoding: 'utf8' },
    );
    if (result.status !== 0) throw new Error(`git ${args.join(' ')}: ${result.stderr}`);
    return result.stdout;
  };

  it('apply refuses with exit 2 and writes nothing unless --allow-dirty', async (context) => {
    if (spawnSync('git', ['--version']).status !== 0) context.skip();
    const dir = workspace('dirty');
    fs.cpSync(path.join(dir, 'good'), path.join(dir, 'other'), { recursive: true });
    git(dir, 'init', '-q');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'servers');
    const dirtyFile = path.join(dir, 'other/src/index.ts');
    fs.appendFileSync(dirtyFile, '// work in progress\n');
    const dirtyText = fs.readFileSync(dirtyFile, 'utf8');

    const refused = await cli(['apply', dir]);
    expect(refused.report!.problems).toEqual([
      {
        file: 'other/src/index.ts',
        kind: 'dirty',
        message: 'has uncommitted changes; commit or stash them, or pass --allow-dirty (nothing was written)',
      },
    ]);
    expect(refused.report!.changes).toEqual([]);
    expect(fs.readFileSync(dirtyFile, 'utf8')).toBe(dirtyText);
    expect(fs.readFileSync(path.join(dir, GOOD_CHANGED), 'utf8'), 'the clean file is not written either').toBe(goodOriginal);
    expect(git(dir, 'status', '--porcelain')).toBe(' M other/src/index.ts\n');
    expect(refused.status).toBe(2);

    const allowed = await cli(['apply', dir, '--allow-dirty']);
    expect(allowed.report!.problems).toEqual([]);
    expect(allowed.report!.changes.map((c) => c.file).sort()).toEqual([GOOD_CHANGED, 'other/src/index.ts']);
    expect(fs.readFileSync(path.join(dir, GOOD_CHANGED), 'utf8')).toBe(goodMigrated);
    expect(fs.readFileSync(dirtyFile, 'utf8')).toBe(`${goodMigrated}// work in progress\n`);
    expect(allowed.status).toBe(0);
  });
});

// --- security of the result ------------------------------------------------------------------------------------------

describe('security of the result', () => {
  let server: RunningFixture | undefined;
  afterEach(async () => {
    await server?.stop();
    server = undefined;
  });

  it('c-auth-middleware: the new endpoint still requires the bearer token and rejects a foreign Origin', async () => {
    const dir = workspace('security', false);
    fs.cpSync(path.join(FIXTURES_DIR, GOOD_FIXTURE), dir, { recursive: true });
    const result = apply({ paths: [dir], cwd: dir, allowDirty: true, target: EXPECTED_TARGET });
    expect(result.problems).toEqual([]);
    expect(result.changes.map((c) => c.file)).toEqual(['src/index.ts']);
    await compileFixture(dir);
    const manifest = await readManifest(dir);
    server = await bootFixture(dir, manifest);
    const endpoint = new URL('/mcp', server.url);
    const init = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'probe', version: '1' } },
    });
    const post = async (headers: Record<string, string>) => {
      const response = await fetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: init,
      });
      await response.text();
      return response.status;
    };
    const bearer = { authorization: 'Bearer test-token' };
    expect(await post({}), 'no token').toBe(401);
    expect(await post({ authorization: 'Bearer wrong' }), 'wrong token').toBe(401);
    expect(await post(bearer), 'token').toBe(200);
    expect(await post({ ...bearer, origin: 'http://evil.example' }), 'foreign Origin').toBe(403);
    expect(await post({ origin: 'http://evil.example' }), 'foreign Origin without a token is still refused').not.toBe(200);
    expect(await post({ ...bearer, origin: `http://localhost:${server.port}` }), 'local Origin').toBe(200);
    expect(await post({ ...bearer, origin: `http://127.0.0.1:${server.port}` }), 'loopback Origin').toBe(200);
  });

  // Found by this suite: origin validation was a project-wide fact, so one server that already checks Origin (a copy
  // migrated earlier, or an already-safe server in a monorepo) stopped the guard for every other server. It is now a
  // fact of each server's files (linked by local imports).
  it('a server migrated next to one that already validates Origin still gets the Origin guard', () => {
    const dir = workspace('origin-scope', false);
    fs.cpSync(path.join(FIXTURES_DIR, 'a-express-shared-server'), path.join(dir, 'one'), { recursive: true });
    fs.cpSync(path.join(FIXTURES_DIR, 'a-express-shared-server'), path.join(dir, 'two'), { recursive: true });
    expect(apply({ paths: [path.join(dir, 'one')], cwd: dir, allowDirty: true, target: EXPECTED_TARGET }).problems).toEqual([]);
    expect(apply({ paths: [dir], cwd: dir, allowDirty: true, target: EXPECTED_TARGET }).problems).toEqual([]);
    const one = fs.readFileSync(path.join(dir, 'one/src/index.ts'), 'utf8');
    const two = fs.readFileSync(path.join(dir, 'two/src/index.ts'), 'utf8');
    expect(one).toContain('rejectForeignOrigin');
    expect(two).toContain('rejectForeignOrigin');
  });
});
