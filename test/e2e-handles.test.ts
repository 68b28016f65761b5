// End-to-end proof for the explicit-handle rewrite (`apply --unsafe`): a server that kept carts by
// `extra.sessionId` and notes in a per-session factory now keeps them behind a handle that survives across
// requests served by different fresh server instances, and rejects an unknown handle with a tool error.
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { apply } from '../src/engine/apply';
import { bootFixture, compileFixture, disposeFixture, prepareFixture, type RunningFixture } from './helpers/server-process';

const running: RunningFixture[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.stop()));
});

type ToolResult = { content: Array<{ type: string; text?: string }>; isError?: boolean };
const text = (result: unknown) => (result as ToolResult).content.map((c) => c.text ?? '').join('\n');

async function connect(url: URL): Promise<Client> {
  const client = new Client({ name: 'handles-e2e', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url));
  return client;
}

describe('apply --unsafe: session state becomes explicit handles', () => {
  it('f-session-cart: state survives across fresh servers by handle; unknown handles are tool errors', async () => {
    const { dir, manifest } = await prepareFixture('f-session-cart');
    const result = apply({ paths: [dir], cwd: dir, allowDirty: true, unsafe: true, target: '2025-11-25' });
    expect(result.problems).toEqual([]);
    expect(result.findings.filter((f) => f.ruleId === 'session-state' || f.severity === 'error')).toEqual([]);
    expect(result.changes.find((c) => c.file === 'src/server.ts')?.ruleIds).toContain('session-state');

    await compileFixture(dir);
    const server = await bootFixture(dir, manifest);
    running.push(server);
    const url = new URL('/mcp', server.url);

    const first = await connect(url);
    const tools = await first.listTools();
    const open = tools.tools.find((t) => t.name === 'open_session');
    expect(open?.annotations).toMatchObject({ readOnlyHint: false });
    expect(open?.description).toMatch(/expires 1 hour after its last use/);
    const addItem = tools.tools.find((t) => t.name === 'add_item');
    expect(addItem?.inputSchema.required).toContain('session_handle');

    const handle = text(await first.callTool({ name: 'open_session', arguments: {} }));
    expect(handle).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const added = await first.callTool({ name: 'add_item', arguments: { item: 'apple', quantity: 2, session_handle: handle } });
    expect(text(added)).toContain('Added 2 × apple');
    await first.callTool({ name: 'add_note', arguments: { note: 'ring twice', session_handle: handle } });
    await first.close();

    // A new connection: every request reaches a fresh server instance; only the handle carries the state.
    const second = await connect(url);
    expect(text(await second.callTool({ name: 'view_cart', arguments: { session_handle: handle } }))).toContain('2 × apple');
    expect(text(await second.callTool({ name: 'add_note', arguments: { note: 'leave at door', session_handle: handle } }))).toContain(
      'Notes: ring twice | leave at door',
    );

    const otherHandle = text(await second.callTool({ name: 'open_session', arguments: {} }));
    expect(otherHandle).not.toBe(handle);
    expect(text(await second.callTool({ name: 'view_cart', arguments: { session_handle: otherHandle } }))).toContain('Your cart is empty');

    const unknown = (await second.callTool({ name: 'view_cart', arguments: { session_handle: 'not-a-handle' } })) as ToolResult;
    expect(unknown.isError).toBe(true);
    expect(text(unknown)).toContain('call open_session');
    await second.close();

    const again = apply({ paths: [dir], cwd: dir, allowDirty: true, unsafe: true, target: '2025-11-25' });
    expect(again.changes).toEqual([]);
    await server.stop();
    await disposeFixture(dir);
  });

  it('without --unsafe the stateful tools are listed as manual and marked with the handle recipe, not rewritten', async () => {
    const { dir } = await prepareFixture('f-session-cart');
    const result = apply({ paths: [dir], cwd: dir, allowDirty: true, dryRun: true, target: '2025-11-25' });
    const diff = result.changes.find((c) => c.file === 'src/server.ts')?.diff ?? '';
    expect(diff).not.toMatch(/^\+.*session_handle: z\./m);
    const manual = result.manual.filter((m) => m.ruleId === 'session-state');
    const markers = manual.filter((m) => m.message.startsWith('Manual migration left by mcp-migrate'));
    expect(manual.length - markers.length).toBe(3);
    expect(markers.length).toBe(3);
    for (const marker of markers) expect(marker.message).toMatch(/open_session.*session_handle.*TTL/);
    await disposeFixture(dir);
  });
});
