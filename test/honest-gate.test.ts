// An honest gate: a file that looks like MCP code but does not parse fails `check` (parse-error); `check` and `apply`
// agree on what needs changing; --rule / --skip-rule limit every step of `apply`, the manifest included.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { apply } from '../src/engine/apply';
import { check } from '../src/engine/check';
import { FIXTURES_DIR, REPO_ROOT, fixtureNames, scratchDir } from './helpers/server-process';

const cli = (cwd: string, ...args: string[]) =>
  spawnSync(process.execPath, [path.join(REPO_ROOT, 'bin', 'mcp-migrate.js'), ...args, '--no-color'], { cwd, encoding: 'utf8' });
const json = (cwd: string, ...args: string[]) => {
  const run = cli(cwd, ...args, '--format', 'json');
  return { status: run.status, report: JSON.parse(run.stdout) };
};

function copyOf(fixture: string): string {
  const dir = scratchDir('honest-gate', fixture);
  fs.cpSync(path.join(FIXTURES_DIR, fixture), dir, { recursive: true });
  return dir;
}

describe('check fails on MCP code it could not read', () => {
  it('an unparsable file that imports the SDK: exit 1, a parse-error finding at the syntax error, the problem kept', () => {
    const dir = copyOf('neg-stdio');
    expect(cli(dir, 'check').status).toBe(0);
    fs.writeFileSync(
      path.join(dir, 'src', 'broken.ts'),
      "import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';\nexport const t = new SSEServerTransport('/m', res;\n",
    );
    const { status, report } = json(dir, 'check');
    expect(status).toBe(1);
    const [finding] = report.findings.filter((f: { ruleId: string }) => f.ruleId === 'parse-error');
    expect(finding).toMatchObject({ file: 'src/broken.ts', severity: 'error', line: 2, fix: 'none' });
    expect(finding.message).toMatch(/^Not checked: does not parse: 2:\d+ /);
    expect(report.problems).toEqual([expect.objectContaining({ file: 'src/broken.ts', kind: 'parse' })]);
    expect(report.summary.findingsByRule).toEqual({ 'parse-error': 1 });
    expect(cli(dir, 'check', '--exclude', 'src/broken.ts').status, 'excluding it clears the gate').toBe(0);
  });

  it('a broken file without any MCP marker is not the gate’s business', () => {
    const dir = copyOf('neg-stdio');
    fs.writeFileSync(path.join(dir, 'src', 'util.ts'), 'export const broken = (;\n');
    expect(cli(dir, 'check').status).toBe(0);
  });
});

describe('check and apply agree', () => {
  it('a stdio-only server: check finds nothing and apply --dry-run changes nothing (both targets)', () => {
    const dir = copyOf('neg-stdio');
    expect(json(dir, 'check').report.findings).toEqual([]);
    for (const target of ['2026-07-28', '2025-11-25']) {
      const { status, report } = json(dir, 'apply', '--dry-run', '--target', target);
      expect(report.changes, target).toEqual([]);
      expect(report.manual, target).toEqual([]);
      expect(status, target).toBe(0);
    }
  });

  it('every changed file names the rules (or the sdk-v2-surface step) that changed it', () => {
    const dir = copyOf('c-compat-both');
    const { report } = json(dir, 'apply', '--dry-run');
    expect(report.changes.length).toBeGreaterThan(1);
    for (const change of report.changes) expect(change.ruleIds.length, change.file).toBeGreaterThan(0);
    // its client module has no finding: only the v1→v2 surface step touches it
    expect(report.changes.find((c: { file: string }) => c.file === 'src/client.ts').ruleIds).toEqual(['sdk-v2-surface']);
  });
});

describe('--rule and --skip-rule limit every step of apply', () => {
  const files = (report: { changes: Array<{ file: string }> }) => report.changes.map((c) => c.file);
  const addsV2Import = (report: { changes: Array<{ diff: string }> }) =>
    report.changes.some((c) => /^\+.*['"]@modelcontextprotocol\/(server|node|express)['"]/m.test(c.diff));

  it('package.json and the v2 SDK surface move only with code that imports v2 (2026-07-28)', () => {
    const dir = copyOf('b-express-stateful');
    const all = json(dir, 'apply', '--dry-run').report;
    expect(files(all)).toContain('package.json');
    expect(addsV2Import(all)).toBe(true);
    // a rule whose fix stays on v1: no manifest edit, no SDK import rewritten anywhere
    const hints = json(dir, 'apply', '--dry-run', '--rule', 'idempotency-hint').report;
    expect(hints.changes.map((c: { file: string; ruleIds: string[] }) => [c.file, c.ruleIds])).toEqual([
      ['src/index.ts', ['idempotency-hint']],
    ]);
    expect(hints.changes[0].diff).not.toMatch(/^[-+].*@modelcontextprotocol\//m);
    expect(hints.manual.filter((m: { ruleId: string }) => m.ruleId === 'sdk-v2-surface')).toEqual([]);
  });

  it('--rule origin-validation on 2025-11-25 changes the endpoint file only, never the manifest', () => {
    const dir = copyOf('b-express-stateful');
    const { report } = json(dir, 'apply', '--dry-run', '--target', '2025-11-25', '--rule', 'origin-validation');
    expect(report.changes.map((c: { file: string; ruleIds: string[] }) => [c.file, c.ruleIds])).toEqual([
      ['src/index.ts', ['origin-validation']],
    ]);
    expect(addsV2Import(report)).toBe(false);
  });
});

// Issue 12 §1: after `apply`, a tool that still reads `extra.sessionId` (or a store that session callbacks filled)
// has an error marker carrying the handle recipe, so `check` fails; the code that fills the state is never removed
// while a tool still reads it.
describe('session state: behaviour is preserved, or the gate is red', () => {
  // (credentials each request carries again are read from the request by the migration itself: see below)
  const stateful = fixtureNames((m) => m.expectedRules.includes('session-state') && !m.autoMigratable);
  const carried = fixtureNames((m) => m.expectedRules.includes('session-state') && m.autoMigratable);
  const sessionIdReads = (dir: string) =>
    sourceTexts(dir).flatMap(({ file, text }) =>
      text
        .split('\n')
        .flatMap((line, index) =>
          /\b(?:extra|ctx)\.sessionId\b/.test(line) && !/^\s*(?:\/\/|\/\*|\*)/.test(line) ? [`${file}:${index + 1}`] : [],
        ),
    );

  it('covers every fixture server whose tools keep session state', () => {
    expect(stateful).toEqual(expect.arrayContaining(['f-session-cart', 'f-session-journal-mjs']));
  });

  for (const name of stateful) {
    for (const target of ['2025-11-25', '2026-07-28'] as const) {
      it(`${name} (${target}, without --unsafe): every remaining state read is an error marker with the recipe`, async () => {
        const dir = copyOf(name);
        apply({ paths: [dir], cwd: dir, allowDirty: true, target });
        const report = await check({ paths: [dir], cwd: dir });
        // An endpoint that keeps its sessions (and its state write) carries the recipe on its session-id marker.
        const markers = report.findings.filter(
          (f) =>
            f.data?.marker && (f.ruleId === 'session-state' || (f.ruleId === 'session-id' && /keeps state per session/.test(f.message))),
        );
        expect(markers.length).toBeGreaterThan(0);
        for (const marker of markers) {
          expect(marker.severity).toBe('error');
          expect(marker.message).toMatch(/open_session.*session_handle/);
        }
        // Each tool statement that reads the id sits under a marker (the marker is the line above its statement).
        const warnings = report.findings.filter((f) => f.ruleId === 'session-state' && !f.data?.marker);
        for (const warning of warnings) {
          const above = markers.filter((m) => m.file === warning.file && m.line < warning.line);
          expect(above.length, `${warning.file}:${warning.line} is marked`).toBeGreaterThan(0);
        }
        expect(sessionIdReads(dir).length).toBe(warnings.filter((w) => /sessionId/.test(w.message)).length);
      });
    }
  }

  it('covers a fixture server whose session state is credentials each request carries again', () => {
    expect(carried).toContain('b-session-credentials');
  });

  for (const name of carried) {
    for (const target of ['2025-11-25', '2026-07-28'] as const) {
      it(`${name} (${target}): the credentials are read from each request, so no state read and no marker is left`, async () => {
        const dir = copyOf(name);
        apply({ paths: [dir], cwd: dir, allowDirty: true, target });
        const report = await check({ paths: [dir], cwd: dir });
        expect(report.findings.filter((f) => f.ruleId === 'session-state' || f.data?.marker)).toEqual([]);
        expect(sessionIdReads(dir)).toEqual([]);
      });
    }
  }

  it('f-session-journal-mjs: the callback that fills the journal stays while tools read it (both targets, --unsafe too)', async () => {
    for (const target of ['2025-11-25', '2026-07-28'] as const) {
      for (const unsafe of [false, true]) {
        const dir = copyOf('f-session-journal-mjs');
        apply({ paths: [dir], cwd: dir, allowDirty: true, target, unsafe });
        const text = fs.readFileSync(path.join(dir, 'src', 'server.mjs'), 'utf8');
        expect(text, `${target} unsafe=${unsafe}`).toContain('onsessioninitialized');
        expect(text).toContain('sessions.set(id, { transport, history: [] })');
        expect(text).not.toContain('sessionHandleState');
        const errors = (await check({ paths: [dir], cwd: dir })).findings.filter((f) => f.severity === 'error');
        expect(errors.map((f) => f.ruleId)).toEqual(expect.arrayContaining(['session-id', 'session-state']));
      }
    }
  });
});

function sourceTexts(dir: string): Array<{ file: string; text: string }> {
  return fs
    .readdirSync(path.join(dir, 'src'), { recursive: true, encoding: 'utf8' })
    .filter((file) => /\.[cm]?[jt]s$/.test(file))
    .map((file) => ({ file: `src/${file}`, text: fs.readFileSync(path.join(dir, 'src', file), 'utf8') }));
}
