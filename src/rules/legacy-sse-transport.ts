import { nodesOfKind } from '../analysis/node-index';
import { nestSseEndpointEvents } from '../frameworks/nest';
import { Node, SyntaxKind, type SourceFile } from 'ts-morph';
import type { Rule } from './rule';
import { endpointEvents, stringLiterals } from '../analysis/file-facts';
import { isSdkSymbol } from '../analysis/sdk-modules';
import { declarationsBehind, resolveOrigin } from '../analysis/resolve';
import { transportStores } from './shared';
import { fastmcpStartPlan } from '../analysis/mcp-frameworks/fastmcp';
import { mcpFrameworkPlan } from '../analysis/mcp-frameworks/mcp-framework';
import { mcpNestPlan } from '../analysis/mcp-frameworks/mcp-nest';
import { fastifyMcpPlan } from '../analysis/mcp-frameworks/fastify-mcp';
import { agentsPlan } from '../analysis/mcp-frameworks/agents';
import { mcpHandlerPlans } from '../analysis/mcp-frameworks/mcp-handler';

export const legacySseTransport: Rule = {
  meta: {
    id: 'legacy-sse-transport',
    title: 'The deprecated 2024-11-05 HTTP+SSE transport (GET stream + POST messages endpoint)',
    severity: 'error',
    fix: 'auto',
    doc:
      'The HTTP+SSE transport of protocol revision 2024-11-05 — a GET endpoint that opens an event stream whose first ' +
      '`endpoint` event names a second POST endpoint keyed by `sessionId` — is deprecated since 2025-03-26 (SEP-2596) and ' +
      'eligible for removal. Existing implementations SHOULD migrate to Streamable HTTP: one POST endpoint. This rule finds ' +
      'the SDK `SSEServerTransport` (v1 `sdk/server/sse.js`, v2 `server-legacy/sse`, through aliases, `require`, namespaces ' +
      'and re-export files), hand-rolled `event: endpoint` streams, Cloudflare agents `McpAgent.serveSSE`/`mount`/' +
      "`serve(…, { transport: 'sse' | 'auto' })`, fastmcp `transportType: 'sse'`, mcp-framework `transport: { type: 'sse' }` " +
      'and mcp-handler 1.x `createMcpHandler` without `disableSse: true`.',
    hint: 'Serve stateless Streamable HTTP on one POST endpoint; `mcp-migrate apply` rewrites SDK servers.',
    sources: [
      'spec 2026-07-28 basic/transports/streamable-http.mdx § HTTP+SSE Transport (2024-11-05)',
      'spec 2026-07-28 deprecated.mdx (SEP-2596)',
      'typescript-sdk v1.x src/server/sse.ts (@deprecated)',
    ],
  },
  check({ sourceFile, facts, report }) {
    const postMessages = facts.methodCalls('handlePostMessage', ['SSEServerTransport']);
    for (const construction of facts.constructions('SSEServerTransport')) {
      report(
        construction,
        'Legacy HTTP+SSE transport: `SSEServerTransport` serves the deprecated two-endpoint GET stream + POST messages protocol.',
        {
          related: [
            ...postMessages.map((node) => ({ node, message: 'POST messages endpoint of the same transport' })),
            ...transportStores(facts, ['SSEServerTransport']).map((node) => ({
              node,
              message: 'the transport is stored by its sessionId',
            })),
          ],
        },
      );
    }
    if (facts.constructions('SSEServerTransport').length === 0) {
      for (const call of postMessages) {
        report(call, 'Legacy HTTP+SSE transport: `handlePostMessage` serves the POST half of the deprecated HTTP+SSE transport.');
      }
    }
    for (const literal of endpointEvents(sourceFile)) {
      report(literal, 'Hand-rolled HTTP+SSE transport: an `event: endpoint` stream is the deprecated 2024-11-05 handshake.', {
        fix: 'manual',
        hint: 'Replace the hand-written stream with the SDK Streamable HTTP transport in stateless mode.',
      });
    }
    for (const event of nestSseEndpointEvents(sourceFile)) {
      report(
        event,
        'Hand-rolled HTTP+SSE transport: a NestJS `@Sse()` stream that emits an `endpoint` event is the deprecated 2024-11-05 handshake.',
        {
          fix: 'manual',
          hint: 'Replace the `@Sse()` stream with a `@Post()` method serving the SDK Streamable HTTP transport in stateless mode; `@Get`/`@Delete` answer 405.',
        },
      );
    }
    checkFrameworks(sourceFile, facts, report);
    for (const { call, plan } of mcpHandlerPlans(facts)) {
      report(
        call,
        `Legacy HTTP+SSE transport: ${plan.package}'s \`createMcpHandler\` serves HTTP+SSE at /sse and /message unless its config says \`disableSse: true\`.`,
        {
          hint:
            plan.package === 'mcp-handler'
              ? 'Pass `disableSse: true` in its third argument (mcp-handler 1.x), or move to mcp-handler 2 (no SSE; protocol 2026-07-28).'
              : '@vercel/mcp-adapter 1.0 re-exports mcp-handler 1.x: raise it to 1.x (or import mcp-handler) and pass `disableSse: true` in the third argument.',
          ...(plan.config !== 'opaque' ? { data: { mcpHandler: plan } } : { fix: 'manual' }),
        },
      );
    }
  },
};

function checkFrameworks(
  sourceFile: SourceFile,
  facts: Parameters<Rule['check']>[0]['facts'],
  report: Parameters<Rule['check']>[0]['report'],
) {
  for (const call of nodesOfKind(sourceFile, SyntaxKind.CallExpression)) {
    const callee = call.getExpression();
    if (!Node.isPropertyAccessExpression(callee)) continue;
    const method = callee.getName();
    const args = call.getArguments();
    if ((method === 'serveSSE' || method === 'mount' || method === 'serve') && extendsMcpAgent(callee.getExpression())) {
      const options = args[1];
      const transport = options && Node.isObjectLiteralExpression(options) ? literalProperty(options, 'transport') : undefined;
      if (method === 'serve' && transport !== 'sse' && transport !== 'auto') continue;
      const agents = agentsPlan(call, facts);
      report(
        call,
        `Legacy HTTP+SSE transport: \`McpAgent.${method}(${method === 'serve' ? `…, { transport: '${transport}' }` : '…'})\` serves the deprecated SSE transport.`,
        {
          hint: 'Serve `createMcpHandler(factory)` from `agents/mcp/server` (stateless) on `/mcp`, beside the old route until clients move.',
          ...(agents ? { data: { agents } } : { fix: 'manual' }),
        },
      );
    }
    if (fastifyMcpPlan(call, facts)?.form === 'sse') {
      report(
        call,
        "Legacy HTTP+SSE transport: fastify-mcp's `fastifyMCPSSE` plugin serves HTTP+SSE at /sse and /messages, with one server shared by every connection.",
        {
          fix: 'manual',
          hint: "Register fastify-mcp's `streamableHttp` instead, with `stateful: false`, an `mcpEndpoint` and a `createServer` that builds a server per request.",
        },
      );
    }
    const mcpNest = mcpNestPlan(call, facts);
    if (mcpNest?.sse) {
      report(
        call,
        mcpNest.opaque
          ? `Legacy HTTP+SSE transport: @rekog/mcp-nest's \`McpModule.forRoot\` serves HTTP+SSE at /sse and /messages unless its \`transport\` leaves SSE out, and mcp-migrate cannot read it (${mcpNest.opaque}).`
          : "Legacy HTTP+SSE transport: @rekog/mcp-nest's `McpModule.forRoot` serves HTTP+SSE at /sse and /messages (its `transport` lists SSE, or is not written: the default list has it).",
        mcpNest.opaque
          ? {
              fix: 'manual',
              hint: `List only \`McpTransportType.STREAMABLE_HTTP\` (and STDIO) in \`transport\`; mcp-migrate cannot: ${mcpNest.opaque}.`,
            }
          : { hint: 'List only `McpTransportType.STREAMABLE_HTTP` (and STDIO) in `transport`, stateless.', data: { mcpNest } },
      );
    }
    const fastmcp = fastmcpStartPlan(call, facts);
    if (fastmcp?.form === 'sse') {
      report(call, "Legacy HTTP+SSE transport: fastmcp `transportType: 'sse'`.", {
        hint: "Use `transportType: 'httpStream'` with `httpStream: { stateless: true }`.",
        data: { fastmcp },
      });
    }
  }
  for (const construction of nodesOfKind(sourceFile, SyntaxKind.NewExpression)) {
    if (!isSdkSymbol(resolveOrigin(construction.getExpression()), 'MCPServerFramework')) continue;
    const [options] = construction.getArguments();
    const transport = options && Node.isObjectLiteralExpression(options) ? options.getProperty('transport') : undefined;
    const init = transport && Node.isPropertyAssignment(transport) ? transport.getInitializer() : undefined;
    if (!init || !Node.isObjectLiteralExpression(init) || literalProperty(init, 'type') !== 'sse') continue;
    const mcpFramework = mcpFrameworkPlan(construction, facts);
    report(
      construction,
      "Legacy HTTP+SSE transport: mcp-framework `transport: { type: 'sse' }`.",
      mcpFramework
        ? { hint: 'Serve `MCPServer.handleRequest` (stateless) on one POST endpoint.', data: { mcpFramework } }
        : { fix: 'manual', hint: 'Serve `MCPServer.handleRequest` (stateless) on one POST endpoint, where the server is started.' },
    );
  }
}

function literalProperty(object: Node, key: string): string | undefined {
  if (!Node.isObjectLiteralExpression(object)) return undefined;
  const prop = object.getProperty(key);
  if (!prop || !Node.isPropertyAssignment(prop)) return undefined;
  const init = prop.getInitializer();
  return init && (Node.isStringLiteral(init) || Node.isNoSubstitutionTemplateLiteral(init)) ? init.getLiteralValue() : undefined;
}

/** `MyMCP` where `class MyMCP extends McpAgent` (from `agents/mcp`), or `McpAgent` itself. */
function extendsMcpAgent(expression: Node, depth = 0): boolean {
  if (depth > 4 || !Node.isIdentifier(expression)) return false;
  if (isSdkSymbol(resolveOrigin(expression), 'McpAgent')) return true;
  for (const declaration of declarationsBehind(expression)) {
    if (!Node.isClassDeclaration(declaration)) continue;
    const base = declaration.getExtends()?.getExpression();
    if (base && extendsMcpAgent(base, depth + 1)) return true;
  }
  return false;
}
