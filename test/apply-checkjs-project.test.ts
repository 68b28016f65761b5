// A JavaScript project that type-checks its JavaScript (`checkJs`, `strict`: fixtures/projects/js-checkjs-express).
// Every line mcp-migrate writes there is type-checked by the gate too: the 2025-11-25 Origin guard carried no types,
// so the gate rolled the endpoint back (TS7006) and the server kept its HTTP+SSE transport. On both targets the
// endpoint is now migrated with no roll-back, the project's own `tsc` passes, and the server answers the SDK client
// over HTTP on 127.0.0.1 (a foreign Origin gets 403).
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from '@modelcontextprotocol/client';
import { apply } from '../src/engine/apply';
import type { Target } from '../src/engine/targets';
import { bootNodeScript, REPO_ROOT, scratchDir, type RunningFixture } from './helpers/server-process';

const PROJECT = path.join(REPO_ROOT, 'fixtures', 'projects', 'js-checkjs-express');
const TSC = path.join(REPO_ROOT, 'node_modules', '.bin', 'tsc');
const running: RunningFixture[] = [];

afterAll(async () => {
  await Promise.all(running.splice(0).map((server) => server.stop()));
});

async function boot(root: string): Promise<URL> {
  const server = await bootNodeScript(root, 'server.js');
  running.push(server);
  return new URL(`${server.url}/mcp`);
}

/** The text of tool `define`, as the client of the target's SDK gets it. */
async function define(endpoint: URL, target: Target): Promise<string> {
  const client =
    target === '2025-11-25'
      ? new V1Client({ name: 'apply-checkjs', version: '1.0.0' })
      : new V2Client({ name: 'apply-checkjs', version: '1.0.0' });
  const transport = target === '2025-11-25' ? new V1Transport(endpoint) : new V2Transport(endpoint);
  try {
    await client.connect(transport as never);
    const result = await client.callTool({ name: 'define', arguments: { term: 'lemma' } });
    return (result.content as Array<{ text: string }>)[0].text;
  } finally {
    await client.close().catch(() => undefined);
  }
}

describe('apply on a JavaScript project that type-checks its JavaScript', () => {
  it.each(['2025-11-25', '2026-07-28'] as const)('migrates the endpoint on %s, and it still type-checks and serves', async (target) => {
    const root = scratchDir('checkjs-project');
    fs.cpSync(PROJECT, root, { recursive: true });

    const result = apply({ paths: [root], cwd: root, allowDirty: true, target });
    expect(result.problems).toEqual([]);
    expect(result.rolledBack).toEqual([]);
    expect(result.endpoints.map((e) => `${e.file}:${e.path}`)).toEqual(['server.js:/mcp']);
    const migrated = fs.readFileSync(path.join(root, 'server.js'), 'utf8');
    expect(migrated).not.toContain('SSEServerTransport');
    expect(migrated).not.toContain('/* mcp-migrate:');
    if (target === '2025-11-25') expect(migrated).toContain(" * @param {import('http').IncomingMessage} req");

    // The project's own type-check, as its CI runs it (the repository's node_modules resolve its imports).
    expect(() => execFileSync(TSC, ['--noEmit', '-p', root], { encoding: 'utf8' })).not.toThrow();

    const endpoint = await boot(root);
    expect(await define(endpoint, target)).toBe('lemma: a word worth knowing');
    const foreign = await fetch(endpoint, {
      method: 'POST',
      headers: { Origin: 'http://evil.example', 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(foreign.status).toBe(403);
  });
});
