// Where the server a request region connects comes from. Built in the region (`const server = createServer(token)`,
// with the statements that compute its inputs and answer early), or shared (one instance at module level, in an
// enclosing function, or passed in as a parameter) — then it must become a factory first, and this says how.
import { Node, SyntaxKind, type Block, type CallExpression, type CaseClause, type SourceFile, type Symbol as MorphSymbol } from 'ts-morph';
import { descendantsOfKind, identifiersReferringTo, thisUnder } from '../node-index';
import type { FileFacts } from '../file-facts';
import { resolveHandler } from '../routes';
import type { ServerHoist, ServerSource } from './model';
import type { RegionNode } from './regions';
import { isTestFile } from './classify';
import { cachedGetterOf, heldServerOf } from './cached-getter';
import { fieldHoist } from './field-factory';
import { returnedServerOf } from './returned-server';
import { connectCalls, type SessionMachinery } from './sites';
import {
  contains,
  declarationOf,
  exits,
  firstLine,
  freeIdentifiers,
  freeName,
  isFunctionNode,
  referencesTo,
  spanOf,
  SERVER_CONFIG_METHODS,
  statementOf,
  templateText,
  unwrapExpression,
  valueSymbol,
  type FunctionNode,
  type RelPathOf,
} from './spans';
import { referencesOf } from '../references';
import { isLoggingStatement } from '../logging';

/** Internal result: the plan data, plus the nodes other steps need. */
export interface ServerSourceResult {
  source: ServerSource;
  /** The connect call the source was read from. */
  connect?: Node;
  /** For a shared server: the declaration and the functions whose calls pass it. */
  sharedDeclaration?: Node;
  /** For a built server: the statements kept before it is built. */
  prelude?: Node[];
  /** One transport made once and connected at start-up, which the handler hands every request: both statements go. */
  startup?: StartupTransport;
}

export interface StartupTransport {
  /** `const transport = new StreamableHTTPServerTransport(…)`, and its construction. */
  declaration: Node;
  construction: Node;
  /** `await server.connect(transport);` */
  connect: Node;
  /** `await transport.close();` on shutdown: each request's transport is closed when its response closes. */
  closes: Node[];
}

/**
 * What the endpoint keeps per request besides the server's inputs. `carried`: values it keeps computing (credentials
 * it filed by session id); the statements that compute them are kept too when that touches no session state. `logs`:
 * the handler is rewritten in place, so its logging before the session code stays (see leadingLogs).
 */
export interface KeptPerRequest {
  carried?: Node[];
  logs?: boolean;
}

export function serverSourceOf(
  region: RegionNode,
  facts: FileFacts,
  machinery: SessionMachinery,
  relPath: RelPathOf,
  perRequest: KeptPerRequest = {},
  /** The blocks of the endpoint's other regions (a GET branch beside the POST one), which the migration rewrites too. */
  otherRegions: Node[] = [],
): ServerSourceResult {
  const statements = regionStatements(region);
  const connects = connectCalls(facts, region.block).filter((c) => statements.some((s) => contains(s, c.call)));
  const first = connects[0];
  if (!first) {
    const opened = serverOfSessionOpener(facts, statements, region);
    if (opened) return opened;
    const handOff = transportHandOff(facts, statements);
    if (handOff)
      return {
        source: {
          kind: 'unknown',
          why: `the transport is handed to \`${firstLine(handOff)}\`, which connects a server kept outside the handler (shared by every connection, e.g. one per id in a service); make that code build a fresh server per request (keep a factory, not an instance), then serve the endpoint statelessly`,
        },
        connect: handOff,
      };
    const shared = transportMadeOutside(facts, region);
    const startup = shared && startupTransportSource(facts, region, shared, { machinery, perRequest, otherRegions }, relPath);
    if (startup) return startup;
    if (shared)
      return {
        source: {
          kind: 'unknown',
          sharedTransport: true,
          why: `the handler hands every request to \`${shared.name}\`, one transport made once (${relPath(shared.declaration.getSourceFile())}:${shared.declaration.getStartLineNumber()}) and connected to the server outside the handler, so a stateless one fails every request after the first and a stateful one serves one client: build a server and a transport per request in the handler, connect them there, and drop the start-up connect`,
        },
      };
    return { source: { kind: 'unknown', why: 'the handler never calls `server.connect(transport)`' } };
  }
  const expression = unwrapExpression(first.server);
  if (Node.isCallExpression(expression) || Node.isNewExpression(expression)) {
    // `(await createServer()).connect(transport)` keeps its await.
    let written = first.server;
    while (Node.isParenthesizedExpression(written)) written = written.getExpression();
    const init = Node.isAwaitExpression(written) && written.getExpression() === expression ? written : expression;
    return { ...built(region, first.call, init, undefined, machinery, perRequest, relPath), connect: first.call };
  }
  if (Node.isIdentifier(expression)) {
    const declaration = expression.getSymbol()?.getDeclarations()[0];
    if (Node.isVariableDeclaration(declaration) && contains(region.block, declaration)) {
      const init = declaration.getInitializer();
      const assigned = init ? undefined : builtByAssignment(declaration, connects);
      if (assigned)
        return {
          ...built(region, assigned.statement, assigned.value, undefined, machinery, perRequest, relPath),
          connect: assigned.connect,
        };
      if (!init) return { source: { kind: 'unknown', why: `\`${declaration.getName()}\` is declared without a value and assigned later` } };
      return { ...built(region, first.call, init, declaration, machinery, perRequest, relPath), connect: first.call };
    }
    // `const { server, cleanup } = createServer()` in the handler: built there, with what else the call returned.
    if (Node.isBindingElement(declaration) && contains(region.block, declaration) && destructuredCall(declaration))
      return {
        ...built(region, first.call, destructuredCall(declaration)!, declaration, machinery, perRequest, relPath),
        connect: first.call,
      };
    if (declaration) {
      const prelude = sharedPrelude(region, first.call, machinery, perRequest);
      if (typeof prelude === 'string') return { source: { kind: 'unknown', why: prelude }, connect: first.call };
      return {
        source: { ...shared(expression, declaration, region, relPath), ...prelude.source },
        connect: first.call,
        sharedDeclaration: declaration,
        prelude: prelude.nodes,
      };
    }
  }
  if (Node.isPropertyAccessExpression(expression) && expression.getExpression().getKind() === SyntaxKind.ThisKeyword) {
    const reference = expression.getText();
    const prelude = sharedPrelude(region, first.call, machinery, perRequest);
    if (typeof prelude === 'string') return { source: { kind: 'unknown', why: prelude }, connect: first.call };
    return {
      source: {
        kind: 'shared',
        reference,
        declaration: spanOf(expression, relPath),
        ...fieldHoist(expression, facts, relPath),
        ...prelude.source,
      },
      connect: first.call,
      prelude: prelude.nodes,
    };
  }
  const held = heldByOutsideObject(expression, region);
  if (held)
    return {
      source: {
        kind: 'shared',
        reference: expression.getText(),
        declaration: spanOf(expression, relPath),
        blocker: `\`${expression.getText()}\` is a property of \`${held.getText()}\`, made outside the request handler, and mcp-migrate cannot turn a property into a factory: give \`${held.getText()}\` a function that builds a server, and call it per request`,
      },
      connect: first.call,
    };
  return { source: { kind: 'unknown', why: `the server \`${first.server.getText()}\` is not built where its origin can be read` } };
}

/**
 * `container.mcpServer.connect(transport)`: a server read off an object made outside the handler (a module's
 * dependency container, an imported config) is one server for every request, unless reading the property builds one
 * (a getter or a method). The object, or undefined.
 */
function heldByOutsideObject(expression: Node, region: RegionNode): Node | undefined {
  if (!Node.isPropertyAccessExpression(expression)) return undefined;
  let root: Node = expression.getExpression();
  while (Node.isPropertyAccessExpression(root)) root = root.getExpression();
  if (!Node.isIdentifier(root)) return undefined;
  const declaration = root.getSymbol()?.getDeclarations()[0];
  if (!declaration || contains(region.fn, declaration) || Node.isParameterDeclaration(declaration)) return undefined;
  const property = expression.getNameNode().getSymbol()?.getDeclarations() ?? [];
  const plain = (d: Node) =>
    Node.isPropertyDeclaration(d) || Node.isPropertySignature(d) || Node.isParameterDeclaration(d) || Node.isPropertyAssignment(d);
  return property.length > 0 && property.every(plain) ? expression.getExpression() : undefined;
}

/**
 * `let server; … server = createServer(auth); await server.connect(transport)` in the branch that builds it (other
 * branches connect the one their session kept, `server = session.server`): the assignment right before a connect.
 */
function builtByAssignment(
  declaration: Node,
  connects: ReturnType<typeof connectCalls>,
): { statement: Node; value: Node; connect: Node } | undefined {
  const symbol = (declaration as Node & { getNameNode(): Node }).getNameNode().getSymbol();
  for (const { call, server } of connects) {
    if (unwrapExpression(server).getSymbol() !== symbol) continue;
    const statement = statementOf(call);
    const block = statement?.getParent();
    if (!statement || !block || !Node.isBlock(block)) continue;
    const before = block
      .getStatements()
      .slice(0, block.getStatements().indexOf(statement as never))
      .reverse();
    const assignment = before
      .map((s) => (Node.isExpressionStatement(s) ? s.getExpression() : undefined))
      .find(
        (e) =>
          Node.isBinaryExpression(e) && e.getOperatorToken().getKind() === SyntaxKind.EqualsToken && e.getLeft().getSymbol() === symbol,
      );
    const value = assignment && Node.isBinaryExpression(assignment) ? assignment.getRight() : undefined;
    const made = value && unwrapExpression(value);
    if (made && (Node.isCallExpression(made) || Node.isNewExpression(made)))
      return { statement: assignment!.getParentOrThrow(), value, connect: call };
  }
  return undefined;
}

/** The call an object pattern binding the server destructures (`const { server } = await createServer()`), as written. */
function destructuredCall(element: Node): Node | undefined {
  if (!Node.isBindingElement(element) || element.getDotDotDotToken() || !Node.isObjectBindingPattern(element.getParent())) return undefined;
  const variable = element.getParent()?.getParent();
  const init = Node.isVariableDeclaration(variable) ? variable.getInitializer() : undefined;
  const call = init && unwrapExpression(init);
  return call && Node.isCallExpression(call) ? init : undefined;
}

/**
 * `transport = await startSession()`: a function of the same file, called from the handler, that constructs the
 * transport and connects a server it builds with a factory of the module (`await makeServer().connect(transport)`).
 * The endpoint builds its server the same way; the opener goes with the sessions.
 */
function serverOfSessionOpener(facts: FileFacts, statements: Node[], region: RegionNode): ServerSourceResult | undefined {
  for (const statement of statements)
    for (const call of descendantsOfKind(statement, SyntaxKind.CallExpression)) {
      const fn = resolveHandler(call.getExpression());
      if (!isFunctionNode(fn) || contains(region.fn, fn) || fn.getSourceFile() !== region.fn.getSourceFile()) continue;
      if (!facts.constructions('StreamableHTTPServerTransport').some((c) => contains(fn, c))) continue;
      const [connect, ...more] = connectCalls(facts, fn);
      if (!connect || more.length > 0) continue;
      const expression = unwrapExpression(connect.server);
      if (!Node.isCallExpression(expression) && !Node.isNewExpression(expression)) continue;
      if (
        freeIdentifiers(expression).some((id) => !Node.isSourceFile(statementOf(valueSymbol(id)?.getDeclarations()[0] ?? id)?.getParent()))
      )
        continue;
      let written = connect.server;
      while (Node.isParenthesizedExpression(written)) written = written.getExpression();
      return {
        source: {
          kind: 'built',
          init: templateText(expression),
          awaited: Node.isAwaitExpression(written),
          setup: [],
          prelude: [],
          uses: [...new Set(freeIdentifiers(expression).map((id) => id.getText()))],
          requestScoped: false,
        },
        connect: connect.call,
      };
    }
  return undefined;
}

/** A call in the statements that hands the SDK transport to other code (`this.servers.connect(id, transport)`). */
function transportHandOff(facts: FileFacts, statements: Node[]): Node | undefined {
  for (const statement of statements)
    for (const call of descendantsOfKind(statement, SyntaxKind.CallExpression)) {
      if (call.getArguments().some((a) => facts.holds(a, 'SSEServerTransport') || facts.holds(a, 'StreamableHTTPServerTransport')))
        if (!/\.(?:set|push|add|register\w*)$/.test(call.getExpression().getText())) return call;
    }
  return undefined;
}

/** `transport.handleRequest(…)` in the region on a transport declared, and made, outside it (once, for every request). */
function transportMadeOutside(facts: FileFacts, region: RegionNode): { name: string; declaration: Node; call: Node } | undefined {
  // (an arrow's expression body is the call itself: `(c) => transport.handleRequest(c.req.raw)`)
  const calls = [region.block, ...descendantsOfKind(region.block, SyntaxKind.CallExpression)].filter(Node.isCallExpression);
  for (const call of calls) {
    const callee = call.getExpression();
    if (!Node.isPropertyAccessExpression(callee) || callee.getName() !== 'handleRequest') continue;
    const receiver = callee.getExpression();
    if (!Node.isIdentifier(receiver) || !facts.holds(receiver, 'StreamableHTTPServerTransport')) continue;
    const declaration = declarationOf(receiver);
    if (!Node.isVariableDeclaration(declaration) || contains(region.block, declaration)) continue;
    if (!Node.isNewExpression(unwrapExpression(declaration.getInitializer() ?? receiver))) continue;
    return { name: receiver.getText(), declaration, call };
  }
  return undefined;
}

/**
 * `transport.handleRequest(req, …)` on one transport made once and connected at start-up (`await server.connect(transport)`,
 * shared-transport): the endpoint builds that server and a transport per request instead, and the transport's
 * declaration, its connect and its `close()` on shutdown go. Only when the transport is declared on its own in the
 * handler's file, used for nothing else, and the connect is a statement of its own; the server is then a shared one (it
 * becomes a factory, or the call that made it is made per request) or a call of module-level names.
 */
function startupTransportSource(
  facts: FileFacts,
  region: RegionNode,
  shared: { declaration: Node; call: Node },
  { machinery, perRequest, otherRegions }: { machinery: SessionMachinery; perRequest: KeptPerRequest; otherRegions: Node[] },
  relPath: RelPathOf,
): ServerSourceResult | undefined {
  const { declaration } = shared;
  if (!Node.isVariableDeclaration(declaration)) return undefined;
  const statement = declaration.getVariableStatement();
  const construction = declaration.getInitializer();
  if (!statement || !construction || statement.getDeclarations().length !== 1 || statement.isExported()) return undefined;
  if (declaration.getSourceFile() !== region.fn.getSourceFile()) return undefined;
  const uses = referencesTo(declaration.getNameNode());
  const connects = connectCalls(facts, declaration.getSourceFile()).filter((c) => uses.includes(unwrapExpression(c.transport)));
  if (connects.length !== 1) return undefined;
  const [{ call, server }] = connects;
  const connect = statementOf(call);
  if (!connect || !Node.isExpressionStatement(connect) || !isWholeStatement(connect.getExpression(), call)) return undefined;
  // (every other use hands a request to it, in a region of this endpoint, or closes it on shutdown: `await transport.close();`)
  const closes: Node[] = [];
  for (const id of uses) {
    if (contains(connect, id) || [region.block, ...otherRegions].some((block) => contains(block, id))) continue;
    const close = closeStatementOf(id);
    if (!close) return undefined;
    closes.push(close);
  }
  const startup = { declaration: statement, construction, connect, closes };
  const served = serverConnectedAtStartup(server, region, connect, relPath);
  if (!served) return undefined;
  const prelude = Node.isBlock(region.block) ? sharedPrelude(region, shared.call, machinery, perRequest) : { source: {}, nodes: [] };
  if (typeof prelude === 'string') return undefined;
  return { ...served, source: { ...served.source, ...prelude.source }, prelude: prelude.nodes, startup } as ServerSourceResult;
}

/** The statement's expression is the call, awaited or voided or not: `await server.connect(transport);`, nothing more. */
function isWholeStatement(expression: Node, call: Node): boolean {
  if (expression === call) return true;
  return (Node.isAwaitExpression(expression) || Node.isVoidExpression(expression)) && expression.getExpression() === call;
}

/** The statement `transport.close();` (awaited or voided) that `id` is the receiver of. */
function closeStatementOf(id: Node): Node | undefined {
  const access = id.getParent();
  const call = access?.getParent();
  if (!Node.isPropertyAccessExpression(access) || access.getName() !== 'close' || !Node.isCallExpression(call)) return undefined;
  if (call.getExpression() !== access || call.getArguments().length > 0) return undefined;
  const statement = statementOf(call);
  return Node.isExpressionStatement(statement) && isWholeStatement(statement.getExpression(), call) ? statement : undefined;
}

/** The server a start-up connect connects: shared (it becomes a factory), or made by a call of module-level names. */
function serverConnectedAtStartup(
  server: Node,
  region: RegionNode,
  connect: Node,
  relPath: RelPathOf,
): Pick<ServerSourceResult, 'source' | 'sharedDeclaration'> | undefined {
  const expression = unwrapExpression(server);
  if (Node.isIdentifier(expression)) {
    const declaration = declarationOf(expression);
    if (!Node.isVariableDeclaration(declaration) || contains(region.fn, declaration)) return undefined;
    const source = shared(expression, declaration, region, relPath, [connect]);
    return source.kind === 'shared' && (source.hoist || source.factoryCall) ? { source, sharedDeclaration: declaration } : undefined;
  }
  if (!Node.isCallExpression(expression) && !Node.isNewExpression(expression)) return undefined;
  const outside = freeIdentifiers(expression).some(
    (id) => !Node.isSourceFile(statementOf(valueSymbol(id)?.getDeclarations()[0] ?? id)?.getParent()),
  );
  if (outside) return undefined;
  let written = server;
  while (Node.isParenthesizedExpression(written)) written = written.getExpression();
  return {
    source: {
      kind: 'built',
      init: templateText(expression),
      awaited: Node.isAwaitExpression(written),
      setup: [],
      prelude: [],
      uses: [...new Set(freeIdentifiers(expression).map((id) => id.getText()))],
      requestScoped: false,
    },
  };
}

/** The statements of a region: the block's, from the first one after a path guard. */
export function regionStatements(region: RegionNode): Node[] {
  const statements = Node.isBlock(region.block) ? region.block.getStatements() : [];
  return statements.slice(region.from ?? 0);
}

// ---- built in the region ---------------------------------------------------------------------------------------

function built(
  region: RegionNode,
  connect: Node,
  init: Node,
  declaration: Node | undefined,
  machinery: SessionMachinery,
  { carried = [], logs = false }: KeptPerRequest,
  relPath: RelPathOf,
): { source: ServerSource; prelude?: Node[] } {
  const awaited = Node.isAwaitExpression(init);
  const expression = awaited ? (init as Node & { getExpression(): Node }).getExpression() : init;
  const cached = Node.isCallExpression(expression) ? cachedGetterOf(expression, region.fn, relPath) : undefined;
  if (typeof cached === 'string') return { source: { kind: 'unknown', why: cached } };
  // (`this.service.getServer()` returning the service's one server: shared, not built here)
  const held = Node.isCallExpression(expression) ? heldServerOf(expression, region.fn) : undefined;
  if (held) return { source: { kind: 'shared', reference: expression.getText(), declaration: spanOf(expression, relPath), blocker: held } };
  const anchor = statementOf(declaration ?? connect)!;
  const setup = declaration ? setupStatements(anchor, declaration, connect, machinery) : [];
  // (a close callback that also ended the session keeps what else it did: `await cleanup()`)
  const trimmed = new Map(setup.flatMap((s) => (machinery.touches(s) ? [[s, withoutSessionStatements(s, machinery)!] as const] : [])));
  const candidates = candidatesBefore(anchor, region, machinery);
  if (typeof candidates === 'string') return { source: { kind: 'unknown', why: candidates } };
  const withCarried = carried.length > 0 ? slice(candidates, [expression, ...setup, ...carried], machinery, logs) : undefined;
  const prelude = Array.isArray(withCarried) ? withCarried : slice(candidates, [expression, ...setup], machinery, logs);
  if (typeof prelude === 'string') return { source: { kind: 'unknown', why: prelude } };
  const text = (n: Node) => trimmed.get(n)?.text ?? templateText(n);
  const kept = (n: Node) => (id: Node) => !trimmed.get(n)?.removed.some((r) => contains(r, id));
  const inside = new Set<MorphSymbol>();
  for (const parameter of region.fn.getParameters())
    for (const id of parameter.getDescendantsOfKind(SyntaxKind.Identifier)) addSymbol(inside, id);
  for (const d of descendantsOfKind(region.fn, SyntaxKind.VariableDeclaration)) addSymbol(inside, d.getNameNode());
  // (destructured locals: `const { authInfo } = await validate(req)`)
  for (const b of region.fn.getDescendantsOfKind(SyntaxKind.BindingElement)) addSymbol(inside, b.getNameNode());
  const roots = [expression, ...setup, ...prelude];
  // Early answers stay in the handler before it serves; only what builds the server decides where the factory lives.
  const requestScoped = [expression, ...setup].some(
    (r) =>
      thisUnder(r).length > 0 ||
      freeIdentifiers(r)
        .filter(kept(r))
        .some((id) => inside.has(valueSymbol(id)!)),
  );
  return {
    source: {
      kind: 'built',
      init: text(expression),
      awaited,
      variable:
        declaration && (Node.isVariableDeclaration(declaration) || Node.isBindingElement(declaration)) ? declaration.getName() : undefined,
      ...(Node.isBindingElement(declaration) ? { binding: templateText(declaration.getParentOrThrow()) } : {}),
      setup: setup.map(text),
      prelude: prelude.map(text),
      uses: [
        ...new Set(
          roots.flatMap((r) =>
            freeIdentifiers(r)
              .filter(kept(r))
              .map((id) => id.getText()),
          ),
        ),
      ],
      requestScoped,
      ...(cached ? { cached } : {}),
    },
    prelude,
  };
}

function addSymbol(set: Set<MorphSymbol>, node: Node): void {
  const symbol = valueSymbol(node);
  if (symbol) set.add(symbol);
}

/** Statements after the declaration, in its block, that configure the server and do not touch sessions. */
function setupStatements(anchor: Node, declaration: Node, connect: Node, machinery: SessionMachinery): Node[] {
  const block = anchor.getParent();
  if (!block || !Node.isBlock(block)) return [];
  const symbol = (declaration as Node & { getNameNode(): Node }).getNameNode().getSymbol();
  const statements = block.getStatements();
  const after = statements
    .slice(statements.indexOf(anchor as never) + 1)
    .filter((s) => !contains(s, connect) && (!machinery.touches(s) || withoutSessionStatements(s, machinery)));
  const setup = new Set(after.filter((s) => identifiersReferringTo(s, symbol).length > 0));
  // …and what they need that is declared between (`const client = new Client(token)` before `server.load(client)`).
  for (let changed = true; changed;) {
    changed = false;
    const needed = new Set<MorphSymbol>();
    for (const statement of setup) for (const id of freeIdentifiers(statement)) addSymbol(needed, id);
    for (const statement of after) {
      if (setup.has(statement) || !writesAny(statement, needed)) continue;
      setup.add(statement);
      changed = true;
    }
  }
  return after.filter((s) => setup.has(s));
}

/**
 * `server.server.onclose = async () => { transports.delete(id); await cleanup(); }`: a callback assigned to the
 * server whose own target touches no session, with the statements that end the session taken out. Undefined when
 * nothing else is left, or the statement is not such an assignment.
 */
function withoutSessionStatements(statement: Node, machinery: SessionMachinery): { text: string; removed: Node[] } | undefined {
  const assignment = Node.isExpressionStatement(statement) ? statement.getExpression() : undefined;
  if (!Node.isBinaryExpression(assignment) || assignment.getOperatorToken().getKind() !== SyntaxKind.EqualsToken) return undefined;
  const callback = assignment.getRight();
  if (machinery.touches(assignment.getLeft()) || !(Node.isArrowFunction(callback) || Node.isFunctionExpression(callback))) return undefined;
  const body = callback.getBody();
  const inner = Node.isBlock(body) ? body.getStatements() : [];
  const removed = inner.filter((s) => machinery.touches(s));
  if (removed.length === 0 || removed.length === inner.length) return undefined;
  const start = statement.getStart();
  let text = statement.getText();
  for (const r of [...removed].reverse()) text = text.slice(0, r.getFullStart() - start) + text.slice(r.getEnd() - start);
  return { text: templateText(statement, text), removed };
}

/**
 * A shared server's endpoint keeps what the handler did before connecting it: its early answers (an auth check) and
 * what computes the values it is served with, as a built server's does (see slice). A message when that cannot be
 * kept apart from the session code.
 */
function sharedPrelude(
  region: RegionNode,
  connect: Node,
  machinery: SessionMachinery,
  { carried = [], logs = false }: KeptPerRequest,
): { source: { prelude?: string[] }; nodes: Node[] } | string {
  const anchor = statementOf(connect);
  if (!anchor) return { source: {}, nodes: [] };
  const candidates = candidatesBefore(anchor, region, machinery);
  if (typeof candidates === 'string') return candidates.replace(/^the server is built/, 'the server is connected');
  const nodes = slice(candidates, carried, machinery, logs);
  if (typeof nodes === 'string') return nodes;
  return { source: nodes.length > 0 ? { prelude: nodes.map((n) => templateText(n)) } : {}, nodes };
}

/**
 * The statements that run before the server is built, along the way from the region's block down to it. Entering an
 * `if` is only right when its test is the session's initialize gate; anything else guards the server (`if (token)`).
 */
function candidatesBefore(target: Node, region: RegionNode, machinery: SessionMachinery): Node[] | string {
  const candidates: Node[] = [];
  let block: Node = region.block;
  let from = region.from ?? 0;
  for (let depth = 0; depth < 12; depth++) {
    const statements = Node.isBlock(block) || Node.isCaseClause(block) ? block.getStatements().slice(from) : [];
    const index = statements.findIndex((s) => contains(s, target));
    if (index < 0) return 'the server is built outside the request handler';
    candidates.push(...statements.slice(0, index));
    const holder = statements[index];
    if (holder === target) return candidates;
    const inner = innerBlock(holder, target, machinery);
    if (typeof inner === 'string') return inner;
    block = inner;
    from = 0;
  }
  return 'the server is built too deep inside the handler';
}

/**
 * The block inside `holder` that contains `target`: a try block, a plain block, an if branch, or the case of a
 * `switch (req.method)` (`case 'POST': …`).
 */
function innerBlock(holder: Node, target: Node, machinery: SessionMachinery): Block | CaseClause | string {
  if (Node.isBlock(holder)) return holder;
  if (Node.isSwitchStatement(holder) && isMethodSubject(holder.getExpression())) {
    const clause = holder.getClauses().find((c) => contains(c, target));
    if (clause && Node.isCaseClause(clause) && Node.isStringLiteral(clause.getExpression())) return clause;
  }
  if (Node.isTryStatement(holder)) {
    const tryBlock = holder.getTryBlock();
    if (contains(tryBlock, target)) return tryBlock;
    return 'the server is built in a catch or finally block';
  }
  if (Node.isIfStatement(holder)) {
    // `if (sessionId && transports[sessionId]) … else if (!sessionId && isInitializeRequest(body)) { build }`: the
    // session's gates and method tests may be left behind; any other test guards the server (`if (token)`).
    const test = holder.getExpression();
    if (!machinery.touches(test) && !isMethodTest(test) && !testsConnectedServer(test, target))
      return `the server is built under \`if (${firstLine(test)})\`, which is not a session gate`;
    const then = holder.getThenStatement();
    const otherwise = holder.getElseStatement();
    if (contains(then, target)) return Node.isBlock(then) ? then : 'the server is built in an unbraced branch';
    if (otherwise && contains(otherwise, target)) {
      if (Node.isBlock(otherwise)) return otherwise;
      if (Node.isIfStatement(otherwise)) return innerBlock(otherwise, target, machinery);
    }
  }
  const closure = closureRunNext(holder, target);
  if (closure) return closure;
  return `the server is built inside \`${firstLine(holder)}\`, which does more than gate sessions`;
}

/**
 * `if (this.server) { this.server.connect(transport) … }`: the test only asks whether the very server the statement
 * connects is there yet (a server handed to the class after its routes were registered). Where that server comes
 * from decides the endpoint, as it does without the test.
 */
function testsConnectedServer(test: Node, target: Node): boolean {
  const text = test.getText();
  if (!/^[\w$]+(?:\.[\w$]+)*$/.test(text)) return false;
  return descendantsOfKind(target, SyntaxKind.CallExpression).some((call) => {
    const callee = call.getExpression();
    return Node.isPropertyAccessExpression(callee) && callee.getName() === 'connect' && callee.getExpression().getText() === text;
  });
}

/**
 * `const handleRpc = async () => { …build, connect, serve… };` that the very next statement runs, once and for sure
 * (`return await handleRpc();`, or as the first statement of a `try` block), with no arguments: its body runs in the
 * handler's flow, right where it is declared, so its statements are the handler's.
 */
function closureRunNext(holder: Node, target: Node): Block | undefined {
  if (!Node.isVariableStatement(holder) || holder.getDeclarations().length !== 1) return undefined;
  const [declaration] = holder.getDeclarations();
  const fn = declaration.getInitializer();
  if (!fn || !(Node.isArrowFunction(fn) || Node.isFunctionExpression(fn)) || fn.getParameters().length > 0) return undefined;
  const body = fn.getBody();
  if (!Node.isBlock(body) || !contains(body, target)) return undefined;
  const [reference, ...others] = referencesTo(declaration.getNameNode());
  const call = reference?.getParent();
  if (others.length > 0 || !Node.isCallExpression(call) || call.getExpression() !== reference || call.getArguments().length > 0)
    return undefined;
  const next = firstStatement(holder.getNextSiblings());
  const runs = next && Node.isTryStatement(next) ? firstStatement(next.getTryBlock().getStatements()) : next;
  return runs && runsUnconditionally(call, runs) ? body : undefined;
}

function firstStatement(nodes: Node[]): Node | undefined {
  return nodes.find((node) => !Node.isCommentNode(node));
}

/** The statement evaluates the call whenever it runs: only awaits, parentheses, a return or a declaration around it. */
function runsUnconditionally(call: Node, statement: Node): boolean {
  for (let node: Node | undefined = call.getParent(); node; node = node.getParent()) {
    if (node === statement) return true;
    if (
      !Node.isAwaitExpression(node) &&
      !Node.isParenthesizedExpression(node) &&
      !Node.isVariableDeclaration(node) &&
      !Node.isVariableDeclarationList(node)
    )
      return false;
  }
  return false;
}

/** `req.method`, `request.method`, `c.req.method`. */
function isMethodSubject(expression: Node): boolean {
  return /^[\w.$]+\.method$/.test(expression.getText());
}

/** `req.method === 'GET'` (and `!==`, either order), alone. */
function isMethodTest(test: Node): boolean {
  return /^\(?\s*(?:[\w.$]+\.method\s*[!=]==?\s*['"`]\w+['"`]|['"`]\w+['"`]\s*[!=]==?\s*[\w.$]+\.method)\s*\)?$/.test(test.getText());
}

/** `if (req.method !== 'POST') { … }`: only a method check. */
function isMethodCheck(statement: Node): boolean {
  return Node.isIfStatement(statement) && isMethodTest(statement.getExpression());
}

/**
 * The statements to keep: those that compute what the server needs (transitively) and early answers that do not
 * concern sessions (`if (!token) return res.status(401)…`). A needed statement that touches sessions stops it.
 */
function slice(candidates: Node[], roots: Node[], machinery: SessionMachinery, logs: boolean): Node[] | string {
  const versionGate = protocolVersionReader(candidates);
  const kept = new Set<Node>(candidates.filter((c) => isEarlyAnswer(c) && !machinery.touches(c) && !versionGate(c)));
  if (logs) for (const log of leadingLogs(candidates, machinery)) kept.add(log);
  for (let changed = true; changed;) {
    changed = false;
    const needed = new Set<MorphSymbol>();
    for (const root of [...roots, ...kept]) for (const id of freeIdentifiers(root)) addSymbol(needed, id);
    for (const candidate of candidates) {
      // (a method check answers with its own writes to the response, `ctx.status = 405`: the new endpoint writes its own)
      if (kept.has(candidate) || isMethodCheck(candidate)) continue;
      // (`await new Promise((resolve) => req.on('end', resolve))`: what was written before waits for it)
      const waits = awaitsOnly(candidate) && !machinery.touches(candidate) && readsAny(candidate, needed);
      if (!waits && !writesAny(candidate, needed)) continue;
      if (machinery.touches(candidate)) return `the server is built from session state (\`${firstLine(candidate)}\`)`;
      kept.add(candidate);
      changed = true;
    }
  }
  return candidates.filter((c) => kept.has(c));
}

/**
 * The handler's own logging before its session code (`console.log('POST /mcp', req.body)`, `logger.info(…)`): every
 * request still reaches it, so it stays. Logging inside the session branches ("new session") does not.
 */
function leadingLogs(candidates: Node[], machinery: SessionMachinery): Node[] {
  const block = candidates[0]?.getParent();
  const logs: Node[] = [];
  for (const candidate of candidates) {
    if (candidate.getParent() !== block || machinery.touches(candidate)) break;
    if (isLoggingStatement(candidate)) logs.push(candidate);
  }
  return logs;
}

/**
 * Statements that read the `MCP-Protocol-Version` header, directly or through a local computed from it
 * (`if (!supported.includes(version)) return c.json(…, 400)`): the transport negotiates the version (the v1 one
 * answers an unsupported header with 400; createMcpHandler also serves 2026-07-28, which an app's own list of
 * versions would turn away), so such an early answer is not kept.
 */
function protocolVersionReader(candidates: Node[]): (statement: Node) => boolean {
  const header = (node: Node) => /(['"`])mcp-protocol-version\1/i.test(node.getText());
  const versions = new Set<MorphSymbol>();
  for (const candidate of candidates) {
    if (!Node.isVariableStatement(candidate) || !header(candidate)) continue;
    for (const declaration of candidate.getDeclarations()) addSymbol(versions, declaration.getNameNode());
  }
  return (statement) => header(statement) || freeIdentifiers(statement).some((id) => versions.has(valueSymbol(id)!));
}

/**
 * A statement that may end the request before the server is built, and is not only a method check (the new endpoint
 * writes its own): `if (!token) { …; return; }`, and checks whose answer is on some paths only
 * (`if (STAGING) { const ok = await allowed(key); if (!ok) { res.writeHead(403)…; return; } }`, a `try` whose
 * `catch` answers 401): the request must still pass them. Dropping one would serve requests it turned away.
 */
function isEarlyAnswer(statement: Node): boolean {
  if (isFunctionNode(statement) || isMethodCheck(statement)) return false;
  return (
    (Node.isIfStatement(statement) && !statement.getElseStatement() && exits(statement.getThenStatement())) || leavesSomewhere(statement)
  );
}

/** A `return` or `throw` of the handler itself (not of a function declared inside) somewhere in the node. */
function leavesSomewhere(node: Node): boolean {
  return [...descendantsOfKind(node, SyntaxKind.ReturnStatement), ...descendantsOfKind(node, SyntaxKind.ThrowStatement)].some(
    (exit) => exit.getFirstAncestor((a) => isFunctionNode(a) || a === node) === node,
  );
}

const ASSIGNMENTS = new Set([
  SyntaxKind.EqualsToken,
  SyntaxKind.PlusEqualsToken,
  SyntaxKind.MinusEqualsToken,
  SyntaxKind.AsteriskEqualsToken,
  SyntaxKind.SlashEqualsToken,
  SyntaxKind.BarBarEqualsToken,
  SyntaxKind.AmpersandAmpersandEqualsToken,
  SyntaxKind.QuestionQuestionEqualsToken,
]);

/**
 * The statement declares one of the symbols, or changes it anywhere inside, callbacks included: assigns it
 * (`token = value`, `raw += chunk` in a `data` listener), counts it up or down, sets a property of it
 * (`context.token = token`) or calls a method of it (`headers.set(key, value)`).
 */
function writesAny(statement: Node, symbols: Set<MorphSymbol>): boolean {
  const written = (id: Node) => symbols.has(valueSymbol(id)!);
  if (Node.isVariableStatement(statement)) {
    return statement.getDeclarations().some((d) => {
      const name = d.getNameNode();
      return Node.isIdentifier(name) ? written(name) : name.getDescendantsOfKind(SyntaxKind.Identifier).some(written);
    });
  }
  const target = (node: Node): Node => {
    let current = unwrapExpression(node);
    while (Node.isPropertyAccessExpression(current) || Node.isElementAccessExpression(current))
      current = unwrapExpression(current.getExpression());
    return current;
  };
  const assigned = [statement, ...descendantsOfKind(statement, SyntaxKind.BinaryExpression)].some((binary) => {
    if (!Node.isBinaryExpression(binary) || !ASSIGNMENTS.has(binary.getOperatorToken().getKind())) return false;
    const left = target(binary.getLeft());
    return Node.isIdentifier(left) && written(left);
  });
  if (assigned) return true;
  // (`headers.set(key, value)` in a loop that fills the headers the auth check reads)
  const called = descendantsOfKind(statement, SyntaxKind.CallExpression).some((call) => {
    const callee = call.getExpression();
    if (!Node.isPropertyAccessExpression(callee)) return false;
    const receiver = target(callee.getExpression());
    // (a local the handler made, not its request or response: `res.on('close', …)` changes nothing it computed)
    const declaration = Node.isIdentifier(receiver) ? valueSymbol(receiver)?.getDeclarations()[0] : undefined;
    return !!declaration && Node.isVariableDeclaration(declaration) && written(receiver);
  });
  if (called) return true;
  return [
    ...statement.getDescendantsOfKind(SyntaxKind.PrefixUnaryExpression),
    ...statement.getDescendantsOfKind(SyntaxKind.PostfixUnaryExpression),
  ].some((unary) => {
    const operator = unary.getOperatorToken();
    if (operator !== SyntaxKind.PlusPlusToken && operator !== SyntaxKind.MinusMinusToken) return false;
    const operand = target(unary.getOperand());
    return Node.isIdentifier(operand) && written(operand);
  });
}

/** `await …;` on its own: the statement only waits (for an event, a timer, a promise the handler made). */
function awaitsOnly(statement: Node): boolean {
  if (!Node.isExpressionStatement(statement)) return false;
  let expression = statement.getExpression();
  while (Node.isParenthesizedExpression(expression)) expression = expression.getExpression();
  return Node.isAwaitExpression(expression);
}

/** The statement reads one of the symbols. */
function readsAny(statement: Node, symbols: Set<MorphSymbol>): boolean {
  return freeIdentifiers(statement).some((id) => symbols.has(valueSymbol(id)!));
}

// ---- shared ----------------------------------------------------------------------------------------------------

/** `removed`: statements the migration deletes (a start-up connect), which are no use of the server. */
function shared(reference: Node, local: Node, region: RegionNode, relPath: RelPathOf, removed: Node[] = []): ServerSource {
  // An imported server is declared in the module it comes from.
  const declaration = Node.isImportSpecifier(local) || Node.isImportClause(local) ? (declarationOf(reference) ?? local) : local;
  const base = { kind: 'shared' as const, reference: reference.getText(), declaration: spanOf(declaration, relPath) };
  if (Node.isParameterDeclaration(declaration)) {
    const owner = declaration.getParent();
    if (!isFunctionNode(owner))
      return { ...base, blocker: `\`${reference.getText()}\` is a parameter of something that is not a function` };
    return { ...base, ...parameterHoist(reference.getText(), declaration, owner, region, relPath) };
  }
  // `const { server, cleanup } = createServer()`: each request takes the server from a call of its own.
  const destructured = destructuredFactoryCall(declaration, region);
  if (destructured) return { ...base, factoryCall: destructured };
  if (!Node.isVariableDeclaration(declaration)) {
    return {
      ...base,
      blocker: `\`${reference.getText()}\` is one server shared by every request, declared where mcp-migrate cannot turn it into a factory`,
    };
  }
  const hoisted = variableHoist(declaration, [region.fn], relPath, [], removed);
  // `const server = buildServer()` used only to serve: the region calls the factory that already exists.
  const factoryCall = factoryCallOf(declaration, hoisted.hoist, region.fn);
  return factoryCall ? { ...base, factoryCall } : { ...base, ...hoisted };
}

/** `const { server } = createServer()` at module level, the server used only to serve: `createServer().server`. */
function destructuredFactoryCall(declaration: Node, region: RegionNode): string | undefined {
  if (!Node.isBindingElement(declaration) || declaration.getDotDotDotToken()) return undefined;
  const variable = declaration.getFirstAncestorByKind(SyntaxKind.VariableDeclaration);
  const init = variable?.getInitializer();
  if (!variable || !init || !Node.isCallExpression(init) || !Node.isSourceFile(variable.getVariableStatement()?.getParent()))
    return undefined;
  if (!Node.isObjectBindingPattern(declaration.getParent())) return undefined;
  // (in this file: references across files would follow the property into the factory's `return { server }`)
  const symbol = declaration.getNameNode().getSymbol();
  const uses = identifiersReferringTo(declaration.getSourceFile(), symbol).filter(
    (id) => id !== declaration.getNameNode() && !contains(region.fn, id),
  );
  if (uses.some((id) => !keepsOnly(id))) return undefined;
  const property = declaration.getPropertyNameNode()?.getText() ?? declaration.getName();
  return `${templateText(init)}.${property}`;
}

/** A shared server made by one call of a module-level factory, configured nowhere else and used only to serve. */
function factoryCallOf(declaration: Node, hoist: ServerHoist | undefined, handler: Node): string | undefined {
  // (only in the region's own file, where the call's names are in scope)
  if (!hoist || hoist.setup.length > 0 || hoist.keepsInstance || hoist.exported) return undefined;
  if (!Node.isVariableDeclaration(declaration)) return undefined;
  const init = declaration.getInitializer();
  const call = init ? unwrapExpression(init) : undefined;
  if (!call || !Node.isCallExpression(call) || Node.isAwaitExpression(init!)) return undefined;
  if (!inScopeOf(handler, declaration) || freeIdentifiers(call).some((id) => !inScopeOf(handler, id.getSymbol()?.getDeclarations()[0])))
    return undefined;
  return templateText(call);
}

/**
 * A declaration the handler sees with the value it had when the server was made: at module level, or a `const` or a
 * parameter of a function around the handler (`const store = openStore()` in the start-up function that serves).
 */
function inScopeOf(handler: Node, declaration: Node | undefined): boolean {
  if (!declaration) return false;
  if (Node.isParameterDeclaration(declaration)) return contains(declaration.getParentOrThrow(), handler);
  const statement = statementOf(declaration);
  if (!statement) return false;
  if (Node.isSourceFile(statement.getParent())) return true;
  const constant = Node.isVariableStatement(statement) && statement.getDeclarationKind() === 'const';
  return constant && contains(statement.getParentOrThrow(), handler);
}

/** A server passed in as a parameter: every caller must pass the same hoistable instance. */
function parameterHoist(
  name: string,
  parameter: Node,
  owner: FunctionNode,
  region: RegionNode,
  relPath: RelPathOf,
): { hoist?: ServerHoist; blocker?: string } {
  const index = owner.getParameters().indexOf(parameter as never);
  const symbol = (parameter as Node & { getNameNode(): Node }).getNameNode().getSymbol();
  const body = owner.getBody();
  const otherUses = (body ? identifiersReferringTo(body, symbol) : []).filter((id) => !contains(region.block, id));
  if (otherUses.length > 0) {
    return {
      blocker: `the server parameter \`${name}\` is also used outside the request handler (\`${firstLine(statementOf(otherUses[0]) ?? otherUses[0])}\`)`,
    };
  }
  // Tests pass servers of their own: they keep doing so through a factory that returns theirs (`() => server`).
  const all = callsTo(owner);
  const calls = all.filter((c) => !isTestFile(relPath(c.getSourceFile()), c.getSourceFile()));
  const testCalls = all.filter((c) => !calls.includes(c) && c.getArguments()[index]);
  if (calls.length === 0) return { blocker: `nothing in the project calls the function that receives the server \`${name}\`` };
  let target: Node | undefined;
  for (const call of calls) {
    const argument = call.getArguments()[index];
    const resolved = argument && Node.isIdentifier(argument) ? declarationOf(argument) : undefined;
    if (!resolved || !Node.isVariableDeclaration(resolved))
      return { blocker: `\`${call.getText().split('\n')[0]}\` passes a server that is not one declared instance` };
    if (target && target !== resolved) return { blocker: `callers pass different servers as \`${name}\`` };
    target = resolved;
  }
  const hoisted = variableHoist(target!, [owner], relPath, calls);
  if (!hoisted.hoist) return hoisted;
  return {
    hoist: {
      ...hoisted.hoist,
      parameter: {
        fn: spanOf(owner, relPath),
        name,
        index,
        callSites: calls.map((c) => spanOf(c, relPath)),
        wrapSites: testCalls.map((c) => spanOf(c.getArguments()[index], relPath)),
      },
    },
  };
}

function callsTo(fn: FunctionNode): CallExpression[] {
  const nameNode = Node.isFunctionDeclaration(fn)
    ? fn.getNameNode()
    : Node.isVariableDeclaration(fn.getParent())
      ? (fn.getParent() as Node & { getNameNode(): Node }).getNameNode()
      : undefined;
  if (!nameNode || !Node.isIdentifier(nameNode)) return [];
  const calls: CallExpression[] = [];
  for (const reference of referencesOf(nameNode)) {
    const call = reference.getParent();
    if (Node.isCallExpression(call) && call.getExpression() === reference) calls.push(call);
  }
  return calls;
}

/**
 * A shared server declared as a variable: the statements after it that configure it move into a factory; uses
 * elsewhere (a stdio `connect`, `close()` on shutdown, an export) keep one instance made by the factory. `removed`:
 * statements the migration deletes (a start-up connect), which neither configure it nor use it.
 */
function variableHoist(
  declaration: Node,
  connecting: FunctionNode[],
  relPath: RelPathOf,
  callSites: Node[] = [],
  removed: Node[] = [],
): { hoist?: ServerHoist; blocker?: string } {
  if (!Node.isVariableDeclaration(declaration) || !Node.isIdentifier(declaration.getNameNode())) {
    return { blocker: 'the shared server is not declared as one variable' };
  }
  const name = declaration.getName();
  const statement = declaration.getVariableStatement();
  const init = declaration.getInitializer();
  if (!statement || statement.getDeclarations().length !== 1 || !init) {
    return { blocker: `\`${name}\` is declared with other variables or without a value; declare it on its own first` };
  }
  const made = unwrapExpression(init);
  if (!Node.isNewExpression(made) && !Node.isCallExpression(made))
    return { blocker: `\`${name}\` is not made by a constructor or factory call` };
  const container = statement.getParent();
  if (!container || !(Node.isSourceFile(container) || Node.isBlock(container)))
    return { blocker: `\`${name}\` is not declared at statement level` };
  const symbol = declaration.getNameNode().getSymbol();
  const statements = (container as SourceFile | Block).getStatements();
  const after = statements.slice(statements.indexOf(statement) + 1).filter((s) => !removed.includes(s));
  const setup = after.filter((s) => isSetupStatement(s, (n) => Node.isIdentifier(n) && n.getSymbol() === symbol, callSites));
  // Every use, in this file and in the files that import it.
  const uses = referencesTo(declaration.getNameNode());
  const elsewhere = uses.filter(
    (id) =>
      !setup.some((s) => contains(s, id)) &&
      !connecting.some((fn) => contains(fn, id)) &&
      !callSites.some((c) => contains(c, id)) &&
      !removed.some((s) => contains(s, id)),
  );
  // One instance may stay for code that only connects or closes it (a stdio branch, shutdown); code that configures
  // or hands it on would configure an instance the per-request servers never see.
  // Handed out in an object and configured by the callers: their registrations become a callback of the factory.
  const returned = returnedServerOf(
    declaration,
    elsewhere,
    keepsOnly,
    (s, server) => isSetupStatement(s, (n) => n === server, callSites),
    relPath,
  );
  if (typeof returned === 'string') return { blocker: returned };
  const escaping = elsewhere.find((id) => !keepsOnly(id) && !returned?.handled.some((h) => contains(h, id)));
  if (escaping) {
    return {
      blocker: `\`${name}\` is also used where it may be configured or handed on (\`${firstLine(statementOf(escaping) ?? escaping)}\`); register everything in one factory, then build one server per request`,
    };
  }
  const involved = new Set<SourceFile>([
    declaration.getSourceFile(),
    ...connecting.map((f) => f.getSourceFile()),
    ...callSites.map((c) => c.getSourceFile()),
  ]);
  return {
    hoist: {
      file: relPath(declaration.getSourceFile()),
      declaration: spanOf(declaration, relPath),
      variable: name,
      factory: freeName('createMcpServer', [...involved]),
      exported: [...involved].some((f) => f !== declaration.getSourceFile()),
      setup: setup.map((s) => spanOf(s, relPath)),
      keepsInstance: elsewhere.length > 0 || statement.isExported() || isExportedByName(declaration),
      ...(returned ? { registrations: returned.registrations } : {}),
    },
  };
}

/**
 * A use that keeps working with one instance made by the factory: `server.connect(stdio)`, `server.close()`,
 * `server.onerror = …`, or its import and export (whose importers are checked as uses too).
 */
function keepsOnly(id: Node): boolean {
  const parent = id.getParent();
  if (Node.isImportSpecifier(parent) || Node.isImportClause(parent) || Node.isExportSpecifier(parent) || Node.isExportAssignment(parent))
    return true;
  // Handed to another function that only connects it per request (a second endpoint of the same server).
  if (Node.isCallExpression(parent) && parent.getArguments().includes(id as never))
    return onlyConnects(parent, parent.getArguments().indexOf(id as never));
  if (!Node.isPropertyAccessExpression(parent) || parent.getExpression() !== id) return false;
  const use = parent.getParent();
  if (Node.isCallExpression(use) && use.getExpression() === parent) return /^(?:connect|close)$/.test(parent.getName());
  return (
    Node.isBinaryExpression(use) &&
    use.getLeft() === parent &&
    use.getOperatorToken().getKind() === SyntaxKind.EqualsToken &&
    /^on(?:error|close)$/.test(parent.getName())
  );
}

/** The called function's parameter at `index` is only ever `.connect()`ed. */
function onlyConnects(call: CallExpression, index: number): boolean {
  const fn = resolveHandler(call.getExpression());
  const parameter = fn && isFunctionNode(fn) ? fn.getParameters()[index] : undefined;
  const nameNode = parameter && Node.isParameterDeclaration(parameter) ? parameter.getNameNode() : undefined;
  if (!nameNode || !Node.isIdentifier(nameNode)) return false;
  const uses = referencesTo(nameNode);
  return (
    uses.length > 0 &&
    uses.every((use) => {
      const access = use.getParent();
      return Node.isPropertyAccessExpression(access) && access.getName() === 'connect' && Node.isCallExpression(access.getParent());
    })
  );
}

/** `server.tool(…)`, `server.server.setRequestHandler(…)`, `server.onerror = …`, `registerTools(server)`. */
function isSetupStatement(statement: Node, isServer: (node: Node) => boolean, callSites: Node[]): boolean {
  if (!Node.isExpressionStatement(statement) || callSites.some((c) => contains(statement, c))) return false;
  const expression = unwrapExpression(statement.getExpression());
  const rootedAtServer = (node: Node): boolean => {
    let current = unwrapExpression(node);
    while (Node.isPropertyAccessExpression(current) && !isServer(current)) current = unwrapExpression(current.getExpression());
    return isServer(current);
  };
  if (Node.isBinaryExpression(expression) && expression.getOperatorToken().getKind() === SyntaxKind.EqualsToken) {
    return Node.isPropertyAccessExpression(expression.getLeft()) && rootedAtServer(expression.getLeft());
  }
  if (!Node.isCallExpression(expression)) return false;
  const callee = expression.getExpression();
  if (Node.isPropertyAccessExpression(callee) && rootedAtServer(callee.getExpression()))
    return SERVER_CONFIG_METHODS.test(callee.getName());
  // `registerTools(server, deps)`: a project function that configures the server (not one that serves it).
  const passesServer = expression.getArguments().some((a) => isServer(a));
  const target = resolveHandler(callee);
  return (
    passesServer &&
    !(target && descendantsOfKind(target, SyntaxKind.CallExpression).some((c) => /\.(?:connect|listen)\(/.test(c.getText())))
  );
}

/** `export { server }` / `export default server` elsewhere in the file. */
function isExportedByName(declaration: Node): boolean {
  const file = declaration.getSourceFile();
  const symbol = (declaration as Node & { getNameNode(): Node }).getNameNode().getSymbol();
  const named = file
    .getExportDeclarations()
    .some((d) => !d.getModuleSpecifier() && d.getNamedExports().some((e) => e.getLocalTargetDeclarations().includes(declaration as never)));
  const byDefault = file
    .getExportAssignments()
    .some((a) => Node.isIdentifier(a.getExpression()) && a.getExpression().getSymbol() === symbol);
  return named || byDefault;
}
