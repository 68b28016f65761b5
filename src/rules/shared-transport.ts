import type { Rule } from './rule';
import { sharedTransportsOf } from '../analysis/shared-transports';

export const sharedTransport: Rule = {
  meta: {
    id: 'shared-transport',
    title: 'One Streamable HTTP transport made once and handed every request',
    severity: 'error',
    fix: 'manual',
    doc:
      'A `StreamableHTTPServerTransport` made once (at module level or in a start-up function), connected to the server once, ' +
      'and handed every request (`transport.handleRequest(req, res)` in the request listener, or ' +
      '`createServer(transport.handleRequest.bind(transport))`) serves one request or one client. A stateless one throws ' +
      '"Stateless transport cannot be reused across requests" on the second request since SDK 1.26, so every request after ' +
      'the first fails (often as a bare 500). A stateful one opens a single session: every other client gets "Server ' +
      'already initialized". Each request needs its own server and transport.',
    hint: 'Make a fresh server and `StreamableHTTPServerTransport({ sessionIdGenerator: undefined })` in the request handler, connect them there, and close both when the response closes.',
    sources: [
      'typescript-sdk v1.x src/server/webStandardStreamableHttp.ts (Stateless transport cannot be reused across requests, since 1.26.0)',
      'typescript-sdk v1.x src/examples/server/simpleStatelessStreamableHttp.ts (a server and transport per request)',
    ],
  },
  check({ facts, report }) {
    for (const shared of sharedTransportsOf(facts)) {
      const use = shared.uses[0];
      const where =
        use.getSourceFile() === facts.sourceFile
          ? `line ${use.getStartLineNumber()}`
          : `${use.getSourceFile().getBaseName()}:${use.getStartLineNumber()}`;
      const consequence = shared.stateless
        ? 'a stateless transport serves one request: the SDK (since 1.26) throws "Stateless transport cannot be reused across requests" on the next, so every request after the first fails'
        : 'it opens one session: the first client to initialize gets it, and every other client is refused ("Server already initialized")';
      report(shared.construction, `Shared transport: \`${shared.name}\` is made once and handed every request (${where}); ${consequence}.`);
    }
  },
};
