import { nodesOfKind } from '../analysis/node-index';
import { Node, SyntaxKind } from 'ts-morph';
import type { Rule } from './rule';
import { methodsInclude, routeContextsOf, staticString } from '../analysis/routes';
import { ENDPOINT_EVENT, stringLiterals } from '../analysis/file-facts';

export const getStream: Rule = {
  meta: {
    id: 'get-stream',
    title: 'The standalone GET stream on the MCP endpoint',
    severity: 'error',
    fix: 'auto',
    doc:
      'Protocol revision 2026-07-28 removes the standalone GET stream (server-initiated messages outside a request); a server ' +
      'that supports only that revision SHOULD answer GET on the MCP endpoint with 405 Method Not Allowed, and long-lived ' +
      'notifications move to a POST of `subscriptions/listen`. In the v1 SDK even a stateless `StreamableHTTPServerTransport` ' +
      'still opens the stream on GET, so a GET route — or an `app.all`/method-agnostic handler — that reaches `handleRequest` ' +
      'keeps it alive. This rule also finds `closeStandaloneSSEStream` and hand-written GET `text/event-stream` responses on ' +
      'a path that also takes MCP POSTs.',
    hint: 'Route only POST to the transport and answer GET with 405 (`Allow: POST`).',
    sources: [
      'spec 2026-07-28 basic/transports/streamable-http.mdx § Earlier Streamable HTTP Revisions',
      'spec 2026-07-28 changelog.mdx § Major changes 4',
      'typescript-sdk v1.x src/server/webStandardStreamableHttp.ts handleGetRequest',
    ],
  },
  check({ sourceFile, facts, report }) {
    for (const call of facts.methodCalls('handleRequest', ['StreamableHTTPServerTransport'])) {
      for (const context of routeContextsOf(call)) {
        if (!methodsInclude(context.methods, 'GET')) continue;
        const where = context.routes[0]?.call ?? call;
        const agnostic = context.methods === 'any';
        report(
          where,
          agnostic
            ? 'Standalone GET stream: a method-agnostic handler passes GET (and DELETE) to `handleRequest`, which opens the standalone SSE stream.'
            : 'Standalone GET stream: GET on the MCP endpoint is routed to `handleRequest`, which opens the standalone SSE stream.',
        );
        break;
      }
    }
    for (const access of nodesOfKind(sourceFile, SyntaxKind.PropertyAccessExpression)) {
      if (access.getName() === 'closeStandaloneSSEStream') {
        report(access, 'Standalone GET stream: `closeStandaloneSSEStream` manages the GET stream that stateless servers do not have.', {
          fix: 'manual',
        });
      }
    }
    if (!/jsonrpc/.test(sourceFile.getFullText()) || ENDPOINT_EVENT.test(sourceFile.getFullText())) return;
    const mcpPostPaths = new Set<string>();
    for (const literal of stringLiterals(sourceFile, /^2\.0$/)) {
      for (const context of routeContextsOf(literal)) {
        if (!methodsInclude(context.methods, 'POST')) continue;
        for (const path of context.paths) {
          const value = staticString(path);
          if (value) mcpPostPaths.add(value);
        }
      }
    }
    for (const literal of stringLiterals(sourceFile, /^text\/event-stream$/)) {
      if (Node.isCallExpression(literal.getParent()) && /accept/i.test(literal.getParent()!.getText())) continue;
      for (const context of routeContextsOf(literal)) {
        if (context.methods === 'unknown' || !methodsInclude(context.methods, 'GET') || context.methods === 'any') continue;
        if (context.paths.some((p) => mcpPostPaths.has(staticString(p) ?? '\u0000'))) {
          report(literal, 'Standalone GET stream: a hand-written GET `text/event-stream` response on the MCP endpoint.', { fix: 'manual' });
        }
      }
    }
  },
};
