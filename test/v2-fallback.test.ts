// Degrade, never break: a project whose move to 2026-07-28 would not type-check gets the 2025-11-25 stateless
// migration (which does), the report lists the errors of the v2 move, a `v2-deferred` marker (a warning) keeps it
// visible to `check`, a second apply changes nothing, and once the code is fixed apply moves it to 2026-07-28. A
// workspace under .tmp/ resolves the v1 SDK, the v2 packages, express and zod 4 from the repository's node_modules.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { apply } from '../src/engine/apply';
import { check } from '../src/engine/check';
import { REPO_ROOT, scratchDir } from './helpers/server-process';

const made: string[] = [];
afterAll(() => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
});

const MANIFEST = JSON.stringify(
  { name: 'ledger', type: 'module', dependencies: { '@modelcontextprotocol/sdk': '^1.32.2', express: '^5', zod: '^4.2.0' } },
  null,
  2,
);

function project(files: Record<string, string>): string {
  const dir = scratchDir('v2-fallback');
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
    'package.json': `${MANIFEST}\n`,
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

// A sessionful Streamable HTTP server: both targets migrate it.
const SERVER = `import express from 'express';
import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { registerLedgerTools } from './tools.js';

function buildServer(): McpServer {
  const server = new McpServer({ name: 'ledger', version: '1.0.0' });
  registerLedgerTools(server);
  return server;
}

const app = express();
app.use(express.json());
const transports = new Map<string, StreamableHTTPServerTransport>();

app.post('/mcp', async (req, res) => {
  const id = req.headers['mcp-session-id'] as string | undefined;
  let transport = id ? transports.get(id) : undefined;
  if (!transport) {
    transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (sid) => { transports.set(sid, transport!); } });
    await buildServer().connect(transport);
  }
  await transport.handleRequest(req, res, req.body);
});

app.listen(3000, '127.0.0.1');
`;

// Job state kept in the SDK's experimental task store, which v2 removed with no equivalent: the v2 move leaves an
// import of the v1 SDK, which the migrated manifest no longer lists (TS2307).
const TOOLS = `import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js';
import { z } from 'zod';

const jobs = new InMemoryTaskStore();

export function registerLedgerTools(server: McpServer): void {
  server.registerTool('job_status', { inputSchema: { id: z.string() } }, async ({ id }) => {
    const job = await jobs.getTask(id);
    return { content: [{ type: 'text', text: job?.status ?? 'unknown' }] };
  });
}
`;

const TOOLS_FIXED = TOOLS.replace(
  "import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js';\n",
  '',
)
  .replace('const jobs = new InMemoryTaskStore();', 'const jobs = new Map<string, { status: string }>();')
  .replace('await jobs.getTask(id)', 'jobs.get(id)');

describe('apply --target 2026-07-28 when the v2 move does not type-check', () => {
  it('keeps the project on 2025-11-25 stateless, says why, stays idempotent, and moves it once the code is fixed', async () => {
    const dir = project({ 'src/server.ts': SERVER, 'src/tools.ts': TOOLS });
    expect(tsc(dir), 'the project compiles before').toBe('');

    const result = apply({ paths: [dir], cwd: dir, allowDirty: true, target: '2026-07-28' });
    expect(result.deferred?.target).toBe('2025-11-25');
    const toolsError = result.deferred!.errors.find((e) => e.relPath === 'src/tools.ts');
    expect(toolsError, JSON.stringify(result.deferred!.errors)).toMatchObject({ code: 2307 });
    expect(toolsError!.lineText).toContain('@modelcontextprotocol/sdk/experimental/tasks');
    expect(result.manual).toContainEqual(
      expect.objectContaining({
        file: 'src/tools.ts',
        ruleId: 'v2-deferred',
        message: expect.stringContaining('The v2 move needs a human'),
      }),
    );
    const server = fs.readFileSync(path.join(dir, 'src/server.ts'), 'utf8');
    expect(server).toContain('sessionIdGenerator: undefined');
    expect(server).toContain("from '@modelcontextprotocol/sdk/server/streamableHttp.js'");
    expect(server).toMatch(/^\s*\/\* mcp-migrate: v2-deferred: on 2025-11-25 .*\*\/\n\s*app\.post\('\/mcp'/m);
    expect(server, 'the marker quotes the first error').toMatch(
      /v2-deferred: on 2025-11-25 \(stateless, v1 SDK\) because the move to 2026-07-28 did not type-check: src\/tools\.ts:\d+ Cannot find module '@modelcontextprotocol\/sdk\/experimental\/tasks\/stores\/in-memory\.js' .*\(TS2307\) in the v2 version of the file; `mcp-migrate apply --dry-run` lists every error/,
    );
    expect(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'), 'package.json stays on the v1 SDK').toBe(`${MANIFEST}\n`);
    expect(fs.readFileSync(path.join(dir, 'src/tools.ts'), 'utf8'), 'the tools stay on the v1 SDK').toContain(
      "import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';",
    );
    expect(tsc(dir), 'the 2025-11-25 result compiles').toBe('');

    const checked = await check({ paths: [dir], cwd: dir });
    expect(checked.findings.filter((f) => f.severity === 'error')).toEqual([]);
    expect(checked.findings.filter((f) => f.ruleId === 'v2-deferred').map((f) => f.severity)).toEqual(['warning']);

    const again = apply({ paths: [dir], cwd: dir, allowDirty: true, target: '2026-07-28' });
    expect(again.changes).toEqual([]);
    expect(again.deferred?.target).toBe('2025-11-25');

    fs.writeFileSync(path.join(dir, 'src/tools.ts'), TOOLS_FIXED);
    const moved = apply({ paths: [dir], cwd: dir, allowDirty: true, target: '2026-07-28' });
    expect(moved.deferred).toBeUndefined();
    const v2 = fs.readFileSync(path.join(dir, 'src/server.ts'), 'utf8');
    expect(v2).toContain('createMcpHandler(');
    expect(v2).not.toContain('v2-deferred');
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).dependencies['@modelcontextprotocol/server']).toMatch(
      /^\^2\./,
    );
    expect(tsc(dir), 'the v2 result compiles').toBe('');
    expect((await check({ paths: [dir], cwd: dir })).findings.filter((f) => f.ruleId === 'v2-deferred')).toEqual([]);
  }, 300_000);
});

describe('apply --target 2026-07-28 when the v2 manifest would not install beside the lock', () => {
  // zod moves 3 → 4 with the v2 packages; form-kit, pinned and left alone, wants zod 3 as a peer (npm: ERESOLVE).
  const manifest = JSON.stringify(
    {
      name: 'ledger',
      type: 'module',
      dependencies: { '@modelcontextprotocol/sdk': '^1.32.2', express: '^5', 'form-kit': '2.3.1', zod: '^3.25.0' },
    },
    null,
    2,
  );
  const lock = JSON.stringify({
    name: 'ledger',
    lockfileVersion: 3,
    packages: {
      '': { name: 'ledger', dependencies: { '@modelcontextprotocol/sdk': '^1.32.2', express: '^5', 'form-kit': '2.3.1', zod: '^3.25.0' } },
      'node_modules/form-kit': { version: '2.3.1', peerDependencies: { zod: '^3.22.0' } },
      'node_modules/zod': { version: '3.25.76' },
    },
  });

  it('keeps the project on 2025-11-25, names the locked package and both ranges, and check goes red on the v2 manifest', async () => {
    const dir = project({
      'src/server.ts': SERVER,
      'src/tools.ts': TOOLS_FIXED,
      'package.json': `${manifest}\n`,
      'package-lock.json': lock,
    });
    const result = apply({ paths: [dir], cwd: dir, allowDirty: true, target: '2026-07-28' });
    expect(result.deferred?.errors).toEqual([]);
    expect(result.deferred?.lockConflicts).toEqual([
      {
        manifest: 'package.json',
        locked: { name: 'form-kit', version: '2.3.1', source: 'package-lock.json' },
        peer: 'zod',
        peerRange: '^3.22.0',
        declared: '^4.2.0',
      },
    ]);
    expect(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'), 'package.json stays as it was').toBe(`${manifest}\n`);
    const server = fs.readFileSync(path.join(dir, 'src/server.ts'), 'utf8');
    expect(server).toContain('sessionIdGenerator: undefined');
    expect(server).toContain(
      '/* mcp-migrate: v2-deferred: on 2025-11-25 (stateless, v1 SDK) because its package.json would not install: form-kit 2.3.1 (package-lock.json) wants zod ^3.22.0 as a peer; the v2 move needs zod ^4.2.0 (npm: ERESOLVE); update form-kit or take it out of package-lock.json, then run apply again */',
    );
    expect(tsc(dir), 'the 2025-11-25 result compiles').toBe('');
    expect(apply({ paths: [dir], cwd: dir, allowDirty: true, target: '2026-07-28' }).changes, 'a second apply changes nothing').toEqual([]);

    // The v2 manifest written by hand, without touching the lock: the gate is red.
    fs.writeFileSync(
      path.join(dir, 'package.json'),
      manifest
        .replace('"zod": "^3.25.0"', '"zod": "^4.2.0"')
        .replace('"express"', '"@modelcontextprotocol/server": "^2.4.0",\n    "express"'),
    );
    const checked = await check({ paths: [dir], cwd: dir });
    expect(checked.findings.filter((f) => f.ruleId === 'v2-peer-ranges').map((f) => [f.severity, f.message])).toEqual([
      [
        'error',
        'zod ^4.2.0 cannot install beside the locked form-kit 2.3.1 (package-lock.json), which wants zod ^3.22.0 as a peer: npm install stops with ERESOLVE.',
      ],
    ]);
  }, 300_000);
});

describe('apply --target 2026-07-28 on an McpAgent whose agents raise would not install beside the lock', () => {
  // agents 0.0 brought ai 4, which wants zod 3 as a peer; raising agents to 0.32 (its createMcpHandler) leaves the
  // locked ai in place (npm: ERESOLVE against zod 4). Served by the SDK's own createMcpHandler, agents goes instead.
  const manifest = JSON.stringify(
    { name: 'atlas-worker', private: true, dependencies: { '@modelcontextprotocol/sdk': '1.17.1', agents: '^0.0.109', zod: '^3.25.0' } },
    null,
    2,
  );
  const lock = JSON.stringify({
    name: 'atlas-worker',
    lockfileVersion: 3,
    packages: {
      '': { name: 'atlas-worker', dependencies: { '@modelcontextprotocol/sdk': '1.17.1', agents: '^0.0.109', zod: '^3.25.0' } },
      'node_modules/@modelcontextprotocol/sdk': { version: '1.17.1', dependencies: { zod: '^3.23.8' } },
      'node_modules/agents': { version: '0.0.109', dependencies: { '@modelcontextprotocol/sdk': '^1.17.0', ai: '4.3.19' } },
      'node_modules/ai': { version: '4.3.19', peerDependencies: { zod: '^3.23.8' } },
      'node_modules/zod': { version: '3.25.76' },
    },
  });
  const WORKER = `import { McpAgent } from 'agents/mcp';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

type Props = { region: string };

export class AtlasAgent extends McpAgent<unknown, unknown, Props> {
  server = new McpServer({ name: 'atlas', version: '1.0.0' });

  async init() {
    this.server.registerTool('capital', { inputSchema: { country: z.string() } }, async ({ country }) => ({
      content: [{ type: 'text', text: \`\${country} (\${this.props.region})\` }],
    }));
  }
}

export default {
  fetch(request: Request, env: unknown, ctx: { props: Props }) {
    const { pathname } = new URL(request.url);
    if (pathname.startsWith('/sse')) return AtlasAgent.serveSSE('/sse').fetch(request, env, ctx);
    return AtlasAgent.serve('/mcp').fetch(request, env, ctx);
  },
};
`;
  const files = {
    'src/index.ts': WORKER,
    // (what @cloudflare/workers-types declares, as far as the migrated worker uses it)
    'src/cloudflare.d.ts': `declare module 'cloudflare:workers' {\n  export abstract class DurableObject {}\n}\n`,
    'package.json': `${manifest}\n`,
    'package-lock.json': lock,
  };

  it('serves the agent with the SDK createMcpHandler, takes agents out of the manifest, and a second apply changes nothing', () => {
    const dir = project(files);
    const result = apply({ paths: [dir], cwd: dir, allowDirty: true, target: '2026-07-28' });
    expect(result.deferred).toBeUndefined();
    const written = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(written.dependencies).toEqual({ zod: '^4.2.0', '@modelcontextprotocol/server': '^2.4.0' });
    const worker = fs.readFileSync(path.join(dir, 'src/index.ts'), 'utf8');
    expect(worker).toMatch(/import \{[^}]*createMcpHandler[^}]*\} from '@modelcontextprotocol\/server'/);
    expect(worker).not.toMatch(/from 'agents/);
    expect(worker).toContain('return createMcpHandler(() => createMcpServer(props)).fetch(request);');
    expect(worker).toContain('mcpHandler(request, ctx.props as Props)');
    expect(result.manual.map((item) => item.message)).toContain(
      "agents removed: nothing imports it any more (the McpAgent is served by the SDK's createMcpHandler, because raising agents would not install beside the project's lock); run your package manager's install.",
    );
    expect(apply({ paths: [dir], cwd: dir, allowDirty: true, target: '2026-07-28' }).changes, 'a second apply changes nothing').toEqual([]);
  }, 300_000);

  it('keeps agents, and the project on 2025-11-25, while another file of the package still imports it', () => {
    const dir = project({ ...files, 'src/chat.ts': `import { useAgent } from 'agents/react';\nexport const hook = useAgent;\n` });
    const result = apply({ paths: [dir], cwd: dir, allowDirty: true, target: '2026-07-28' });
    expect(result.deferred?.lockConflicts.map((c) => `${c.locked.name} ${c.peer} ${c.peerRange}`)).toEqual(['ai zod ^3.23.8']);
    const written = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    // (2025-11-25 serves it on the v1 SDK's Web-standard transport, whose stateless mode needs 1.25 or later)
    expect(written.dependencies).toEqual({ '@modelcontextprotocol/sdk': '^1.32.2', agents: '^0.0.109', zod: '^3.25.0' });
    expect(fs.readFileSync(path.join(dir, 'src/index.ts'), 'utf8')).toContain('WebStandardStreamableHTTPServerTransport');
  }, 300_000);
});
