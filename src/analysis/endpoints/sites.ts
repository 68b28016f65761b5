// Transport sites: where an SDK transport is handed a request. `new SSEServerTransport(path, res)` opens the legacy
// stream, `transport.handlePostMessage(req, res)` takes its messages, `transport.handleRequest(req, res, body)` (or
// `handleRequest(request)` on the Web-standard transport) serves Streamable HTTP. Also: the session machinery a
// region uses, which a stateless endpoint drops.
import { Node, SyntaxKind, type CallExpression, type SourceFile, type Symbol as MorphSymbol } from 'ts-morph';
import { toolRegistrations } from '../tools';
import { storeExpression, storeName, writesKeyedBy } from '../stores';
import { FileFacts } from '../file-facts';
import { resolveHandler } from '../routes';
import { descendantsOfKind, identifiersUnder, nodesOfKind, refersToAny } from '../node-index';
import { isSdkSymbol } from '../sdk-modules';
import { resolveOrigin } from '../resolve';
import { isFunctionNode, unwrapExpression } from './spans';
import { referencesOf } from '../references';

export interface TransportSite {
  kind: 'sse-stream' | 'sse-messages' | 'streamable';
  node: Node;
  /** Arguments that carry the request objects (`req`, `res`, `request`), in order. */
  requestArgs: Node[];
}

export function transportSites(facts: FileFacts): TransportSite[] {
  const sites: TransportSite[] = [];
  for (const construction of facts.constructions('SSEServerTransport')) {
    const res = construction.getArguments()[1];
    if (res) sites.push({ kind: 'sse-stream', node: construction, requestArgs: [res] });
  }
  const handled = new Set<Node>();
  for (const call of facts.methodCalls('handlePostMessage', ['SSEServerTransport'])) {
    handled.add(call);
    sites.push({ kind: 'sse-messages', node: call, requestArgs: call.getArguments().slice(0, 2) });
  }
  for (const call of facts.methodCalls('handleRequest', ['StreamableHTTPServerTransport'])) {
    handled.add(call);
    sites.push({ kind: 'streamable', node: call, requestArgs: call.getArguments().slice(0, 2) });
  }
  // `session.transport.handleRequest(req, res)`, `(session.transport as SSEServerTransport).handlePostMessage(req, res)`:
  // a transport kept in an object whose type the analysis cannot see (no library types are loaded), in a file that
  // constructs that transport.
  const untyped = [
    { method: 'handleRequest', kind: 'streamable', transport: 'StreamableHTTPServerTransport' },
    { method: 'handlePostMessage', kind: 'sse-messages', transport: 'SSEServerTransport' },
  ] as const;
  for (const { method, kind, transport } of untyped) {
    if (facts.constructions(transport).length === 0) continue;
    for (const call of nodesOfKind(facts.sourceFile, SyntaxKind.CallExpression)) {
      const callee = call.getExpression();
      if (handled.has(call) || !Node.isPropertyAccessExpression(callee) || callee.getName() !== method) continue;
      if (!/transport$/i.test(unwrapExpression(callee.getExpression()).getText())) continue;
      // (a transport the analysis can see is not the SDK's: a class of its own, or an import that does not resolve)
      if (facts.origins(callee.getExpression()).length > 0) continue;
      sites.push({ kind, node: call, requestArgs: call.getArguments().slice(0, 2) });
    }
  }
  return sites;
}

/** `X.connect(transport)` calls inside a node, where the argument holds an SDK HTTP transport. */
export function connectCalls(facts: FileFacts, within: Node): Array<{ call: Node; server: Node; transport: Node }> {
  const found: Array<{ call: Node; server: Node; transport: Node }> = [];
  for (const call of descendantsOfKind(within, SyntaxKind.CallExpression)) {
    const callee = call.getExpression();
    if (!Node.isPropertyAccessExpression(callee) || callee.getName() !== 'connect') continue;
    const [transport] = call.getArguments();
    if (!transport) continue;
    if (!facts.holds(transport, 'SSEServerTransport') && !facts.holds(transport, 'StreamableHTTPServerTransport')) continue;
    found.push({ call, server: callee.getExpression(), transport });
  }
  return found;
}

/**
 * The session machinery of a region: names bound to transports and their stores, session ids, event stores and the
 * initialize gate. A statement that uses one of them belongs to the sessions the migration removes.
 */
export class SessionMachinery {
  private readonly symbols = new Set<MorphSymbol>();

  constructor(
    private readonly facts: FileFacts,
    region: Node,
  ) {
    for (const id of identifiersUnder(region)) {
      if (this.isMachineryName(id)) {
        const symbol = id.getSymbol();
        if (symbol) this.symbols.add(symbol);
      }
    }
  }

  private isMachineryName(id: Node): boolean {
    const parent = id.getParent();
    if (Node.isPropertyAccessExpression(parent) && parent.getNameNode() === id) return false;
    if (isSdkSymbol(resolveOrigin(id), 'isInitializeRequest')) return true;
    if (this.facts.holds(id, 'SSEServerTransport') || this.facts.holds(id, 'StreamableHTTPServerTransport')) return true;
    const declaration = id.getSymbol()?.getDeclarations()[0];
    if (Node.isBindingElement(declaration) && /^(?:session_?id|sid|lastEventId)$/i.test(declaration.getName())) return true;
    // (a helper's parameter the route fills from the header: `handle(req, res, body, sessionId)`)
    if (Node.isParameterDeclaration(declaration) && /^(?:session_?id|sid|lastEventId)$/i.test(declaration.getName())) return true;
    if (Node.isVariableDeclaration(declaration)) {
      const init = declaration.getInitializer()?.getText() ?? '';
      if (/mcp-session-id|last-event-id|\bsessionId\b|EventStore\(/i.test(init)) return true;
      if (/^(?:session_?id|sid|lastEventId|eventStore)$/i.test(declaration.getName())) return true;
    }
    return false;
  }

  /** The statement (or expression) uses session machinery. */
  touches(node: Node): boolean {
    if (/mcp-session-id|last-event-id|\.sessionId\b|query\.sessionId/i.test(node.getText())) return true;
    const ids = Node.isIdentifier(node) ? [node] : identifiersUnder(node);
    return ids.some((id) => refersToAny(id, this.symbols));
  }
}

/** `sessionIdGenerator`, `eventStore`, transport maps: the session sites of a file, for the report. */
export function sessionSiteNodes(file: SourceFile): Node[] {
  const nodes: Node[] = [];
  for (const object of nodesOfKind(file, SyntaxKind.ObjectLiteralExpression)) {
    for (const name of ['sessionIdGenerator', 'onsessioninitialized', 'onsessionclosed', 'eventStore']) {
      const property = object.getProperty(name);
      if (property) nodes.push(property);
    }
  }
  return nodes;
}

export const DISPOSAL =
  /^(?:delete|drop|remove|clear|close|dispose|destroy|cleanup|clean|release|evict|forget|unregister|terminate|end)(?![a-z])/;
const LOGGING = /^(?:console|logger|log|debug|logging)$|Logger$/i;

/**
 * Calls and assignments in a region that hand a session id to state other than the transport store:
 * `sessions.create(id)`, `setAuthContext(id, auth)`, `contexts.set(id, …)`, `sessions[id] = { transport, history }`
 * when tools read `sessions`. Tools that read that state by session id would silently lose it once sessions are gone,
 * so such an endpoint is not migrated automatically. Reads (`get`, `has`), disposal (`delete`, `dropCart`) and
 * logging are not state. `sessionIdParameters`: parameters of a function the region calls that receive its session id.
 */
export function sessionStateCalls(facts: FileFacts, region: Node, sessionIdParameters: readonly Node[] = [], depth = 0): Node[] {
  const isSessionId = sessionIdTest(region, sessionIdParameters);
  const found: Node[] = [];
  for (const call of descendantsOfKind(region, SyntaxKind.CallExpression)) {
    if (!call.getArguments().some(isSessionId)) continue;
    const callee = call.getExpression();
    if (CONVERSIONS.has(callee.getText())) continue;
    const root = callee.getText().split(/[.([]/)[0];
    const name = Node.isPropertyAccessExpression(callee) ? callee.getName() : callee.getText();
    // Logging (`logger.info(id)`, `server.session?.logger.setAttribute('sessionId', id)`, `redactSessionIdForLog(id)`)
    // and reads (`get`, `has`, `isKnown`) are not state.
    const receivers = Node.isPropertyAccessExpression(callee) ? callee.getExpression().getText().split(/\??\./) : [root];
    if (receivers.some((part) => LOGGING.test(part)) || /log/i.test(name) || /^(?:get|has|is|find)/.test(name)) continue;
    // Releasing state when the session ends (`dropCart(id)`, `contexts.delete(id)`) creates none; what created it is
    // found where it is created (here, or in tools by `session-state`).
    if (DISPOSAL.test(name)) continue;
    // Answering with the id (`res.setHeader('Mcp-Session-Id', id)`) is a header write, not state.
    if (/^(?:setHeader|header|set|append|writeHead)$/.test(name) && /mcp-session-id/i.test(call.getArguments()[0]?.getText() ?? ''))
      continue;
    if (Node.isPropertyAccessExpression(callee) && isTransportStore(facts, callee.getExpression(), region)) continue;
    if (filesOnlyTransports(call, isSessionId, depth)) continue;
    found.push(call);
  }
  for (const assignment of descendantsOfKind(region, SyntaxKind.BinaryExpression)) {
    const target = assignment.getLeft();
    if (assignment.getOperatorToken().getKind() !== SyntaxKind.EqualsToken || !Node.isElementAccessExpression(target)) continue;
    const key = target.getArgumentExpression();
    if (!key || !isSessionId(key) || isTransportStore(facts, target.getExpression(), region)) continue;
    found.push(assignment);
  }
  return found.sort((a, b) => a.getStart() - b.getStart());
}

/**
 * `saveTransport(sessionId, transport)`: a project function that, given the session id, only files the transport in a
 * store of transports (the session table behind accessors in a module of its own) keeps no state; its store is
 * session machinery like a map written in place.
 */
function filesOnlyTransports(call: CallExpression, isSessionId: (expression: Node) => boolean, depth: number): boolean {
  if (depth >= MAX_ACCESSOR_DEPTH) return false;
  const named = resolveHandler(call.getExpression());
  const fn = named ?? injectedMethod(call.getExpression());
  const body = fn && isFunctionNode(fn) ? fn.getBody() : undefined;
  if (!fn || !isFunctionNode(fn) || !body || fn.getSourceFile().isDeclarationFile() || fn.getSourceFile().isInNodeModules()) return false;
  const ids = sessionIdParameters(fn, call, isSessionId);
  if (ids.length === 0) return false;
  const facts = new FileFacts(fn.getSourceFile(), { validatesOrigin: false });
  if (sessionStateCalls(facts, body, ids, depth + 1).length > 0) return false;
  // (its writes keyed by the id: each one into a store of transports, and at least one)
  const writes = writesKeyedBy(body, ids);
  if (writes.length === 0) return looksUpTransport(facts, body, ids);
  // A service's method files the transport itself (`this.open[id] = transport`); a record it files beside a
  // transport (`{ transport, clusterManager: new Manager() }`) is the session's state.
  const itself = (value: Node) => named !== undefined || Node.isIdentifier(unwrapExpression(value));
  return writes.every((write) => itself(write.value) && isTransportStore(facts, write.store, body));
}

/** `recall(key) { return this.open[key]; }`: a function that only returns the transport filed under the id. */
function looksUpTransport(facts: FileFacts, body: Node, ids: readonly Node[]): boolean {
  const symbols = new Set(ids.map((id) => id.getSymbol()));
  const isId = (node: Node | undefined) =>
    !!node && Node.isIdentifier(unwrapExpression(node)) && symbols.has(unwrapExpression(node).getSymbol());
  const returns = descendantsOfKind(body, SyntaxKind.ReturnStatement).filter(
    (r) => r.getFirstAncestor(isFunctionNode) === body.getParent(),
  );
  return (
    returns.length > 0 &&
    returns.every((statement) => {
      const value = statement.getExpression() && unwrapExpression(statement.getExpression()!);
      if (Node.isElementAccessExpression(value) && isId(value.getArgumentExpression()))
        return isTransportStore(facts, value.getExpression(), body);
      if (Node.isCallExpression(value)) {
        const callee = value.getExpression();
        return (
          Node.isPropertyAccessExpression(callee) &&
          callee.getName() === 'get' &&
          isId(value.getArguments()[0]) &&
          isTransportStore(facts, callee.getExpression(), body)
        );
      }
      return false;
    })
  );
}

/**
 * `this.sessions.addTransport` where `sessions` is an instance of a project class (a service handed to the
 * controller's constructor): that class's method. Only a method declared in a project file counts.
 */
export function injectedMethod(callee: Node): Node | undefined {
  if (!Node.isPropertyAccessExpression(callee)) return undefined;
  const owner = unwrapExpression(callee.getExpression());
  if (!Node.isPropertyAccessExpression(owner) || owner.getExpression().getKind() !== SyntaxKind.ThisKeyword) return undefined;
  const [declaration] = callee.getSymbol()?.getDeclarations() ?? [];
  if (!declaration || !Node.isMethodDeclaration(declaration) || !Node.isClassDeclaration(declaration.getParent())) return undefined;
  const file = declaration.getSourceFile();
  return file.isDeclarationFile() || file.isInNodeModules() ? undefined : declaration;
}

/** The parameters of `fn` that receive the session id where `call` calls it. */
export function sessionIdParameters(
  fn: { getParameters(): Node[] },
  call: CallExpression,
  isSessionId: (expression: Node) => boolean,
): Node[] {
  return fn.getParameters().filter((_, index) => {
    const argument = call.getArguments()[index];
    return !!argument && isSessionId(argument);
  });
}

const MAX_ACCESSOR_DEPTH = 2;

/** Is an expression in the region its session id (or one of the given parameters)? */
export function sessionIdTest(region: Node, sessionIdParameters: readonly Node[] = []): (expression: Node) => boolean {
  const ids = sessionIdSymbols(region);
  for (const parameter of sessionIdParameters) ids.add(parameter.getSymbol());
  const isSessionId = (arg: Node): boolean =>
    (Node.isIdentifier(arg) && refersToAny(arg, ids as Set<MorphSymbol | undefined>)) ||
    (Node.isPropertyAccessExpression(arg) && arg.getName() === 'sessionId') ||
    ((Node.isNonNullExpression(arg) || Node.isAsExpression(arg)) && isSessionId(arg.getExpression()));
  return isSessionId;
}

/**
 * A store of transports and nothing tools need: it holds transports, or some `.set(id, value)` or `[id] = value` on
 * it stores a value that carries one, or the server connected to one (`servers[transport.sessionId] = server` beside
 * the transport map) — and no tool reads it (`{ transport, history }` read by tools is state).
 */
function isTransportStore(facts: FileFacts, receiver: Node, region: Node): boolean {
  if (readByTools(receiver)) return false;
  if (facts.holds(receiver, 'SSEServerTransport') || facts.holds(receiver, 'StreamableHTTPServerTransport')) return true;
  const text = receiver.getText();
  const file = region.getSourceFile();
  const holdsTransport = (node: Node) => facts.holds(node, 'SSEServerTransport') || facts.holds(node, 'StreamableHTTPServerTransport');
  // (`server.connect(transport)`: the servers a transport is connected to, by their locals)
  const connected = new Set<unknown>();
  for (const call of descendantsOfKind(file, SyntaxKind.CallExpression)) {
    const callee = call.getExpression();
    const [argument] = call.getArguments();
    if (!Node.isPropertyAccessExpression(callee) || callee.getName() !== 'connect' || !argument || !holdsTransport(argument)) continue;
    const server = unwrapExpression(callee.getExpression());
    if (Node.isIdentifier(server) && server.getSymbol()) connected.add(server.getSymbol());
  }
  const carriesTransport = (value: Node | undefined) =>
    !!value &&
    [value, ...value.getDescendantsOfKind(SyntaxKind.Identifier)].some(
      (node) => holdsTransport(node) || /transport/i.test(node.getText()) || (Node.isIdentifier(node) && connected.has(node.getSymbol())),
    );
  const stores = descendantsOfKind(file, SyntaxKind.CallExpression).some((call) => {
    const callee = call.getExpression();
    if (!Node.isPropertyAccessExpression(callee) || callee.getName() !== 'set' || callee.getExpression().getText() !== text) return false;
    return carriesTransport(call.getArguments()[1]);
  });
  return (
    stores ||
    descendantsOfKind(file, SyntaxKind.BinaryExpression).some((assignment) => {
      const target = assignment.getLeft();
      return (
        assignment.getOperatorToken().getKind() === SyntaxKind.EqualsToken &&
        Node.isElementAccessExpression(target) &&
        target.getExpression().getText() === text &&
        carriesTransport(assignment.getRight())
      );
    })
  );
}

/**
 * Tools read the store: a reference to it sits in a tool handler (in any project file), or looks it up by the
 * handler context's session id (`sessions.get(extra.sessionId)`, also from a helper the tools call).
 */
function readByTools(receiver: Node): boolean {
  const name = storeName(receiver);
  const references = name ? referencesOf(name) : [];
  const handlers = new Map<SourceFile, Set<Node>>();
  const handlersOf = (file: SourceFile) => {
    let found = handlers.get(file);
    if (!found) {
      found = new Set(toolRegistrations(file).flatMap((tool) => (tool.handler ? [tool.handler] : [])));
      handlers.set(file, found);
    }
    return found;
  };
  return references.some((reference) => {
    const lookup = storeExpression(reference).getParent();
    const key = Node.isElementAccessExpression(lookup)
      ? lookup.getArgumentExpression()
      : Node.isPropertyAccessExpression(lookup) && Node.isCallExpression(lookup.getParent())
        ? (lookup.getParent() as CallExpression).getArguments()[0]
        : undefined;
    if (key && isContextSessionId(key)) return true;
    const tools = handlersOf(reference.getSourceFile());
    return reference.getAncestors().some((ancestor) => tools.has(ancestor));
  });
}

/** `extra.sessionId`: the session id of a handler context, a parameter that is not a transport. */
function isContextSessionId(key: Node): boolean {
  if (!Node.isPropertyAccessExpression(key) || key.getName() !== 'sessionId') return false;
  const object = key.getExpression();
  const declaration = object.getSymbol()?.getDeclarations()[0];
  return Node.isIdentifier(object) && Node.isParameterDeclaration(declaration) && !/transport/i.test(object.getText());
}

/** `req.headers['mcp-session-id']`, `c.req.header('mcp-session-id') as string`, `String(req.query.sessionId ?? '')`: the id itself, not a lookup keyed by it. */
function isSessionIdRead(expression: Node): boolean {
  let value = expression;
  for (;;) {
    if (Node.isAsExpression(value) || Node.isNonNullExpression(value) || Node.isParenthesizedExpression(value))
      value = value.getExpression();
    else if (Node.isBinaryExpression(value) && /^(?:\?\?|\|\|)$/.test(value.getOperatorToken().getText())) value = value.getLeft();
    else if (Node.isCallExpression(value) && CONVERSIONS.has(value.getExpression().getText()) && value.getArguments().length > 0)
      value = value.getArguments()[0];
    else break;
  }
  if (Node.isCallExpression(value)) {
    const callee = value.getExpression();
    if (!Node.isPropertyAccessExpression(callee) || !/^(?:get|header)$/.test(callee.getName())) return false;
    if (callee.getName() === 'get' && !/headers|searchParams|query/i.test(callee.getExpression().getText())) return false;
  } else if (!Node.isElementAccessExpression(value) && !Node.isPropertyAccessExpression(value)) return false;
  return /mcp-session-id|query\.sessionId|['"]sessionId['"]/i.test(value.getText());
}

const CONVERSIONS = new Set(['String', 'Number', 'decodeURIComponent', 'encodeURIComponent']);

/** The session ids of a region: what `sessionIdGenerator` returns, the callbacks' ids, header/query reads. */
function sessionIdSymbols(region: Node): Set<unknown> {
  const ids = new Set<unknown>();
  for (const object of descendantsOfKind(region, SyntaxKind.ObjectLiteralExpression)) {
    const generator = object.getProperty('sessionIdGenerator');
    const value = generator && Node.isPropertyAssignment(generator) ? generator.getInitializer() : undefined;
    if (value && Node.isArrowFunction(value)) {
      const body = value.getBody();
      if (Node.isIdentifier(body)) ids.add(body.getSymbol());
    }
    for (const name of ['onsessioninitialized', 'onsessionclosed']) {
      const callback = object.getProperty(name);
      const fn = callback && Node.isPropertyAssignment(callback) ? callback.getInitializer() : callback;
      const parameter =
        fn && (Node.isArrowFunction(fn) || Node.isFunctionExpression(fn) || Node.isMethodDeclaration(fn))
          ? fn.getParameters()[0]
          : undefined;
      if (parameter) ids.add(parameter.getNameNode().getSymbol());
    }
  }
  for (const declaration of descendantsOfKind(region, SyntaxKind.VariableDeclaration)) {
    const initializer = declaration.getInitializer();
    if (initializer && isSessionIdRead(initializer)) ids.add(declaration.getNameNode().getSymbol());
  }
  ids.delete(undefined);
  return ids;
}
