// What a per-session server factory keeps: its own variables (a resource, a value the initialize hook sets, state a
// handler changes), stores looked up by the server it built, and values it makes and hands to the tools' helpers.
import { Node, SyntaxKind, type SourceFile } from 'ts-morph';
import type { FileFacts } from '../file-facts';
import { descendantsOfKind } from '../node-index';
import { isFunctionNode, type FunctionNode } from '../endpoints/spans';
import { setAtInitialize } from './client-info';
import { buildsOnlyPerRequestServers, keyedByServer, serverFactories } from './factories';
import { stateHandedToHelpers } from './handed-state';
import { handlerChanging, patternNames, toolMutating, type StateHandler } from './handlers';
import type { SessionStateFact } from './model';
import { sessionResource } from './resources';
import { changedInBackground } from './background';
import { madePerSession } from './made-per-session';
import { collectedServers, serverStateFacts } from './server-state';

/** The facts of every server factory of the file, factory by factory. */
export function factoryStateFacts(facts: FileFacts, sourceFile: SourceFile, mutators: readonly StateHandler[]): SessionStateFact[] {
  const found: SessionStateFact[] = [];
  for (const { factory, construction } of serverFactories(facts, sourceFile)) {
    const body = (factory as Node & { getBody?(): Node | undefined }).getBody?.();
    if (!body || !Node.isBlock(body)) continue;
    found.push(...factoryLocalFacts(factory, body, construction, facts, mutators));
    found.push(...serverStateFacts(factory, facts, mutators), ...collectedServers(factory, facts, mutators));
    for (const keyed of keyedByServer(factory, facts, mutators))
      found.push({ kind: 'keyed-by-server', at: keyed.call, store: keyed.store, tool: keyed.tool });
    for (const handed of stateHandedToHelpers(body, mutators))
      found.push({ kind: 'handed-to-helper', at: handed.made, helper: handed.helper, changedIn: handed.mutatedIn, perRequest: false });
  }
  return found;
}

/** The factory's own variables (in nested blocks too, not those of the functions inside it) that keep state. */
function factoryLocalFacts(
  factory: FunctionNode,
  body: Node,
  construction: Node | undefined,
  facts: FileFacts,
  mutators: readonly StateHandler[],
): SessionStateFact[] {
  const found: SessionStateFact[] = [];
  // (`if (features.cart) { const cart = []; server.tool(…) }` counts; the variables of the functions inside it do not)
  const variables = descendantsOfKind(body, SyntaxKind.VariableDeclaration).filter(
    (v) => v.getFirstAncestor((a) => isFunctionNode(a)) === factory,
  );
  for (const variable of variables) {
    const server = variable.getInitializer();
    const isServer = !!server && ((!!construction && server === construction) || facts.holds(variable.getNameNode(), 'McpServer'));
    // (what a handler changes on the server itself is a field of it: ./server-state)
    if (isServer) continue;
    const user = sessionResource(variable, mutators);
    if (user) {
      found.push({ kind: 'factory-resource', at: variable, user });
      continue;
    }
    const initialized = setAtInitialize(variable, factory, mutators);
    if (initialized) {
      found.push({ kind: 'set-at-initialize', at: variable, hook: initialized.hook, reader: initialized.reader });
      continue;
    }
    // (one declared in a nested block is the factory's too, but --unsafe moves only the factory's own statements)
    const nestedBlock = variable.getParent()?.getParent()?.getParent() !== body;
    const changedIn = toolMutating(variable, mutators);
    if (changedIn) found.push({ kind: 'factory-local', at: variable, changedIn, nestedBlock });
    const background = changedIn ? undefined : changedInBackground(variable, factory, mutators);
    if (background) found.push({ kind: 'background-state', at: variable, ...background });
    const made = changedIn || background ? undefined : madePerSession(variable, mutators);
    // (a value drawn in a factory whose servers createMcpHandler builds was drawn per request all along)
    const perRequest = made?.kind === 'drawn' && buildsOnlyPerRequestServers(factory);
    if (made && !perRequest) found.push({ kind: 'made-per-session', at: variable, what: made.kind, made: made.made, user: made.user });
    // const { board } = makeState(); — each name the pattern declares is the factory's own state
    const changed = patternNames(variable.getNameNode()).flatMap((name) => {
      const by = handlerChanging(name, false, mutators);
      return by ? [{ name: name.getText(), by }] : [];
    });
    if (changed.length > 0)
      found.push({ kind: 'factory-local', at: variable, changedIn: changed[0].by, nestedBlock, destructured: changed.map((c) => c.name) });
  }
  return found;
}
