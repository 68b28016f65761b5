// The type-check gate: an endpoint whose migration would not type-check in its own tsconfig project is rolled back —
// in every file it touched — and left as it was with a marker that quotes the error; the rest still migrates. A
// workspace under .tmp/ resolves the SDK, express and @types from the repository's node_modules.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { apply } from '../src/engine/apply';
import { check } from '../src/engine/check';
import { TypeCheckGate } from '../src/engine/typecheck';
import { REPO_ROOT, scratchDir } from './helpers/server-process';

const made: string[] = [];
afterAll(() => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
});

function project(files: Record<string, string>): string {
  const dir = scratchDir('gate');
  made.push(dir);
  const all = {
    'tsconfig.json': JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'nodenext',
        moduleResolution: 'nodenext',
        strict: true,
        skipLibCheck: true,
        noEmit: true,
      },
      include: ['src'],
    }),
    'package.json': JSON.stringify({
      name: 'gate-case',
      type: 'module',
      dependencies: { '@modelcontextprotocol/sdk': '^1.32.2', express: '^5' },
    }),
    ...files,
  };
  for (const [file, text] of Object.entries(all)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
  return dir;
}

function tsc(dir: string): string {
  try {
    execFileSync(path.join(REPO_ROOT, 'node_modules', '.bin', 'tsc'), ['-p', path.join(dir, 'tsconfig.json')], { encoding: 'utf8' });
    return '';
  } catch (error) {
    return String((error as { stdout?: string }).stdout ?? error);
  }
}

// The handler's response is typed with an interface of its own: the stateless endpoint's `res.on('close')` and
// `res.writeHead(500)` do not exist on it, so the migrated code would not compile.
const NARROW_RESPONSE = `import express from 'express';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { randomUUID } from 'node:crypto';

interface JsonOnly {
  status(code: number): JsonOnly;
  json(body: unknown): void;
}

const app = express();
app.use(express.json());
const transports: Record<string, StreamableHTTPServerTransport> = {};

app.post('/mcp', async (req, reply: JsonOnly) => {
  const id = req.headers['mcp-session-id'] as string | undefined;
  let transport = id ? transports[id] : undefined;
  if (!transport && isInitializeRequest(req.body)) {
    transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (sid) => { transports[sid] = transport!; } });
    await new McpServer({ name: 'narrow', version: '1.0.0' }).connect(transport);
  }
  if (!transport) return reply.status(400).json({ error: 'no session' });
  await transport.handleRequest(req, reply as never, req.body);
});

app.listen(3000, '127.0.0.1');
`;

// A second, ordinary endpoint in another file of the same project: it must still migrate.
const ORDINARY = `import express from 'express';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { randomUUID } from 'node:crypto';

const admin = express();
admin.use(express.json());
const sessions = new Map<string, StreamableHTTPServerTransport>();

admin.post('/admin/mcp', async (req, res) => {
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (sid) => { sessions.set(sid, transport); } });
  await new McpServer({ name: 'admin', version: '1.0.0' }).connect(transport);
  await transport.handleRequest(req, res, req.body);
});

admin.listen(3001, '127.0.0.1');
`;

describe('type-check gate', () => {
  it('rolls back the endpoint that would not compile, marks it with the error, and migrates the other one', async () => {
    const dir = project({ 'src/narrow.ts': NARROW_RESPONSE, 'src/admin.ts': ORDINARY });
    expect(tsc(dir), 'the project compiles before').toBe('');
    const result = apply({ paths: [dir], cwd: dir, allowDirty: true, target: '2025-11-25' });
    expect(result.rolledBack.map((r) => r.endpoint)).toEqual(['src/narrow.ts#/mcp']);
    expect(result.rolledBack[0].reason, result.rolledBack[0].reason).toMatch(
      /the type-check would fail: src\/narrow\.ts:\d+ .*\(TS(?:2339|2345)\)/,
    );
    const narrow = fs.readFileSync(path.join(dir, 'src/narrow.ts'), 'utf8');
    expect(narrow).toContain('/* mcp-migrate: session-id: not migrated: the type-check would fail');
    // Nothing but the marker: the rolled-back endpoint is left exactly as it was.
    expect(narrow.replace(/^\/\* mcp-migrate: .*\*\/\n/m, '')).toBe(NARROW_RESPONSE);
    const admin = fs.readFileSync(path.join(dir, 'src/admin.ts'), 'utf8');
    expect(admin).toContain('sessionIdGenerator: undefined');
    expect(admin).not.toContain('randomUUID');
    expect(tsc(dir), 'the project still compiles after').toBe('');
    // The gate stays red on the endpoint that was left for a human.
    const after = await check({ paths: [dir], cwd: dir });
    expect(after.findings.some((f) => f.file === 'src/narrow.ts' && f.data?.marker)).toBe(true);
  });
});

describe('TypeCheckGate', () => {
  it('checks like tsconfig projects in one program and still tells their errors apart', () => {
    const root = scratchDir('gate');
    made.push(root);
    const config = JSON.stringify({ compilerOptions: { strict: true, module: 'nodenext', noEmit: true, outDir: 'out' }, include: ['src'] });
    const changes = ['a', 'b'].map((name) => {
      const absPath = path.join(root, name, 'src', 'index.ts');
      fs.mkdirSync(path.dirname(absPath), { recursive: true });
      fs.writeFileSync(path.join(root, name, 'tsconfig.json'), config);
      // A script, not a module: in one shared program its globals would collide, before and after alike.
      const before = `const count: number = 1;\nconsole.log(count);\n`;
      fs.writeFileSync(absPath, before);
      return {
        absPath,
        relPath: `${name}/src/index.ts`,
        before,
        after: name === 'a' ? `const count: number = 'one';\nconsole.log(count);\n` : before,
      };
    });
    const result = new TypeCheckGate(root).check(changes);
    expect(result.unchecked).toEqual([]);
    expect(result.checked).toBe(2);
    expect(result.introduced.map((e) => [e.relPath, e.code])).toEqual([['a/src/index.ts', 2322]]);
  });
});

describe('TypeCheckGate: errors the project already had', () => {
  it('pairs an error whose message names a changed type with the one its line had before; a new line is still new', () => {
    const root = scratchDir('gate');
    made.push(root);
    fs.writeFileSync(
      path.join(root, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { strict: true, module: 'nodenext', noEmit: true }, include: ['src'] }),
    );
    fs.mkdirSync(path.join(root, 'src'));
    const reply = path.join(root, 'src', 'reply.ts');
    const before = `export type Role = 'user';\n`;
    fs.writeFileSync(reply, before);
    // Fails before and after, with the union the change names in its message after.
    fs.writeFileSync(path.join(root, 'src', 'use.ts'), `import type { Role } from './reply.js';\nexport const role: Role = 'bot';\n`);
    const after = `export type Role = 'user' | 'assistant';\nexport const other: Role = 'bot';\n`;
    const result = new TypeCheckGate(root).check([{ absPath: reply, relPath: 'src/reply.ts', before, after }]);
    expect(result.introduced.map((e) => [e.relPath, e.line, e.code])).toEqual([['src/reply.ts', 2, 2322]]);
  });
});

describe("TypeCheckGate: the project's own declaration files", () => {
  it('reads them as tsc does: a module they declare resolves, and its types still check', () => {
    const root = scratchDir('gate');
    made.push(root);
    fs.writeFileSync(
      path.join(root, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { strict: true, module: 'es2022', moduleResolution: 'bundler', noEmit: true }, include: ['src'] }),
    );
    fs.mkdirSync(path.join(root, 'src'));
    // (an ambient module, as @cloudflare/workers-types or wrangler's generated types declare `cloudflare:workers`)
    fs.writeFileSync(
      path.join(root, 'src', 'runtime.d.ts'),
      `declare module 'runtime:objects' {\n  export abstract class Stored {\n    id: string;\n  }\n}\n`,
    );
    const worker = path.join(root, 'src', 'worker.ts');
    const before = `export const name = 'worker';\n`;
    fs.writeFileSync(worker, before);
    const change = (after: string) => new TypeCheckGate(root).check([{ absPath: worker, relPath: 'src/worker.ts', before, after }]);
    expect(change(`import { Stored } from 'runtime:objects';\nexport class Agent extends Stored {}\n`).introduced).toEqual([]);
    expect(change(`import { Stored } from 'runtime:objects';\nexport const agent: Stored = 1;\n`).introduced.map((e) => e.code)).toEqual([
      2322,
    ]);
  });
});

describe('TypeCheckGate: the defaults of the compiler the project builds with', () => {
  // TypeScript 6, which the gate runs, loads no `@types/*` package unless `types` names it and is strict unless told
  // otherwise; a project on TypeScript 5 gets every `@types/*` global and no strict checks from the same config.
  function withCompiler(version: string): { root: string; change: (after: string) => number[] } {
    const root = scratchDir('gate');
    made.push(root);
    const write = (file: string, text: string) => {
      fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
      fs.writeFileSync(path.join(root, file), text);
    };
    write('tsconfig.json', JSON.stringify({ compilerOptions: { module: 'nodenext', noEmit: true }, include: ['src'] }));
    write('package.json', JSON.stringify({ name: 'defaults-case', type: 'module' }));
    write('node_modules/typescript/package.json', JSON.stringify({ name: 'typescript', version }));
    write('node_modules/@types/host-globals/package.json', JSON.stringify({ name: '@types/host-globals', types: 'index.d.ts' }));
    write('node_modules/@types/host-globals/index.d.ts', 'declare var hostName: string;\n');
    const before = `export const port = 3000;\n`;
    write('src/server.ts', before);
    const absPath = path.join(root, 'src', 'server.ts');
    const change = (after: string) =>
      new TypeCheckGate(root).check([{ absPath, relPath: 'src/server.ts', before, after }]).introduced.map((e) => e.code);
    return { root, change };
  }
  const usesGlobal = `export const port = 3000;\nexport const host = hostName;\n`;
  const untyped = `export const port = 3000;\nexport function echo(value) {\n  return value;\n}\n`;

  it('checks a TypeScript 5 project with its @types globals and without strict checks', () => {
    const { change } = withCompiler('5.6.3');
    expect(change(usesGlobal)).toEqual([]);
    expect(change(untyped)).toEqual([]);
  });

  it('checks a TypeScript 6 project with the new defaults, as its own tsc does', () => {
    const { change } = withCompiler('6.0.2');
    expect(change(usesGlobal)).toEqual([2304]);
    expect(change(untyped)).toEqual([7006]);
  });
});

describe('TypeCheckGate: a nested package that was never installed', () => {
  // A package below the root with dependencies of its own and no node_modules would be checked against the root's
  // packages, which its own install does not bring (a root zod 3.24 against its SDK: tsc takes gigabytes, then TS2589).
  function nested(rootManifest: object): { root: string; change: Parameters<TypeCheckGate['check']>[0][0] } {
    const root = scratchDir('gate');
    made.push(root);
    fs.writeFileSync(path.join(root, 'package.json'), JSON.stringify(rootManifest));
    const absPath = path.join(root, 'tool', 'src', 'index.ts');
    fs.mkdirSync(path.dirname(absPath), { recursive: true });
    fs.writeFileSync(path.join(root, 'tool', 'package.json'), JSON.stringify({ name: 'tool', dependencies: { zod: '^4.2.0' } }));
    fs.writeFileSync(
      path.join(root, 'tool', 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { strict: true, module: 'nodenext', noEmit: true }, include: ['src'] }),
    );
    const before = `export const count: number = 1;\n`;
    fs.writeFileSync(absPath, before);
    return { root, change: { absPath, relPath: 'tool/src/index.ts', before, after: `export const count: number = 'one';\n` } };
  }

  it('is only re-parsed, and the report says which package to install', () => {
    const { root, change } = nested({ name: 'app' });
    const result = new TypeCheckGate(root).check([change]);
    expect(result.unchecked).toEqual([
      {
        file: 'tool/src/index.ts',
        reason:
          'its package (tool/package.json) has no node_modules of its own (run npm install there, then apply); only its names were checked',
      },
    ]);
    expect(result.checked).toBe(0);
  });

  it('is checked when it is a workspace of the root, whose install hoists its packages', () => {
    const { root, change } = nested({ name: 'app', workspaces: ['tool'] });
    const result = new TypeCheckGate(root).check([change]);
    expect(result.unchecked).toEqual([]);
    expect(result.introduced.map((e) => [e.relPath, e.code])).toEqual([['tool/src/index.ts', 2322]]);
  });
});

describe('TypeCheckGate: JavaScript it cannot type-check', () => {
  // No tsconfig, or no checkJs: the file is not type-checked, but a name its new text uses and nothing declares (a
  // helper the rewrite dropped) would fail at run time, and nothing else would tell.
  it('reports a name the change leaves undeclared, not one the file already used undeclared', () => {
    const root = scratchDir('gate');
    made.push(root);
    const absPath = path.join(root, 'server.js');
    const before = [
      `const { readFile } = require('node:fs');`,
      `async function readJson(req) { return JSON.parse(String(await readFile(req))); }`,
      `module.exports = async (req) => ({ body: await readJson(req), flag: FEATURE_FLAG, env: process.env.HOME });`,
      '',
    ].join('\n');
    fs.writeFileSync(absPath, before);
    const after = [
      `const { readFile } = require('node:fs');`,
      `module.exports = async (req) => ({ body: await readJson(req), flag: FEATURE_FLAG, env: process.env.HOME });`,
      '',
    ].join('\n');
    const result = new TypeCheckGate(root).check([{ absPath, relPath: 'server.js', before, after }]);
    expect(result.introduced.map((e) => [e.relPath, e.line, e.code, e.head])).toEqual([
      ['server.js', 2, 2304, "Cannot find name 'readJson'."],
    ]);
    expect(result.unchecked).toEqual([{ file: 'server.js', reason: expect.stringMatching(/; only its names were checked$/) }]);
  });
});

describe('TypeCheckGate: a composite project', () => {
  // The gate's program holds the changed files and their importers, not the tsconfig's whole file list: a composite
  // project reports every other file it reaches through imports as unlisted (TS6307). That says nothing of the change.
  it('does not blame the change for files its program reached through imports', () => {
    const root = scratchDir('gate');
    made.push(root);
    fs.writeFileSync(
      path.join(root, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { composite: true, strict: true, module: 'nodenext', outDir: 'out', rootDir: 'src' },
        include: ['src'],
      }),
    );
    fs.mkdirSync(path.join(root, 'src'));
    fs.writeFileSync(path.join(root, 'src', 'util.ts'), `export const twice = (n: number): number => n * 2;\n`);
    const absPath = path.join(root, 'src', 'index.ts');
    const before = `import { twice } from './util.js';\nexport const four = twice(2);\n`;
    fs.writeFileSync(absPath, before);
    const after = `import { twice } from './util.js';\n/* mcp-migrate: session-state: a marker */\nexport const four = twice(2);\n`;
    const result = new TypeCheckGate(root).check([{ absPath, relPath: 'src/index.ts', before, after }]);
    expect(result.unchecked).toEqual([]);
    expect(result.introduced).toEqual([]);
  });
});
