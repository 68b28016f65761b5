// One before/after example per rule id, for `explain` and SARIF `help`. Plain data (no ts-morph), so `explain`
// stays fast. test/explain.test.ts runs the detector on every example: `before` must report the rule, `after` must not.

export interface RuleExample {
  /** Code the rule reports (a whole TypeScript module, or the file named by `file`). */
  before: string;
  /** The same code once migrated: the rule is silent on it. */
  after: string;
  /** The file `before` and `after` are (default: a TypeScript module). */
  file?: 'package.json';
  /** Other files of the example project, the same before and after (the code a package.json belongs to). */
  project?: Record<string, string>;
}

const SDK = '@modelcontextprotocol/sdk';

export const RULE_EXAMPLES: Readonly<Record<string, RuleExample>> = {
  'legacy-sse-transport': {
    before: `import express from 'express';
import { SSEServerTransport } from '${SDK}/server/sse.js';
import { buildServer } from './server.js';

const app = express();
const transports: Record<string, SSEServerTransport> = {};
app.get('/sse', async (_req, res) => {
  const transport = new SSEServerTransport('/messages', res);
  transports[transport.sessionId] = transport;
  await buildServer().connect(transport);
});
app.post('/messages', (req, res) => transports[String(req.query.sessionId)].handlePostMessage(req, res, req.body));
app.listen(3000, '127.0.0.1');
`,
    after: `import express from 'express';
import { StreamableHTTPServerTransport } from '${SDK}/server/streamableHttp.js';
import { buildServer } from './server.js';

const app = express();
app.use(express.json());
app.post('/mcp', async (req, res) => {
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  await buildServer().connect(transport);
  await transport.handleRequest(req, res, req.body);
});
app.listen(3000, '127.0.0.1');
`,
  },
  'session-id': {
    before: `import { randomUUID } from 'node:crypto';
import { StreamableHTTPServerTransport } from '${SDK}/server/streamableHttp.js';

export const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID() });
`,
    after: `import { StreamableHTTPServerTransport } from '${SDK}/server/streamableHttp.js';

export const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
`,
  },
  'get-stream': {
    before: `import express from 'express';
import { StreamableHTTPServerTransport } from '${SDK}/server/streamableHttp.js';

const app = express();
const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
app.get('/mcp', (req, res) => transport.handleRequest(req, res));
`,
    after: `import express from 'express';

const app = express();
app.get('/mcp', (_req, res) => {
  res.status(405).set('Allow', 'POST').end();
});
`,
  },
  'delete-session': {
    before: `import express from 'express';
import { StreamableHTTPServerTransport } from '${SDK}/server/streamableHttp.js';

const app = express();
const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
app.delete('/mcp', (req, res) => transport.handleRequest(req, res));
`,
    after: `import express from 'express';

const app = express();
app.delete('/mcp', (_req, res) => {
  res.status(405).set('Allow', 'POST').end();
});
`,
  },
  'last-event-id': {
    before: `import { StreamableHTTPServerTransport } from '${SDK}/server/streamableHttp.js';
import { InMemoryEventStore } from '${SDK}/examples/shared/inMemoryEventStore.js';

export const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, eventStore: new InMemoryEventStore() });
`,
    after: `import { StreamableHTTPServerTransport } from '${SDK}/server/streamableHttp.js';

export const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
`,
  },
  'shared-server-instance': {
    before: `import express from 'express';
import { McpServer } from '${SDK}/server/mcp.js';
import { StreamableHTTPServerTransport } from '${SDK}/server/streamableHttp.js';

const server = new McpServer({ name: 'notes', version: '1.0.0' });
const app = express();
app.post('/mcp', async (req, res) => {
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  await server.connect(transport);
  await transport.handleRequest(req, res, req.body);
});
`,
    after: `import express from 'express';
import { McpServer } from '${SDK}/server/mcp.js';
import { StreamableHTTPServerTransport } from '${SDK}/server/streamableHttp.js';

function createMcpServer(): McpServer {
  return new McpServer({ name: 'notes', version: '1.0.0' });
}
const app = express();
app.post('/mcp', async (req, res) => {
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  await createMcpServer().connect(transport);
  await transport.handleRequest(req, res, req.body);
});
`,
  },
  'shared-transport': {
    before: `import { createServer } from 'node:http';
import { StreamableHTTPServerTransport } from '${SDK}/server/streamableHttp.js';
import { buildServer } from './server.js';

const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
await buildServer().connect(transport);
createServer((req, res) => void transport.handleRequest(req, res)).listen(3000, '127.0.0.1');
`,
    after: `import { createServer } from 'node:http';
import { StreamableHTTPServerTransport } from '${SDK}/server/streamableHttp.js';
import { buildServer } from './server.js';

createServer(async (req, res) => {
  const server = buildServer();
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res);
}).listen(3000, '127.0.0.1');
`,
  },
  'origin-validation': {
    before: `import express from 'express';
import { StreamableHTTPServerTransport } from '${SDK}/server/streamableHttp.js';
import { buildServer } from './server.js';

const app = express();
app.post('/mcp', async (req, res) => {
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  await buildServer().connect(transport);
  await transport.handleRequest(req, res, req.body);
});
`,
    after: `import express from 'express';
import { StreamableHTTPServerTransport } from '${SDK}/server/streamableHttp.js';
import { buildServer } from './server.js';

const app = express();
app.post('/mcp', async (req, res) => {
  const origin = req.headers.origin;
  if (origin && origin !== 'http://localhost:3000') {
    res.status(403).end();
    return;
  }
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  await buildServer().connect(transport);
  await transport.handleRequest(req, res, req.body);
});
`,
  },
  'session-state': {
    before: `import { McpServer } from '${SDK}/server/mcp.js';

const carts = new Map<string, string[]>();
export function register(server: McpServer): void {
  server.registerTool('cart_items', { description: 'Items in the cart' }, async (_args, extra) => ({
    content: [{ type: 'text', text: (carts.get(extra.sessionId ?? '') ?? []).join(', ') }],
  }));
}
`,
    after: `import { McpServer } from '${SDK}/server/mcp.js';
import { z } from 'zod';

const carts = new Map<string, string[]>();
export function register(server: McpServer): void {
  server.registerTool(
    'cart_items',
    { description: 'Items in the cart', inputSchema: { session_handle: z.string() } },
    async ({ session_handle }) => ({ content: [{ type: 'text', text: (carts.get(session_handle) ?? []).join(', ') }] }),
  );
}
`,
  },
  'idempotency-hint': {
    before: `import { McpServer } from '${SDK}/server/mcp.js';

export function register(server: McpServer): void {
  server.registerTool('now', { description: 'The current time' }, async () => ({
    content: [{ type: 'text', text: new Date().toISOString() }],
  }));
}
`,
    after: `import { McpServer } from '${SDK}/server/mcp.js';

export function register(server: McpServer): void {
  server.registerTool('now', { description: 'The current time', annotations: { readOnlyHint: true, idempotentHint: true } }, async () => ({
    content: [{ type: 'text', text: new Date().toISOString() }],
  }));
}
`,
  },
  'local-bind': {
    before: `import express from 'express';
import { McpServer } from '${SDK}/server/mcp.js';

export const server = new McpServer({ name: 'local', version: '1.0.0' });
express().listen(3000);
`,
    after: `import express from 'express';
import { McpServer } from '${SDK}/server/mcp.js';

export const server = new McpServer({ name: 'local', version: '1.0.0' });
express().listen(3000, '127.0.0.1');
`,
  },
  'deprecated-transport-options': {
    before: `import { StreamableHTTPServerTransport } from '${SDK}/server/streamableHttp.js';

export const transport = new StreamableHTTPServerTransport({
  sessionIdGenerator: undefined,
  enableDnsRebindingProtection: true,
  allowedHosts: ['127.0.0.1'],
});
`,
    after: `import { StreamableHTTPServerTransport } from '${SDK}/server/streamableHttp.js';

// Host and Origin are checked in front of the transport (createMcpExpressApp, or a middleware).
export const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
`,
  },
  'legacy-sse-client': {
    before: `import { SSEClientTransport } from '${SDK}/client/sse.js';

export const transport = new SSEClientTransport(new URL('http://127.0.0.1:3000/sse'));
`,
    after: `import { StreamableHTTPClientTransport } from '${SDK}/client/streamableHttp.js';

export const transport = new StreamableHTTPClientTransport(new URL('http://127.0.0.1:3000/mcp'));
`,
  },
  'per-request-transport': {
    before: `import express from 'express';
import { StreamableHTTPServerTransport } from '${SDK}/server/streamableHttp.js';
import { buildServer } from './server.js';

const app = express();
app.post('/mcp', async (req, res) => {
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  await buildServer().connect(transport);
  await transport.handleRequest(req, res, req.body);
});
`,
    after: `import { createMcpExpressApp } from '@modelcontextprotocol/express';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { buildServer } from './server.js';

const app = createMcpExpressApp();
const mcpHandler = toNodeHandler(createMcpHandler(() => buildServer(), { legacy: 'stateless' }));
app.all('/mcp', (req, res) => void mcpHandler(req, res, req.body));
`,
  },
  'v1-sdk-api': {
    before: `import { McpServer } from '@modelcontextprotocol/server';

export function buildServer() {
  const server = new McpServer({ name: 'weather', version: '2.0.0' });
  server.tool('forecast', 'Forecast for tomorrow', async () => ({ content: [{ type: 'text', text: 'Sunny' }] }));
  return server;
}
`,
    after: `import { McpServer } from '@modelcontextprotocol/server';

export function buildServer() {
  const server = new McpServer({ name: 'weather', version: '2.0.0' });
  server.registerTool('forecast', { description: 'Forecast for tomorrow' }, async () => ({ content: [{ type: 'text', text: 'Sunny' }] }));
  return server;
}
`,
  },
  'session-client': {
    before: `// A browser client of a 2025-era server: it keeps the session id the server minted and ends the session.
export class NotesClient {
  private session?: string;

  constructor(private readonly url: string) {}

  async call(method: string, params: unknown): Promise<unknown> {
    const response = await fetch(this.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(this.session ? { 'mcp-session-id': this.session } : {}) },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    this.session ??= response.headers.get('mcp-session-id') ?? undefined;
    return response.json();
  }

  async close(): Promise<void> {
    if (this.session) await fetch(this.url, { method: 'DELETE', headers: { 'mcp-session-id': this.session } });
  }
}
`,
    after: `// Each request stands alone: no session id is kept, sent or ended.
export class NotesClient {
  constructor(private readonly url: string) {}

  async call(method: string, params: unknown): Promise<unknown> {
    const response = await fetch(this.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    return response.json();
  }
}
`,
  },
  'session-test': {
    before: `import { randomUUID } from 'node:crypto';
import { expect, test } from 'vitest';
import { StreamableHTTPServerTransport } from '${SDK}/server/streamableHttp.js';

test('a client keeps its session', () => {
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID() });
  expect(transport).toBeDefined();
});
`,
    after: `import { expect, test } from 'vitest';
import { StreamableHTTPServerTransport } from '${SDK}/server/streamableHttp.js';

test('every request stands alone', () => {
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  expect(transport).toBeDefined();
});
`,
  },
  'unused-suppression': {
    before: `import { McpServer } from '${SDK}/server/mcp.js';

// mcp-migrate-ignore-next-line session-id -- sessions were removed last release
export const server = new McpServer({ name: 'quiet', version: '1.0.0' });
`,
    after: `import { McpServer } from '${SDK}/server/mcp.js';

export const server = new McpServer({ name: 'quiet', version: '1.0.0' });
`,
  },
  'sdk-v2-surface': {
    before: `import { McpServer } from '@modelcontextprotocol/server';

/* @mcp-codemod-error server.server.setRequestHandler has no v2 equivalent here: register the handler on McpServer */
export const server = new McpServer({ name: 'v2', version: '1.0.0' });
`,
    after: `import { McpServer } from '@modelcontextprotocol/server';

export const server = new McpServer({ name: 'v2', version: '1.0.0' });
`,
  },
  'parse-error': {
    before: `import { McpServer } from '${SDK}/server/mcp.js';

export const server = new McpServer({ name: 'broken', version: '1.0.0' };
`,
    after: `import { McpServer } from '${SDK}/server/mcp.js';

export const server = new McpServer({ name: 'broken', version: '1.0.0' });
`,
  },
  'v2-peer-ranges': {
    file: 'package.json',
    before: `{
  "name": "weather-mcp",
  "dependencies": {
    "@modelcontextprotocol/server": "^2.4.0",
    "zod": "^3.25.0"
  }
}
`,
    after: `{
  "name": "weather-mcp",
  "dependencies": {
    "@modelcontextprotocol/server": "^2.4.0",
    "zod": "^4.2.0"
  }
}
`,
    project: {
      'server.ts': `import { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';

export function buildServer(): McpServer {
  const server = new McpServer({ name: 'weather', version: '1.0.0' });
  server.registerTool('forecast', { inputSchema: z.object({ city: z.string() }) }, async ({ city }) => ({
    content: [{ type: 'text', text: \`sunny in \${city}\` }],
  }));
  return server;
}
`,
    },
  },
  'v2-deferred': {
    before: `import { McpServer } from '${SDK}/server/mcp.js';

/* mcp-migrate: v2-deferred: on 2025-11-25 (stateless, v1 SDK) because the move to 2026-07-28 did not type-check: src/jobs.ts:2 Cannot find module '@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js' or its corresponding type declarations. (TS2307) in the v2 version of the file; \`mcp-migrate apply --dry-run\` lists every error: fix them, then run apply again */
export const buildServer = () => new McpServer({ name: 'ledger', version: '1.0.0' });
`,
    after: `import { McpServer } from '@modelcontextprotocol/server';

export const buildServer = () => new McpServer({ name: 'ledger', version: '1.0.0' });
`,
  },
  'zod-4': {
    before: `import { z } from 'zod';
import { zodToJsonSchema } from 'zod-to-json-schema';

/* mcp-migrate: zod-4: zodToJsonSchema does not read zod 4 schemas (zod 4 is what the v2 SDK needs): convert with z.toJSONSchema(schema, { io: "input" }) and carry these options over by hand */
export const nodeSchema = zodToJsonSchema(z.object({ id: z.string() }), 'Node');
`,
    after: `import { z } from 'zod';

export const nodeSchema = z.toJSONSchema(z.object({ id: z.string() }), { io: 'input' });
`,
  },
};
