// A re-analysis after an edit (migrate.ts runs one after each transform that changed a file) analyses again only the
// import groups with a changed file; the others are reused. Either way the result equals a fresh analysis.
import { describe, expect, it } from 'vitest';
import { analyzeSources, type Analysis, type SourceInput } from '../src/engine/analyze';
import { allRules } from '../src/rules';

const SSE_SERVER = (name: string) => `import express from 'express';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { tools } from './tools';

const app = express();
const server = new McpServer({ name: '${name}', version: '1.0.0' });
tools(server);
const transports: Record<string, SSEServerTransport> = {};
app.get('/sse', async (_req, res) => {
  const transport = new SSEServerTransport('/messages', res);
  transports[transport.sessionId] = transport;
  await server.connect(transport);
});
app.post('/messages', async (req, res) => {
  await transports[String(req.query.sessionId)].handlePostMessage(req, res);
});
app.listen(3000);
`;
const TOOLS = `import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
export function tools(server: McpServer) {
  server.registerTool('echo', { description: 'echo' }, async () => ({ content: [] }));
}
`;

function sources(texts: Record<string, string>): SourceInput[] {
  return Object.entries(texts).map(([relPath, text]) => ({ absPath: `/repo/${relPath}`, relPath, text }));
}

const TWO_SERVERS = {
  'a/server.ts': SSE_SERVER('a'),
  'a/tools.ts': TOOLS,
  'b/server.ts': SSE_SERVER('b'),
  'b/tools.ts': TOOLS,
};

const fileOf = (analysis: Analysis, relPath: string) => analysis.files.find((f) => f.relPath === relPath)!;

describe('re-analysis', () => {
  it('reuses the import groups whose files did not change, and equals a fresh analysis', () => {
    const first = analyzeSources(sources(TWO_SERVERS), allRules);
    const edited = { ...TWO_SERVERS, 'b/tools.ts': TOOLS.replace("'echo'", "'echo2'") };
    const again = analyzeSources(sources(edited), allRules, first);
    const fresh = analyzeSources(sources(edited), allRules);

    expect(fileOf(again, 'a/server.ts')).toBe(fileOf(first, 'a/server.ts'));
    expect(again.shape('a/server.ts')).toBe(first.shape('a/server.ts'));
    expect(fileOf(again, 'b/server.ts')).not.toBe(fileOf(first, 'b/server.ts'));
    expect(again.shape('b/tools.ts')).not.toBe(first.shape('b/tools.ts'));
    expect(again.shape('b/server.ts')).toEqual(fresh.shape('b/server.ts'));

    expect(fileOf(first, 'a/server.ts').findings.length).toBeGreaterThan(0);
    expect(again.files).toEqual(fresh.files);
    expect(again.endpoints().map((plan) => plan.id)).toEqual(fresh.endpoints().map((plan) => plan.id));
  });

  it('analyses everything again when the rules differ', () => {
    const first = analyzeSources(sources(TWO_SERVERS), allRules);
    const fewer = allRules.filter((rule) => rule.meta.id !== 'session-id');
    const again = analyzeSources(sources(TWO_SERVERS), fewer, first);
    expect(fileOf(again, 'a/server.ts')).not.toBe(fileOf(first, 'a/server.ts'));
    expect(again.files.flatMap((f) => f.findings).some((f) => f.ruleId === 'session-id')).toBe(false);
  });
});
