// Which module specifiers are the MCP SDK (v1 and v2) and the frameworks we recognise.
// Matching is on resolved import origins, never on bare names (two frameworks ship their own `SSEServerTransport`).
import type { SourceFile } from 'ts-morph';
import { adapters } from '../frameworks';

/** `@modelcontextprotocol/sdk/dist/esm/server/sse.js` and `…/server/sse` both become `@modelcontextprotocol/sdk/server/sse`. */
export function normalizeModule(specifier: string): string {
  return specifier.replace(/^(@modelcontextprotocol\/sdk)\/dist\/(?:esm|cjs)\//, '$1/').replace(/\.(?:js|mjs|cjs|ts)$/, '');
}

const SSE_SERVER = new Set([
  '@modelcontextprotocol/sdk/server/sse',
  '@modelcontextprotocol/server-legacy/sse',
  '@modelcontextprotocol/server-legacy',
]);
const STREAMABLE_SERVER = new Set([
  '@modelcontextprotocol/sdk/server/streamableHttp',
  '@modelcontextprotocol/sdk/server/webStandardStreamableHttp',
  '@modelcontextprotocol/node',
  '@modelcontextprotocol/server',
]);
const SERVER_CLASSES = new Set([
  '@modelcontextprotocol/sdk/server/mcp',
  '@modelcontextprotocol/sdk/server/index',
  '@modelcontextprotocol/server',
]);
const TYPES = new Set(['@modelcontextprotocol/sdk/types', '@modelcontextprotocol/server', '@modelcontextprotocol/core']);
const SSE_CLIENT = new Set(['@modelcontextprotocol/sdk/client/sse', '@modelcontextprotocol/client']);

export type SdkSymbol =
  | 'SSEServerTransport'
  | 'StreamableHTTPServerTransport'
  | 'McpServer'
  | 'isInitializeRequest'
  | 'SSEClientTransport'
  | 'McpAgent'
  | 'FastMCP'
  | 'MCPServerFramework'
  | 'McpNestModule'
  | 'createMcpExpressApp'
  | 'createMcpHandler'
  | 'mcpHandlerPackage';

/** Does an import origin (module + exported name) denote this SDK or framework symbol? */
export function isSdkSymbol(origin: { module: string; name: string } | undefined, symbol: SdkSymbol): boolean {
  if (!origin) return false;
  const mod = normalizeModule(origin.module);
  switch (symbol) {
    case 'SSEServerTransport':
      return origin.name === 'SSEServerTransport' && SSE_SERVER.has(mod);
    case 'StreamableHTTPServerTransport':
      return (
        (/^(?:Node|WebStandard)?StreamableHTTPServerTransport$/.test(origin.name) && STREAMABLE_SERVER.has(mod)) ||
        adapters.some((adapter) => adapter.transports?.some((t) => t.module === mod && t.name === origin.name))
      );
    case 'McpServer':
      return (origin.name === 'McpServer' || origin.name === 'Server') && SERVER_CLASSES.has(mod);
    case 'isInitializeRequest':
      return origin.name === 'isInitializeRequest' && TYPES.has(mod);
    case 'SSEClientTransport':
      return origin.name === 'SSEClientTransport' && SSE_CLIENT.has(mod);
    case 'McpAgent':
      return origin.name === 'McpAgent' && (mod === 'agents/mcp' || mod === 'agents');
    case 'FastMCP':
      return origin.name === 'FastMCP' && mod === 'fastmcp';
    case 'MCPServerFramework':
      return origin.name === 'MCPServer' && mod === 'mcp-framework';
    case 'McpNestModule':
      return origin.name === 'McpModule' && mod === '@rekog/mcp-nest';
    case 'createMcpHandler':
      return origin.name === 'createMcpHandler' && mod === '@modelcontextprotocol/server';
    case 'mcpHandlerPackage':
      return origin.name === 'createMcpHandler' && mcpHandlerPackageOf(mod) !== undefined;
    case 'createMcpExpressApp':
      return (
        origin.name === 'createMcpExpressApp' &&
        (mod === '@modelcontextprotocol/sdk/server/express' || mod === '@modelcontextprotocol/express')
      );
  }
}

/** v2 `createMcpExpressApp` validates Origin as well as Host; v1's checks Host only. */
export function validatesOrigin(origin: { module: string; name: string }): boolean {
  return normalizeModule(origin.module) === '@modelcontextprotocol/express';
}

export function isMcpModule(specifier: string): boolean {
  return (
    /^@modelcontextprotocol\//.test(specifier) ||
    /^(?:agents\/mcp|fastmcp|mcp-framework|mcp-handler|@vercel\/mcp-adapter|@rekog\/mcp-nest|fastify-mcp)(?:\/|$)/.test(specifier)
  );
}

/** The v2 packages a server runs on (`@modelcontextprotocol/server-legacy` too: the v2 move's frozen copy of v1's classes). */
export function isV2ServerModule(specifier: string): boolean {
  return /^@modelcontextprotocol\/(?:server|server-legacy|node|express|hono|fastify)(?:\/|$)/.test(specifier);
}

export function isV1SdkModule(specifier: string): boolean {
  return /^@modelcontextprotocol\/sdk(?:\/|$)/.test(specifier);
}

/** The MCP modules a file imports, re-exports, requires or imports dynamically, as written. */
export function mcpModulesOf(file: SourceFile): string[] {
  const declared = [
    ...file.getImportDeclarations().map((d) => d.getModuleSpecifierValue()),
    ...file.getExportDeclarations().map((d) => d.getModuleSpecifierValue() ?? ''),
  ];
  const called = [...file.getFullText().matchAll(/\b(?:require|import)\(\s*['"`]([^'"`]+)['"`]/g)].map((m) => m[1]);
  return [...declared, ...called].filter(isMcpModule);
}

/**
 * `createMcpHandler` of the SDK (or of agents), which calls the factory it is handed for every request. Not
 * mcp-handler's: 1.x calls its `initialize` once per SSE connection and once for the one server it shares among
 * stateless requests.
 */
export function isPerRequestMcpHandler(origin: { module: string; name: string } | undefined): boolean {
  return origin?.name === 'createMcpHandler' && isMcpModule(origin.module) && mcpHandlerPackageOf(origin.module) === undefined;
}

/** Vercel's route adapter: `mcp-handler`, published as `@vercel/mcp-adapter` before 1.0. */
export const MCP_HANDLER_PACKAGES = ['mcp-handler', '@vercel/mcp-adapter'] as const;

/** The mcp-handler package a module specifier (or one of its subpaths) belongs to. */
export function mcpHandlerPackageOf(specifier: string): (typeof MCP_HANDLER_PACKAGES)[number] | undefined {
  return MCP_HANDLER_PACKAGES.find((name) => specifier === name || specifier.startsWith(`${name}/`));
}
