// Checks on a migrated fixture server that both end-to-end suites share.
import { expect } from 'vitest';
import type { FixtureManifest, RunningFixture } from './server-process';

/** The MCP endpoints a migrated fixture serves: mcpPath, then any further ones its manifest lists. */
export function migratedEndpoints(manifest: FixtureManifest): string[] {
  return [manifest.mcpPath ?? '/mcp', ...(manifest.migrated?.endpoints ?? [])];
}

/** The old HTTP+SSE paths answer 410 and name the new endpoint (with its mount prefix). */
export async function expectGone(server: RunningFixture, manifest: FixtureManifest): Promise<void> {
  for (const gone of manifest.migrated?.gone ?? []) {
    const response = await fetch(new URL(gone.path, server.url), {
      method: gone.method,
      headers: { ...manifest.headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: gone.method === 'POST' ? '{}' : undefined,
    });
    expect(response.status, `${gone.method} ${gone.path}`).toBe(410);
    expect(await response.text()).toContain(gone.names);
  }
}

/** A 2025-11-25 `initialize` request. */
export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'probe', version: '1' } },
};

/** The status of a plain `initialize` POST with these headers (the body is read and dropped). */
export async function initializeStatus(endpoint: URL, headers: Record<string, string>): Promise<number> {
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify(INITIALIZE),
  });
  await response.text();
  return response.status;
}

/**
 * The stateless wire rules: `initialize` is answered without an `Mcp-Session-Id`; GET and DELETE answer 405 (with
 * `Allow: POST` when `allow` says so), never with a session id; a foreign Origin gets 403.
 */
export async function expectStatelessWire(endpoint: URL, headers: Record<string, string>, options: { allow: boolean }): Promise<void> {
  const post = await fetch(endpoint, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify(INITIALIZE),
  });
  expect(post.status).toBe(200);
  expect(post.headers.get('mcp-session-id')).toBeNull();
  await post.text();
  for (const method of ['GET', 'DELETE']) {
    const response = await fetch(endpoint, { method, headers: { ...headers, accept: 'text/event-stream' } });
    expect(response.status, `${method} answers 405`).toBe(405);
    if (options.allow) expect(response.headers.get('allow')).toBe('POST');
    expect(response.headers.get('mcp-session-id')).toBeNull();
    await response.text();
  }
  expect(await initializeStatus(endpoint, { ...headers, origin: 'http://evil.example' }), 'foreign Origin').toBe(403);
}
