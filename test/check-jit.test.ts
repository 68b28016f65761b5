// The CLI runs a short `check` without V8's optimising compiler (src/cli/jit.ts). It must learn how much there is to
// analyse exactly once, on the analysing thread, and the findings must not depend on it: the CLI's JSON (TurboFan off
// for these trees) is compared with the same run made in this process (TurboFan on).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, expect, it } from 'vitest';
import { check } from '../src/engine/check';
import { plannedSources, readTree } from '../src/engine/read-tree';
import { runCheck } from '../src/pipeline';
import { renderReport } from '../src/report';
import { allRuleMetas } from '../src/rules';
import { SHORT_CHECK_FILES, turbofanOffFor } from '../src/cli/jit';

const ROOT = path.resolve(__dirname, '..');
const SERVERS = path.join(ROOT, 'fixtures', 'servers');
const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-migrate-jit-'));
afterAll(() => fs.rmSync(empty, { recursive: true, force: true }));

it('turns TurboFan off up to SHORT_CHECK_FILES analysed files, and only then', () => {
  expect(turbofanOffFor(1)).toBe(true);
  expect(turbofanOffFor(SHORT_CHECK_FILES)).toBe(true);
  expect(turbofanOffFor(SHORT_CHECK_FILES + 1)).toBe(false);
});

it('tells beforeAnalysis once how many files the plans analyse and probe, and reports the same', async () => {
  const options = { paths: [SERVERS], cwd: ROOT, jobs: 1 };
  const { plans } = plannedSources(readTree(options));
  const planned = plans.reduce((sum, plan) => sum + plan.files.length + plan.originProbes.length, 0);
  expect(planned).toBeGreaterThan(30);
  const calls: number[] = [];
  const hooked = await check({ ...options, beforeAnalysis: (files) => calls.push(files) });
  expect(calls).toEqual([planned]);
  const plain = await check(options);
  expect({ ...hooked, summary: { ...hooked.summary, durationMs: 0 } }).toEqual({ ...plain, summary: { ...plain.summary, durationMs: 0 } });
});

it('does not call beforeAnalysis when nothing is to be analysed', async () => {
  fs.writeFileSync(path.join(empty, 'app.ts'), 'export const sessionId = "abc";\napp.listen(3000);\n');
  const calls: number[] = [];
  const result = await check({ paths: [empty], cwd: empty, jobs: 1, beforeAnalysis: (files) => calls.push(files) });
  expect(result.summary.filesParsed).toBe(0);
  expect(calls).toEqual([]);
});

it('the CLI (TurboFan off) prints the JSON this process (TurboFan on) renders, timings aside', async () => {
  const options = { paths: [path.join('fixtures', 'servers')], cwd: ROOT };
  expect(turbofanOffFor(plannedSources(readTree(options)).plans.reduce((n, p) => n + p.files.length + p.originProbes.length, 0))).toBe(
    true,
  );
  const run = spawnSync(process.execPath, [path.join(ROOT, 'bin', 'mcp-migrate.js'), 'check', ...options.paths, '--format', 'json'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  expect(run.status).toBe(1);
  const fromCli = JSON.parse(run.stdout);
  const here = JSON.parse(
    renderReport(await runCheck(options), 'json', { color: false, rules: [...allRuleMetas], toolVersion: fromCli.tool.version }),
  );
  expect(fromCli.findings.length).toBeGreaterThan(100);
  for (const report of [fromCli, here]) report.summary.durationMs = 0;
  expect(fromCli).toEqual(here);
});
