// What a session-keyed write that stops an endpoint holds, and who reads it back. `setAuthContext(id, auth)` is
// followed into the functions it calls (through imports and re-exports) down to the store it writes
// (`authContextStore.set(transportId, authInfo)`); the stored value is traced back through their parameters to the
// endpoint, where it was computed from the request or made fresh; the store's lookups by key are its readers (a lookup
// keyed by its function's parameter, like `getClusterManager(id)`, is read where that function is called), and the
// endpoint's own lookups are what it falls back on for a request that does not carry the value.
import * as path from 'node:path';
import { Node, SyntaxKind, type CallExpression, type Project } from 'ts-morph';
import { descendantsOfKind, identifiersReferringTo, thisUnder } from '../node-index';
import { FileFacts } from '../file-facts';
import { storeExpression, storeName, storeWrite, writesKeyedBy } from '../stores';
import { DISPOSAL, sessionIdParameters, sessionIdTest, sessionStateCalls } from './sites';
import { contains, isFunctionNode, spanOf, unwrapExpression, type FunctionNode, type RelPathOf } from './spans';
import type { SessionStateFacts } from './model';
import { referencesOf } from '../references';

const MAX_DEPTH = 4;
const MAX_READERS = 3;

interface Level {
  fn: FunctionNode;
  /** The call that entered `fn`. */
  call: CallExpression;
}

/** A session-keyed write followed to its store: the nodes behind `SessionStateFacts`. */
export interface TracedState {
  /** The write it ends in (`state` itself when it stores directly). */
  write: Node;
  /** The store and the value as the write has them, when it is a store write. */
  stored?: { store: Node; value: Node };
  /** The value as the endpoint wrote it (the argument it passed down), and that expression unwrapped. */
  value?: { written: Node; node: Node };
  /** The expression that computed the value from the request, if it did. */
  fromRequest?: Node;
  /** Lookups of the store by key outside the endpoint (every one, in source order). */
  lookups: Node[];
  /** Where they are read: the lookups, or the calls of the accessors that hold them (readers in handlers first). */
  readers: Node[];
  /** The endpoint's own lookups: what a request that does not carry the value falls back on. */
  fallbacks: Node[];
  /** The functions followed to reach the write (they write the store; their lookups are not readers). */
  writers: FunctionNode[];
}

/**
 * Follows a session-keyed write (`setAuthContext(id, auth)`) into the functions it calls, through imports and
 * re-exports, down to the store it writes. `request` is the endpoint's function (its parameters are the request objects).
 */
export function traceSessionState(state: Node, region: Node, request: FunctionNode): TracedState {
  // (the plan's server source, its verdict and its marker all ask about the same writes)
  let traced = traces.get(state);
  if (!traced || traced.request !== request) {
    traced = { request, state: traceOnce(state, region, request) };
    traces.set(state, traced);
  }
  return traced.state;
}

const traces = new WeakMap<Node, { request: FunctionNode; state: TracedState }>();

function traceOnce(state: Node, region: Node, request: FunctionNode): TracedState {
  const levels: Level[] = [];
  let write: Node = state;
  let scope = region;
  let ids: Node[] = [];
  for (let depth = 0; depth < MAX_DEPTH; depth++) {
    const call = Node.isCallExpression(write) ? write : undefined;
    const fn = call && !isStoreMethod(call) ? functionBehind(call.getExpression()) : undefined;
    const body = fn?.getBody();
    if (!call || !fn || !body) break;
    // The parameters that receive the session id the caller passes.
    const isSessionId = sessionIdTest(scope, ids);
    ids = sessionIdParameters(fn, call, isSessionId);
    const inner =
      sessionStateCalls(new FileFacts(fn.getSourceFile(), { validatesOrigin: false }), body, ids)[0] ?? writesKeyedBy(body, ids)[0]?.node;
    if (!inner) break;
    levels.push({ fn, call });
    write = inner;
    scope = body;
  }
  const written = storeWrite(write);
  const stored = written && { store: written.store, value: written.value };
  const writers = levels.map((l) => l.fn);
  const found = stored ? readersOf(stored.store, request, writers) : { lookups: [], readers: [], fallbacks: [] };
  return {
    write,
    stored,
    value: stored ? traceValue(stored.value, levels) : undefined,
    fromRequest: stored ? requestDerived(stored.value, levels, request) : undefined,
    ...found,
    writers,
  };
}

/** The state a session-keyed write keeps: the store it ends in, where the stored value comes from, and who reads it back by key. */
export function sessionStateOf(state: Node, region: Node, request: FunctionNode, relPath: RelPathOf): SessionStateFacts {
  const traced = traceSessionState(state, region, request);
  const describe = (reader: Node) => {
    const request = requestReadOf(reader);
    return { ...spanOf(reader, relPath), text: reader.getText().split('\n')[0], in: handlerKind(reader), ...(request ? { request } : {}) };
  };
  return {
    write: traced.write === state ? undefined : traced.write.getText().split('\n')[0],
    store: traced.stored?.store.getText(),
    fromRequest: traced.fromRequest?.getText().split('\n')[0],
    made: traced.value ? freshValue(traced.value.node) : undefined,
    readers: traced.readers.slice(0, MAX_READERS).map(describe),
    fallback: traced.fallbacks.length > 0 ? describe(traced.fallbacks[0]) : undefined,
    ...perHandle(traced, state, relPath),
  };
}

/**
 * State a low-level `tools/call` handler reads back by session id (`this.registry.workspaceOf(sessionId)`, an accessor
 * returning one property of the stored record) that a handle can own instead: the value is made afresh, from names the
 * write's file can use, and nothing else reads it but one `initialize` handler that fills it without reading its
 * request (that code can run in open_session; one that fills it from the initialize request keeps it per session).
 */
function perHandle(traced: TracedState, state: Node, relPath: RelPathOf): Pick<SessionStateFacts, 'perHandle' | 'noHandle'> {
  const file = state.getSourceFile();
  if (!traced.stored || traced.fromRequest || traced.readers.length === 0) return {};
  const inTools = traced.readers.filter((r) => handlerKind(r) === 'the `tools/call` handler');
  if (inTools.length === 0) return {};
  const where = (node: Node) => `\`${node.getText().split('\n')[0]}\` (${relPath(node.getSourceFile())}:${node.getStartLineNumber()})`;
  const no = (why: string) => ({ noHandle: why });
  const initialize = traced.readers.filter((r) => handlerKind(r) === 'the `initialize` handler');
  const fillers = initialize.filter((r) => !requestReadOf(r));
  // The endpoint file's readers first: a reader there (a health route summing every session's state) says more than an
  // accessor elsewhere.
  const readers = [...traced.readers].sort((a, b) => Number(a.getSourceFile() !== file) - Number(b.getSourceFile() !== file));
  const other = readers.find((r) => !inTools.includes(r) && !initialize.includes(r));
  if (other) return no(`${where(other)} reads it outside \`tools/call\` and \`initialize\`, where no handle arrives`);
  const elsewhere = readers.find((r) => r.getSourceFile() !== file);
  if (elsewhere)
    return no(
      `${where(elsewhere)} reads it outside the file of the endpoint and its \`tools/call\` handler, where a handle would not reach it`,
    );
  // (an `initialize` handler that fills it from its request has its own reason)
  if (fillers.length !== initialize.length) return {};
  if (fillers.length > 1) return no('more than one `initialize` handler fills it');
  const used = traced.lookups.find((lookup) => returnedProperty(lookup) === null);
  if (used) return no(`${where(used)} uses the stored record itself, not one value of it that a handle could hold`);
  const returned = new Set(traced.lookups.map(returnedProperty));
  if (returned.size !== 1) return no(`its readers return different values of the stored record (${[...returned].join(', ')})`);
  const [property] = [...returned] as Array<string | undefined>;
  const value = unwrapExpression(traced.stored.value);
  const made = property === undefined ? value : recordProperty(value, property);
  if (!made || !madeFromModuleNames(made, file))
    return no(`the value (\`${(made ?? value).getText().split('\n')[0]}\`) is not made afresh from names its tools/call file can use`);
  const span = (r: Node) => spanOf(r, relPath);
  return {
    perHandle: {
      property: property ?? 'state',
      initializer: made.getText(),
      ...(Node.isNewExpression(made) && made.getType().getProperty('close') ? { closes: true } : {}),
      readers: inTools.map(span),
      ...(fillers.length > 0 ? { filler: span(fillers[0]) } : {}),
    },
  };
}

/** `return store.get(id)?.workspace`: `workspace`; `return store.get(id)`: undefined; a lookup used otherwise: null. */
function returnedProperty(lookup: Node): string | undefined | null {
  let node = lookup;
  let property: string | undefined;
  for (let parent = node.getParent(); parent; node = parent, parent = parent.getParent()) {
    if (Node.isNonNullExpression(parent) || Node.isParenthesizedExpression(parent)) continue;
    if (Node.isPropertyAccessExpression(parent) && parent.getExpression() === node && property === undefined) {
      property = parent.getName();
      continue;
    }
    return Node.isReturnStatement(parent) || (Node.isArrowFunction(parent) && parent.getBody() === node) ? property : null;
  }
  return null;
}

function recordProperty(record: Node, name: string): Node | undefined {
  if (!Node.isObjectLiteralExpression(record)) return undefined;
  const property = record.getProperty(name);
  return property && Node.isPropertyAssignment(property) ? property.getInitializer() : undefined;
}

/** `new Workspace()`, `[]`, `new Map()`: every name in it is a module-level declaration or import `file` names too. */
function madeFromModuleNames(made: Node, file: Node): boolean {
  if (thisUnder(made).length > 0) return false;
  return [made, ...made.getDescendantsOfKind(SyntaxKind.Identifier)].every((id) => {
    if (!Node.isIdentifier(id)) return true;
    const parent = id.getParent();
    if ((Node.isPropertyAccessExpression(parent) || Node.isPropertyAssignment(parent)) && parent.getNameNode() === id) return true;
    const symbol = id.getSymbol();
    const declaration = symbol?.getDeclarations()[0];
    if (!declaration || declaration.getSourceFile().isDeclarationFile()) return isGlobal(declaration);
    const imported = Node.isImportSpecifier(declaration) || Node.isImportClause(declaration);
    const moduleLevel = (declaration.getParentIfKind(SyntaxKind.VariableDeclarationList)?.getParent() ?? declaration).getParent();
    if (!imported && !Node.isSourceFile(moduleLevel)) return false;
    const local = file.getSourceFile().getLocal(id.getText());
    return local === symbol || (!!local && sameImport(local, symbol!));
  });
}

/** Two imports of one name from one module (the target file imports it too, perhaps from a module left unparsed). */
function sameImport(a: NonNullable<ReturnType<Node['getSymbol']>>, b: NonNullable<ReturnType<Node['getSymbol']>>): boolean {
  const origin = (symbol: typeof a) => {
    const declaration = symbol.getDeclarations()[0];
    if (!Node.isImportSpecifier(declaration)) return undefined;
    const from = declaration.getImportDeclaration();
    const target =
      from.getModuleSpecifierSourceFile()?.getFilePath() ??
      path.resolve(path.dirname(from.getSourceFile().getFilePath()), from.getModuleSpecifierValue());
    return `${target.replace(/\.[cm]?[jt]s$/, '')}#${declaration.getName()}`;
  };
  return !!origin(a) && origin(a) === origin(b);
}

/** A declaration from the standard library (`Map`, `Date`), not from a package. */
function isGlobal(declaration: Node | undefined): boolean {
  return !!declaration && /[\\/]typescript[\\/]lib[\\/]lib\.[^\\/]*\.d\.ts$/.test(declaration.getSourceFile().getFilePath());
}

/** `store.set(…)` and friends are the store itself, not a function to follow. */
function isStoreMethod(call: CallExpression): boolean {
  const callee = call.getExpression();
  return Node.isPropertyAccessExpression(callee) && /^(?:set|add|push)$/.test(callee.getName());
}

/** The project function a callee names, through imports, re-exports and `export const a = b` aliases. */
function functionBehind(callee: Node, depth = 0): FunctionNode | undefined {
  if (depth > 4) return undefined;
  const name = Node.isPropertyAccessExpression(callee) ? callee.getNameNode() : Node.isIdentifier(callee) ? callee : undefined;
  for (const definition of name?.getDefinitionNodes() ?? []) {
    const found = functionOf(definition, depth);
    if (found) return found;
  }
  return undefined;
}

function functionOf(definition: Node, depth: number): FunctionNode | undefined {
  const file = definition.getSourceFile();
  if (file.isDeclarationFile() || file.isInNodeModules()) return undefined;
  if (isFunctionNode(definition)) return definition;
  if (Node.isImportSpecifier(definition)) {
    const module = definition.getImportDeclaration().getModuleSpecifierSourceFile();
    // A re-export file the analysis left out (it holds nothing MCP): the one project function exported by that name.
    return module ? undefined : onlyExportedFunction(definition.getProject(), definition.getName(), depth);
  }
  if (!Node.isVariableDeclaration(definition)) return undefined;
  const init = definition.getInitializer();
  if (init && isFunctionNode(init)) return init;
  return init && (Node.isIdentifier(init) || Node.isPropertyAccessExpression(init)) ? functionBehind(init, depth + 1) : undefined;
}

function onlyExportedFunction(project: Project, name: string, depth: number): FunctionNode | undefined {
  const found = new Set<FunctionNode>();
  for (const file of project.getSourceFiles()) {
    for (const declaration of file.getExportedDeclarations().get(name) ?? []) {
      const fn = declaration.getSourceFile() === file ? functionOf(declaration, depth + 1) : undefined;
      if (fn) found.add(fn);
    }
  }
  return found.size === 1 ? [...found][0] : undefined;
}

/** The variable an identifier reads (for `{ user }`, the variable `user`, not the property). */
function valueSymbol(id: Node) {
  const parent = id.getParent();
  return Node.isShorthandPropertyAssignment(parent) && parent.getNameNode() === id ? parent.getValueSymbol() : id.getSymbol();
}

/** The value as the endpoint computed it: a parameter of a followed function is the argument its caller passed. */
function traceValue(value: Node, levels: Level[]): { written: Node; node: Node } {
  let written = value;
  let current = unwrapExpression(value);
  for (let index = levels.length - 1; index >= 0; index--) {
    const { fn, call } = levels[index];
    if (!Node.isIdentifier(current)) break;
    const declaration = valueSymbol(current)?.getDeclarations()[0];
    const position = fn.getParameters().findIndex((p) => p === declaration);
    const argument = position >= 0 ? call.getArguments()[position] : undefined;
    if (!argument) break;
    written = argument;
    current = unwrapExpression(argument);
  }
  return { written, node: current };
}

/**
 * The value, traced to the endpoint, was computed from the request: itself, or (a record) every property of it
 * (`{ user }` where `user` came from a header). A record that also holds fresh state (`{ user, cart: [] }`) is not.
 */
function requestDerived(value: Node, levels: Level[], request: FunctionNode): Node | undefined {
  const unwrapped = unwrapExpression(value);
  if (!Node.isObjectLiteralExpression(unwrapped)) return requestSource(traceValue(unwrapped, levels).node, request);
  const sources = unwrapped.getProperties().map((property) => {
    const part = Node.isShorthandPropertyAssignment(property)
      ? property.getNameNode()
      : Node.isPropertyAssignment(property)
        ? property.getInitializer()
        : undefined;
    return part ? requestSource(traceValue(part, levels).node, request) : undefined;
  });
  return sources.length > 0 && sources.every((source) => !!source) ? sources[0] : undefined;
}

/** The expression that computed the value from the request objects (`validateAuthFromRequest(req, res)`), if any. */
function requestSource(value: Node, request: FunctionNode): Node | undefined {
  const requestSymbols = new Set(request.getParameters().map((p) => p.getSymbol()));
  const readsRequest = (node: Node) =>
    [node, ...node.getDescendantsOfKind(SyntaxKind.Identifier)].some((id) => Node.isIdentifier(id) && requestSymbols.has(id.getSymbol()));
  if (readsRequest(value)) return value;
  // `withBaseUrl(auth, base)`: computed from variables the endpoint read from the request.
  if (Node.isCallExpression(value))
    return value.getArguments().some((argument) => requestSource(unwrapExpression(argument), request)) ? value : undefined;
  if (!Node.isIdentifier(value)) return undefined;
  let declaration = valueSymbol(value)?.getDeclarations()[0];
  while (declaration && Node.isBindingElement(declaration))
    declaration = declaration.getFirstAncestorByKind(SyntaxKind.VariableDeclaration);
  const init = declaration && Node.isVariableDeclaration(declaration) ? declaration.getInitializer() : undefined;
  if (init && readsRequest(init)) return unwrapExpression(init);
  // `let auth; … ({ auth } = await validate(req, res))`: an assignment in the endpoint.
  const assigned = descendantsOfKind(request, SyntaxKind.BinaryExpression).find(
    (b) =>
      b.getOperatorToken().getKind() === SyntaxKind.EqualsToken &&
      b
        .getLeft()
        .getDescendantsOfKind(SyntaxKind.Identifier)
        .concat(Node.isIdentifier(b.getLeft()) ? [b.getLeft() as never] : [])
        .some((id) => id.getSymbol() === valueSymbol(value)) &&
      readsRequest(b.getRight()),
  );
  return assigned ? unwrapExpression(assigned.getRight()) : undefined;
}

/** `new ClusterRegistry()` (also inside the stored record), `{ notes: [] }`: state made for the session. */
function freshValue(value: Node): string | undefined {
  const made = Node.isNewExpression(value) ? value : value.getFirstDescendantByKind(SyntaxKind.NewExpression);
  if (made) return made.getText().split('\n')[0];
  return Node.isObjectLiteralExpression(value) || Node.isArrayLiteralExpression(value) ? value.getText().split('\n')[0] : undefined;
}

/**
 * Lookups of the store by key outside the endpoint and the functions it calls to write it: `store.get(key)` and
 * `store[key]` reads. A lookup keyed by its own function's parameter (an accessor) is read where that function is called.
 */
function readersOf(store: Node, request: FunctionNode, writers: FunctionNode[]): { lookups: Node[]; readers: Node[]; fallbacks: Node[] } {
  const name = storeName(store);
  if (!name) return { lookups: [], readers: [], fallbacks: [] };
  // The endpoint's own lookups are not readers (tools registered inside it are): they are what it falls back on.
  const ownLookup = (node: Node) => contains(request, node) && !requestHandlerOf(node);
  const counts = (node: Node) => !writers.some((fn) => contains(fn, node)) && !ownLookup(node) && !releases(node);
  const lookups: Node[] = [];
  const readers: Node[] = [];
  const fallbacks: Node[] = [];
  for (const reference of referencesOf(name)) {
    const lookup = lookupOf(storeExpression(reference));
    if (lookup && ownLookup(lookup.node) && valueUse(lookup.node) && !writers.some((fn) => contains(fn, lookup.node)))
      fallbacks.push(lookup.node);
    if (!lookup || !counts(lookup.node)) continue;
    lookups.push(lookup.node);
    const accessor = lookup.key && accessorOf(lookup.key);
    const calls = accessor ? callsOf(accessor).filter(counts) : [];
    for (const reader of calls.length > 0 ? calls : [lookup.node]) if (!readers.includes(reader)) readers.push(reader);
  }
  // Readers in request handlers (where tools run) first, then in source order.
  const rank = (node: Node) => (requestHandlerOf(node) ? 0 : 1);
  return {
    lookups: lookups.sort(bySourcePosition),
    readers: readers.sort((a, b) => rank(a) - rank(b) || bySourcePosition(a, b)),
    fallbacks: fallbacks.sort(bySourcePosition),
  };
}

function bySourcePosition(a: Node, b: Node): number {
  return a.getSourceFile().getFilePath().localeCompare(b.getSourceFile().getFilePath()) || a.getStart() - b.getStart();
}

/** The lookup's value is used (`const auth = store[id]`), not only tested (`if (!store[id])`, `id && store[id]`). */
function valueUse(lookup: Node): boolean {
  let node = lookup;
  for (let parent = node.getParent(); parent; node = parent, parent = parent.getParent()) {
    if (Node.isPrefixUnaryExpression(parent) && parent.getOperatorToken() === SyntaxKind.ExclamationToken) return false;
    if (Node.isIfStatement(parent) && parent.getExpression() === node) return false;
    if (Node.isConditionalExpression(parent) && parent.getCondition() === node) return false;
    if (Node.isBinaryExpression(parent) && /^(?:&&|\|\|)$/.test(parent.getOperatorToken().getText())) continue;
    if (Node.isParenthesizedExpression(parent) || Node.isNonNullExpression(parent)) continue;
    return true;
  }
  return true;
}

/** The lookup sits in a function that releases the state (`remove(id)`, `cleanup()`). */
function releases(node: Node): boolean {
  const fn = node.getFirstAncestor((ancestor) => isFunctionNode(ancestor) && !!namedFunction(ancestor as FunctionNode));
  const name = fn && namedFunction(fn as FunctionNode)?.getText();
  return !!name && DISPOSAL.test(name);
}

/** `store.get(key)` or a `store[key]` that is not assigned to. */
function lookupOf(store: Node): { node: Node; key?: Node } | undefined {
  const parent = store.getParent();
  if (Node.isPropertyAccessExpression(parent) && parent.getName() === 'get') {
    const call = parent.getParent();
    if (Node.isCallExpression(call) && call.getExpression() === parent) return { node: call, key: call.getArguments()[0] };
  }
  if (Node.isElementAccessExpression(parent) && parent.getExpression() === store) {
    const assignment = parent.getParent();
    if (Node.isBinaryExpression(assignment) && assignment.getLeft() === parent && assignment.getOperatorToken().getText() === '=')
      return undefined;
    return { node: parent, key: parent.getArgumentExpression() };
  }
  return undefined;
}

/** The named function (or method) whose parameter is the lookup's key. */
function accessorOf(key: Node): FunctionNode | undefined {
  const unwrapped = unwrapExpression(key);
  if (!Node.isIdentifier(unwrapped)) return undefined;
  const declaration = unwrapped.getSymbol()?.getDeclarations()[0];
  const fn = declaration && Node.isParameterDeclaration(declaration) ? declaration.getParent() : undefined;
  return fn && isFunctionNode(fn) && namedFunction(fn) ? fn : undefined;
}

function namedFunction(fn: FunctionNode): Node | undefined {
  if (Node.isFunctionDeclaration(fn) || Node.isMethodDeclaration(fn)) return fn.getNameNode();
  const variable = fn.getParentIfKind(SyntaxKind.VariableDeclaration);
  return variable?.getNameNode();
}

function callsOf(fn: FunctionNode): Node[] {
  const name = namedFunction(fn);
  if (!name || !Node.isIdentifier(name)) return [];
  return referencesOf(name).flatMap((reference) => {
    const callee = Node.isPropertyAccessExpression(reference.getParent()) ? reference.getParent()! : reference;
    const call = callee.getParent();
    return Node.isCallExpression(call) && call.getExpression() === callee ? [call] : [];
  });
}

/** The registration call (`setRequestHandler(Schema, handler)`, `tool('name', …)`, `registerTool('name', …)`) around a node. */
function registrationOf(node: Node, methods: RegExp): CallExpression | undefined {
  for (const ancestor of node.getAncestors()) {
    if (!Node.isCallExpression(ancestor)) continue;
    const callee = ancestor.getExpression();
    if (Node.isPropertyAccessExpression(callee) && methods.test(callee.getName())) return ancestor;
  }
  return undefined;
}

function requestHandlerOf(node: Node): CallExpression | undefined {
  return registrationOf(node, /^setRequestHandler$/) ?? registrationOf(node, /^(?:tool|registerTool)$/);
}

/** `tools/call`, `initialize`, tool `note`: the handler a reader sits in, or the function that holds it. */
function handlerKind(reader: Node): string | undefined {
  const tool = registrationOf(reader, /^(?:tool|registerTool)$/);
  const name = tool?.getArguments()[0];
  if (name && (Node.isStringLiteral(name) || Node.isNoSubstitutionTemplateLiteral(name))) return `tool \`${name.getLiteralValue()}\``;
  const handler = registrationOf(reader, /^setRequestHandler$/);
  if (handler) {
    const schema = handler.getArguments()[0]?.getText() ?? '';
    const method = /^['"]/.test(schema) ? schema.slice(1, -1) : REQUEST_METHODS[schema.replace(/^.*\./, '')];
    return method ? `the \`${method}\` handler` : `a \`${schema}\` handler`;
  }
  const fn = reader.getFirstAncestor((node) => isFunctionNode(node) && !!namedFunction(node as FunctionNode));
  const holder = fn && namedFunction(fn as FunctionNode)?.getText();
  return holder ? `\`${holder}\`` : undefined;
}

/**
 * What the low-level request handler around a reader (other than `tools/call`) reads of the request it answers
 * (`request.params.initializationOptions`, or the pattern that destructures it): state filled from it can only be
 * filled while answering that request.
 */
function requestReadOf(reader: Node): string | undefined {
  const handler = registrationOf(reader, /^setRequestHandler$/);
  if (!handler || /CallToolRequestSchema$|^['"]tools\/call['"]$/.test(handler.getArguments()[0]?.getText() ?? '')) return undefined;
  const fn = handler.getArguments()[1];
  const param = fn && isFunctionNode(fn) ? fn.getParameters()[0] : undefined;
  if (!fn || !param || !Node.isParameterDeclaration(param)) return undefined;
  const name = param.getNameNode();
  if (!Node.isIdentifier(name)) return name.getText();
  const symbol = name.getSymbol();
  for (const id of identifiersReferringTo(fn, symbol)) {
    if (id === name) continue;
    let read: Node = id;
    for (
      let parent = read.getParent();
      Node.isPropertyAccessExpression(parent) && parent.getExpression() === read;
      parent = read.getParent()
    )
      read = parent;
    return read.getText();
  }
  return undefined;
}

const REQUEST_METHODS: Record<string, string> = {
  CallToolRequestSchema: 'tools/call',
  ListToolsRequestSchema: 'tools/list',
  InitializeRequestSchema: 'initialize',
  ReadResourceRequestSchema: 'resources/read',
  GetPromptRequestSchema: 'prompts/get',
};

/** The marker's reason: what the state is, who reads it back, and what to do instead. */
export function sessionStateReason(call: string, facts: SessionStateFacts): string {
  const through = facts.write ? ` (it stores \`${facts.write}\`)` : '';
  const what = facts.fromRequest
    ? `: a value computed from the request (\`${facts.fromRequest}\`)`
    : facts.made
      ? `: state made for the session (\`${facts.made}\`)`
      : '';
  const readers = facts.readers.map((r) => `\`${r.text.trim()}\` (${r.file}:${r.line}${r.in ? `, in ${r.in}` : ''})`);
  const readBack =
    readers.length > 0
      ? `; it is read back by session id at ${readers.join(', ')}, which find nothing once sessions are gone`
      : '; tools that read it by session id would silently lose it without sessions';
  const perRequest =
    "compute it per request, hand it to the server built for that request and have those readers take it from there (as the factory's argument; or, for auth, on 2025-11-25 `req.auth = …` before `handleRequest` reaches tools as `extra.authInfo`, and on 2026-07-28 `createMcpHandler` hands the factory `ctx.authInfo`), then drop the store";
  const fix = !facts.fromRequest
    ? 'move it behind an explicit handle: an open_session tool creates it and the tools take the handle as a session_handle argument'
    : facts.fallback
      ? `the endpoint also falls back on the stored value (\`${facts.fallback.text.trim()}\`, ${facts.fallback.file}:${facts.fallback.line}) for requests that do not carry it, and a stateless server has nothing stored: require it on every POST, ${perRequest}`
      : `every POST carries it again: ${perRequest}`;
  return `\`${call}\` keeps state per session${through}${what}${readBack} (${fix})`;
}
