// The CLI runs a short `check` without V8's optimising compiler (src/cli/jit.ts). It must learn how much there is to
// analyse exactly once, on the analysing thread, and the findings must not depend on it: the CLI's JSON (TurboFan off
// for these trees) is compared with the same run made in this process (TurboFan on).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, expect, it } from 'vitest';
import { analysisWork, check, type AnalysisWork } from '../src/engine/check';
import { plannedSources, readTree } from '../src/engine/read-tree';
import { runCheck } from '../src/pipeline';
import { renderReport } from '../src/report';
import { allRuleMetas } from '../src/rules';
import { LARGE_GROUP_CHARS, MANY_FILES, turbofanOffFor } from '../src/cli/jit';

const ROOT = path.resolve(__dirname, '..');
const SERVERS = path.join(ROOT, 'fixtures', 'servers');
const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-migrate-jit-'));
afterAll(() => fs.rmSync(empty, { recursive: true, force: true }));

it('turns TurboFan off unless an import group is large or the files are many', () => {
  const small = { files: 350, chars: 516_000, largestGroupChars: 10_000 };
  expect(turbofanOffFor(small)).toBe(true);
  expect(turbofanOffFor({ ...small, files: MANY_FILES, largestGroupChars: LARGE_GROUP_CHARS })).toBe(true);
  expect(turbofanOffFor({ ...small, files: MANY_FILES + 1 })).toBe(false);
  expect(turbofanOffFor({ ...small, largestGroupChars: LARGE_GROUP_CHARS + 1 })).toBe(false);
});

it('tells beforeAnalysis once what the plans analyse and probe, and reports the same', async () => {
  const options = { paths: [SERVERS], cwd: ROOT, jobs: 1 };
  const { plans } = plannedSources(readTree(options));
  const files = plans.flatMap((plan) => [...plan.files, ...plan.originProbes]);
  expect(files.length).toBeGreaterThan(30);
  const work = analysisWork(plans);
  expect(work).toEqual({
    files: files.length,
    chars: files.reduce((sum, file) => sum + file.text.length, 0),
    largestGroupChars: Math.max(...plans.map((plan) => [...plan.files, ...plan.originProbes].reduce((n, f) => n + f.text.length, 0))),
  });
  expect(work.largestGroupChars).toBeLessThan(work.chars);
  const calls: AnalysisWork[] = [];
  const hooked = await check({ ...options, beforeAnalysis: (seen) => calls.push(seen) });
  expect(calls).toEqual([work]);
  const plain = await check(options);
  expect({ ...hooked, summary: { ...hooked.summary, durationMs: 0 } }).toEqual({ ...plain, summary: { ...plain.summary, durationMs: 0 } });
});

it('does not call beforeAnalysis when nothing is to be analysed', async () => {
  fs.writeFileSync(path.join(empty, 'app.ts'), 'export const sessionId = "abc";\napp.listen(3000);\n');
  const calls: AnalysisWork[] = [];
  const result = await check({ paths: [empty], cwd: empty, jobs: 1, beforeAnalysis: (work) => calls.push(work) });
  expect(result.summary.filesParsed).toBe(0);
  expect(calls).toEqual([]);
});

it('the CLI (TurboFan off) prints the JSON this process (TurboFan on) renders, timings aside', async () => {
  const options = { paths: [path.join('fixtures', 'servers')], cwd: ROOT };
  expect(turbofanOffFor(analysisWork(plannedSources(readTree(options)).plans))).toBe(true);
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
