// The official conformance runner (@modelcontextprotocol/conformance 0.2.0-alpha.12, which needs Node 22) against
// fixture servers migrated to the 2026-07-28 target. Node 22 and the runner come from the npm registry into
// .tmp/conformance on first use. 24/28 is the ceiling for an ordinary server on `server-stateless`: the four other
// checks call the runner's own fixture tools (test_missing_capability, test_logging_tool, …).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { apply } from '../src/engine/apply';
import { bootFixture, compileFixture, disposeFixture, prepareFixture, REPO_ROOT, type RunningFixture } from './helpers/server-process';

const RUNNER_DIR = path.join(REPO_ROOT, '.tmp', 'conformance');
const NODE22 = path.join(RUNNER_DIR, 'node_modules', '.bin', 'node');
const RUNNER = path.join(RUNNER_DIR, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
/** Checks that need the runner's own fixture tools, which an ordinary server does not have. */
const NEEDS_RUNNER_TOOLS = [
  'sep-2575-server-rejects-undeclared-capability',
  'sep-2575-missing-capability-http-400',
  'sep-2575-http-server-no-independent-requests-on-stream',
  'sep-2575-server-no-log-without-loglevel',
];

const running: RunningFixture[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.stop()));
});

beforeAll(() => {
  if (fs.existsSync(NODE22) && fs.existsSync(RUNNER)) return;
  fs.mkdirSync(RUNNER_DIR, { recursive: true });
  fs.writeFileSync(path.join(RUNNER_DIR, 'package.json'), '{ "private": true }\n');
  const install = spawnSync('npm', ['install', '--no-audit', '--no-fund', 'node@22', '@modelcontextprotocol/conformance@0.2.0-alpha.12'], {
    cwd: RUNNER_DIR,
    encoding: 'utf8',
    timeout: 300_000,
  });
  if (install.status !== 0) throw new Error(`could not install Node 22 and the conformance runner:\n${install.stderr}`);
}, 320_000);

interface Outcome {
  passed: number;
  total: number;
  failures: string[];
}

function conformance(url: string, scenario: string): Outcome {
  const run = spawnSync(NODE22, [RUNNER, 'server', '--url', url, '--scenario', scenario], {
    encoding: 'utf8',
    timeout: 120_000,
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
  });
  // eslint-disable-next-line no-control-regex
  const output = `${run.stdout}\n${run.stderr}`.replace(/\x1b\[[0-9;]*m/g, '');
  const summary = /Passed:\s*(\d+)\/(\d+)/.exec(output);
  if (!summary) throw new Error(`no summary from the conformance runner (exit ${run.status}):\n${output.slice(-3000)}`);
  const failures = [...output.matchAll(/\[([\w-]+)\s*\]\s+FAILURE/g)].map((m) => m[1]);
  return { passed: Number(summary[1]), total: Number(summary[2]), failures: [...new Set(failures)].sort() };
}

describe('official conformance runner on migrated servers (target 2026-07-28)', () => {
  for (const name of [
    'a-express-shared-server',
    'b-express-stateful',
    'a-node-http',
    'e-hono-web-standard',
    'e-fastify-reply-raw',
    'e-web-fetch-worker',
  ]) {
    it(`${name}: server-stateless reaches the 24/28 ceiling, dns-rebinding-protection passes`, async () => {
      const { dir, manifest } = await prepareFixture(name);
      const result = apply({ paths: [dir], cwd: dir, allowDirty: true, target: '2026-07-28' });
      expect(result.problems).toEqual([]);
      await compileFixture(dir);
      const server = await bootFixture(dir, manifest);
      running.push(server);
      // The runner requires a localhost URL for the DNS-rebinding scenario.
      const url = `http://localhost:${server.port}${manifest.mcpPath ?? '/mcp'}`;

      const stateless = conformance(url, 'server-stateless');
      expect(stateless.total).toBe(28);
      expect(stateless.passed).toBe(24);
      expect(stateless.failures).toEqual([...NEEDS_RUNNER_TOOLS].sort());

      const rebinding = conformance(url, 'dns-rebinding-protection');
      expect(rebinding).toEqual({ passed: 2, total: 2, failures: [] });
      await server.stop();
      await disposeFixture(dir);
    }, 240_000);
  }
});
