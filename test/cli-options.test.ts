// CLI correctness: one value per repeatable flag, validated numbers, config keys per command, config found upward or
// in package.json with a published schema, -o creating its folder, "did you mean", NO_COLOR/FORCE_COLOR, no engine
// loaded for --version/--help/rules/explain, progress only on a terminal.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import Ajv from 'ajv';
import { describe, expect, it } from 'vitest';
import { configSchema } from '../src/config/options';
import { parseConfig } from '../src/config/load';
import { emitProgress } from '../src/engine/progress';
import { showProgress } from '../src/cli/progress';
import { FIXTURES_DIR, REPO_ROOT, scratchDir } from './helpers/server-process';

const BIN = path.join(REPO_ROOT, 'bin', 'mcp-migrate.js');
const cli = (cwd: string, args: string[], env: Record<string, string | undefined> = {}) =>
  spawnSync(process.execPath, [BIN, ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: undefined, FORCE_COLOR: undefined, CI: undefined, ...env },
  });
const fixture = (name: string) => path.join('fixtures', 'servers', name);
const json = (cwd: string, args: string[]) => JSON.parse(cli(cwd, [args[0], '--format', 'json', ...args.slice(1)]).stdout);

describe('flags', () => {
  it('a repeatable flag takes one value: `--exclude GLOB path` and `--rule ID path` keep `path` a path', () => {
    const report = json(REPO_ROOT, ['check', '--exclude', '**/client.ts', fixture('c-compat-both')]);
    const all = json(REPO_ROOT, ['check', fixture('c-compat-both')]);
    expect(report.summary.filesScanned).toBe(all.summary.filesScanned - 1);
    expect(report.findings.every((f: { file: string }) => f.file.startsWith('fixtures/servers/c-compat-both/src/'))).toBe(true);
    expect(report.findings.some((f: { file: string }) => f.file.endsWith('client.ts'))).toBe(false);
    const ruled = json(REPO_ROOT, ['check', '--rule', 'local-bind', fixture('f-session-cart'), '--rule', 'session-state']);
    expect(Object.keys(ruled.summary.findingsByRule).sort()).toEqual(['local-bind', 'session-state']);
    expect(json(REPO_ROOT, ['check', '--rule', 'local-bind', '--', fixture('f-session-cart')]).summary.filesScanned).toBe(2);
  });

  it('numbers are validated: not a number, a fraction or below the minimum is exit 2 with the flag named', () => {
    for (const [flag, value] of [
      ['--max-warnings', 'abc'],
      ['--max-warnings', '1.5'],
      ['--max-warnings', '-2'],
      ['--max-file-size', '0'],
    ]) {
      const run = cli(REPO_ROOT, ['check', fixture('neg-stdio'), flag, value]);
      expect(run.status, `${flag} ${value}`).toBe(2);
      expect(run.stderr).toMatch(new RegExp(`^mcp-migrate: ${flag} must be`));
    }
    expect(cli(REPO_ROOT, ['check', fixture('neg-stdio'), '--max-warnings', '0']).status).toBe(0);
  });

  it('a flag without its value is exit 2, not a swallowed next flag', () => {
    const run = cli(REPO_ROOT, ['check', fixture('neg-stdio'), '--exclude']);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('exclude');
  });

  it('an unknown command gets a suggestion', () => {
    const run = cli(REPO_ROOT, ['aply', fixture('neg-stdio')]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('Did you mean apply?');
  });

  it('-o creates the folder it writes into', () => {
    const dir = scratchDir('cli-options', 'output');
    const run = cli(dir, ['check', path.join(FIXTURES_DIR, 'b-express-stateful'), '--format', 'sarif', '-o', 'reports/nested/mcp.sarif']);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(1);
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'reports', 'nested', 'mcp.sarif'), 'utf8')).version).toBe('2.1.0');
  });
});

describe('configuration', () => {
  function project(config: Record<string, unknown>, where: 'file' | 'package' = 'file'): string {
    const dir = scratchDir('cli-options', 'config');
    fs.cpSync(path.join(FIXTURES_DIR, 'f-session-cart'), path.join(dir, 'server'), { recursive: true });
    if (where === 'file') fs.writeFileSync(path.join(dir, 'mcp-migrate.config.json'), JSON.stringify(config));
    else fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'x', private: true, 'mcp-migrate': config }));
    return dir;
  }

  it("keys belong to commands: check ignores apply's target, apply ignores check's max-warnings", () => {
    const dir = project({ target: '2025-11-25', 'max-warnings': 0, rule: ['local-bind'] });
    const checked = cli(dir, ['check', 'server']);
    expect(checked.stderr).toBe('');
    expect(checked.status, 'max-warnings 0 applies to check: one local-bind warning').toBe(1);
    const applied = cli(dir, ['apply', '--dry-run', '--unsafe', 'server', '--format', 'json']);
    expect(applied.stderr).toBe('');
    expect(JSON.parse(applied.stdout).target).toBe('2025-11-25');
  });

  it('is found upward from a subfolder, and in package.json under "mcp-migrate"', () => {
    const dir = project({ rule: ['local-bind'] });
    expect(Object.keys(json(path.join(dir, 'server', 'src'), ['check', '..']).summary.findingsByRule)).toEqual(['local-bind']);
    const pkg = project({ rule: ['session-state'] }, 'package');
    expect(Object.keys(json(path.join(pkg, 'server'), ['check']).summary.findingsByRule)).toEqual(['session-state']);
    fs.writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({ 'mcp-migrate': { rule: 'session-state' } }));
    const bad = cli(path.join(pkg, 'server'), ['check']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('package.json "mcp-migrate": "rule" must be an array of strings');
  });

  it('the search stops at the git work tree: a configuration above it is not read', () => {
    const dir = project({ rule: ['local-bind'] });
    fs.mkdirSync(path.join(dir, 'server', '.git'));
    expect(Object.keys(json(path.join(dir, 'server'), ['check']).summary.findingsByRule).length).toBeGreaterThan(1);
  });

  it('the published JSON schema is the one the loader enforces', () => {
    const published = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'schema', 'mcp-migrate.config.schema.json'), 'utf8'));
    expect(published, 'regenerate with `npm run build && node scripts/write-config-schema.js`').toEqual(configSchema());
    const validate = new Ajv({ strict: true }).compile(published);
    const samples: unknown[] = [
      { $schema: './node_modules/mcp-migrate/schema/mcp-migrate.config.schema.json', format: 'sarif', exclude: ['**/*.test.ts'] },
      { target: '2025-11-25', 'max-warnings': 0, baseline: 'ci/baseline.json' },
      { targte: '2025-11-25' },
      { 'max-warnings': 1.5 },
      { format: 'xml' },
      { rule: 'session-id' },
      { output: 'x.sarif' },
    ];
    for (const sample of samples) {
      let loaderAccepts = true;
      try {
        parseConfig(JSON.stringify(sample), 'c.json');
      } catch {
        loaderAccepts = false;
      }
      expect(validate(sample), JSON.stringify(sample)).toBe(loaderAccepts);
    }
  });
});

describe('colour', () => {
  const ESC = '\u001b[';
  it('NO_COLOR turns it off, FORCE_COLOR on when piped, --color / --no-color win', () => {
    const args = ['check', fixture('b-express-stateful')];
    expect(cli(REPO_ROOT, args).stdout).not.toContain(ESC);
    expect(cli(REPO_ROOT, args, { FORCE_COLOR: '1' }).stdout).toContain(ESC);
    expect(cli(REPO_ROOT, args, { FORCE_COLOR: '1', NO_COLOR: '1' }).stdout).not.toContain(ESC);
    expect(cli(REPO_ROOT, [...args, '--color'], { NO_COLOR: '1' }).stdout).toContain(ESC);
    expect(cli(REPO_ROOT, [...args, '--no-color'], { FORCE_COLOR: '1' }).stdout).not.toContain(ESC);
  });
});

describe('start-up', () => {
  /** Runs the CLI in-process and says whether ts-morph got loaded. */
  const loadsTsMorph = (args: string[]): boolean => {
    const script =
      `process.stdout.write = () => true;` +
      `require(${JSON.stringify(path.join(REPO_ROOT, 'dist', 'src', 'cli', 'main.js'))}).main(${JSON.stringify(args)})` +
      `.then(() => console.error(Object.keys(require.cache).some((m) => m.includes('${path.sep}ts-morph${path.sep}'))));`;
    const run = spawnSync(process.execPath, ['-e', script], { cwd: REPO_ROOT, encoding: 'utf8' });
    return run.stderr.trim().split('\n').pop() === 'true';
  };

  it('--version, --help, rules and explain do not load the engine; check does', () => {
    for (const args of [['--version'], ['--help'], ['check', '--help'], ['rules'], ['explain', 'local-bind']]) {
      expect(loadsTsMorph(args), args.join(' ')).toBe(false);
    }
    expect(loadsTsMorph(['check', fixture('neg-stdio')])).toBe(true);
  });
});

describe('progress', () => {
  const events = () => {
    for (let i = 1; i <= 3; i++) emitProgress({ kind: 'analysed', file: `src/f${i}.ts`, done: i, total: 3 });
    emitProgress({ kind: 'transformed', file: 'src/f1.ts', transform: 'stateless-endpoint' });
    return 'done';
  };
  const terminal = (isTTY: boolean) => {
    const written: string[] = [];
    return { isTTY, columns: 80, written, write: (text: string) => (written.push(text), true) };
  };

  it('draws a status line on a terminal and erases it at the end', () => {
    const tty = terminal(true);
    expect(showProgress(events, tty, {})).toBe('done');
    expect(tty.written[0]).toBe('\r\u001b[2Kanalysed 1/3 files · src/f1.ts');
    expect(tty.written.at(-1)).toBe('\r\u001b[2K');
  });

  it('says nothing when piped or in CI, and nothing reaches stderr of a piped run', () => {
    const piped = terminal(false);
    showProgress(events, piped, {});
    expect(piped.written).toEqual([]);
    const ci = terminal(true);
    showProgress(events, ci, { CI: 'true' });
    expect(ci.written).toEqual([]);
    expect(cli(REPO_ROOT, ['apply', '--dry-run', fixture('a-express-shared-server')]).stderr).toBe('');
  });
});
