import { nodesOfKind } from '../analysis/node-index';
import { Node, SyntaxKind } from 'ts-morph';
import type { Rule } from './rule';
import { stringLiterals } from '../analysis/file-facts';
import { isSdkSymbol } from '../analysis/sdk-modules';
import { resolveOrigin } from '../analysis/resolve';
import { fastmcpStartPlan } from '../analysis/mcp-frameworks/fastmcp';
import { mcpFrameworkPlan } from '../analysis/mcp-frameworks/mcp-framework';
import { mcpNestPlan } from '../analysis/mcp-frameworks/mcp-nest';
import { fastifyMcpPlan } from '../analysis/mcp-frameworks/fastify-mcp';
import { agentsPlan, servesSse } from '../analysis/mcp-frameworks/agents';
import { inHeaderNameList, isUndefinedExpression, propertyAssignmentsNamed, transportStores } from './shared';
import { onlyLogged } from '../analysis/logging';

export const sessionId: Rule = {
  meta: {
    id: 'session-id',
    title: 'Protocol sessions: Mcp-Session-Id minted, echoed or used to find a transport',
    severity: 'error',
    fix: 'auto',
    doc:
      'Protocol revision 2026-07-28 removes protocol sessions and the `Mcp-Session-Id` header (SEP-2567): a server that ' +
      'supports only that revision SHOULD ignore the header and must not mint or echo session ids, and list endpoints must not ' +
      'vary per connection. Sessions also pin a client to one process, which breaks horizontal scaling. This rule finds a ' +
      '`sessionIdGenerator` that is not `undefined`, `onsessioninitialized`/`onsessionclosed`, transports stored by session ' +
      'id (object, `Map`, array), reads or writes of the `mcp-session-id` header, `isInitializeRequest` gating and fastmcp ' +
      "`httpStream` without `stateless: true`, and mcp-framework's `http-stream` transport.",
    hint: 'Create a fresh server and `StreamableHTTPServerTransport({ sessionIdGenerator: undefined })` per POST; keep state in explicit handles.',
    sources: [
      'spec 2026-07-28 changelog.mdx § Major changes 1 (SEP-2567)',
      'spec 2026-07-28 basic/transports/streamable-http.mdx § Earlier Streamable HTTP Revisions',
      'typescript-sdk v1.x src/examples/server/simpleStatelessStreamableHttp.ts',
    ],
  },
  check({ sourceFile, facts, report }) {
    if (!facts.importsMcp && !/mcp-session-id/i.test(sourceFile.getFullText())) return;
    for (const prop of propertyAssignmentsNamed(sourceFile, 'sessionIdGenerator')) {
      const value = Node.isPropertyAssignment(prop) ? prop.getInitializer() : undefined;
      if (value && isUndefinedExpression(value)) continue;
      report(prop, 'Protocol session: `sessionIdGenerator` mints an `Mcp-Session-Id` for every client.');
    }
    for (const name of ['onsessioninitialized', 'onsessionclosed']) {
      for (const prop of propertyAssignmentsNamed(sourceFile, name)) {
        report(prop, `Protocol session: \`${name}\` tracks sessions that the stateless transport no longer has.`);
      }
    }
    for (const literal of stringLiterals(sourceFile, /^mcp-session-id$/i)) {
      if (inHeaderNameList(literal) || onlyLogged(literal)) continue;
      report(literal, 'Protocol session: the `Mcp-Session-Id` header is read or written here.');
    }
    for (const call of nodesOfKind(sourceFile, SyntaxKind.CallExpression)) {
      if (isSdkSymbol(resolveOrigin(call.getExpression()), 'isInitializeRequest')) {
        report(call, 'Protocol session: `isInitializeRequest` gates session creation on the initialize handshake.');
      }
    }
    for (const store of transportStores(facts, ['StreamableHTTPServerTransport'])) {
      report(store, 'Protocol session: a transport is stored by session id so later requests can find it.');
    }
    for (const call of nodesOfKind(sourceFile, SyntaxKind.CallExpression)) {
      const fastifyMcp = fastifyMcpPlan(call, facts);
      if (fastifyMcp?.form !== 'session-stream') continue;
      report(call, "Protocol session: fastify-mcp's `streamableHttp` plugin with `stateful: true` keeps a session per client.", {
        hint: 'Register it with `stateful: false` (and no `sessions`): a fresh server per POST, GET and DELETE answer 405.',
        ...(fastifyMcp.options ? { data: { fastifyMcp } } : { fix: 'manual' as const }),
      });
    }
    for (const call of nodesOfKind(sourceFile, SyntaxKind.CallExpression)) {
      const mcpNest = mcpNestPlan(call, facts);
      if (!mcpNest?.sessions) continue;
      report(
        call,
        "Protocol session: @rekog/mcp-nest's `streamableHttp` options without `statelessMode: true` keep a session per client.",
        {
          hint: 'Add `statelessMode: true` to the `streamableHttp` options.',
          data: { mcpNest },
        },
      );
    }
    for (const call of nodesOfKind(sourceFile, SyntaxKind.CallExpression)) {
      const fastmcp = fastmcpStartPlan(call, facts);
      if (fastmcp?.form !== 'session-stream') continue;
      report(call, 'Protocol session: fastmcp `httpStream` without `stateless: true` keeps a session per client.', {
        hint: 'Add `stateless: true` to the `httpStream` options.',
        data: { fastmcp },
      });
    }
    for (const call of nodesOfKind(sourceFile, SyntaxKind.CallExpression)) {
      const callee = call.getExpression();
      if (!Node.isPropertyAccessExpression(callee) || callee.getName() !== 'serve' || servesSse(call)) continue;
      const agents = agentsPlan(call, facts);
      if (!agents) continue;
      report(call, "Protocol session: `McpAgent.serve(…)` keeps a session per client in the agent's Durable Object.", {
        hint: 'Serve `createMcpHandler(factory)` from `agents/mcp/server` (stateless) on the same path.',
        data: { agents },
      });
    }
    for (const construction of nodesOfKind(sourceFile, SyntaxKind.NewExpression)) {
      const mcpFramework = mcpFrameworkPlan(construction, facts);
      if (mcpFramework?.form !== 'session-stream') continue;
      report(
        construction,
        "Protocol session: mcp-framework's `http-stream` transport keeps a session per client (it reads no `session` option).",
        {
          hint: 'Serve `MCPServer.handleRequest` (stateless) on one POST endpoint.',
          data: { mcpFramework },
        },
      );
    }
  },
};
