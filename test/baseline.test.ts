// The baseline: --baseline-write records today's findings; with --baseline only new ones fail the gate, moved code
// still matches (fingerprints are line-independent), and fixed entries are reported as stale.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { FIXTURES_DIR, REPO_ROOT, scratchDir } from './helpers/server-process';

const cli = (cwd: string, ...args: string[]) =>
  spawnSync(process.execPath, [path.join(REPO_ROOT, 'bin', 'mcp-migrate.js'), ...args, '--no-color'], { cwd, encoding: 'utf8' });
const json = (cwd: string, ...args: string[]) => {
  const run = cli(cwd, ...args, '--format', 'json');
  return { status: run.status, report: JSON.parse(run.stdout), stderr: run.stderr };
};

describe('baseline', () => {
  it('old findings pass, new ones fail, fixed ones are stale; moving code keeps them matched', () => {
    const repo = scratchDir('baseline', 'repo');
    fs.cpSync(path.join(FIXTURES_DIR, 'b-express-stateful'), path.join(repo, 'server'), { recursive: true });
    const index = path.join(repo, 'server', 'src', 'index.ts');

    const before = json(repo, 'check', 'server');
    expect(before.status).toBe(1);
    const written = json(repo, 'check', 'server', '--baseline-write', 'ci/mcp-migrate-baseline.json');
    expect(written.status, 'a fresh baseline accepts everything').toBe(0);
    expect(written.report.baseline).toMatchObject({ file: 'ci/mcp-migrate-baseline.json', old: before.report.findings.length, new: 0 });
    const baseline = JSON.parse(fs.readFileSync(path.join(repo, 'ci', 'mcp-migrate-baseline.json'), 'utf8'));
    expect(baseline.version).toBe(1);
    expect(baseline.findings[0].file, 'relative to the baseline file').toBe('../server/src/index.ts');
    const counted = baseline.findings.filter((e: { count: number }) => e.count > 1);
    expect(counted.length, 'identical findings share one entry, counted').toBeGreaterThan(0);
    expect(baseline.findings.reduce((n: number, e: { count: number }) => n + e.count, 0)).toBe(before.report.findings.length);

    // unrelated lines above everything: every finding moves, none is new
    fs.writeFileSync(index, `// a header comment\n// that moves every line\n\n${fs.readFileSync(index, 'utf8')}`);
    const moved = json(repo, 'check', 'server', '--baseline', 'ci/mcp-migrate-baseline.json');
    expect(moved.report.findings).toEqual([]);
    expect(moved.report.baseline).toMatchObject({ old: before.report.findings.length, new: 0, stale: [] });
    expect(moved.status).toBe(0);

    // a new legacy transport in another file fails the gate, and only it is listed
    fs.writeFileSync(
      path.join(repo, 'server', 'src', 'legacy.ts'),
      "import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';\nexport const make = (res: never) => new SSEServerTransport('/messages', res);\n",
    );
    const added = json(repo, 'check', 'server', '--baseline', 'ci/mcp-migrate-baseline.json');
    expect(added.status).toBe(1);
    expect(new Set(added.report.findings.map((f: { file: string }) => f.file))).toEqual(new Set(['server/src/legacy.ts']));
    expect(added.report.baseline.new).toBe(added.report.findings.length);

    // fixing a baselined finding leaves a stale entry, reported and not failing
    fs.rmSync(path.join(repo, 'server', 'src', 'legacy.ts'));
    fs.writeFileSync(index, fs.readFileSync(index, 'utf8').replace('      eventStore: new InMemoryEventStore(),\n', ''));
    const fixed = json(repo, 'check', 'server', '--baseline', 'ci/mcp-migrate-baseline.json');
    expect(fixed.status).toBe(0);
    expect(fixed.report.baseline.stale).toEqual([
      expect.objectContaining({ file: 'server/src/index.ts', ruleId: 'last-event-id', count: 1 }),
    ]);
    const text = cli(repo, 'check', 'server', '--baseline', 'ci/mcp-migrate-baseline.json').stdout;
    expect(text).toMatch(/Baseline ci\/mcp-migrate-baseline\.json: \d+ known findings not shown, 0 new\./);
    expect(text).toContain(
      'Stale entries (fixed since the baseline was written; prune with --baseline-write ci/mcp-migrate-baseline.json):',
    );

    // a second identical finding is new: entries are counted
    const headerRead = "  const sessionId = req.headers['mcp-session-id'] as string | undefined;\n";
    fs.writeFileSync(index, fs.readFileSync(index, 'utf8').replace(headerRead, `${headerRead}  void req.headers['mcp-session-id'];\n`));
    const second = json(repo, 'check', 'server', '--baseline', 'ci/mcp-migrate-baseline.json');
    expect(second.status).toBe(1);
    expect(second.report.findings.map((f: { ruleId: string; message: string }) => [f.ruleId, f.message])).toEqual([
      ['session-id', 'Protocol session: the `Mcp-Session-Id` header is read or written here.'],
    ]);
  });

  it('from the configuration (relative to its file), from another folder; a missing or malformed baseline is exit 2', () => {
    const repo = scratchDir('baseline', 'config');
    fs.cpSync(path.join(FIXTURES_DIR, 'b-express-stateful'), path.join(repo, 'server'), { recursive: true });
    expect(cli(repo, 'check', 'server', '--baseline-write', 'baseline.json').status).toBe(0);
    fs.writeFileSync(path.join(repo, 'mcp-migrate.config.json'), JSON.stringify({ baseline: 'baseline.json' }));
    expect(cli(path.join(repo, 'server'), 'check').status, 'config found upward, baseline resolved from its folder').toBe(0);
    fs.writeFileSync(path.join(repo, 'baseline.json'), '{"version": 9}');
    const malformed = cli(repo, 'check', 'server');
    expect(malformed.status).toBe(2);
    expect(malformed.stderr).toContain('not an mcp-migrate baseline');
    expect(cli(repo, 'check', 'server', '--config', 'none.json').status).toBe(2);
    fs.rmSync(path.join(repo, 'mcp-migrate.config.json'));
    const missing = cli(repo, 'check', 'server', '--baseline', 'nope.json');
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain('cannot read the baseline');
  });
});
