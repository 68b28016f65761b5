// Credentials filed by session id that every POST carries again. When every session-keyed write of an endpoint files
// a value computed from the request (never fresh state), the endpoint reads no stored value back for requests that
// carry none, and each lookup of the store has a shape the rewrite keeps exact, the endpoint can go stateless: the
// value is computed per request by the statements the migrated endpoint keeps, the request is served inside an
// AsyncLocalStorage holding it, and the lookups by session id read that instead. Otherwise: why not, for the marker.
import * as path from 'node:path';
import { Node, SyntaxKind, type SourceFile } from 'ts-morph';
import { descendantsOfKind } from '../node-index';
import { storeName, storeWrites } from '../stores';
import { traceSessionState, type TracedState } from './session-state';
import { contains, isFunctionNode, spanOf, unwrapExpression, type FunctionNode, type RelPathOf } from './spans';
import type { CredentialReader, RequestCredentials } from './model';
import { referencesOf } from '../references';

export interface CredentialsInput {
  /** Every session-keyed write of the endpoint (its own, and its transport helpers' calls), with the region it is in. */
  states: Array<{ state: Node; region: Node; request: FunctionNode }>;
  /** The function that becomes the stateless endpoint, and the statements it keeps before it builds its server. */
  endpoint: FunctionNode;
  prelude: readonly Node[];
  /** Where it connects its server: a branch holding it is the one the endpoint keeps. */
  connect?: Node;
  relPath: RelPathOf;
}

/**
 * `credentials` when the endpoint's per-session state is request-derived credentials the migration can carry out;
 * `why` when they are, but a shape stops it; `undefined` when the state is something else (fresh state, a fallback).
 */
export function requestCredentialsOf(input: CredentialsInput): { credentials: RequestCredentials } | { why: string } | undefined {
  const traced = input.states.map(({ state, region, request }) => traceSessionState(state, region, request));
  if (traced.some((t) => !t.stored || !t.fromRequest || t.fallbacks.length > 0)) return undefined;
  const declarations = new Set(traced.map((t) => storeDeclaration(t.stored!.store)));
  const [store] = declarations;
  if (declarations.size !== 1 || !store) return { why: 'its writes do not all end in one store variable' };
  const file = store.getSourceFile();
  const kept = traced.find((t) => keptValue(t, input));
  if (!kept) return { why: notKept(traced, input) };
  const writers = traced.flatMap((t) => t.writers);
  const otherWrite = storeWrites(storeName(traced[0].stored!.store)!).find(
    (w) => !input.states.some(({ region }) => contains(region, w)) && !writers.some((fn) => contains(fn, w)),
  );
  if (otherWrite) return { why: `the store is also written at ${where(otherWrite, input.relPath)} (\`${firstLine(otherWrite)}\`)` };
  const lookups = [...new Set(traced.flatMap((t) => t.lookups))];
  if (lookups.length === 0) return undefined;
  const readers: CredentialReader[] = [];
  for (const lookup of lookups) {
    const reader = readerOf(lookup, new Set(lookups), input.relPath);
    if (typeof reader === 'string') return { why: reader };
    readers.push(reader);
  }
  const typescript = !/\.[cm]?jsx?$/.test(file.getFilePath());
  const users = new Set<SourceFile>([
    ...input.states.map(({ request }) => request.getSourceFile()),
    ...lookups.map((l) => l.getSourceFile()),
  ]);
  users.delete(file);
  if (users.size > 0 && file.getImportDeclarations().length === 0 && file.getExportedDeclarations().size === 0)
    return { why: `${input.relPath(file)} is not an ES module, so it cannot export the request's value to the files that read it` };
  const valueType = typescript ? storedType(store) : undefined;
  if (valueType === null) return { why: `the stored value's type cannot be named in ${input.relPath(file)}` };
  const scope = freeName(`${scopeBase(storeName(traced[0].stored!.store)!.getText())}OfRequest`, [file, ...users]);
  return {
    credentials: {
      value: kept.value!.written.getText(),
      store: spanOf(store, input.relPath),
      scope,
      valueType,
      exported: users.size > 0,
      imports: [...users].map((user) => ({ file: input.relPath(user), module: moduleSpecifier(user, file) })),
      readers,
    },
  };
}

/** The store's variable declaration (`const contexts = new Map()`), where a class field or parameter is not one. */
function storeDeclaration(store: Node): Node | undefined {
  const declaration = storeName(store)?.getSymbol()?.getDeclarations()[0];
  return declaration && Node.isVariableDeclaration(declaration) ? declaration : undefined;
}

/**
 * The value as the endpoint wrote it can be computed where the stateless endpoint serves: it is written in the
 * endpoint's function and reads only its parameters, what the kept prelude declares, and module-level names
 * (`auth` from `const { auth } = await authenticate(req, res)`, `String(req.headers['user-agent'])`).
 */
function keptValue(traced: TracedState, input: CredentialsInput): boolean {
  const { endpoint, prelude } = input;
  const written = traced.value?.written;
  if (!written || !contains(endpoint, written) || conditionOf(written, input)) return false;
  const ids = [written, ...written.getDescendantsOfKind(SyntaxKind.Identifier)].filter((id) => Node.isIdentifier(id));
  return ids.every((id) => {
    const parent = id.getParent();
    if (Node.isPropertyAccessExpression(parent) && parent.getNameNode() === id) return true;
    const declaration = id.getSymbol()?.getDeclarations()[0];
    if (!declaration || !contains(endpoint, declaration)) return true;
    if (Node.isParameterDeclaration(declaration) && declaration.getParent() === endpoint) return true;
    return prelude.some((statement) => contains(statement, declaration));
  });
}

/** Why no write files a value the stateless endpoint can compute. */
function notKept(traced: TracedState[], input: CredentialsInput): string {
  const written = traced.map((t) => t.value!.written);
  const inside = written.find((w) => !contains(input.endpoint, w));
  if (inside) {
    const holder = inside.getAncestors().find((a) => Node.isFunctionDeclaration(a) && a.getName());
    const name = holder && Node.isFunctionDeclaration(holder) ? `\`${holder.getName()}\`` : 'the function that stores it';
    return `the stored value (\`${firstLine(inside)}\`) is put together inside ${name}, not by the endpoint`;
  }
  const condition = written.map((w) => conditionOf(w, input)).find((c) => !!c);
  if (condition) return `the value is filed only when \`${firstLine(condition)}\` holds, not on every request`;
  return `the value (\`${firstLine(written[0])}\`) is computed by statements the stateless endpoint does not keep`;
}

/**
 * The test of an `if` the value is filed under that the request the server is built for need not pass (`if
 * (sessionId)`: only a client that initializes again); a transport's own `transport.sessionId` holds on every request
 * after initialize, and a branch that builds the server is the one the endpoint keeps.
 */
function conditionOf(written: Node, input: CredentialsInput): Node | undefined {
  for (const branch of written.getAncestors()) {
    if (branch === input.endpoint) return undefined;
    const statement = branch.getParent();
    if (!Node.isIfStatement(statement) || statement.getExpression() === branch) continue;
    const test = statement.getExpression();
    if (/^[\w$.]+\.sessionId$/.test(test.getText()) || (input.connect && contains(branch, input.connect))) continue;
    return test;
  }
  return undefined;
}

/**
 * How one lookup reads the request's value: `store.get(key)` becomes `scope.getStore()`; the key is a session id the
 * stateless server no longer has, so its tests (`if (key)`, `!key`, `key && …`) test the value instead, and its
 * declaration goes (nothing else reads it). A key read any other way (`store.has(key)`, a log), or another session id
 * read in the same function (`if (extra.sessionId)` around the lookup), stops it.
 */
function readerOf(lookup: Node, lookups: ReadonlySet<Node>, relPath: RelPathOf): CredentialReader | string {
  const reader: CredentialReader = { lookup: spanOf(lookup, relPath), keyTests: [] };
  const fn = lookup.getFirstAncestor(isFunctionNode) as FunctionNode | undefined;
  const key = keyOf(lookup);
  const variable = key && Node.isIdentifier(key) ? key.getSymbol()?.getDeclarations()[0] : undefined;
  const declaration = Node.isParameterDeclaration(variable) || Node.isVariableDeclaration(variable) ? variable : undefined;
  if (key && Node.isIdentifier(key) && (!fn || !declaration || !contains(fn, declaration)))
    return `its lookup \`${firstLine(lookup)}\` (${where(lookup, relPath)}) is keyed by \`${key.getText()}\`, which is not a session id its function reads`;
  // Session ids read in the function other than to compute the key.
  const keySource = declaration && Node.isVariableDeclaration(declaration) ? declaration.getInitializer() : undefined;
  const stray = fn
    ?.getDescendantsOfKind(SyntaxKind.PropertyAccessExpression)
    .find((access) => access.getName() === 'sessionId' && !contains(key ?? lookup, access) && !(keySource && contains(keySource, access)));
  if (stray)
    return `the function that looks up \`${firstLine(lookup)}\` also reads a session id at ${where(stray, relPath)} (\`${firstLine(stray.getParentOrThrow())}\`)`;
  if (!fn || !declaration || !key) return reader;
  const name = declaration.getNameNode();
  if (!Node.isIdentifier(name)) return `the key of \`${firstLine(lookup)}\` (${where(lookup, relPath)}) is destructured`;
  for (const reference of referencesOf(name)) {
    if (reference === name || !contains(fn, reference)) continue;
    const around = lookupAround(reference);
    if (around && lookups.has(around)) continue;
    if (!isTest(reference))
      return `the session id \`${key.getText()}\` that keys \`${firstLine(lookup)}\` is also read at ${where(reference, relPath)} (\`${firstLine(reference.getParentOrThrow())}\`)`;
    reader.keyTests.push(spanOf(reference, relPath));
  }
  if (Node.isParameterDeclaration(declaration)) {
    reader.unusedParameter = spanOf(declaration, relPath);
    return reader;
  }
  const statement = declaration.getFirstAncestorByKind(SyntaxKind.VariableStatement);
  const pure = !!keySource && !Node.isCallExpression(keySource) && descendantsOfKind(keySource, SyntaxKind.CallExpression).length === 0;
  if (!statement || statement.getDeclarationList().getDeclarations().length !== 1 || !pure)
    return `the session id \`${key.getText()}\` that keys \`${firstLine(lookup)}\` is declared where mcp-migrate cannot remove it`;
  reader.unusedKey = spanOf(statement, relPath);
  return reader;
}

/** The key of `store.get(key)` or `store[key]`. */
function keyOf(lookup: Node): Node | undefined {
  const key = Node.isCallExpression(lookup)
    ? lookup.getArguments()[0]
    : Node.isElementAccessExpression(lookup)
      ? lookup.getArgumentExpression()
      : undefined;
  return key && unwrapExpression(key);
}

/** The store lookup a key reference is the key of, if it is one. */
function lookupAround(reference: Node): Node | undefined {
  const parent = reference.getParent();
  if (Node.isElementAccessExpression(parent) && unwrapExpression(parent.getArgumentExpressionOrThrow()) === reference) return parent;
  if (Node.isCallExpression(parent) && parent.getArguments()[0] === reference) {
    const callee = parent.getExpression();
    if (Node.isPropertyAccessExpression(callee) && callee.getName() === 'get') return parent;
  }
  return undefined;
}

/** A truthiness test: the condition of an `if` or `?:`, under `!`, or an operand of `&&`/`||` there or in a value. */
function isTest(reference: Node): boolean {
  let node = reference;
  for (let parent = node.getParent(); parent; node = parent, parent = parent.getParent()) {
    if (Node.isParenthesizedExpression(parent)) continue;
    if (Node.isPrefixUnaryExpression(parent) && parent.getOperatorToken() === SyntaxKind.ExclamationToken) continue;
    if (Node.isIfStatement(parent)) return parent.getExpression() === node;
    if (Node.isConditionalExpression(parent)) return parent.getCondition() === node;
    if (Node.isBinaryExpression(parent) && /^(?:&&|\|\|)$/.test(parent.getOperatorToken().getText())) return parent.getLeft() === node;
    return false;
  }
  return false;
}

/**
 * The type a `Map<K, V>` or `Record<K, V>` store holds, as written (`new Map<string, Auth>()`, `: Record<string, Auth>`,
 * or a type alias of one in the same file); `null` when it is not written.
 */
function storedType(store: Node): string | null {
  if (!Node.isVariableDeclaration(store)) return null;
  const init = store.getInitializer();
  const made = init && Node.isNewExpression(init) && init.getExpression().getText() === 'Map' ? init.getTypeArguments()[1] : undefined;
  return made?.getText() ?? valueTypeOf(store.getTypeNode(), 0);
}

function valueTypeOf(type: Node | undefined, depth: number): string | null {
  if (!type || depth > 3) return null;
  if (Node.isTypeReference(type)) {
    const name = type.getTypeName().getText();
    const [, value] = type.getTypeArguments();
    if ((name === 'Map' || name === 'Record') && value) return value.getText();
    const alias = type.getSourceFile().getTypeAlias(name);
    return alias ? valueTypeOf(alias.getTypeNode(), depth + 1) : null;
  }
  if (Node.isTypeLiteral(type)) {
    const [index] = type.getIndexSignatures();
    return index?.getReturnTypeNode()?.getText() ?? null;
  }
  return null;
}

/** What the store holds, from its name: `tenantBySession` → `tenant`, `authContextStore` → `authContext`. */
function scopeBase(store: string): string {
  return store.replace(/(?:By|Per|For)(?:Session|Transport|Connection)(?:Ids?)?$|(?:Store|Map|Table|Cache|Registry)$/, '') || store;
}

/** `base`, or `base2`, … when a file already uses the name. */
function freeName(base: string, files: SourceFile[]): string {
  const taken = (name: string) => files.some((file) => new RegExp(`(?<![\\w$])${name}(?![\\w$])`).test(file.getFullText()));
  let name = base;
  for (let i = 2; taken(name); i++) name = `${base}${i}`;
  return name;
}

/** How `importer` names `target`, spelled like its other relative imports (`./store.js`, `./store.ts`, `./store`). */
function moduleSpecifier(importer: SourceFile, target: SourceFile): string {
  const relative = importer
    .getImportDeclarations()
    .map((d) => d.getModuleSpecifierValue())
    .filter((s) => s.startsWith('.'));
  const extension = relative.find((s) => /\.[cm]?[jt]s$/.test(s))?.match(/\.[cm]?[jt]s$/)?.[0] ?? '';
  const bare = target.getFilePath().replace(/\.[cm]?[jt]sx?$/, '');
  let specifier = path.relative(path.dirname(importer.getFilePath()), bare).split(path.sep).join('/');
  if (!specifier.startsWith('.')) specifier = `./${specifier}`;
  return `${specifier}${extension}`;
}

function where(node: Node, relPath: RelPathOf): string {
  return `${relPath(node.getSourceFile())}:${node.getStartLineNumber()}`;
}

function firstLine(node: Node): string {
  return node.getText().split('\n')[0];
}
