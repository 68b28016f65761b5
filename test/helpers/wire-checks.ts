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
