// The worker pool must not change what `check` reports: on a generated monorepo with enough candidates for the pool,
// the result and every rendered format are the same, byte for byte, with 1 (this thread), 2 and 3 workers. The
// compiled engine is used (workers run dist/ code; `npm test` builds first). Only the run's duration may differ.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, expect, it } from 'vitest';
import type { CheckResult } from '../src/model';
import { REPORT_FORMATS, renderReport } from '../src/report';
import { allRuleMetas } from '../src/rules';
import { isCandidate } from '../src/engine/prefilter';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { check, POOL_MIN_CANDIDATES } = require('../dist/src/engine/check.js') as typeof import('../src/engine/check');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { makeTree } = require('../bench/tree.js') as { makeTree(root: string, options: object): number };

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-migrate-workers-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

function candidatesIn(dir: string): number {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.(?:[cm]?[jt]s|[jt]sx)$/.test(entry.name))
    .filter((entry) => isCandidate(fs.readFileSync(path.join(entry.parentPath, entry.name), 'utf8'))).length;
}

function rendered(result: CheckResult): string[] {
  const fixed = { ...result, summary: { ...result.summary, durationMs: 0 } };
  return [
    JSON.stringify(fixed),
    ...REPORT_FORMATS.map((format) => renderReport(fixed, format, { color: false, rules: [...allRuleMetas], toolVersion: '0.0.0' })),
  ];
}

it('reports the same bytes whatever the number of workers', async () => {
  makeTree(root, { files: 500, copies: 2, seed: 7 });
  expect(candidatesIn(root)).toBeGreaterThanOrEqual(POOL_MIN_CANDIDATES);
  const alone = await check({ paths: [root], cwd: root, jobs: 1 });
  expect(alone.findings.length).toBeGreaterThan(100);
  const expected = rendered(alone);
  for (const jobs of [2, 3]) {
    const pooled = rendered(await check({ paths: [root], cwd: root, jobs }));
    pooled.forEach((output, index) => expect(output, `${['result', ...REPORT_FORMATS][index]} with ${jobs} workers`).toBe(expected[index]));
  }
});

it('loads no parser on this thread when workers analyse', () => {
  const script =
    `require(${JSON.stringify(path.join(__dirname, '..', 'dist', 'src', 'engine', 'check.js'))})` +
    `.check({ paths: [${JSON.stringify(root)}], cwd: ${JSON.stringify(root)}, jobs: 2 })` +
    `.then(() => console.log(Object.keys(require.cache).some((m) => m.includes('${path.sep}ts-morph${path.sep}'))));`;
  const run = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
  expect(run.stdout.trim()).toBe('false');
});

it('hands back the chunks a worker runs out of heap on, for the caller to analyse', async () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { AnalysisPool } = require('../dist/src/engine/analysis-pool.js') as typeof import('../src/engine/analysis-pool');
  const plan = (name: string) => ({
    files: [
      { absPath: path.join(root, name), relPath: name, text: "import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';\n" },
    ],
    originProbes: [],
    rest: [],
  });
  // 16 MB is too little for a worker to load the parser.
  const results = await new AnalysisPool(2, 16).analyze([[plan('a.ts')], [plan('b.ts')], [plan('c.ts')]], undefined, 1_000_000);
  expect(results).toEqual([undefined, undefined, undefined]);
});
