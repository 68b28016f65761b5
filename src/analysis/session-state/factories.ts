// The functions whose locals live as long as one server (a per-session server factory, a function registering tools
// on each connection's server), whether a call runs per request, and lookups keyed by the server built there.
import { Node, SyntaxKind, type CallExpression, type ParameterDeclaration, type SourceFile } from 'ts-morph';
import type { FileFacts } from '../file-facts';
import { routeContextsOf } from '../routes';
import { resolveOrigin } from '../resolve';
import { isPerRequestMcpHandler } from '../sdk-modules';
import { isFunctionNode, type FunctionNode } from '../endpoints/spans';
import { referencesOf } from '../references';
import { identifiersReferringTo } from '../node-index';
import { requestHandlers, type StateHandler } from './handlers';
import { factoryServers, serverChain, serverReferences } from './server-state';

/**
 * The functions whose locals live as long as one server: those that build it (`new McpServer(…)`), and those that
 * register tools on a server for each connection or request — a route handler that adds tools to the server a
 * factory made, or a function of the project such a function or a factory calls (`registerTools(server)`).
 */
export function serverFactories(facts: FileFacts, sourceFile: SourceFile): Array<{ factory: FunctionNode; construction?: Node }> {
  const found: Array<{ factory: FunctionNode; construction?: Node }> = [];
  for (const construction of facts.constructions('McpServer')) {
    const factory = construction.getFirstAncestor((a) => isFunctionNode(a));
    if (isFunctionNode(factory) && !found.some((f) => f.factory === factory)) found.push({ factory, construction });
  }
  const builders = new Set<Node>(found.map((f) => f.factory));
  const registrations = [...facts.tools.map((t) => t.node), ...requestHandlers(sourceFile).map((h) => h.handler.getParent()!)];
  for (const registration of registrations) {
    const fn = registration.getFirstAncestor((a) => isFunctionNode(a));
    if (!isFunctionNode(fn) || builders.has(fn) || found.some((f) => f.factory === fn)) continue;
    const perServer =
      servesPerRequest(registration, fn, facts) ||
      callersOf(fn).some((call) => {
        const caller = call.getFirstAncestor((a) => isFunctionNode(a));
        return !!caller && (builders.has(caller) || servesPerRequest(call, caller, facts));
      });
    if (perServer) found.push({ factory: fn });
  }
  return found;
}

/** Calls of a named function of the project (`registerTools(server)`), in any file of the project. */
export function callersOf(fn: FunctionNode): CallExpression[] {
  const declaration = Node.isFunctionDeclaration(fn) ? fn : fn.getParentIfKind(SyntaxKind.VariableDeclaration);
  const name = declaration?.getNameNode();
  if (!name || !Node.isIdentifier(name)) return [];
  return referencesOf(name).flatMap((reference) => {
    const parent = reference.getParent();
    return Node.isCallExpression(parent) && parent.getExpression() === reference ? [parent] : [];
  });
}

/** `call`, in `caller`, runs for each request or connection: in an endpoint's region, a route, or a handler's factory. */
export function servesPerRequest(call: Node, caller: FunctionNode, facts: FileFacts): boolean {
  const file = facts.relPath;
  const inRegion = facts.endpoints.some((plan) =>
    plan.regions.some((r) => r.fn.file === file && r.fn.start <= caller.getStart() && caller.getEnd() <= r.fn.end),
  );
  return inRegion || routeContextsOf(call).length > 0 || handedToMcpHandler(caller);
}

/** createMcpHandler(() => buildServer(new Session()), …): the SDK calls the function for every request. */
function handedToMcpHandler(fn: FunctionNode): boolean {
  const handed = fn.getParent();
  if (!Node.isCallExpression(handed) || handed.getArguments()[0] !== fn) return false;
  const origin = resolveOrigin(handed.getExpression());
  return isPerRequestMcpHandler(origin);
}

/**
 * The function builds the servers of a createMcpHandler and no others: it is handed to one, or every call of it is in
 * a function handed to one (`createMcpHandler(() => buildServer())`). Its locals live for one request.
 */
export function buildsOnlyPerRequestServers(fn: FunctionNode): boolean {
  if (handedToMcpHandler(fn)) return true;
  const calls = callersOf(fn);
  return (
    calls.length > 0 &&
    calls.every((call) => {
      const caller = call.getFirstAncestor((a) => isFunctionNode(a));
      return isFunctionNode(caller) && handedToMcpHandler(caller);
    })
  );
}

const KEYED = /^(?:get|set|has)$/;

/**
 * A tool of the factory that looks a store up by the server the factory built (`memory.get(server)`, a WeakMap of
 * per-server state), directly or through a function of the project it hands the server to (`memoryOf(server)`, whose
 * parameter keys such a lookup): each session's server had its entry.
 */
export function keyedByServer(
  factory: FunctionNode,
  facts: FileFacts,
  tools: readonly StateHandler[],
): Array<{ call: CallExpression; store: string; tool: string }> {
  const found: Array<{ call: CallExpression; store: string; tool: string }> = [];
  const servers = factoryServers(factory, facts);
  if (servers.size === 0) return found;
  for (const tool of tools) {
    if (!tool.handler || !factory.containsRange(tool.handler.getPos(), tool.handler.getEnd())) continue;
    for (const key of serverReferences(tool.handler, servers).map(serverChain)) {
      const call = key.getParent();
      if (!Node.isCallExpression(call) || call.getArguments()[0] !== key) continue;
      const store = lookupKey(call) ?? keyedThroughParameter(call);
      // (one finding per tool and store: its first lookup)
      if (store && !found.some((f) => f.store === store && f.tool === tool.name)) found.push({ call, store, tool: tool.name });
    }
  }
  return found;
}

/** `store.get(key)` / `set` / `has`: the store. */
function lookupKey(call: CallExpression): string | undefined {
  const callee = call.getExpression();
  return Node.isPropertyAccessExpression(callee) && KEYED.test(callee.getName()) ? callee.getExpression().getText() : undefined;
}

/** memoryOf(server): a function of the project whose first parameter keys a lookup; the store it looks up. */
function keyedThroughParameter(call: CallExpression): string | undefined {
  const callee = call.getExpression();
  let fn: Node | undefined = Node.isIdentifier(callee) ? callee.getSymbol()?.getDeclarations()[0] : undefined;
  if (Node.isVariableDeclaration(fn)) fn = fn.getInitializer();
  if (!isFunctionNode(fn) || fn.getSourceFile().isDeclarationFile()) return undefined;
  const parameter = fn.getParameters()[0] as ParameterDeclaration | undefined;
  const symbol = parameter?.getNameNode().getSymbol();
  let store: string | undefined;
  for (const use of symbol ? identifiersReferringTo(fn, symbol) : []) {
    const inner = use.getParent();
    if (use.getSymbol() === symbol && Node.isCallExpression(inner) && inner.getArguments()[0] === use) store ??= lookupKey(inner);
  }
  return store;
}
