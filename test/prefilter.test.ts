import { describe, expect, it } from 'vitest';
import { CANDIDATE_MARKERS, MCP_MARKERS, isCandidate, mayContainMcpCode } from '../src/engine/prefilter';

describe('mayContainMcpCode', () => {
  it('lists the documented markers', () => {
    expect(MCP_MARKERS).toEqual([
      '@modelcontextprotocol',
      'SSEServerTransport',
      'SSEClientTransport',
      'StreamableHTTP',
      'handlePostMessage',
      'handleRequest',
      'sessionIdGenerator',
      'mcp-session-id',
      'last-event-id',
      'text/event-stream',
      'event: endpoint',
      "event: 'endpoint'",
      'event: "endpoint"',
      'eventStore',
      'McpAgent',
      'serveSSE(',
      '.mount(',
      'fastmcp',
      'mcp-framework',
      'mcp-handler',
      '@vercel/mcp-adapter',
      '@rekog/mcp-nest',
      'fastify-mcp',
      'transportType',
      'McpServer',
      '.listen(',
      'Bun.serve',
      'serve({',
      'registerTool',
      '.tool(',
      '.prompt(',
      '.resource(',
      'registerPrompt',
      'registerResource',
      'setRequestHandler',
      'sessionId',
      'headers.origin',
      "headers['origin']",
      'headers["origin"]',
      "('origin')",
      '("origin")',
      'OriginValidation',
      'mcp-migrate',
      '@mcp-codemod-error',
    ]);
    expect(Object.isFrozen(MCP_MARKERS)).toBe(true);
  });

  it('accepts text containing any single marker, embedded in code', () => {
    for (const marker of MCP_MARKERS) {
      expect(mayContainMcpCode(`const x = 1;\n// before ${marker} after\n`), marker).toBe(true);
    }
  });

  it('is case-insensitive', () => {
    expect(mayContainMcpCode('res.setHeader("Mcp-Session-Id", id)')).toBe(true);
    expect(mayContainMcpCode("headers['Content-Type'] = 'TEXT/EVENT-STREAM'")).toBe(true);
    expect(mayContainMcpCode('import { FastMCP } from "fastmcp"')).toBe(true);
    expect(mayContainMcpCode('const SESSIONID = 1')).toBe(true);
  });

  it('matches real SDK imports', () => {
    expect(mayContainMcpCode("import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';")).toBe(true);
    expect(mayContainMcpCode("app.listen(3000, () => console.log('up'))")).toBe(true);
    expect(mayContainMcpCode('export default { fetch: handler } satisfies Bun.Serve')).toBe(true);
  });

  it('keeps a file that checks Origin, which may have no MCP code of its own', () => {
    expect(mayContainMcpCode("if (req.headers['origin'] !== allowed) res.status(403).end();")).toBe(true);
    expect(mayContainMcpCode("const origin = req.get('Origin');")).toBe(true);
  });

  it('rejects files without any marker', () => {
    expect(mayContainMcpCode('')).toBe(false);
    expect(mayContainMcpCode('export function add(a: number, b: number) { return a + b; }\n')).toBe(false);
    expect(mayContainMcpCode("import express from 'express';\nconst app = express();\napp.get('/', (req, res) => res.send('ok'));\n")).toBe(
      false,
    );
    // Special characters in markers are literal: `.listen(` needs the dot and the parenthesis.
    expect(mayContainMcpCode('listen to the server')).toBe(false);
    expect(mayContainMcpCode('xlisten(3000)')).toBe(false);
    expect(mayContainMcpCode('BunXserve()')).toBe(false);
    expect(mayContainMcpCode('event:endpoint')).toBe(false);
  });
});

describe('isCandidate', () => {
  it('lists the strong markers: what only MCP code, or this tool, writes', () => {
    expect(CANDIDATE_MARKERS).toEqual([
      '@modelcontextprotocol',
      'fastmcp',
      'mcp-framework',
      'mcp-handler',
      '@vercel/mcp-adapter',
      '@rekog/mcp-nest',
      'fastify-mcp',
      'agents/mcp',
      'McpAgent',
      'mcp-session-id',
      'jsonrpc',
      'closeStandaloneSSEStream',
      'mcp-migrate',
      '@mcp-codemod-error',
    ]);
    for (const marker of CANDIDATE_MARKERS) expect(isCandidate(`const x = 1;\n// ${marker.toUpperCase()}\n`), marker).toBe(true);
  });

  it('takes the endpoint handshake however it is spaced, and the tool’s own comments', () => {
    expect(isCandidate("res.write('event:endpoint\\ndata: /messages\\n\\n')")).toBe(true);
    expect(isCandidate('res.write(`event:  endpoint\\n`)')).toBe(true);
    expect(isCandidate('// mcp-migrate-ignore-next-line session-id -- reviewed')).toBe(true);
    expect(isCandidate('/* @mcp-codemod-error rename this */')).toBe(true);
  });

  it('leaves out ordinary server code that only mentions the weak markers', () => {
    const ordinary = [
      'const sessionId = req.cookies.sessionId;',
      "res.setHeader('Content-Type', 'text/event-stream');",
      'app.listen(port);',
      'if (req.headers.origin !== allowed) return res.status(403).end();',
      'async handleRequest(command) { return { ok: true }; }',
      "store.eventStore.push({ type: 'created' });",
    ].join('\n');
    expect(mayContainMcpCode(ordinary)).toBe(true);
    expect(isCandidate(ordinary)).toBe(false);
  });
});
