// Cheap text prefilter, in two stages. A file that contains none of MCP_MARKERS cannot hold anything a rule looks at:
// it is never parsed. That list is deliberately broad (a false positive costs little; a false negative hides a
// finding), so half of ordinary web code passes it (`sessionId`, `.listen(`, `text/event-stream`, `headers.origin`).
// Of those, only candidates (CANDIDATE_MARKERS, below) and the files imports link to them are parsed: select.ts.

/** Matched case-insensitively as plain substrings. */
export const MCP_MARKERS: readonly string[] = Object.freeze([
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
  // (hono's `stream.writeSSE({ event: 'endpoint', data })`)
  "event: 'endpoint'",
  'event: "endpoint"',
  'eventStore',
  'McpAgent',
  // A Worker that routes to an McpAgent subclass imported from another module names no MCP module itself:
  // `MyMCP.serveSSE('/sse').fetch(…)`, `MyMCP.mount('/sse').fetch(…)`.
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
  // @hono/node-server and Deno: where a Web fetch handler listens (local-bind, and whether the server is local).
  'serve({',
  'registerTool',
  // Tools and handlers registered on a server a caller passes in (`export function registerTools(server)`): a module
  // with no MCP import at all, in JavaScript, or typing the server `any`.
  '.tool(',
  '.prompt(',
  '.resource(',
  'registerPrompt',
  'registerResource',
  'setRequestHandler',
  'sessionId',
  // An Origin check may sit in a helper file with no MCP code at all; origin-validation must still see it.
  'headers.origin',
  "headers['origin']",
  'headers["origin"]',
  "('origin')",
  '("origin")',
  'OriginValidation',
  // This tool's markers and the official codemod's: a file may hold one and nothing else MCP (a zod 4 marker in a
  // schema file the v2 move reached), and `check` must still report it.
  'mcp-migrate',
  '@mcp-codemod-error',
]);

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

// One alternation, compiled once. Longer markers first so that the reported match (if anyone
// ever uses exec) is the most specific one; for `test` the order does not matter.
const MARKER_PATTERN = new RegExp(
  [...MCP_MARKERS]
    .sort((a, b) => b.length - a.length)
    .map(escapeRegExp)
    .join('|'),
  'i',
);

/** True when `text` contains at least one of {@link MCP_MARKERS} (case-insensitive). */
export function mayContainMcpCode(text: string): boolean {
  return MARKER_PATTERN.test(text);
}

/**
 * Markers only MCP code, or this tool's own comments, contain (matched case-insensitively; `event:\s*endpoint` as a
 * pattern). A file that passes {@link mayContainMcpCode} and has one of these is a candidate; a file with only the
 * weaker markers (`sessionId`, `.listen(`, `text/event-stream`, `headers.origin`, …) is analysed only when local
 * imports link it to a candidate. No rule reports anything in a group of linked files without one of these:
 * - what rules resolve to (SDK classes, framework servers) or require an MCP import for is spelled in the import of
 *   some linked file: the module specifiers, and `McpAgent` (also exported by `agents`);
 * - what rules read from the text alone: the `event: endpoint` handshake, the `mcp-session-id` header, `jsonrpc`
 *   (hand-written streams, resumability), `closeStandaloneSSEStream`;
 * - what the engine reports itself: `/* mcp-migrate: … *\/` markers, `mcp-migrate-ignore-…` suppressions and the
 *   official codemod's `@mcp-codemod-error`.
 */
export const CANDIDATE_MARKERS: readonly string[] = Object.freeze([
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

const CANDIDATE_PATTERN = new RegExp([...CANDIDATE_MARKERS.map(escapeRegExp), 'event:\\s*[\'"`]?endpoint'].join('|'), 'i');

/** True when `text` has one of {@link CANDIDATE_MARKERS} (or an `endpoint` event): a file to analyse. */
export function isCandidate(text: string): boolean {
  return CANDIDATE_PATTERN.test(text);
}
