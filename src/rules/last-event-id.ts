import { nodesOfKind } from '../analysis/node-index';
import { Node, SyntaxKind } from 'ts-morph';
import type { Rule } from './rule';
import { stringLiterals } from '../analysis/file-facts';
import { dynamicImportSpecifier, requireSpecifier } from '../analysis/resolve';
import { inHeaderNameList, propertyAssignmentsNamed } from './shared';

const EXAMPLE_STORE = /examples\/shared\/inMemoryEventStore/;

export const lastEventId: Rule = {
  meta: {
    id: 'last-event-id',
    title: 'SSE resumability: event stores, Last-Event-ID and retry intervals',
    severity: 'error',
    fix: 'auto',
    doc:
      'Protocol revision 2026-07-28 drops SSE resumability and redelivery: "Resumable SSE streams via `Last-Event-ID` are not ' +
      'supported"; a broken response stream loses the in-flight request and the client re-issues it with a new id. Servers ' +
      'SHOULD ignore `Last-Event-ID`. This rule finds transport `eventStore` options (including `InMemoryEventStore` from the ' +
      'SDK examples or a local copy), `retryInterval`, ' +
      '`closeSSEStream` and code that reads `last-event-id`.',
    hint: 'Remove the event store; make tools safe to re-run instead (see `idempotency-hint`).',
    sources: [
      'spec 2026-07-28 changelog.mdx § Major changes 9',
      'spec 2026-07-28 basic/transports/streamable-http.mdx § Receiving Messages',
      'typescript-sdk v1.x src/examples/shared/inMemoryEventStore.ts',
    ],
  },
  check({ sourceFile, facts, report }) {
    // A file that neither imports MCP nor speaks JSON-RPC (a dashboard feed resuming by Last-Event-ID) is not MCP.
    if (!facts.importsMcp && !/jsonrpc/.test(sourceFile.getFullText())) return;
    for (const prop of propertyAssignmentsNamed(sourceFile, 'eventStore')) {
      if (declaresCommandLineFlag(prop)) continue;
      report(
        prop,
        'Resumability: `eventStore` replays SSE events after `Last-Event-ID`, which stateless Streamable HTTP does not support.',
      );
    }
    for (const prop of propertyAssignmentsNamed(sourceFile, 'retryInterval')) {
      report(prop, 'Resumability: `retryInterval` tells clients to reconnect and resume a stream.');
    }
    const closeSse = 'Resumability: `closeSSEStream` ends a stream so the client resumes it with `Last-Event-ID`.';
    for (const access of nodesOfKind(sourceFile, SyntaxKind.PropertyAccessExpression)) {
      if (access.getName() === 'closeSSEStream') report(access, closeSse, { fix: 'manual' });
    }
    // const { closeSSEStream } = extra  |  async (args, { closeSSEStream }) => …
    for (const binding of nodesOfKind(sourceFile, SyntaxKind.BindingElement)) {
      if ((binding.getPropertyNameNode()?.getText() ?? binding.getName()) === 'closeSSEStream')
        report(binding, closeSse, { fix: 'manual' });
    }
    for (const literal of stringLiterals(sourceFile, /^last-event-id$/i)) {
      if (inHeaderNameList(literal)) continue;
      report(literal, 'Resumability: the `Last-Event-ID` header is read to replay missed events.', { fix: 'manual' });
    }
    for (const declaration of sourceFile.getImportDeclarations()) {
      if (EXAMPLE_STORE.test(declaration.getModuleSpecifierValue())) {
        report(declaration, 'Resumability: `InMemoryEventStore` from the SDK examples.');
      }
    }
    // require('…/inMemoryEventStore.js') and await import('…/inMemoryEventStore.js')
    for (const call of nodesOfKind(sourceFile, SyntaxKind.CallExpression)) {
      const specifier = requireSpecifier(call) ?? dynamicImportSpecifier(call);
      if (specifier && EXAMPLE_STORE.test(specifier)) {
        report(call, 'Resumability: `InMemoryEventStore` from the SDK examples.');
      }
    }
  },
};

/** `eventStore: { type: 'boolean', describe: '…' }` (yargs, commander option objects): a command-line flag, not a store. */
function declaresCommandLineFlag(prop: Node): boolean {
  const value = Node.isPropertyAssignment(prop) ? prop.getInitializer() : undefined;
  return !!value && Node.isObjectLiteralExpression(value) && ['describe', 'description', 'desc'].some((key) => !!value.getProperty(key));
}
