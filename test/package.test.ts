// The package as the registry would serve it: `npm pack` the tarball, install it into a scratch project, run
// `npx mcp-migrate check`, and use the API from CommonJS, ESM and TypeScript (types through `exports`).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES_DIR, REPO_ROOT, scratchDir } from './helpers/server-process';

const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const NPX = process.platform === 'win32' ? 'npx.cmd' : 'npx';

function run(command: string, args: string[], cwd: string): SpawnSyncReturns<string> {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, timeout: 240_000 });
  if (result.error) throw result.error;
  return result;
}

let tarball: string;
let files: string[];
let project: string;

beforeAll(() => {
  const out = scratchDir('package', 'pack');
  // dist/ is built by `npm test` (and `npm ci`) before the suites run; packing does not rebuild it.
  const packed = run(NPM, ['pack', '--ignore-scripts', '--json', '--pack-destination', out], REPO_ROOT);
  expect(packed.status, packed.stderr).toBe(0);
  const [info] = JSON.parse(packed.stdout);
  tarball = path.join(out, info.filename);
  files = info.files.map((f: { path: string }) => f.path);
  project = scratchDir('package', 'project');
  fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'scratch', version: '1.0.0', private: true }));
  fs.cpSync(path.join(FIXTURES_DIR, 'b-express-stateful', 'src'), path.join(project, 'server', 'src'), { recursive: true });
  // Dependencies come from the npm cache that `npm ci` filled (the registry only for what it lacks).
  const installed = run(NPM, ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball], project);
  expect(installed.status, installed.stderr).toBe(0);
}, 300_000);

describe('the published package', () => {
  it('holds the built CLI, the API with types, the schema, the action and the legal files; no tests or fixtures', () => {
    for (const file of [
      'bin/mcp-migrate.js',
      'dist/src/cli/main.js',
      'dist/src/api.js',
      'dist/src/api.d.ts',
      'dist/transforms/migrate-endpoint.js',
      'dist/rule-catalog.json',
      'schema/mcp-migrate.config.schema.json',
      'action.yml',
      'LICENSE',
      'README.md',
      'CHANGELOG.md',
      'package.json',
    ]) {
      expect(files, file).toContain(file);
    }
    expect(
      files.filter((f) => /^(fixtures|test|bench|corpus|\.ci|src)\//.test(f) || f.endsWith('.map') || f.includes('/testing/')),
    ).toEqual([]);
    const manifest = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'));
    expect(manifest.license).toBe('MIT');
    expect(fs.readFileSync(path.join(REPO_ROOT, 'LICENSE'), 'utf8')).toMatch(/^MIT License\n/);
    expect(manifest.keywords.length).toBeGreaterThan(0);
  });

  it('npx mcp-migrate check runs from the installed package', () => {
    const checked = run(NPX, ['--no-install', 'mcp-migrate', 'check', 'server', '--format', 'json'], project);
    expect(checked.stderr).toBe('');
    expect(checked.status).toBe(1);
    const report = JSON.parse(checked.stdout);
    expect(report.findings.length).toBeGreaterThan(5);
    expect(report.findings[0].file).toBe('server/src/index.ts');
    expect(run(NPX, ['--no-install', 'mcp-migrate', '--version'], project).stdout.trim()).toBe(
      JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')).version,
    );
    const explained = run(NPX, ['--no-install', 'mcp-migrate', 'explain', 'session-id'], project);
    expect(explained.stdout).toContain('Before:');
  });

  it('the API works from CommonJS and ESM and returns the JSON contract', () => {
    const cjs = run(
      process.execPath,
      [
        '-e',
        "const { check, apply } = require('mcp-migrate'); (async () => { const r = await check({ paths: ['server'] }); const a = apply({ paths: ['server'], dryRun: true, target: '2025-11-25' });" +
          'console.log(JSON.stringify({ version: r.version, keys: Object.keys(r), rule: r.findings[0].ruleId, changed: a.changes.map((c) => c.file), dry: a.dryRun })); })();',
      ],
      project,
    );
    expect(cjs.stderr).toBe('');
    const out = JSON.parse(cjs.stdout);
    expect(out).toMatchObject({ version: 1, dry: true, changed: ['server/src/index.ts'] });
    expect(out.keys).toEqual(['version', 'tool', 'root', 'findings', 'suppressions', 'problems', 'summary']);
    const esm = run(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "import { check } from 'mcp-migrate'; console.log((await check({ paths: ['server'] })).summary.filesScanned);",
      ],
      project,
    );
    expect(esm.stderr).toBe('');
    expect(esm.stdout.trim()).toBe('2');
  });

  it('the installed package carries the v2 packages it reads: the default target raises zod as the repository does', () => {
    // The v2 packages' peers and the type-check gate's modules are read from mcp-migrate's own copy; an install
    // without dev dependencies must have them, or zod stays at ^3 with a manual item (and the gate sees TS2307).
    const app = path.join(project, 'zod3-app');
    fs.cpSync(path.join(FIXTURES_DIR, 'b-express-stateful', 'src'), path.join(app, 'src'), { recursive: true });
    const manifest = {
      name: 'zod3-app',
      private: true,
      dependencies: { '@modelcontextprotocol/sdk': '^1.20.0', express: '^5.1.0', zod: '^3.25.0' },
    };
    fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify(manifest, null, 2) + '\n');
    const applied = run(NPX, ['--no-install', 'mcp-migrate', 'apply', 'zod3-app', '--dry-run', '--format', 'json'], project);
    expect(applied.stderr).toBe('');
    const items: Array<{ file: string; message: string }> = JSON.parse(applied.stdout).manual;
    const zod = items.filter((item) => item.file === 'zod3-app/package.json' && item.message.includes('zod'));
    expect(zod.map((item) => item.message)).toEqual([
      'zod ^3.25.0 → ^4.2.0: @modelcontextprotocol/server@2.4.0 requires zod ^4.2.0 (typed dependency).',
    ]);
    for (const name of ['server', 'server-legacy', 'node', 'express', 'core', 'client', 'sdk']) {
      expect(fs.existsSync(path.join(project, 'node_modules', '@modelcontextprotocol', name, 'package.json')), name).toBe(true);
    }
  });

  it('TypeScript finds the types through `exports`', () => {
    fs.writeFileSync(
      path.join(project, 'use.ts'),
      "import { check, type JsonCheckReport, type Finding } from 'mcp-migrate';\n" +
        'export async function firstLine(): Promise<number | undefined> {\n' +
        "  const report: JsonCheckReport = await check({ paths: ['server'], rules: ['session-id'] });\n" +
        '  const first: Omit<Finding, "data"> | undefined = report.findings[0];\n' +
        '  return first?.line;\n' +
        '}\n' +
        '// @ts-expect-error: not an option\n' +
        "void check({ path: 'x' });\n",
    );
    fs.writeFileSync(
      path.join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', strict: true, noEmit: true, types: [] },
        files: ['use.ts'],
      }),
    );
    const tsc = run(process.execPath, [path.join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], project);
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.status).toBe(0);
  });
});
