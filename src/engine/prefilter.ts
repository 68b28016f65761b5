// Cheap text prefilter: a file that contains none of these markers cannot hold MCP transport code
// any rule looks at, so it is not parsed at all. The list is deliberately broad (a false positive
// costs one parse; a false negative hides a finding) and is documented in the README.

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
  'eventStore',
  'McpAgent',
  'fastmcp',
  'mcp-framework',
  'transportType',
  'McpServer',
  '.listen(',
  'Bun.serve',
  // @hono/node-server and Deno: where a Web fetch handler listens (local-bind, and whether the server is local).
  'serve({',
  'registerTool',
  'sessionId',
  // An Origin check may sit in a helper file with no MCP code at all; origin-validation must still see it.
  'headers.origin',
  "headers['origin']",
  'headers["origin"]',
  "('origin')",
  '("origin")',
  'OriginValidation',
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
