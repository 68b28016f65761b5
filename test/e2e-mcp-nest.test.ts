// @rekog/mcp-nest 1.x (fixtures/projects/mcp-nest-1-module), installed for real from its own package.json outside this
// repository. Its `McpModule.forRoot` names no `transport`, so the module serves HTTP+SSE at /sse and Streamable HTTP
// at /mcp, and checks no Origin. `apply` lists Streamable HTTP (and stdio) without SSE and puts an Origin guard first
// in the module's `guards`; the project builds with its own `tsc`, /sse answers 404, a foreign Origin 403, and the
// SDK's v1 client lists and calls the tool. On 2026-07-28 the project stays on 1.x and the v1 SDK (its 2.x is on v2),
// with a `v2-deferred` item that says so.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { apply } from '../src/engine/apply';
import { check } from '../src/engine/check';
import type { Target } from '../src/engine/targets';
import { bootNodeScript, REPO_ROOT, type RunningFixture } from './helpers/server-process';
import { INSTALL_TIMEOUT_MS, IsolatedProjects, run } from './helpers/isolated-project';

const PROJECT = path.join(REPO_ROOT, 'fixtures', 'projects', 'mcp-nest-1-module');
const projects = new IsolatedProjects('mcp-nest');
const running: RunningFixture[] = [];
let installed: string;

afterAll(async () => {
  await Promise.all(running.splice(0).map((server) => server.stop()));
  projects.removeAll();
});

beforeAll(async () => {
  installed = await projects.installed(PROJECT);
}, INSTALL_TIMEOUT_MS + 10_000);

const status = async (url: string, init: RequestInit = {}) => (await fetch(url, { ...init, signal: AbortSignal.timeout(5_000) })).status;

async function countBooks(base: string): Promise<string> {
  const client = new Client({ name: 'e2e-mcp-nest', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
  try {
    const { tools } = await client.listTools();
    const result = (await client.callTool({ name: 'count_books', arguments: {} })) as { content: Array<{ text: string }> };
    return `${tools.map((tool) => tool.name).join(',')}: ${result.content[0].text}`;
  } finally {
    await client.close();
  }
}

describe('@rekog/mcp-nest 1.x, installed', () => {
  for (const target of ['2025-11-25', '2026-07-28'] as Target[]) {
    it(`${target}: apply drops SSE, guards Origin, and the module serves stateless Streamable HTTP`, async () => {
      const root = projects.copy(installed);
      const before = await check({ paths: [root], cwd: root, gitignore: false });
      expect(
        before.findings.map((f) => `${f.ruleId}:${f.file}:${f.line}:${f.fix}`).filter((f) => !f.startsWith('idempotency-hint')),
      ).toEqual(['legacy-sse-transport:src/app.module.ts:6:auto', 'origin-validation:src/app.module.ts:6:auto']);

      const result = apply({ paths: [root], cwd: root, allowDirty: true, target });
      expect(result.problems).toEqual([]);
      expect(result.changes.map((c) => c.file)).toContain('src/app.module.ts');
      const module = fs.readFileSync(path.join(root, 'src', 'app.module.ts'), 'utf8');
      expect(module).toContain('guards: [McpOriginGuard],');
      expect(module).toContain('transport: [McpTransportType.STREAMABLE_HTTP, McpTransportType.STDIO]');
      expect(result.manual.some((m) => m.ruleId === 'v2-deferred')).toBe(target === '2026-07-28');
      const after = await check({ paths: [root], cwd: root, gitignore: false });
      expect(after.findings.filter((f) => ['legacy-sse-transport', 'session-id', 'origin-validation'].includes(f.ruleId))).toEqual([]);

      await run(root, 'npx', ['tsc', '-p', '.'], 120_000);
      const server = await bootNodeScript(root, 'dist/main.js');
      running.push(server);
      expect(await status(`${server.url}/sse`)).toBe(404);
      expect(await status(`${server.url}/mcp`)).toBe(405);
      const foreign = await status(`${server.url}/mcp`, {
        method: 'POST',
        headers: { Origin: 'https://evil.example', 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(foreign).toBe(403);
      expect(await countBooks(server.url)).toBe('count_books: 2 books');
    });
  }
});
