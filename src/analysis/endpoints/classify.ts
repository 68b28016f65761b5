// Tests and clients are not endpoints: a test that boots a server to assert sessions or the SSE handshake, or a
// hand-written client that keeps the session id a server handed out, needs updating, not migrating. A file is a test
// by its path (`test/`, `__tests__/`, `*.test.ts`, `*.spec.ts`) or by importing a test runner; a client by sending
// requests with `fetch` and reading or sending `Mcp-Session-Id` while serving nothing.
import type { SourceFile } from 'ts-morph';

const TEST_PATH = /(?:^|\/)(?:tests?|__tests__|__mocks__|e2e|spec)\/|\.(?:test|spec|e2e)\.[cm]?[jt]sx?$/i;
const TEST_RUNNERS = /^(?:vitest|jest|@jest\/globals|mocha|node:test|ava|tap|uvu|bun:test|@playwright\/test)$/;

export function isTestFile(relPath: string, file?: SourceFile): boolean {
  if (TEST_PATH.test(relPath)) return true;
  return !!file?.getImportDeclarations().some((d) => TEST_RUNNERS.test(d.getModuleSpecifierValue()));
}

/** Serving HTTP or MCP: a listener, a route, a response written, an SDK server or server transport. */
const SERVER_SIDE =
  /\.listen\(|createServer\(|\.setHeader\(|\.writeHead\(|\bres\.(?:status|json|send|end)\(|ServerTransport\b|\bMcpServer\b|new\s+Server\(|\.handleRequest\(|\.handlePostMessage\(|\b(?:app|router|server|fastify)\.(?:get|post|put|all|use|delete|route)\(/;
/** The session id read from a response (`response.headers.get('mcp-session-id')`) or sent as a request header. */
const CLIENT_SESSION = /headers\.get\(\s*['"`]mcp-session-id['"`]\s*\)|['"`]mcp-session-id['"`]\s*:/i;

export function isClientFile(file: SourceFile): boolean {
  const text = file.getFullText();
  return /\bfetch\(/.test(text) && CLIENT_SESSION.test(text) && !SERVER_SIDE.test(text);
}
