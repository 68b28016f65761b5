// End-to-end proof for request-scoped credentials: b-session-credentials filed each caller's tenant (from the
// X-Tenant header) under its session id, and its tools read it back by session id. After `apply` (both targets, no
// --unsafe) the endpoint is stateless, and two callers talking to it at the same time with the official SDK client
// over HTTP each see their own tenant on every call; a caller without the header gets 401, as before.
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { apply } from '../src/engine/apply';
import { bootFixture, compileFixture, disposeFixture, prepareFixture, type RunningFixture } from './helpers/server-process';

const running: RunningFixture[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.stop()));
});

type ToolResult = { content: Array<{ type: string; text?: string }> };
const text = (result: unknown) => (result as ToolResult).content.map((c) => c.text ?? '').join('\n');

async function connectAs(url: URL, tenant: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: `credentials-e2e-${tenant}`, version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers: { 'X-Tenant': tenant } } });
  await client.connect(transport);
  return { client, transport };
}

describe('apply: credentials filed by session id are read from each request', () => {
  for (const target of ['2025-11-25', '2026-07-28'] as const)
    it(`b-session-credentials (${target}): each caller's tools see that caller's tenant`, async () => {
      const { dir, manifest } = await prepareFixture('b-session-credentials');
      const result = apply({ paths: [dir], cwd: dir, allowDirty: true, target });
      expect(result.problems).toEqual([]);
      // (on 2026-07-28 the manifest's move to the v2 packages is listed for a human to install)
      expect(result.manual.filter((m) => m.file !== 'package.json')).toEqual([]);
      expect(result.changes.map((c) => c.file)).toEqual(expect.arrayContaining(['src/index.ts', 'src/tenants.ts']));

      await compileFixture(dir);
      const server = await bootFixture(dir, manifest);
      running.push(server);
      const url = new URL('/mcp', server.url);

      const acme = await connectAs(url, 'acme');
      const globex = await connectAs(url, 'globex');
      expect(acme.transport.sessionId).toBeUndefined();
      // Interleaved calls: each is served inside its own request's scope.
      const calls = await Promise.all([
        acme.client.callTool({ name: 'whoami', arguments: {} }),
        globex.client.callTool({ name: 'whoami', arguments: {} }),
        acme.client.callTool({ name: 'list_notes', arguments: {} }),
        globex.client.callTool({ name: 'list_notes', arguments: {} }),
      ]);
      expect(calls.map(text)).toEqual([
        'tenant acme (plan team)',
        'tenant globex (plan free)',
        'renew the TLS certificate',
        'order more coffee\ncall Hank',
      ]);
      await Promise.all([acme.client.close(), globex.client.close()]);

      const anonymous = await fetch(url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(anonymous.status).toBe(401);

      const again = apply({ paths: [dir], cwd: dir, allowDirty: true, target });
      expect(again.changes).toEqual([]);
      await server.stop();
      await disposeFixture(dir);
    });
});
