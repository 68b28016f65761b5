import type { Rule } from './rule';

export const legacySseClient: Rule = {
  meta: {
    id: 'legacy-sse-client',
    title: 'Client code using the deprecated SSEClientTransport',
    severity: 'warning',
    fix: 'manual',
    doc:
      'Clients of the deprecated HTTP+SSE transport stop working once servers migrate. Streamable HTTP clients POST first and ' +
      'fall back to the old GET + `endpoint` event only on a 400/404/405 without a modern JSON-RPC error body.',
    hint: 'Use `StreamableHTTPClientTransport` (v1 `sdk/client/streamableHttp.js`, v2 `@modelcontextprotocol/client`).',
    sources: ['spec 2026-07-28 basic/transports/streamable-http.mdx § HTTP+SSE Transport (2024-11-05)'],
  },
  check({ facts, report }) {
    for (const construction of facts.constructions('SSEClientTransport')) {
      report(construction, 'Legacy SSE client: `SSEClientTransport` speaks the deprecated HTTP+SSE transport.');
    }
  },
};
