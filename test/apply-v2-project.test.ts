// A project already on the v2 packages, in JavaScript, that still calls v1's `.tool()` and `.prompt()`
// (fixtures/projects/v2-js-leftover-v1-calls): nothing fails to compile, and every request answers 500. `check` reports
// `v1-sdk-api`; `apply` (2026-07-28) moves the calls with the v2 fix-ups, and the server answers the SDK's v2 client
// over HTTP on 127.0.0.1.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { apply } from '../src/engine/apply';
import { check } from '../src/engine/check';
import { bootNodeScript, REPO_ROOT, scratchDir, type RunningFixture } from './helpers/server-process';

const PROJECT = path.join(REPO_ROOT, 'fixtures', 'projects', 'v2-js-leftover-v1-calls');
const running: RunningFixture[] = [];

afterAll(async () => {
  await Promise.all(running.splice(0).map((server) => server.stop()));
});

async function boot(root: string): Promise<URL> {
  const server = await bootNodeScript(root, 'server.mjs');
  running.push(server);
  return new URL(`${server.url}/mcp`);
}

/** The text of tool `titles`, or the error the client got. */
async function titles(endpoint: URL): Promise<string> {
  const client = new Client({ name: 'apply-v2-project', version: '1.0.0' });
  try {
    await client.connect(new StreamableHTTPClientTransport(endpoint));
    const result = await client.callTool({ name: 'titles', arguments: {} });
    const prompts = await client.listPrompts();
    return `${(result.content as Array<{ text: string }>)[0].text} | prompts: ${prompts.prompts.map((p) => p.name).join(', ')}`;
  } catch (error) {
    return `error: ${(error as Error).message}`;
  } finally {
    await client.close().catch(() => undefined);
  }
}

describe('apply --target 2026-07-28 on a JavaScript project already on v2', () => {
  it('reports the v1 calls, moves them, and the server then serves its tool and prompt', async () => {
    const root = scratchDir('v2-project');
    fs.cpSync(PROJECT, root, { recursive: true });

    const before = await check({ paths: [root], cwd: root, gitignore: false });
    expect(before.findings.filter((f) => f.ruleId === 'v1-sdk-api').map((f) => `${f.file}:${f.line}:${f.fix}`)).toEqual([
      'catalogue.mjs:5:auto',
      'catalogue.mjs:6:auto',
    ]);
    expect(await titles(await boot(root))).toMatch(/^error: .*Internal server error/);

    const result = apply({ paths: [root], cwd: root, allowDirty: true, target: '2026-07-28' });
    expect(result.problems).toEqual([]);
    expect(result.changes.map((c) => c.file)).toEqual(['catalogue.mjs']);
    const migrated = fs.readFileSync(path.join(root, 'catalogue.mjs'), 'utf8');
    expect(migrated).toContain("server.registerTool('titles', { description: 'Lists the titles'");
    expect(migrated).toContain("server.registerPrompt('recommend', { description: 'Suggest a book' }");
    const after = await check({ paths: [root], cwd: root, gitignore: false });
    expect(after.findings.filter((f) => f.ruleId === 'v1-sdk-api')).toEqual([]);

    expect(await titles(await boot(root))).toBe('Dune, Emma | prompts: recommend');
  });
});
