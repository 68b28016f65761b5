import { describe, expect, it } from 'vitest';
import { MCP_MARKERS, mayContainMcpCode } from '../src/engine/prefilter';

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
      'eventStore',
      'McpAgent',
      'fastmcp',
      'mcp-framework',
      'transportType',
      'McpServer',
      '.listen(',
      'Bun.serve',
      'serve({',
      'registerTool',
      'sessionId',
      'headers.origin',
      "headers['origin']",
      'headers["origin"]',
      "('origin')",
      '("origin")',
      'OriginValidation',
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
