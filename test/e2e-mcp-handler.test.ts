// mcp-handler 1.x (fixtures/projects/mcp-handler-1-route), installed for real from its own package.json outside this
// repository: its route serves HTTP+SSE at /sse unless the config says `disableSse: true` (and, without Redis, a GET
// there takes the process down). `apply` turns SSE off on either target and puts the handler behind an Origin check;
// the migrated route answers 404 on /sse and /message, 405 on GET and DELETE /mcp, 403 to a foreign Origin, and serves
// the tool, with the hints apply inferred, to the SDK's v1 client.
// On 2026-07-28 the project stays on mcp-handler 1.x and the v1 SDK (mcp-handler 2 has another API), with a
// `v2-deferred` item that says so.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { apply } from '../src/engine/apply';
import { check } from '../src/engine/check';
import type { Target } from '../src/engine/targets';
import { bootNodeScript, REPO_ROOT, type RunningFixture } from './helpers/server-process';
import { INSTALL_TIMEOUT_MS, IsolatedProjects } from './helpers/isolated-project';

const PROJECT = path.join(REPO_ROOT, 'fixtures', 'projects', 'mcp-handler-1-route');
const projects = new IsolatedProjects('mcp-handler');
const running: RunningFixture[] = [];
let installed: string;

afterAll(async () => {
  await Promise.all(running.splice(0).map((server) => server.stop()));
  projects.removeAll();
});

beforeAll(async () => {
  installed = await projects.installed(PROJECT);
}, INSTALL_TIMEOUT_MS + 10_000);

async function boot(root: string): Promise<string> {
  const server = await bootNodeScript(root, 'serve.mjs', { REDIS_URL: '', KV_URL: '' });
  running.push(server);
  return server.url;
}

const status = async (url: string, method = 'GET') => (await fetch(url, { method, signal: AbortSignal.timeout(5_000) })).status;

async function addNote(base: string, text: string): Promise<string> {
  const client = new Client({ name: 'e2e-mcp-handler', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
  try {
    const { tools } = await client.listTools();
    const hints = tools.find((tool) => tool.name === 'add_note')?.annotations;
    const result = (await client.callTool({ name: 'add_note', arguments: { text } })) as { content: Array<{ text: string }> };
    return `${result.content[0].text} (readOnlyHint: ${hints?.readOnlyHint}, idempotentHint: ${hints?.idempotentHint})`;
  } finally {
    await client.close();
  }
}

describe('mcp-handler 1.x, installed', () => {
  for (const target of ['2025-11-25', '2026-07-28'] as Target[]) {
    it(`${target}: check finds its SSE, apply turns it off, and the route serves stateless Streamable HTTP only`, async () => {
      const root = projects.copy(installed);
      const before = await check({ paths: [root], cwd: root, gitignore: false });
      expect(before.findings.filter((f) => f.ruleId === 'legacy-sse-transport').map((f) => `${f.file}:${f.line}:${f.fix}`)).toEqual([
        'route.mjs:7:auto',
      ]);

      const result = apply({ paths: [root], cwd: root, allowDirty: true, target });
      expect(result.problems).toEqual([]);
      expect(result.changes.map((c) => c.file)).toEqual(['route.mjs']);
      const route = fs.readFileSync(path.join(root, 'route.mjs'), 'utf8');
      expect(route).toContain("{ basePath: '', maxDuration: 60, disableSse: true },");
      expect(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).toBe(fs.readFileSync(path.join(PROJECT, 'package.json'), 'utf8'));
      expect(result.manual.some((m) => m.ruleId === 'v2-deferred')).toBe(target === '2026-07-28');

      const after = await check({ paths: [root], cwd: root, gitignore: false });
      expect(after.findings.filter((f) => f.ruleId === 'legacy-sse-transport')).toEqual([]);
      expect(after.findings.filter((f) => f.ruleId === 'origin-validation')).toEqual([]);
      expect(route).toContain('const handler = withOriginCheck(createMcpHandler(');

      const base = await boot(root);
      expect(await status(`${base}/sse`)).toBe(404);
      expect(await status(`${base}/message`, 'POST')).toBe(404);
      expect(await status(`${base}/mcp`)).toBe(405);
      expect(await status(`${base}/mcp`, 'DELETE')).toBe(405);
      expect(await addNote(base, 'milk')).toBe('1 notes (readOnlyHint: false, idempotentHint: false)');
      const foreign = await fetch(`${base}/mcp`, {
        method: 'POST',
        headers: { Origin: 'https://evil.example', 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
        signal: AbortSignal.timeout(5_000),
      });
      expect(foreign.status).toBe(403);
    });
  }
});
