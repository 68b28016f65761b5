import type { Rule } from './rule';
import { serversSharedByHandlerFactories } from '../analysis/handler-factories';

export const sharedServerInstance: Rule = {
  meta: {
    id: 'shared-server-instance',
    title: 'One MCP server instance connected to many transports',
    severity: 'error',
    fix: 'auto',
    doc:
      'A server created once (at module level, in an enclosing function, in a class field, passed in as a parameter, or cached by a ' +
      'getter that builds it on its first call) and ' +
      '`connect()`ed to a new transport for each connection or request works by accident on the legacy path and fails under ' +
      'load: since SDK 1.26 `Protocol.connect` throws "Already connected to a transport" when two requests overlap. The ' +
      'stateless target needs a fresh server per request (v2 `createMcpHandler` calls its factory for each one, and answers 500 ' +
      'to overlapping requests when the factory returns one server made once). This rule reports the shared server of every ' +
      'MCP endpoint, each call that hands it to the code that connects it, and a `createMcpHandler` factory that returns one.',
    hint: 'Build the server in a factory and call it per request.',
    sources: [
      'typescript-sdk v1.x src/shared/protocol.ts connect (Already connected to a transport)',
      'typescript-sdk v1.x src/examples/server/simpleStatelessStreamableHttp.ts (getServer per request)',
    ],
  },
  check({ facts, report }) {
    for (const { result, declaration } of serversSharedByHandlerFactories(facts)) {
      report(
        result,
        `Shared server: the createMcpHandler factory returns \`${result.getText()}\`, one server created once (${declaration.getSourceFile() === facts.sourceFile ? `line ${declaration.getStartLineNumber()}` : 'in another file'}), for every request; overlapping requests fail (the SDK answers 500).`,
        {
          fix: 'manual',
          hint: 'Build the server in the factory: `createMcpHandler(() => buildServer())`, with its tools registered there.',
        },
      );
    }
    const reported = new Set<string>();
    for (const plan of facts.endpoints) {
      const server = plan.server;
      const cached = server.kind === 'built' ? server.cached : undefined;
      const cache = cached?.declaration.file === facts.relPath ? facts.nodeAt(cached.declaration) : undefined;
      if (cached && cache && !reported.has(`${cached.declaration.start}`)) {
        reported.add(`${cached.declaration.start}`);
        report(
          cache,
          `Shared server: \`${cached.name}()\` builds one server, caches it in \`${cached.variable}\` and hands it to every connection; overlapping requests fail with "Already connected to a transport".${cached.blocker ? ` ${cached.blocker}.` : ''}`,
          { fix: cached.blocker ? 'manual' : 'auto' },
        );
      }
      // (connected once, at start-up, to one transport: `shared-transport` reports it, and its fix builds this one per request)
      if (server.kind !== 'shared' || plan.startupTransport) continue;
      const fix = server.blocker || !(server.hoist || server.factoryCall) ? ('manual' as const) : ('auto' as const);
      const why = server.blocker ? ` ${server.blocker}.` : '';
      const declaration = server.declaration.file === facts.relPath ? facts.nodeAt(server.declaration) : undefined;
      if (declaration && !reported.has(`${server.declaration.start}`)) {
        reported.add(`${server.declaration.start}`);
        report(
          declaration,
          `Shared server: \`${server.reference}\` is created once and connected to a new transport per connection; overlapping requests fail with "Already connected to a transport".${why}`,
          { fix },
        );
      }
      // Passed in as a parameter: the instance itself is declared elsewhere.
      const instance = server.hoist && server.hoist.declaration.start !== server.declaration.start ? server.hoist.declaration : undefined;
      const instanceNode = instance?.file === facts.relPath ? facts.nodeAt(instance) : undefined;
      if (instance && instanceNode && !reported.has(`${instance.start}`)) {
        reported.add(`${instance.start}`);
        report(instanceNode, `Shared server: \`${server.hoist!.variable}\` is one instance that every request is served by.`, { fix });
      }
      for (const site of server.hoist?.parameter?.callSites ?? []) {
        const call = site.file === facts.relPath ? facts.nodeAt(site) : undefined;
        if (!call || reported.has(`${site.start}`)) continue;
        reported.add(`${site.start}`);
        report(call, 'Shared server: this call hands one server instance to code that connects it to every request.', { fix });
      }
    }
  },
};
