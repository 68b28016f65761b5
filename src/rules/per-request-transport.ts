import type { Rule } from './rule';
import { routeContextsOf } from '../analysis/routes';
import { isSessionless } from '../analysis/transport-options';

export const perRequestTransport: Rule = {
  meta: {
    id: 'per-request-transport',
    title: 'A hand-wired per-request Streamable HTTP transport (2025-11-25 at most)',
    severity: 'info',
    fix: 'auto',
    doc:
      'A fresh server and a stateless `StreamableHTTPServerTransport` per POST is the right idiom for the v1 SDK, but it ' +
      'speaks protocol revision 2025-11-25 at most: the v1 SDK cannot serve 2026-07-28, and in v2 "nothing puts a ' +
      '2026-07-28 byte on the wire by default" — only `createMcpHandler(factory)` does, and it also serves 2025-era ' +
      "clients (`legacy: 'stateless'`) and answers GET/DELETE with 405 itself. `apply --target 2026-07-28` makes the " +
      'switch; on the 2025-11-25 target this finding is informational.',
    hint: "Serve the endpoint with `createMcpHandler(() => buildServer(), { legacy: 'stateless' })` from @modelcontextprotocol/server.",
    sources: [
      'typescript-sdk docs/migration/support-2026-07-28.md (createMcpHandler is the only 2026-07-28 HTTP entry)',
      'typescript-sdk examples/stateless-legacy/server.ts',
    ],
  },
  check({ facts, report }) {
    for (const construction of facts.constructions('StreamableHTTPServerTransport')) {
      if (!isSessionless(construction)) continue;
      const contexts = routeContextsOf(construction);
      if (contexts.length === 0) continue;
      const route = contexts[0].routes[0]?.call;
      const message =
        'Per-request transport: this endpoint speaks protocol 2025-11-25 at most; `createMcpHandler` (SDK v2) serves 2026-07-28 and 2025 clients from the same factory.';
      // A transport made by a helper module is reported where it is made, and names the route that uses it.
      if (!route || route.getSourceFile() === construction.getSourceFile()) report(route ?? construction, message);
      else report(construction, message, { related: [{ node: route, message: 'the route that serves it' }] });
    }
  },
};
