import { SyntaxKind } from 'ts-morph';
import type { Rule } from './rule';
import { sharedTransportsOf } from '../analysis/shared-transports';

export const sharedTransport: Rule = {
  meta: {
    id: 'shared-transport',
    title: 'One Streamable HTTP transport made once and handed every request',
    severity: 'error',
    fix: 'auto',
    doc:
      'A `StreamableHTTPServerTransport` made once (at module level or in a start-up function), connected to the server once, ' +
      'and handed every request (`transport.handleRequest(req, res)` in the request listener, or ' +
      '`createServer(transport.handleRequest.bind(transport))`) serves one request or one client. A stateless one throws ' +
      '"Stateless transport cannot be reused across requests" on the second request since SDK 1.26, so every request after ' +
      'the first fails (often as a bare 500). A stateful one opens a single session: every other client gets "Server ' +
      'already initialized". Each request needs its own server and transport. `apply` gives each request its own, and deletes ' +
      "the transport and its start-up connect, when the transport is declared on its own in the handler's file and used " +
      'for nothing else, and the connect is a statement of its own; otherwise the endpoint keeps a marker.',
    hint: 'Make a fresh server and `StreamableHTTPServerTransport({ sessionIdGenerator: undefined })` in the request handler, connect them there, and close both when the response closes.',
    sources: [
      'typescript-sdk v1.x src/server/webStandardStreamableHttp.ts (Stateless transport cannot be reused across requests, since 1.26.0)',
      'typescript-sdk v1.x src/examples/server/simpleStatelessStreamableHttp.ts (a server and transport per request)',
    ],
  },
  check({ facts, report }) {
    // (a transport connected at start-up that an endpoint plan replaces by one per request: `apply` fixes it)
    const replaced = new Set(
      facts.endpoints.flatMap((plan) =>
        plan.startupTransport?.declaration.file === facts.relPath && plan.verdict.migratable
          ? [plan.startupTransport.declaration.start]
          : [],
      ),
    );
    for (const shared of sharedTransportsOf(facts)) {
      const use = shared.uses[0];
      const where =
        use.getSourceFile() === facts.sourceFile
          ? `line ${use.getStartLineNumber()}`
          : `${use.getSourceFile().getBaseName()}:${use.getStartLineNumber()}`;
      const consequence = shared.stateless
        ? 'a stateless transport serves one request: the SDK (since 1.26) throws "Stateless transport cannot be reused across requests" on the next, so every request after the first fails'
        : 'it opens one session: the first client to initialize gets it, and every other client is refused ("Server already initialized")';
      const statement = shared.construction.getFirstAncestorByKind(SyntaxKind.VariableStatement);
      report(
        shared.construction,
        `Shared transport: \`${shared.name}\` is made once and handed every request (${where}); ${consequence}.`,
        {
          fix: statement && replaced.has(statement.getStart()) ? 'auto' : 'manual',
        },
      );
    }
  },
};
