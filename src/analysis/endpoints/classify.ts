// Tests are not endpoints: a test that boots a server to assert sessions or the SSE handshake needs updating, not
// migrating. A file is a test by its path or by importing a test runner. Test paths: a `test/`, `tests/`,
// `__tests__/`, `e2e/` or `spec/` folder, a `*.test.*`, `*.spec.*` or `*.e2e.*` name, and the folders that hold test
// support by convention — `__mocks__/`, `__fixtures__/`, `testHelpers/` (`test-helpers/`, `test_helpers/`),
// `testUtils/` (`test-utils/`) and `testSupport/` (`test-support/`): a mock remote server there is a test double.
// A plain `fixtures/` folder is not a test path: a fixture server is a runnable server (tests spawn it by path, and
// this repository's own fixtures/servers/ are the servers its end-to-end tests migrate), so it is migrated like any
// other; under a test folder (`test/fixtures/`) it is a test already.
import { ENDPOINT_EVENT } from '../file-facts';
import { Node, SyntaxKind, type SourceFile } from 'ts-morph';
import { nodesOfKind } from '../node-index';
import { routeCalls } from '../routes';

const TEST_PATH =
  /(?:^|\/)(?:tests?|__tests__|__mocks__|__fixtures__|e2e|spec|test[-_]?(?:helpers?|utils?|support))\/|\.(?:test|spec|e2e)\.[cm]?[jt]sx?$/i;
const TEST_RUNNERS = /^(?:vitest|jest|@jest\/globals|mocha|node:test|ava|tap|uvu|bun:test|@playwright\/test)$/;

export function isTestFile(relPath: string, file?: SourceFile): boolean {
  if (TEST_PATH.test(relPath)) return true;
  return !!file?.getImportDeclarations().some((d) => TEST_RUNNERS.test(d.getModuleSpecifierValue()));
}

/** Modules that serve MCP: SDK server modules (v1 paths, v2 packages) and the MCP server frameworks. */
const SERVER_MODULE =
  /^(?:@modelcontextprotocol\/(?:sdk\/(?:dist\/(?:esm|cjs)\/)?server\/|server|node|express|hono|fastify)|fastmcp|mcp-framework|agents\/mcp)/;
const CLIENT_MODULE = /^@modelcontextprotocol\/(?:client(?:\/|$)|sdk\/(?:dist\/(?:esm|cjs)\/)?client\/)/;
/** Calls that send a request: `fetch`, `axios.post`, `got`, `ky`, `http.request`. */
const SENDS = /^(?:(?:window|globalThis|self)\.)?fetch$|^(?:axios|got|ky|superagent)(?:\.\w+)?$|^https?\.request$/;
const STREAMS = new Set(['EventSource', 'XMLHttpRequest', 'WebSocket']);
/** Calls that serve requests: a listener, a server, a Bun/Deno handler. */
const SERVES = /(?:^|\.)(?:createServer|listen|serve)$/;

/**
 * Client code is not an endpoint either: a file that sends requests to MCP servers (`fetch`, `axios`,
 * `EventSource`, an MCP client module) and serves none — no endpoint region, no server module, route, listener or
 * hand-rolled `event: endpoint` stream, no Web handler export. What the endpoint rules find there (the
 * `Mcp-Session-Id` it echoes, the DELETE that ends its session) is what the client relies on: reported as
 * `session-client`, never rewritten or marked.
 */
export function isClientFile(file: SourceFile, hasEndpoint: boolean): boolean {
  if (hasEndpoint || ENDPOINT_EVENT.test(file.getFullText())) return false;
  const modules = [
    ...file.getImportDeclarations().map((d) => d.getModuleSpecifierValue()),
    ...file.getExportDeclarations().flatMap((d) => d.getModuleSpecifierValue() ?? []),
  ];
  if (modules.some((m) => SERVER_MODULE.test(m)) || routeCalls(file).length > 0) return false;
  if (file.getFunctions().some((f) => f.isExported() && HTTP_METHOD_EXPORT.test(f.getName() ?? ''))) return false;
  if (exportsFetchHandler(file)) return false;
  let sends = modules.some((m) => CLIENT_MODULE.test(m));
  for (const call of nodesOfKind(file, SyntaxKind.CallExpression)) {
    const callee = call.getExpression().getText();
    if (SERVES.test(callee)) return false;
    sends ||= SENDS.test(callee);
  }
  return sends || nodesOfKind(file, SyntaxKind.NewExpression).some((n) => STREAMS.has(n.getExpression().getText()));
}

const HTTP_METHOD_EXPORT = /^(?:GET|POST|PUT|PATCH|DELETE)$/;

/** `export default { fetch(request) { … } }`: a Worker or Bun fetch handler. */
function exportsFetchHandler(file: SourceFile): boolean {
  const value = file.getExportAssignment((a) => !a.isExportEquals())?.getExpression();
  return !!value && Node.isObjectLiteralExpression(value) && !!value.getProperty('fetch');
}
