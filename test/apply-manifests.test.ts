// package.json edits on the 2026-07-28 target: each migrated file's own manifest (monorepo members included) gets the
// v2 packages it now imports, the v1 SDK goes once nothing imports it, and a manifest above the scanned root is never
// edited — the report says what to add instead.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { apply } from '../src/engine/apply';
import { migrateSdkSurface, v2Peers } from '../src/engine/sdk-v2-surface';
import { satisfyRequirements } from '../src/engine/v2-dependencies';
import { FIXTURES_DIR, REPO_ROOT, scratchDir } from './helpers/server-process';

const workspace = (name: string) => scratchDir('manifests', name);

/**
 * Installs a stand-in zod in the project's node_modules: the repository's `zod/v3` (zod 3's API and types) as version
 * 3.25.76, as the v1 SDK brings it, or the repository's zod 4, as the migrated manifest installs it.
 */
function installZod(root: string, major: 3 | 4): void {
  const dir = path.join(root, 'node_modules', 'zod');
  fs.mkdirSync(dir, { recursive: true });
  const real = path.join(REPO_ROOT, 'node_modules', 'zod', major === 3 ? 'v3/index.cjs' : 'index.cjs');
  const version =
    major === 3 ? '3.25.76' : JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'node_modules/zod/package.json'), 'utf8')).version;
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'zod', version, main: 'index.cjs', types: 'index.d.cts' }));
  const from = path.relative(dir, real).split(path.sep).join('/');
  fs.writeFileSync(path.join(dir, 'index.d.cts'), `export * from '${from}';\nexport { z, default } from '${from}';\n`);
  fs.writeFileSync(path.join(dir, 'index.cjs'), `module.exports = require('${from}');\n`);
}

function tsc(root: string): string {
  try {
    execFileSync(path.join(REPO_ROOT, 'node_modules', '.bin', 'tsc'), ['-p', path.join(root, 'tsconfig.json')], { encoding: 'utf8' });
    return '';
  } catch (error) {
    return String((error as { stdout?: string }).stdout ?? error);
  }
}

describe('apply --target 2026-07-28 and package.json', () => {
  it('edits the manifest of each monorepo member that owns a migrated file', () => {
    const root = workspace('monorepo');
    fs.writeFileSync(path.join(root, 'package.json'), '{ "private": true, "workspaces": ["packages/*"] }\n');
    fs.cpSync(path.join(FIXTURES_DIR, 'a-express-shared-server'), path.join(root, 'packages', 'calc'), { recursive: true });
    fs.cpSync(path.join(FIXTURES_DIR, 'b-express-stateful'), path.join(root, 'packages', 'weather'), { recursive: true });
    const result = apply({ paths: [root], cwd: root, allowDirty: true, target: '2026-07-28' });
    expect(result.problems).toEqual([]);
    expect(
      result.changes
        .map((c) => c.file)
        .filter((f) => f.endsWith('package.json'))
        .sort(),
    ).toEqual(['packages/calc/package.json', 'packages/weather/package.json']);
    for (const member of ['calc', 'weather']) {
      const pkg = JSON.parse(fs.readFileSync(path.join(root, 'packages', member, 'package.json'), 'utf8'));
      expect(pkg.dependencies['@modelcontextprotocol/server']).toBe('^2.4.0');
      expect(pkg.dependencies['@modelcontextprotocol/sdk']).toBeUndefined();
    }
    expect(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).toBe('{ "private": true, "workspaces": ["packages/*"] }\n');
    expect(result.manual.some((m) => m.ruleId === 'sdk-v2-surface' && /run your package manager's install/.test(m.message))).toBe(true);
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('never edits a package.json above the scanned root, and says what to add there', () => {
    const outer = workspace('outer');
    const manifest = '{\n  "name": "outer",\n  "dependencies": { "@modelcontextprotocol/sdk": "^1.32.2" }\n}\n';
    fs.writeFileSync(path.join(outer, 'package.json'), manifest);
    fs.cpSync(path.join(FIXTURES_DIR, 'a-express-shared-server', 'src'), path.join(outer, 'server', 'src'), { recursive: true });
    const result = apply({ paths: [path.join(outer, 'server')], cwd: outer, allowDirty: true, target: '2026-07-28' });
    expect(result.problems).toEqual([]);
    expect(result.changes.map((c) => c.file)).toEqual(['src/index.ts']);
    expect(fs.readFileSync(path.join(outer, 'package.json'), 'utf8')).toBe(manifest);
    const note = result.manual.find((m) => m.file === path.join(outer, 'package.json'));
    expect(note?.message).toMatch(/outside the scanned root and was not edited/);
    fs.rmSync(outer, { recursive: true, force: true });
  });

  it('does not keep server-legacy for a session table nothing fills any more', () => {
    const root = workspace('legacy-types');
    const manifest = { name: 'inventory', dependencies: { '@modelcontextprotocol/sdk': '^1.32.2', express: '^5', zod: '^4.2.0' } };
    fs.writeFileSync(path.join(root, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    fs.mkdirSync(path.join(root, 'src'));
    fs.copyFileSync(
      path.join(FIXTURES_DIR, '..', 'migrate-endpoint', '2026-07-28', 'shutdown-loop-over-sessions.input.ts'),
      path.join(root, 'src', 'server.ts'),
    );
    const result = apply({ paths: [root], cwd: root, allowDirty: true, target: '2026-07-28' });
    expect(result.problems).toEqual([]);
    expect(result.deferred).toBeUndefined();
    const server = fs.readFileSync(path.join(root, 'src', 'server.ts'), 'utf8');
    expect(server).toContain('type StreamTable = Record<string, unknown>;');
    expect(server).not.toContain('SSEServerTransport');
    expect(server, 'the shutdown loop over the emptied table is gone').not.toContain('for (const id in streams)');
    const dependencies = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).dependencies;
    expect(Object.keys(dependencies).sort()).toEqual([
      '@modelcontextprotocol/express',
      '@modelcontextprotocol/node',
      '@modelcontextprotocol/server',
      'express',
      'zod',
    ]);
    fs.rmSync(root, { recursive: true, force: true });
  });
});

describe('apply --target 2026-07-28: zod the code imports but the manifest does not name', () => {
  it('declares the zod the v2 packages need, checks the move against it, and runs the zod 4 fix-ups', () => {
    const root = workspace('undeclared-zod');
    fs.cpSync(path.join(FIXTURES_DIR, '..', 'v2-dependencies', 'undeclared-zod'), root, { recursive: true });
    installZod(root, 3);
    expect(tsc(root), 'the project compiles before, with the zod 3 the v1 SDK brings').toBe('');

    const result = apply({ paths: [root], cwd: root, allowDirty: true, target: '2026-07-28' });
    expect(result.problems).toEqual([]);
    expect(result.deferred?.errors, 'the v2 move type-checks against zod 4').toBeUndefined();
    const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
    expect(manifest.dependencies.zod).toBe('^4.2.0');
    expect(manifest.dependencies['@modelcontextprotocol/server']).toBe('^2.4.0');
    expect(result.manual).toContainEqual(
      expect.objectContaining({
        file: 'package.json',
        message: expect.stringMatching(/^zod \^4\.2\.0 added: the code imports zod without declaring it, .*\(3\.25\.76 installed\)/),
      }),
    );
    const shelves = fs.readFileSync(path.join(root, 'src', 'shelves.ts'), 'utf8');
    expect(shelves, 'zod-record-key ran: zod moved from 3 to 4').toContain('z.record(z.string(), z.number().int().positive())');
    expect(shelves, 'context-destructuring ran').toContain('{ mcpReq: { notify: sendNotification } }');
    expect(shelves).not.toContain('@mcp-codemod-error');
    expect(
      result.manual.filter((m) => m.message.startsWith('(from @modelcontextprotocol/codemod)')),
      'its marker is answered',
    ).toEqual([]);
    expect(shelves).toContain('import type { McpServer, CallToolResult } from "@modelcontextprotocol/server";');
    const deliveryJson = fs.readFileSync(path.join(root, 'src', 'delivery-json.ts'), 'utf8');
    expect(deliveryJson, 'zod-to-json-schema ran on a file that imports the converter but not zod').toContain(
      "z.toJSONSchema(deliveryNote, { io: 'input' })",
    );
    expect(deliveryJson).not.toMatch(/from ['"]zod-to-json-schema['"]/);
    expect(manifest.dependencies['zod-to-json-schema'], 'its last use is gone, and its zod 3 peer would stop the install').toBeUndefined();
    expect(result.manual).toContainEqual(
      expect.objectContaining({ file: 'package.json', message: expect.stringMatching(/^zod-to-json-schema removed: /) }),
    );

    installZod(root, 4);
    expect(tsc(root), 'the v2 result compiles once its manifest is installed').toBe('');
    fs.rmSync(root, { recursive: true, force: true });
  });
});

describe('apply --target 2026-07-28: a zod-to-json-schema use the fix-up cannot replace', () => {
  it('keeps the converter in the manifest while a file still imports it', () => {
    const root = workspace('converter-kept');
    fs.cpSync(path.join(FIXTURES_DIR, '..', 'v2-dependencies', 'undeclared-zod'), root, { recursive: true });
    installZod(root, 3);
    // A named conversion (`$ref` definitions under that name) has no one-line zod 4 equivalent: the fix-up marks it.
    fs.writeFileSync(
      path.join(root, 'src', 'named-schema.ts'),
      "import { zodToJsonSchema } from 'zod-to-json-schema';\nimport { deliveryNote } from './delivery.js';\n\nexport const named = zodToJsonSchema(deliveryNote, 'DeliveryNote');\n",
    );
    const result = apply({ paths: [root], cwd: root, allowDirty: true, target: '2026-07-28' });
    expect(result.problems).toEqual([]);
    expect(fs.readFileSync(path.join(root, 'src', 'named-schema.ts'), 'utf8')).toMatch(/from 'zod-to-json-schema'/);
    const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
    expect(manifest.dependencies['zod-to-json-schema']).toBe('3.24.5');
    expect(result.manual.filter((m) => /^zod-to-json-schema removed/.test(m.message))).toEqual([]);
    fs.rmSync(root, { recursive: true, force: true });
  });
});

describe('satisfyRequirements: a required package the manifest does not name', () => {
  const v2 = { name: 'lib', dependencies: { '@modelcontextprotocol/server': '^2.4.0', koa: '^3' } };
  const importsZod = (name: string) => name === 'zod';

  it('adds it at the required range where the code imports it, keeping an alphabetical section alphabetical', () => {
    const { text, raised } = satisfyRequirements(`${JSON.stringify(v2, null, 4)}\n`, REPO_ROOT, importsZod);
    expect(raised.map((r) => [r.name, r.to, r.added])).toEqual([['zod', '^4.2.0', true]]);
    expect(Object.keys(JSON.parse(text).dependencies)).toEqual(['@modelcontextprotocol/server', 'koa', 'zod']);
    expect(text).toMatch(/^ {4}"dependencies"/m);
  });

  it('leaves it out where the code does not import it, or the package declares it as a peer', () => {
    expect(satisfyRequirements(JSON.stringify(v2), REPO_ROOT).raised).toEqual([]);
    const peer = JSON.stringify({ ...v2, peerDependencies: { zod: '^4.2.0' } });
    expect(satisfyRequirements(peer, REPO_ROOT, importsZod)).toEqual({ text: peer, raised: [] });
  });
});

describe('the official codemod on the SDK surface', () => {
  it('turns a peer dependency on the v1 SDK into one on the v2 packages the code now imports, and only then', () => {
    // A shared tools package of a workspace: its users bring the SDK, and it builds against a dev copy.
    const manifest = (peers: Record<string, string>, meta?: Record<string, unknown>) =>
      JSON.stringify(
        {
          name: '@shelf/tools',
          dependencies: { zod: '^3.25.0' },
          peerDependencies: peers,
          ...(meta ? { peerDependenciesMeta: meta } : {}),
          devDependencies: { '@modelcontextprotocol/sdk': '^1.23.0' },
        },
        null,
        2,
      );
    const tools =
      "import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';\nexport function register(server: McpServer): void {\n  void server;\n}\n";
    const run = (text: string, peers: Record<string, string>, meta?: Record<string, unknown>) =>
      JSON.parse(
        migrateSdkSurface({
          files: new Map([['src/index.ts', text]]),
          manifests: new Map([['package.json', manifest(peers, meta)]]),
        }).manifests.get('package.json')!,
      );
    const moved = run(tools, { '@modelcontextprotocol/sdk': '^1.23.0', express: '*' }, { '@modelcontextprotocol/sdk': { optional: true } });
    expect(moved.peerDependencies).toEqual({ '@modelcontextprotocol/server': '^2.4.0', express: '*' });
    expect(moved.peerDependenciesMeta).toEqual({ '@modelcontextprotocol/server': { optional: true } });
    expect(moved.devDependencies['@modelcontextprotocol/sdk']).toBeUndefined();
    // A file that still imports the v1 SDK keeps the peer as it was (v2Peers is what runs after the codemod).
    const peers = manifest({ '@modelcontextprotocol/sdk': '^1.23.0' });
    const v1 = "import { Server } from '@modelcontextprotocol/sdk/server/index.js';\n";
    expect(v2Peers(peers, ['@modelcontextprotocol/server'], [v1])).toBe(peers);
    expect(v2Peers(peers, [], [''])).toBe(peers);
  });

  it("drops its 'is not exported' marker where the removed import was never used, and keeps it where it is", () => {
    const manifest = JSON.stringify({ name: 'surface', dependencies: { '@modelcontextprotocol/sdk': '^1.20.0' } });
    const result = migrateSdkSurface({
      files: new Map([
        [
          'src/unused.ts',
          "import { McpError, ErrorCode } from '@modelcontextprotocol/sdk/types.js';\nexport const e = new McpError(-1, 'x');\n",
        ],
        ['src/used.ts', "import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';\nexport const codes = [ErrorCode];\n"],
      ]),
      manifests: new Map([['package.json', manifest]]),
    });
    expect(result.files.get('src/unused.ts')).not.toContain('@mcp-codemod-error');
    expect(result.files.get('src/unused.ts')).not.toMatch(/\bErrorCode\b/);
    expect(result.files.get('src/used.ts')).toMatch(/@mcp-codemod-error ErrorCode is not exported/);
    const notExported = result.diagnostics.filter((d) => /is not exported/.test(d.message)).map((d) => d.file);
    expect(notExported).toEqual(['src/used.ts']);
  });
});

describe('mcp-framework raised for MCPServer.handleRequest', () => {
  // mcp-framework 0.2.22 wants zod 3 but its SDK takes zod 4, which npm hoists: tools importing an undeclared zod
  // would get zod 4 and fail every call. The manifest declares zod 3 for them; a declared zod is left as written.
  const project = (root: string, zod: string | undefined) => {
    const dependencies: Record<string, string> = { dotenv: '^17.0.0', 'mcp-framework': '^0.2.15' };
    if (zod) dependencies.zod = zod;
    fs.writeFileSync(path.join(root, 'package.json'), `${JSON.stringify({ name: 'lookup', type: 'module', dependencies }, null, 2)}\n`);
    fs.mkdirSync(path.join(root, 'src', 'tools'), { recursive: true });
    fs.writeFileSync(
      path.join(root, 'src', 'index.ts'),
      "import { MCPServer } from 'mcp-framework';\n\nconst server = new MCPServer({ transport: { type: 'http-stream', options: { port: 8080 } } });\n\nserver.start();\n",
    );
    fs.writeFileSync(
      path.join(root, 'src', 'tools', 'LookupTool.ts'),
      "import { MCPTool } from 'mcp-framework';\nimport { z } from 'zod';\n\nconst input = z.object({ word: z.string() });\n\nexport default class LookupTool extends MCPTool {\n  name = 'lookup';\n  description = 'Look a word up';\n  schema = input;\n  async execute({ word }: z.infer<typeof input>) {\n    return word.toUpperCase();\n  }\n}\n",
    );
  };

  it('declares zod 3 where the tools import zod without declaring it', () => {
    const root = workspace('mcp-framework-undeclared-zod');
    project(root, undefined);
    const result = apply({ paths: [root], cwd: root, allowDirty: true, target: '2025-11-25' });
    expect(result.problems).toEqual([]);
    const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
    expect(pkg.dependencies).toEqual({ dotenv: '^17.0.0', 'mcp-framework': '^0.2.22', zod: '^3.25.76' });
    expect(result.manual.some((m) => m.file === 'package.json' && /zod \^3\.25\.76 added/.test(m.message))).toBe(true);
  });

  it('leaves a declared zod as it is', () => {
    const root = workspace('mcp-framework-declared-zod');
    project(root, '^3');
    apply({ paths: [root], cwd: root, allowDirty: true, target: '2025-11-25' });
    const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
    expect(pkg.dependencies).toEqual({ dotenv: '^17.0.0', 'mcp-framework': '^0.2.22', zod: '^3' });
  });
});
