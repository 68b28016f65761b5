import { nodesOfKind } from '../analysis/node-index';
import { Node, SyntaxKind } from 'ts-morph';
import type { Rule } from './rule';
import { enclosingFunction } from './shared';
import { routeContextsOf } from '../analysis/routes';

export const sharedServerInstance: Rule = {
  meta: {
    id: 'shared-server-instance',
    title: 'One MCP server instance connected to many transports',
    severity: 'error',
    fix: 'auto',
    doc:
      'A module-level `McpServer`/`Server` that is `connect()`ed to a new transport for each connection or request works by ' +
      'accident on the legacy path and fails under load: since SDK 1.26 `Protocol.connect` throws "Already connected to a ' +
      'transport" when two requests overlap. The stateless target needs a fresh server per request (v2 `createMcpHandler` ' +
      'enforces it). This rule finds `connect()` calls on an outer-scope server inside a function that connects an HTTP ' +
      'transport.',
    hint: 'Build the server in a factory and call it per request.',
    sources: [
      'typescript-sdk v1.x src/shared/protocol.ts connect (Already connected to a transport)',
      'typescript-sdk v1.x src/examples/server/simpleStatelessStreamableHttp.ts (getServer per request)',
    ],
  },
  check({ sourceFile, facts, report }) {
    if (!facts.importsMcp) return;
    for (const call of nodesOfKind(sourceFile, SyntaxKind.CallExpression)) {
      const callee = call.getExpression();
      if (!Node.isPropertyAccessExpression(callee) || callee.getName() !== 'connect') continue;
      const [transport] = call.getArguments();
      if (!transport) continue;
      const httpTransport = facts.holds(transport, 'SSEServerTransport') || facts.holds(transport, 'StreamableHTTPServerTransport');
      if (!httpTransport) continue;
      const server = callee.getExpression();
      // `this.server.connect(t)`: a class field shared by every request the instance serves. Only inside a route
      // handler, since a per-connection class (`new Session(res).start()`) connects its own server once.
      const field = Node.isPropertyAccessExpression(server) && server.getExpression().getKind() === SyntaxKind.ThisKeyword;
      if (!(Node.isIdentifier(server) || field) || !facts.holds(server, 'McpServer')) continue;
      const fn = enclosingFunction(call);
      if (!fn) continue;
      if (field && !routeContextsOf(call).some((context) => context.methods !== 'unknown')) continue;
      const nameNode = Node.isPropertyAccessExpression(server) ? server.getNameNode() : server;
      const declaration = nameNode.getSymbol()?.getDeclarations()[0];
      if (!declaration) continue;
      const declaredInside = declaration.getAncestors().includes(fn);
      if (declaredInside) continue;
      report(
        call,
        `Shared server: \`${server.getText()}\` is created once and connected to a new transport per connection; overlapping requests fail with "Already connected to a transport".`,
        {
          related: [{ node: declaration, message: 'the shared server instance' }],
        },
      );
    }
  },
};
