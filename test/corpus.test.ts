// The corpus runner's pure parts: recipe validation, verdicts, the table. (The runner itself needs the real
// repositories and the network, so it is not part of npm test.)
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_INSTALL, parseRecipe } from '../corpus/recipe';
import { decideVerdict, renderTable, type BaselineResult, type RepoResult, type StepResult, type TargetResult } from '../corpus/report';

const RECIPES = path.join(__dirname, '..', 'corpus', 'recipes');

const minimal = {
  repo: 'owner/name',
  commit: 'a'.repeat(40),
  family: 'A',
  framework: 'express 4',
  start: { command: 'node dist/index.js --port {port}' },
  legacy: { client: 'sse', path: '/sse' },
  endpoint: '/mcp',
};

describe('recipes', () => {
  it('every committed recipe is valid and named after its repository', () => {
    const files = readdirSync(RECIPES).filter((file) => file.endsWith('.json'));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const recipe = parseRecipe(file.slice(0, -5), JSON.parse(readFileSync(path.join(RECIPES, file), 'utf8')));
      expect(recipe.repo.replace('/', '+')).toBe(recipe.id);
    }
  });

  it('fills the defaults', () => {
    const recipe = parseRecipe('owner+name', minimal);
    expect(recipe).toMatchObject({ scan: '.', app: '.', runnable: true, install: DEFAULT_INSTALL, headers: {}, stepTimeout: 600 });
    expect(recipe.start).toEqual({
      command: 'node dist/index.js --port {port}',
      env: {},
      cwd: undefined,
      bootTimeout: undefined,
      port: undefined,
    });
  });

  it('lists every problem at once', () => {
    const bad = {
      ...minimal,
      repo: 'other/name',
      commit: 'abc',
      scan: '../up',
      start: { command: 'node x.js' },
      legacy: { client: 'ws', path: '/' },
      extra: 1,
    };
    expect(() => parseRecipe('owner+name', bad)).toThrow(
      'owner+name: unknown key "extra"; "repo" must be "owner/name"; "commit" must be a 40-hex commit; "scan" must be a path inside the repository; ' +
        '"start" must use {port}, or name the fixed "port" its app always listens on; "legacy" must be { client: \'sse\' | \'streamable\', path }',
    );
  });

  it('a fixed port replaces {port}, never both', () => {
    expect(parseRecipe('owner+name', { ...minimal, start: { command: 'node x.js', port: 3000 } }).start?.port).toBe(3000);
    expect(() => parseRecipe('owner+name', { ...minimal, start: { command: 'node x.js {port}', port: 3000 } })).toThrow(/fixed "port"/);
  });

  it('a runnable recipe needs start, legacy and endpoint; a non-runnable one needs why', () => {
    expect(() => parseRecipe('owner+name', { repo: 'owner/name', commit: 'a'.repeat(40), family: 'A', framework: 'x' })).toThrow(
      'a runnable recipe needs "start"; a runnable recipe needs "legacy"; a runnable recipe needs "endpoint"',
    );
    expect(() =>
      parseRecipe('owner+name', { repo: 'owner/name', commit: 'a'.repeat(40), family: 'A', framework: 'x', runnable: false }),
    ).toThrow('"why" must say why');
  });
});

const ok: StepResult = { status: 'ok' };
const failed: StepResult = { status: 'failed' };
const skipped: StepResult = { status: 'skipped' };
const na: StepResult = { status: 'n/a' };
const baseline: BaselineResult = { install: ok, build: ok, typecheck: ok, boot: ok, probe: ok };
const marker = { file: 'src/index.ts', line: 3, text: '/* mcp-migrate: shared-server-instance: build this server in a factory */' };

function after(overrides: Partial<TargetResult> = {}, markers = [marker]): Omit<TargetResult, 'verdict' | 'reason'> {
  return {
    target: '2025-11-25',
    apply: {
      status: 'ok',
      summary: { filesChanged: ['src/index.ts'], markers, manual: [], problems: [], rollbacks: [], endpoints: ['/mcp'] },
    },
    check: { status: 'ok', exitCode: 0 },
    install: ok,
    build: ok,
    typecheck: ok,
    boot: ok,
    probes: { v1: ok, v2: na, methods405: ok, noSessionId: ok, foreignOrigin403: ok },
    ...overrides,
  };
}

describe('verdicts', () => {
  it('pass: no marker and every probe passed', () => {
    expect(decideVerdict(true, baseline, after({}, [])).verdict).toBe('pass');
  });

  it('fail: no marker but a probe failed', () => {
    const result = decideVerdict(
      true,
      baseline,
      after({ probes: { v1: ok, v2: na, methods405: failed, noSessionId: ok, foreignOrigin403: ok } }, []),
    );
    expect(result).toEqual({ verdict: 'fail', reason: 'no marker, but methods405 failed' });
  });

  it('honest: markers that name the construct, and it still builds', () => {
    expect(decideVerdict(true, baseline, after({ boot: ok }))).toEqual({ verdict: 'honest', reason: '1 marker(s) left' });
    const codemod = { ...marker, text: '/* @mcp-codemod-error Could not verify the schema argument */' };
    expect(decideVerdict(true, baseline, after({}, [codemod])).verdict).toBe('honest');
    const deferred = {
      ...marker,
      text: '/* mcp-migrate: v2-deferred: on 2025-11-25 (stateless): the framework cannot serve 2026-07-28 yet */',
    };
    expect(decideVerdict(true, baseline, after({}, [deferred])).verdict, 'rule ids may hold digits').toBe('honest');
  });

  it('fail: a marker that names nothing', () => {
    expect(decideVerdict(true, baseline, after({}, [{ ...marker, text: '/* mcp-migrate: todo */' }])).verdict).toBe('fail');
  });

  it('broken: built at baseline, no longer after apply (a failed install counts)', () => {
    expect(decideVerdict(true, baseline, after({ typecheck: failed }))).toEqual({
      verdict: 'broken',
      reason: 'built at baseline; after apply: typecheck failed',
    });
    expect(decideVerdict(true, baseline, after({ install: failed, build: skipped, typecheck: skipped }, [])).verdict).toBe('broken');
  });

  it('not broken when it did not build at baseline either', () => {
    const unbuilt = { ...baseline, typecheck: failed };
    expect(decideVerdict(true, unbuilt, after({ typecheck: failed })).verdict).toBe('honest');
    expect(decideVerdict(true, unbuilt, after({ typecheck: failed }, []))).toEqual({
      verdict: 'fail',
      reason: 'typecheck failed (as at baseline)',
    });
  });

  it('a non-runnable app passes on apply, install and type-check alone', () => {
    const probes = { v1: na, v2: na, methods405: na, noSessionId: na, foreignOrigin403: na };
    expect(decideVerdict(false, { ...baseline, boot: na, probe: na }, after({ boot: na, probes }, [])).verdict).toBe('pass');
  });
});

describe('table', () => {
  const repo = (id: string, runnable: boolean, verdict: TargetResult['verdict']): RepoResult => ({
    id,
    runnable,
    framework: 'express 4',
    family: 'A',
    baseline,
    targets: { '2025-11-25': { ...after({}, []), verdict, reason: '' } },
  });

  it('one row per repository, baseline next to after, totals over runnable apps', () => {
    const table = renderTable(
      [repo('a+one', true, 'pass'), repo('b+two', true, 'broken'), repo('c+three', false, 'pass')],
      ['2025-11-25'],
      {
        unsafe: false,
      },
    );
    const lines = table.split('\n').slice(2);
    expect(table.split('\n')[0]).toBe('**mcp-migrate apply** (2025-11-25)');
    expect(lines[0]).toBe(
      '| repo | base install | base build | base tsc | base boot | base probe | 2025 files | 2025 markers | 2025 check | 2025 install | 2025 build | ' +
        '2025 tsc | 2025 boot | 2025 v1 | 2025 405 | 2025 no sid | 2025 403 | 2025 verdict |',
    );
    expect(lines[2]).toBe('| a+one | ✓ | ✓ | ✓ | ✓ | ✓ | 1 | 0 | 0 | ✓ | ✓ | ✓ | ✓ | ✓ | ✓ | ✓ | ✓ | **pass** |');
    expect(lines[4]).toContain('| c+three (not runnable) |');
    expect(table).toContain('**2025-11-25**: pass 1/2 runnable apps (50%) · broken 1 · honest 0 · fail 0 · not runnable: 1 (pass 1)');
  });

  it('the title says when the unsafe fixes were applied', () => {
    const table = renderTable([repo('a+one', true, 'pass')], ['2025-11-25'], { unsafe: true });
    expect(table.split('\n')[0]).toBe('**mcp-migrate apply --unsafe** (2025-11-25)');
  });
});
