// The 2026-07-28 move installs for real: fixture servers are copied outside this repository (so nothing resolves from
// its node_modules), migrated, installed from their migrated package.json with `npm install --prefer-offline`
// (through the npm cache; the registry only for what it lacks), compiled, booted, and spoken to by a v2 client pinned
// to 2026-07-28 and a 2025-era v1 client. The zod ^3 fixtures are the case the suite could not see while every fixture
// ran on this repository's zod 4: before the migration raised zod, tsc failed (TS2769) and tools/list answered -32603.
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import semver from 'semver';
import { afterAll, describe, expect, it } from 'vitest';
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { apply } from '../src/engine/apply';
import { check } from '../src/engine/check';
import { bootFixture, FIXTURES_DIR, readManifest, REPO_ROOT, type RunningFixture } from './helpers/server-process';

const INSTALL_TIMEOUT_MS = 300_000;
const made: string[] = [];
const running: RunningFixture[] = [];
afterAll(async () => {
  await Promise.all(running.map((server) => server.stop()));
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
});

function run(command: string, args: string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd, timeout: INSTALL_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${command} ${args.join(' ')} failed in ${cwd}:\n${stdout}${stderr}`));
      else resolve(stdout);
    });
  });
}

/** A copy of the fixture in the OS temp dir: Node and tsc find only what its own install puts there. */
function isolatedCopy(name: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `mcp-migrate-install-${name}-`));
  made.push(dir);
  fs.cpSync(path.join(FIXTURES_DIR, name), dir, { recursive: true, filter: (src) => !/(?:^|\/)(?:node_modules|dist)$/.test(src) });
  return dir;
}

function installedVersion(dir: string, name: string): string | undefined {
  const manifest = path.join(dir, 'node_modules', name, 'package.json');
  return fs.existsSync(manifest) ? (JSON.parse(fs.readFileSync(manifest, 'utf8')) as { version: string }).version : undefined;
}

type Content = { content: Array<{ type: string; text?: string }> };
const text = (result: unknown) => (result as Content).content.map((c) => c.text ?? '').join('\n');

describe('apply --target 2026-07-28, installed from the migrated manifest', () => {
  for (const name of ['a-express-shared-server', 'a-express-alias-cjs', 'e-hono-web-standard']) {
    it(
      `${name}: npm install, tsc, boot, 2026-07-28 and 2025 clients`,
      async () => {
        const dir = isolatedCopy(name);
        const manifest = await readManifest(dir);
        const zodBefore = (JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { dependencies: Record<string, string> })
          .dependencies.zod;
        const result = apply({ paths: [dir], cwd: dir, allowDirty: true, target: '2026-07-28' });
        expect(result.problems).toEqual([]);
        expect(result.deferred).toBeUndefined();
        expect(result.findings.filter((f) => f.severity === 'error')).toEqual([]);
        const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
        if (semver.minVersion(zodBefore)!.major < 4) {
          expect(pkg.dependencies.zod, 'zod ^3 is raised into what the v2 server requires').toBe('^4.2.0');
          expect(
            result.manual.some((m) => m.file === 'package.json' && /^zod \^3 → \^4\.2\.0: @modelcontextprotocol\/server@/.test(m.message)),
          ).toBe(true);
        }
        expect(
          result.manual.filter((m) => /zod range/.test(m.message)),
          'no warning left for a range that was fixed',
        ).toEqual([]);

        // Runtime packages come from the migrated manifest; only the type packages of the dev tool chain from this repo.
        await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', '--omit=dev'], dir);
        const zod = installedVersion(dir, 'zod')!;
        const serverZod = (
          JSON.parse(fs.readFileSync(path.join(dir, 'node_modules/@modelcontextprotocol/server/package.json'), 'utf8')) as {
            dependencies: Record<string, string>;
          }
        ).dependencies.zod;
        expect(semver.satisfies(zod, serverZod), `installed zod ${zod} satisfies the server's ${serverZod}`).toBe(true);
        expect(installedVersion(dir, '@modelcontextprotocol/sdk')).toBeUndefined();
        expect(installedVersion(dir, '@modelcontextprotocol/server-legacy')).toBeUndefined();
        expect((await check({ paths: [dir], cwd: dir })).findings.filter((f) => f.ruleId === 'v2-peer-ranges')).toEqual([]);

        if (manifest.language === 'ts') {
          fs.symlinkSync(path.join(REPO_ROOT, 'node_modules', '@types'), path.join(dir, 'node_modules', '@types'));
          await run(path.join(REPO_ROOT, 'node_modules', '.bin', 'tsc'), ['-p', path.join(dir, 'tsconfig.json')], dir);
        }
        const server = await bootFixture(dir, manifest);
        running.push(server);
        const endpoint = new URL(manifest.mcpPath ?? '/mcp', server.url);
        const tool = manifest.tool!;

        const modern = new V2Client({ name: 'install-2026', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
        await modern.connect(new V2Transport(endpoint));
        expect(modern.getNegotiatedProtocolVersion()).toBe('2026-07-28');
        expect((await modern.listTools()).tools.map((t) => t.name)).toContain(tool.name);
        expect(text(await modern.callTool({ name: tool.name, arguments: tool.arguments }))).toContain(tool.expectText);
        await modern.close();

        const legacy = new V1Client({ name: 'install-2025', version: '1.0.0' });
        await legacy.connect(new V1Transport(endpoint));
        expect((await legacy.listTools()).tools.map((t) => t.name)).toContain(tool.name);
        expect(text(await legacy.callTool({ name: tool.name, arguments: tool.arguments }))).toContain(tool.expectText);
        await legacy.close();
        await server.stop();
      },
      INSTALL_TIMEOUT_MS * 2,
    );
  }
});
