// End-to-end proof for the explicit-handle rewrite (`apply --unsafe`): a server that kept carts by
// `extra.sessionId` and notes in a per-session factory now keeps them behind a handle that survives across
// requests served by different fresh server instances, and rejects an unknown handle with a tool error; a resource
// the per-session factory opened belongs to the handle, which closes it when it expires; a low-level `tools/call`
// dispatcher reads its per-session board by handle; a server a package builds per session belongs to a handle,
// behind a server per request that forwards to it (both targets).
import * as fs from 'node:fs';
import * as path from 'node:path';
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
  for (const target of ['2025-11-25', '2026-07-28'] as const)
    it(`f-session-cart (${target}): state survives across fresh servers by handle; unknown handles are tool errors`, async () => {
      const { dir, manifest } = await prepareFixture('f-session-cart');
      const result = apply({ paths: [dir], cwd: dir, allowDirty: true, unsafe: true, target });
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
      expect(text(await second.callTool({ name: 'view_cart', arguments: { session_handle: otherHandle } }))).toContain(
        'Your cart is empty',
      );

      const unknown = (await second.callTool({ name: 'view_cart', arguments: { session_handle: 'not-a-handle' } })) as ToolResult;
      expect(unknown.isError).toBe(true);
      expect(text(unknown)).toContain('call open_session');
      await second.close();

      const again = apply({ paths: [dir], cwd: dir, allowDirty: true, unsafe: true, target });
      expect(again.changes).toEqual([]);
      await server.stop();
      await disposeFixture(dir);
    });

  for (const target of ['2025-11-25', '2026-07-28'] as const) {
    it(`f-session-resource (${target}): the handle owns the sandbox across fresh servers; expiry closes it`, async () => {
      const { dir, manifest } = await prepareFixture('f-session-resource');
      const result = apply({ paths: [dir], cwd: dir, allowDirty: true, unsafe: true, target });
      expect(result.problems).toEqual([]);
      expect(result.findings.filter((f) => f.ruleId === 'session-state' || f.severity === 'error')).toEqual([]);
      // Tune the generated lifetime down (as the generated comment invites) so the test can watch a handle expire.
      const serverFile = path.join(dir, 'src', 'server.ts');
      const migrated = fs.readFileSync(serverFile, 'utf8');
      expect(migrated).toContain('const SESSION_HANDLE_TTL_MS = 60 * 60 * 1000;');
      expect(migrated).not.toMatch(/onclose/);
      fs.writeFileSync(
        serverFile,
        migrated.replace('const SESSION_HANDLE_TTL_MS = 60 * 60 * 1000;', 'const SESSION_HANDLE_TTL_MS = 1500;'),
      );

      await compileFixture(dir);
      const server = await bootFixture(dir, manifest);
      running.push(server);
      const url = new URL('/mcp', server.url);
      const opened = () => server.stderr().match(/sandbox \w+ opened/g) ?? [];

      const first = await connect(url);
      const handle = text(await first.callTool({ name: 'open_session', arguments: {} }));
      expect(opened().length, 'open_session creates the sandbox').toBe(1);
      expect(
        text(await first.callTool({ name: 'write_file', arguments: { path: 'plan.md', text: 'step 1', session_handle: handle } })),
      ).toContain('sandbox has 1 file(s)');
      await first.close();

      // Fresh servers, a new connection: the second step finds the first step's sandbox by handle, and no new one is made.
      const second = await connect(url);
      expect(text(await second.callTool({ name: 'read_file', arguments: { path: 'plan.md', session_handle: handle } }))).toBe('step 1');
      expect(opened().length).toBe(1);
      const unknown = (await second.callTool({ name: 'read_file', arguments: { path: 'plan.md', session_handle: 'nope' } })) as ToolResult;
      expect(unknown.isError).toBe(true);
      expect(text(unknown)).toContain('call open_session');

      const id = /sandbox (\w+) opened/.exec(server.stderr())![1];
      expect(server.stderr()).not.toContain(`sandbox ${id} closed`);
      await new Promise((resolve) => setTimeout(resolve, 2000));
      const expired = (await second.callTool({ name: 'read_file', arguments: { path: 'plan.md', session_handle: handle } })) as ToolResult;
      expect(expired.isError).toBe(true);
      expect(text(expired)).toContain('call open_session');
      await expect.poll(() => server.stderr(), { timeout: 2000 }).toContain(`sandbox ${id} closed`);
      await second.close();
      await server.stop();
      await disposeFixture(dir);
    });
  }

  for (const target of ['2025-11-25', '2026-07-28'] as const)
    it(`f-low-level-board (${target}): a low-level tools/call dispatcher keeps its board by handle across fresh servers; open_session fills it as initialize did`, async () => {
      const { dir, manifest } = await prepareFixture('f-low-level-board');
      const result = apply({ paths: [dir], cwd: dir, allowDirty: true, unsafe: true, target });
      expect(result.problems).toEqual([]);
      expect(result.findings.filter((f) => f.ruleId === 'session-state' || f.severity === 'error')).toEqual([]);
      const migrated = fs.readFileSync(path.join(dir, 'src', 'server.ts'), 'utf8');
      expect(migrated).not.toMatch(/directory\.open\(|directory\.boardOf\(|sessionIdGenerator: \(\)/);

      await compileFixture(dir);
      const server = await bootFixture(dir, manifest);
      running.push(server);
      const url = new URL('/mcp', server.url);

      const first = await connect(url);
      const tools = (await first.listTools()).tools;
      expect(tools[0]?.name).toBe('open_session');
      for (const tool of tools.slice(1)) expect(tool.inputSchema.required, tool.name).toContain('session_handle');
      expect(tools.find((t) => t.name === 'pin_card')?.inputSchema.required).toEqual(['title', 'session_handle']);
      const handle = text(await first.callTool({ name: 'open_session', arguments: {} }));
      expect(handle).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(text(await first.callTool({ name: 'pin_card', arguments: { title: 'draft', session_handle: handle } }))).toContain(
        'the board has 2 card(s)',
      );
      await first.close();

      // A new connection, fresh servers: the second step finds the first step's board by handle alone.
      const second = await connect(url);
      expect(text(await second.callTool({ name: 'pin_card', arguments: { title: 'review', session_handle: handle } }))).toContain(
        'the board has 3 card(s)',
      );
      // The standing card came from the initialize code that open_session now runs for each new board.
      expect(text(await second.callTool({ name: 'show_board', arguments: { session_handle: handle } }))).toBe(
        'Board: standup | draft | review',
      );
      const otherHandle = text(await second.callTool({ name: 'open_session', arguments: {} }));
      expect(text(await second.callTool({ name: 'show_board', arguments: { session_handle: otherHandle } }))).toBe('Board: standup');
      const unknown = (await second.callTool({ name: 'show_board', arguments: { session_handle: 'not-a-handle' } })) as ToolResult;
      expect(unknown.isError).toBe(true);
      expect(text(unknown)).toContain('call open_session');
      await second.close();

      const again = apply({ paths: [dir], cwd: dir, allowDirty: true, unsafe: true, target });
      expect(again.changes).toEqual([]);
      await server.stop();
      await disposeFixture(dir);
    });

  for (const target of ['2025-11-25', '2026-07-28'] as const)
    it(`f-package-session (${target}): each handle owns a server from the package; calls reach it across fresh servers; expiry closes it`, async () => {
      const { dir, manifest } = await prepareFixture('f-package-session');
      const result = apply({ paths: [dir], cwd: dir, allowDirty: true, unsafe: true, target });
      expect(result.problems).toEqual([]);
      expect(result.findings.filter((f) => f.ruleId === 'session-state' || f.severity === 'error')).toEqual([]);
      const entry = path.join(dir, 'src', 'index.ts');
      const migrated = fs.readFileSync(entry, 'utf8');
      expect(migrated).toContain('const PACKAGE_SESSION_TTL_MS = 60 * 60 * 1000;');
      expect(migrated).not.toMatch(/SSEServerTransport|get\('sessionId'\)|connections/);
      // Tune the generated lifetime down (as the generated comment invites) so the test can watch a handle expire.
      fs.writeFileSync(entry, migrated.replace('const PACKAGE_SESSION_TTL_MS = 60 * 60 * 1000;', 'const PACKAGE_SESSION_TTL_MS = 1500;'));

      await compileFixture(dir);
      const server = await bootFixture(dir, manifest);
      running.push(server);
      const url = new URL('/mcp', server.url);
      const opened = () => server.stderr().match(/\[gateway-pad\] opened/g) ?? [];

      const first = await connect(url);
      const tools = (await first.listTools()).tools;
      expect(tools.map((t) => t.name)).toEqual(['open_session', 'append_line', 'read_lines']);
      expect(tools.find((t) => t.name === 'append_line')?.inputSchema.required).toEqual(['line', 'session_handle']);
      expect(tools.find((t) => t.name === 'read_lines')?.annotations).toMatchObject({ readOnlyHint: true });
      expect(opened().length, 'one package server, for listing').toBe(1);
      const handle = text(await first.callTool({ name: 'open_session', arguments: {} }));
      expect(handle).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(opened().length, 'open_session opens the handle its own package server').toBe(2);
      expect(text(await first.callTool({ name: 'append_line', arguments: { line: 'step 1', session_handle: handle } }))).toBe('1 line(s)');
      await first.close();

      // A new connection, fresh servers: the second step reaches the first step's package server by handle alone.
      const second = await connect(url);
      expect(text(await second.callTool({ name: 'append_line', arguments: { line: 'step 2', session_handle: handle } }))).toBe('2 line(s)');
      expect(text(await second.callTool({ name: 'read_lines', arguments: { session_handle: handle } }))).toBe('step 1\nstep 2');
      const otherHandle = text(await second.callTool({ name: 'open_session', arguments: {} }));
      expect(text(await second.callTool({ name: 'read_lines', arguments: { session_handle: otherHandle } }))).toBe('(empty)');
      expect(opened().length).toBe(3);
      const unknown = (await second.callTool({ name: 'read_lines', arguments: { session_handle: 'not-a-handle' } })) as ToolResult;
      expect(unknown.isError).toBe(true);
      expect(text(unknown)).toContain('call open_session');

      expect(server.stderr()).not.toContain('[gateway-pad] closed');
      await new Promise((resolve) => setTimeout(resolve, 2000));
      const expired = (await second.callTool({ name: 'read_lines', arguments: { session_handle: handle } })) as ToolResult;
      expect(expired.isError).toBe(true);
      await expect.poll(() => server.stderr().match(/\[gateway-pad\] closed/g)?.length ?? 0, { timeout: 2000 }).toBeGreaterThan(0);
      await second.close();

      const again = apply({ paths: [dir], cwd: dir, allowDirty: true, unsafe: true, target });
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
