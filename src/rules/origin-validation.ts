import { Node, SyntaxKind } from 'ts-morph';
import { sharedTransportsOf } from '../analysis/shared-transports';
import { nodesOfKind } from '../analysis/node-index';
import { mcpNestPlan } from '../analysis/mcp-frameworks/mcp-nest';
import { fastifyMcpPlan } from '../analysis/mcp-frameworks/fastify-mcp';
import type { Rule } from './rule';
import { routeContextsOf } from '../analysis/routes';
import { endpointEvents } from '../analysis/file-facts';
import { positionOf } from '../analysis/mcp-frameworks/options';

export const originValidation: Rule = {
  meta: {
    id: 'origin-validation',
    title: 'An HTTP MCP endpoint without Origin validation',
    severity: 'error',
    fix: 'auto',
    doc:
      'Servers MUST validate the `Origin` header on all incoming connections and answer an invalid one with 403 Forbidden; ' +
      'without it a web page can drive a local MCP server through DNS rebinding. The v1 `createMcpExpressApp` validates Host ' +
      'only (a foreign Origin still gets 200), so it does not count; the v2 `@modelcontextprotocol/express` app, ' +
      '`originValidation` middleware and code that reads the Origin header do. This rule reports every HTTP MCP endpoint ' +
      'whose handler, route middleware and app do not check Origin, and hand-rolled `event: endpoint` streams when nothing in the project does.',
    hint: 'Reject requests whose Origin is present and not allowed with 403 before they reach the transport.',
    sources: [
      'spec 2026-07-28 basic/transports/streamable-http.mdx § Security & Endpoint',
      'typescript-sdk v1.x src/server/express.ts (Host validation only)',
    ],
  },
  check({ sourceFile, facts, report }) {
    // Per endpoint: the handler itself, its route's middleware or its app validates Origin, or it does not.
    for (const plan of facts.endpoints) {
      if (plan.originGuarded || plan.regions.length === 0) continue;
      const region = plan.regions.find((r) => r.endpoint) ?? plan.regions[0];
      const route = region.arrivals.find((a) => a.kind === 'route');
      const span = region.branch ?? (route?.kind === 'route' && route.registration.file === facts.relPath ? route.registration : region.fn);
      const node = span.file === facts.relPath ? facts.nodeAt(span) : undefined;
      if (node) report(node, 'No Origin validation: this MCP endpoint accepts requests from any web origin (DNS rebinding).');
    }
    // Endpoints the v2 SDK's createMcpHandler serves have no plan (nothing to migrate), and the handler is
    // validation-free by design ("put Origin/Host validation in front of the handler"): the project-level fact decides.
    // (so is mcp-handler's, 1.x and 2.x)
    const sdkHandlers = facts.functionCalls('createMcpHandler', 'createMcpHandler');
    const packageHandlers = facts.functionCalls('mcpHandlerPackage', 'createMcpHandler');
    const handlers = [...sdkHandlers, ...packageHandlers];
    // @rekog/mcp-nest mounts its own controllers and checks no Origin: its `guards` option can.
    const nestModules = nodesOfKind(sourceFile, SyntaxKind.CallExpression).flatMap((call) => {
      const plan = sourceFile.getFullText().includes('@rekog/mcp-nest') ? mcpNestPlan(call, facts) : undefined;
      return plan ? [{ call, plan }] : [];
    });
    if (nestModules.length > 0 && !facts.project.validatesOrigin) {
      for (const { call, plan } of nestModules) {
        const why =
          plan.opaque ??
          (plan.guards === 'opaque' ? 'its `guards` are not an array literal' : plan.javascript ? 'the file is JavaScript' : undefined);
        report(call, "No Origin validation: @rekog/mcp-nest's MCP controllers accept requests from any web origin (DNS rebinding).", {
          hint:
            "List a guard that answers a present, foreign Origin with 403 first in the module's `guards`." +
            (why ? ` mcp-migrate cannot: ${why}.` : ''),
          ...(why ? { fix: 'manual' as const } : { data: { mcpNest: plan } }),
        });
      }
    }
    // fastify-mcp's plugins check no Origin either; the hook that can goes in the scope that registers them.
    if (sourceFile.getFullText().includes('fastify-mcp') && !facts.project.validatesOrigin) {
      for (const call of nodesOfKind(sourceFile, SyntaxKind.CallExpression)) {
        if (!fastifyMcpPlan(call, facts)) continue;
        report(call, "No Origin validation: fastify-mcp's plugins accept requests from any web origin (DNS rebinding).", {
          fix: 'manual',
          hint: 'Add an `onRequest` hook, in the scope that registers the plugin, that answers a present Origin that is not allowed with 403.',
        });
      }
    }
    // A transport that is the HTTP server's whole listener (`createServer(transport.handleRequest.bind(transport))`)
    // has no handler and so no plan: nothing between the socket and the transport reads Origin.
    for (const shared of sharedTransportsOf(facts)) {
      const listener = shared.uses.find((use) => {
        const access = use.getParent();
        const call = access?.getParent();
        return !(Node.isCallExpression(call) && call.getExpression() === access);
      });
      if (!listener || facts.project.validatesOrigin) continue;
      const file = listener.getSourceFile();
      const where =
        file === sourceFile ? `line ${listener.getStartLineNumber()}` : `${file.getBaseName()}:${listener.getStartLineNumber()}`;
      report(
        shared.construction,
        `No Origin validation: \`${shared.name}.handleRequest\` is the HTTP server's request listener (${where}), so nothing checks Origin before a request reaches the transport (DNS rebinding).`,
        {
          fix: 'manual',
          hint: 'Give the server a request listener that answers a present Origin that is not allowed with 403, then builds a server and a transport for the request (see shared-transport).',
        },
      );
    }
    // Hand-rolled transports have no plan either (the fact is asked only then: it costs the checker).
    const endpoints = endpointEvents(sourceFile);
    if ((endpoints.length === 0 && handlers.length === 0) || facts.project.validatesOrigin) return;
    for (const handler of sdkHandlers) report(handler, HANDLER_MESSAGE, { fix: 'manual', hint: HANDLER_HINT });
    // mcp-handler's handler is a Web `(request) => Response` wherever it is mounted: apply wraps it in a check.
    for (const handler of packageHandlers)
      report(handler, HANDLER_MESSAGE, { hint: HANDLER_HINT, data: { guardedHandler: { call: positionOf(handler) } } });
    const reported = new Set<Node>();
    for (const endpoint of endpoints) {
      const contexts = routeContextsOf(endpoint);
      const sites = contexts.length > 0 ? contexts.map((c) => c.routes[0]?.call ?? endpoint) : [endpoint];
      for (const site of sites) {
        if (reported.has(site)) continue;
        reported.add(site);
        report(site, 'No Origin validation: this MCP endpoint accepts requests from any web origin (DNS rebinding).');
      }
    }
  },
};

const HANDLER_MESSAGE =
  'No Origin validation: this createMcpHandler endpoint accepts requests from any web origin (DNS rebinding); the handler checks none itself.';
const HANDLER_HINT =
  'Validate Origin in front of the handler: `localhostOriginValidation()` or `originValidation([...])` from ' +
  '`@modelcontextprotocol/node` (node:http, express), `originValidationResponse(request, localhostAllowedOrigins())` ' +
  'from `@modelcontextprotocol/server` (a fetch handler), or serve it from `createMcpExpressApp()` / `createMcpHonoApp()`; ' +
  "in a Next.js route (mcp-handler), answer 403 when `request.headers.get('origin')` is present and not allowed, before the handler.";
