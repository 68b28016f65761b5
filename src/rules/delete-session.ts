import type { Rule } from './rule';
import { methodsInclude, routeContextsOf } from '../analysis/routes';
import { stringLiterals } from '../analysis/file-facts';

export const deleteSession: Rule = {
  meta: {
    id: 'delete-session',
    title: 'DELETE session termination on the MCP endpoint',
    severity: 'error',
    fix: 'auto',
    doc:
      'With protocol sessions gone in revision 2026-07-28 there is no session to terminate: a server that supports only that ' +
      'revision SHOULD answer DELETE on the MCP endpoint with 405 Method Not Allowed. This rule finds DELETE routes (and ' +
      "method-agnostic handlers) that reach the transport's `handleRequest`, and DELETE routes that read `mcp-session-id` to " +
      'close a stored transport.',
    hint: 'Answer DELETE with 405 (`Allow: POST`); there is nothing to close per request beyond the response.',
    sources: [
      'spec 2026-07-28 basic/transports/streamable-http.mdx § Earlier Streamable HTTP Revisions',
      'typescript-sdk v1.x src/server/webStandardStreamableHttp.ts handleDeleteRequest',
    ],
  },
  check({ sourceFile, facts, report }) {
    const reported = new Set<unknown>();
    const candidates = [
      ...facts.methodCalls('handleRequest', ['StreamableHTTPServerTransport']),
      ...stringLiterals(sourceFile, /^mcp-session-id$/i),
    ];
    for (const node of candidates) {
      for (const context of routeContextsOf(node)) {
        if (!methodsInclude(context.methods, 'DELETE')) continue;
        // A method-agnostic route is only a DELETE session endpoint when it hands DELETE to the transport.
        if (context.methods === 'any' && node.getKindName() !== 'CallExpression') continue;
        // (at the route when it is in this file; a helper in another file is reported where it reads the header)
        const route = context.routes[0]?.call;
        const where = route?.getSourceFile() === sourceFile ? route : node;
        if (reported.has(where)) continue;
        reported.add(where);
        report(
          where,
          context.methods === 'any'
            ? 'DELETE session: a method-agnostic handler passes DELETE to the transport, which ends the session.'
            : 'DELETE session: DELETE on the MCP endpoint terminates a protocol session.',
        );
      }
    }
  },
};
