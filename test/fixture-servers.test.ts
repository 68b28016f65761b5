// Proves every fixture server under fixtures/servers/ is a working server *before* migration: each one is copied,
// compiled, booted as a child process and driven with the official MCP client over the transport it claims.

import { allRules, engineRuleMetas } from '../src/rules';
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  FIXTURES_DIR,
  REPO_ROOT,
  bootFixture,
  compileFixture,
  compiledEntry,
  disposeFixture,
  installFixture,
  prepareFixture,
  type FixtureManifest,
  type LegacyClientKind,
  type RunningFixture,
} from './helpers/server-process';

const RULE_IDS = new Set([...allRules.map((rule) => rule.meta.id), ...engineRuleMetas.map((meta) => meta.id)]);

const REQUIRED_FIXTURES = [
  'a-express-shared-server',
  'a-express-alias-cjs',
  'a-same-path-array',
  'a-router-split',
  'a-node-http',
  'a-fastify-legacy-sse',
  'b-express-stateful',
  'b-app-all-map',
  'b-router-mounted',
  'b-plain-js-esm',
  'b-hono-stateful',
  'b-koa-stateful',
  'b-web-fetch-stateful',
  'c-compat-both',
  'c-auth-middleware',
  'd-handrolled-sse',
  'e-hono-web-standard',
  'e-fastify-reply-raw',
  'e-web-fetch-worker',
  'f-session-cart',
  'neg-stateless-already',
  'neg-stdio',
  'neg-dashboard-sse',
  'neg-local-sse-class',
  // issue 10's real-world shapes
  'b-node-http-helper',
  'c-class-routes',
  'b-initialize-credential',
  'a-shared-stdio-http',
  'a-stdio-bridge',
  'a-stdio-gateway',
  'a-nest-controller',
  'b-class-field-server',
  'c-admin-router',
  'b-fastify-get-delete',
  'c-tests-and-client',
  'a-cached-getter-fastify',
  'b-koa-returned-server',
  // issue 13: servers on MCP frameworks
  'e-fastmcp-sessions',
  'e-mcp-framework-sse',
  'e-agents-worker',
];

const TEST_TIMEOUT = 20_000;
/** Fixtures that install their own packages first (through the npm cache). */
const INSTALL_TIMEOUT = 300_000;

const fixtures: Array<{ name: string; manifest: FixtureManifest }> = readdirSync(FIXTURES_DIR, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && existsSync(path.join(FIXTURES_DIR, entry.name, 'fixture.json')))
  .map((entry) => ({
    name: entry.name,
    manifest: JSON.parse(readFileSync(path.join(FIXTURES_DIR, entry.name, 'fixture.json'), 'utf8')) as FixtureManifest,
  }))
  .sort((a, b) => a.name.localeCompare(b.name));

// Everything a test starts is registered here and torn down after it, pass or fail.
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanups.length) {
    const cleanup = cleanups.pop()!;
    await cleanup().catch(() => undefined);
  }
});

async function startFixture(name: string): Promise<{ dir: string; manifest: FixtureManifest; server: RunningFixture }> {
  const { dir, manifest } = await prepareFixture(name);
  cleanups.push(() => disposeFixture(dir));
  if (manifest.installs) await installFixture(dir);
  await compileFixture(dir);
  const server = await bootFixture(dir, manifest);
  cleanups.push(() => server.stop());
  return { dir, manifest, server };
}

function clientKinds(manifest: FixtureManifest): LegacyClientKind[] {
  const kinds = manifest.legacyClient === 'none' ? [] : [manifest.legacyClient];
  return [...kinds, ...(manifest.extraClients ?? [])];
}

function textOf(result: unknown): string {
  const content = (result as { content?: Array<{ type: string; text?: string }> }).content ?? [];
  return content
    .filter((block) => block.type === 'text')
    .map((block) => block.text ?? '')
    .join('\n');
}

async function listAndCall(client: Client, manifest: FixtureManifest): Promise<void> {
  const tool = manifest.tool!;
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name)).toContain(tool.name);
  const result = await client.callTool({ name: tool.name, arguments: tool.arguments });
  expect(result.isError ?? false).toBe(false);
  expect(textOf(result)).toContain(tool.expectText);
}

describe('fixture manifests', () => {
  it('every required fixture exists', () => {
    const names = fixtures.map((f) => f.name);
    for (const name of REQUIRED_FIXTURES) expect(names).toContain(name);
  });

  it.each(fixtures.map((f) => [f.name, f.manifest] as const))('%s: fixture.json and package.json are well formed', (name, manifest) => {
    const dir = path.join(FIXTURES_DIR, name);
    expect(['A', 'B', 'C', 'D', 'E', 'F', 'none']).toContain(manifest.family);
    expect(name.startsWith('neg-')).toBe(manifest.family === 'none');
    expect(manifest.description.length).toBeGreaterThan(10);
    expect(['ts', 'js']).toContain(manifest.language);
    expect(existsSync(path.join(dir, manifest.entry))).toBe(true);
    expect(manifest.entry.endsWith(manifest.language === 'ts' ? '.ts' : '.js') || manifest.entry.endsWith('.mjs')).toBe(true);
    if (manifest.language === 'ts') expect(existsSync(path.join(dir, 'tsconfig.json'))).toBe(true);
    expect(['sse', 'streamable', 'none']).toContain(manifest.legacyClient);
    if (clientKinds(manifest).length > 0 || manifest.stdio) expect(manifest.tool).toBeDefined();
    if (clientKinds(manifest).includes('sse')) expect(manifest.ssePath).toMatch(/^\//);
    if (clientKinds(manifest).includes('streamable')) expect(manifest.mcpPath).toMatch(/^\//);
    if (manifest.legacyClient === 'none') expect(manifest.stdio === true || manifest.probe !== undefined).toBe(true);
    expect(manifest.expectedRules.filter((rule) => !RULE_IDS.has(rule))).toEqual([]);
    expect(new Set(manifest.expectedRules).size).toBe(manifest.expectedRules.length);
    if (manifest.family === 'none') {
      for (const transportRule of ['legacy-sse-transport', 'session-id', 'get-stream', 'delete-session', 'last-event-id']) {
        expect(manifest.expectedRules).not.toContain(transportRule);
      }
    }
    expect(typeof manifest.autoMigratable).toBe('boolean');
    if (!manifest.autoMigratable) expect(manifest.notes ?? '').not.toBe('');
    for (const endpoint of manifest.migrated?.endpoints ?? []) expect(endpoint).toMatch(/^\//);
    for (const gone of manifest.migrated?.gone ?? []) expect(gone.names).toMatch(/^POST \//);

    const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as {
      name?: string;
      private?: boolean;
      type?: string;
      dependencies?: Record<string, string>;
    };
    expect(pkg.name).toBeTruthy();
    expect(pkg.private).toBe(true);
    expect(['module', 'commonjs']).toContain(pkg.type);
    const deps = pkg.dependencies ?? {};
    if (deps['@modelcontextprotocol/sdk']) expect(deps['@modelcontextprotocol/sdk']).toBe('^1.32.2');
    if (deps.express) expect(deps.express).toBe('^5');
    // Both ranges on purpose: e2e-v2 checks that the ^3 ones get the codemod's zod >= 4.2 warning and the ^4 ones do not.
    if (deps.zod) expect(['^3', '^4']).toContain(deps.zod);
  });

  it.each(fixtures.filter((f) => f.manifest.language === 'js').map((f) => [f.name, f.manifest] as const))(
    '%s: JavaScript entry parses (node --check)',
    async (name, manifest) => {
      await new Promise<void>((resolve, reject) => {
        execFile(process.execPath, ['--check', path.join(FIXTURES_DIR, name, manifest.entry)], (error, _out, stderr) =>
          error ? reject(new Error(stderr)) : resolve(),
        );
      });
    },
  );
});

describe('unmigrated fixture servers work with the official client', () => {
  for (const { name, manifest } of fixtures) {
    for (const kind of clientKinds(manifest)) {
      const endpoint = kind === 'sse' ? manifest.ssePath : manifest.mcpPath;
      it(
        `${name}: ${kind} client at ${endpoint} lists and calls ${manifest.tool?.name}`,
        { timeout: manifest.installs ? INSTALL_TIMEOUT : TEST_TIMEOUT },
        async () => {
          const { server } = await startFixture(name);
          const url = new URL(endpoint!, server.url);
          const requestInit: RequestInit = { headers: manifest.headers ?? {} };
          const transport =
            kind === 'sse' ? new SSEClientTransport(url, { requestInit }) : new StreamableHTTPClientTransport(url, { requestInit });
          const client = new Client({ name: 'mcp-migrate-fixture-test', version: '0.0.0' });
          cleanups.push(() => client.close());
          try {
            await client.connect(transport);
            await listAndCall(client, manifest);
            // (the log line the migrated server must still print: the unmigrated one prints it, so its absence means something)
            if (manifest.expectStdout) await expect.poll(() => server.stdout()).toContain(manifest.expectStdout);
          } catch (error) {
            throw new Error(`${String(error)}\nserver stderr:\n${server.stderr()}`, { cause: error });
          }
        },
      );
    }

    if (manifest.stdio) {
      it(`${name}: stdio client lists and calls ${manifest.tool?.name}`, { timeout: TEST_TIMEOUT }, async () => {
        const { dir } = await prepareFixture(name);
        cleanups.push(() => disposeFixture(dir));
        await compileFixture(dir);
        const transport = new StdioClientTransport({
          command: process.execPath,
          args: [compiledEntry(dir, manifest)],
          cwd: dir,
          stderr: 'pipe',
        });
        const client = new Client({ name: 'mcp-migrate-fixture-test', version: '0.0.0' });
        cleanups.push(() => client.close());
        await client.connect(transport);
        await listAndCall(client, manifest);
      });
    }

    if (manifest.probe) {
      const probe = manifest.probe;
      it(`${name}: GET ${probe.path} answers ${probe.expectStatus}`, { timeout: TEST_TIMEOUT }, async () => {
        const { server } = await startFixture(name);
        const controller = new AbortController();
        cleanups.push(async () => controller.abort());
        const response = await fetch(new URL(probe.path, server.url), { signal: controller.signal });
        expect(response.status).toBe(probe.expectStatus);
        if (probe.expectContentType) expect(response.headers.get('content-type') ?? '').toContain(probe.expectContentType);
        if (probe.expectBody) {
          // Event streams never end: read until the expected text shows up, then drop the connection.
          const reader = response.body!.getReader();
          const decoder = new TextDecoder();
          let body = '';
          while (!body.includes(probe.expectBody)) {
            const { done, value } = await reader.read();
            if (done) break;
            body += decoder.decode(value, { stream: true });
          }
          await reader.cancel().catch(() => undefined);
          expect(body).toContain(probe.expectBody);
        }
      });
    }
  }
});

// Make the repo root visible in failure output when the suite is run from elsewhere.
describe('environment', () => {
  it('resolves the SDK from the repo node_modules', () => {
    expect(existsSync(path.join(REPO_ROOT, 'node_modules', '@modelcontextprotocol', 'sdk', 'package.json'))).toBe(true);
  });
});
