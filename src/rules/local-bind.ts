import type { Rule } from './rule';
import { ALL_INTERFACES, bindSites } from '../analysis/binds';
import { servesMcp } from '../analysis/serves-mcp';

export const localBind: Rule = {
  meta: {
    id: 'local-bind',
    title: 'An HTTP MCP listener bound to all interfaces',
    severity: 'warning',
    fix: 'unsafe',
    doc:
      'A local MCP server SHOULD bind only to localhost (127.0.0.1) rather than all network interfaces (0.0.0.0), so that ' +
      "other machines on the network cannot reach it. Node's `listen(port)` with no host binds all interfaces, as do Bun " +
      'and fastify defaults. Changing the address can break a deployment that is meant to be remote, so the fix is `unsafe`.',
    hint: "Pass '127.0.0.1' as the host for a local server (or make the host explicit in configuration for a remote one).",
    sources: ['spec 2026-07-28 basic/transports/streamable-http.mdx § Security & Endpoint (2)'],
  },
  check({ sourceFile, report }) {
    if (!servesMcp(sourceFile)) return;
    for (const site of bindSites(sourceFile)) {
      if (site.host === undefined || (typeof site.host === 'string' && ALL_INTERFACES.has(site.host)))
        report(site.call, bindMessage(site.host, site.callee));
    }
  },
};

function bindMessage(value: string | null | undefined, call: string): string {
  return value === undefined || value === null
    ? `Binds all interfaces: \`${call}\` without a host accepts connections from the whole network.`
    : `Binds all interfaces: host '${value}' accepts connections from the whole network.`;
}
