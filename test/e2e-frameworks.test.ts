// End-to-end proof for servers built on MCP frameworks (issue 13): fastmcp, mcp-framework, Cloudflare agents (a Worker,
// booted with wrangler dev). Each fixture that
// `installs` is copied, migrated on both targets, installed from its migrated package.json (the framework is not in
// this repository's node_modules), compiled, booted on 127.0.0.1 and spoken to by the official SDK client; then the
// wire rules (no session id, 405 on GET/DELETE, 403 on a foreign Origin), its old SSE paths answer 410, a v2 client
// pinned to 2026-07-28 is served unless the project carries a `v2-deferred` warning, and a second `apply` changes nothing.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from '@modelcontextprotocol/client';
import { apply } from '../src/engine/apply';
import { TARGETS } from '../src/engine/targets';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { expectGone, expectStatelessWire, initializeStatus, migratedEndpoints } from './helpers/wire-checks';
import {
  bootFixture,
  compileFixture,
  disposeFixture,
  fixtureNames,
  installFixture,
  prepareFixture,
  REPO_ROOT,
  type FixtureManifest,
  type RunningFixture,
} from './helpers/server-process';

const TIMEOUT = 400_000;
const running: RunningFixture[] = [];
const made: string[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.stop()));
  await Promise.all(made.splice(0).map((dir) => disposeFixture(dir)));
});

const names = fixtureNames((m) => !!m.installs && m.autoMigratable);

function sources(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (d: string) => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      if (entry.name === 'dist' || entry.name === 'node_modules') continue;
      const full = path.join(d, entry.name);
      if (entry.isDirectory()) walk(full);
      else files.set(path.relative(dir, full), fs.readFileSync(full, 'utf8'));
    }
  };
  walk(dir);
  return files;
}

/** The official client lists and calls the fixture's tool; then the stateless wire rules and a local Origin. */
async function expectStatelessEndpoint(endpoint: URL, manifest: FixtureManifest, port: number): Promise<void> {
  const headers = manifest.headers ?? {};
  const client = new Client({ name: 'mcp-migrate-frameworks', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(endpoint, { requestInit: { headers } }));
  expect((await client.listTools()).tools.map((t) => t.name)).toContain(manifest.tool!.name);
  const call = await client.callTool({ name: manifest.tool!.name, arguments: manifest.tool!.arguments });
  expect((call.content as Array<{ text?: string }>).map((c) => c.text ?? '').join('\n')).toContain(manifest.tool!.expectText);
  await client.close();
  await expectStatelessWire(endpoint, headers, { allow: true });
  expect(await initializeStatus(endpoint, { ...headers, origin: `http://localhost:${port}` }), 'local Origin').toBe(200);
}

describe('servers on MCP frameworks, end to end', () => {
  it('has the fastmcp, mcp-framework and agents fixtures', () => {
    expect(names).toEqual(expect.arrayContaining(['e-fastmcp-sessions', 'e-mcp-framework-sse', 'e-agents-worker']));
  });

  for (const name of names) {
    for (const target of TARGETS) {
      it(
        `${name} (--target ${target}): migrates, installs, type-checks, serves stateless Streamable HTTP, is idempotent`,
        { timeout: TIMEOUT },
        async () => {
          // Outside this repository, as a fresh checkout: nothing resolves from this repository's node_modules.
          const { dir, manifest } = await prepareFixture(name, { destRoot: os.tmpdir() });
          made.push(dir);
          const result = apply({ paths: [dir], cwd: dir, allowDirty: true, target });
          expect(result.problems).toEqual([]);
          if (manifest.migratesOn && !manifest.migratesOn.includes(target)) {
            // Not on this target: an error marker says why, and nothing else changed.
            expect(result.findings.some((f) => f.severity === 'error' && !!f.data?.marker)).toBe(true);
            expect(result.changes.map((c) => c.file)).toEqual([manifest.entry]);
            return;
          }
          expect(result.findings.filter((f) => f.severity === 'error')).toEqual([]);
          expect(result.changes.length).toBeGreaterThan(0);

          await installFixture(dir);
          // (only the type packages of the dev tool chain come from this repository)
          const types = path.join(dir, 'node_modules', '@types', 'node');
          if (!fs.existsSync(types)) {
            fs.mkdirSync(path.dirname(types), { recursive: true });
            fs.symlinkSync(path.join(REPO_ROOT, 'node_modules', '@types', 'node'), types);
          }
          if (manifest.language === 'ts') await compileFixture(dir);
          const server = await bootFixture(dir, manifest);
          running.push(server);
          for (const endpoint of migratedEndpoints(manifest)) {
            await expectStatelessEndpoint(new URL(endpoint, server.url), manifest, server.port);
          }
          await expectGone(server, manifest);
          if (target === '2026-07-28') {
            // A framework that cannot serve 2026-07-28 yet keeps the project on 2025-11-25, and says so with a warning.
            const deferred = result.findings.some((f) => f.ruleId === 'v2-deferred');
            const pinned = new V2Client(
              { name: 'frameworks-2026', version: '1.0.0' },
              { versionNegotiation: { mode: { pin: '2026-07-28' } } },
            );
            const connected = await pinned.connect(new V2Transport(new URL(manifest.mcpPath ?? '/mcp', server.url))).then(
              () => true,
              () => false,
            );
            if (connected) {
              expect((await pinned.listTools()).tools.map((t) => t.name)).toContain(manifest.tool!.name);
              await pinned.close();
            }
            expect(connected, deferred ? 'a v2-deferred project does not serve 2026-07-28' : 'a 2026-07-28 client is served').toBe(
              !deferred,
            );
          }

          const before = sources(dir);
          const again = apply({ paths: [dir], cwd: dir, allowDirty: true, target });
          expect(again.changes).toEqual([]);
          expect(sources(dir)).toEqual(before);
        },
      );
    }
  }
});
