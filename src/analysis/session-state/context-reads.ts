// Where a tool or request handler reads the protocol session id from its context (`extra.sessionId`, destructured
// in the body or the parameter list) or from the transport that served the session, and what the read is for.
import { nodesOfKind } from '../node-index';
import { Node, SyntaxKind, type PropertyAccessExpression, type SourceFile } from 'ts-morph';
import type { FileFacts } from '../file-facts';
import type { EndpointPlan, Span } from '../endpoints/model';
import { unwrapExpression } from '../endpoints/spans';
import { referencesOf } from '../references';
import { staticString } from '../routes';
import { storeName, storeWrites } from '../stores';
import { contextParameters } from './handlers';
import type { SessionStateFact } from './model';

/** Every read of the session id in the file's tools and request handlers, in source order of each form. */
export function sessionIdReads(facts: FileFacts, sourceFile: SourceFile): SessionStateFact[] {
  const handlers = new Set(facts.tools.map((t) => t.handler).filter((h): h is Node => !!h));
  return [...idAccesses(facts, sourceFile, handlers), ...idDestructured(facts, sourceFile, handlers), ...idParameters(facts, sourceFile)];
}

/** `extra.sessionId` (or `extra['sessionId']`) in a handler, or `server.server.transport?.sessionId` in a tool. */
function idAccesses(facts: FileFacts, sourceFile: SourceFile, handlers: ReadonlySet<Node>): SessionStateFact[] {
  const found: SessionStateFact[] = [];
  const accesses = [
    ...nodesOfKind(sourceFile, SyntaxKind.PropertyAccessExpression).filter((access) => access.getName() === 'sessionId'),
    ...nodesOfKind(sourceFile, SyntaxKind.ElementAccessExpression).filter(
      (access) => staticString(access.getArgumentExpression()) === 'sessionId',
    ),
  ];
  for (const access of accesses) {
    const object = unwrapExpression(access.getExpression());
    // `server.server.transport?.sessionId` in a tool: the id of the transport that served the session.
    const viaTransport = namesTransport(object) && access.getAncestors().some((ancestor) => handlers.has(ancestor));
    if (!viaTransport && (!Node.isIdentifier(object) || !isHandlerContext(object, handlers, facts))) continue;
    // The key of a credentials lookup the endpoint migration makes request-scoped: the plan carries it out.
    const carried = credentialsPlanAt(facts, access);
    const filled = carried ? undefined : filledBySessionStart(access, handlers);
    found.push({ kind: 'session-id-read', at: access, carried, filled });
  }
  return found;
}

/** `….transport`, or a local initialised with it (`const t = server.server.transport`). */
function namesTransport(object: Node): boolean {
  const declaration = Node.isIdentifier(object) ? object.getSymbol()?.getDeclarations()[0] : undefined;
  const init = Node.isVariableDeclaration(declaration) ? declaration.getInitializer() : undefined;
  const value = init ? unwrapExpression(init) : object;
  return Node.isPropertyAccessExpression(value) && value.getName() === 'transport';
}

/** const { sessionId } = extra;  — the id destructured from the handler context in the handler's body. */
function idDestructured(facts: FileFacts, sourceFile: SourceFile, handlers: ReadonlySet<Node>): SessionStateFact[] {
  const found: SessionStateFact[] = [];
  for (const variable of nodesOfKind(sourceFile, SyntaxKind.VariableDeclaration)) {
    const pattern = variable.getNameNode();
    const init = variable.getInitializer();
    const object = init && unwrapExpression(init);
    if (!Node.isObjectBindingPattern(pattern) || !Node.isIdentifier(object) || !isHandlerContext(object, handlers, facts)) continue;
    for (const element of pattern.getElements()) {
      if ((element.getPropertyNameNode()?.getText() ?? element.getName()) !== 'sessionId') continue;
      found.push({ kind: 'session-id-destructured', at: element, from: object.getText() });
    }
  }
  return found;
}

/** async ({ item }, { sessionId }) => …  — the id destructured from the handler context. */
function idParameters(facts: FileFacts, sourceFile: SourceFile): SessionStateFact[] {
  const found: SessionStateFact[] = [];
  for (const { handler, contextIndex } of contextParameters(facts.tools, sourceFile)) {
    const parameter = (handler as Node & { getParameters?(): Node[] }).getParameters?.()[contextIndex];
    if (!parameter || !Node.isParameterDeclaration(parameter)) continue;
    const pattern = parameter.getNameNode();
    if (!Node.isObjectBindingPattern(pattern)) continue;
    for (const element of pattern.getElements()) {
      if ((element.getPropertyNameNode()?.getText() ?? element.getName()) !== 'sessionId') continue;
      found.push({ kind: 'session-id-destructured', at: element });
    }
  }
  return found;
}

const CONTEXT_PARAM = /^(?:extra|ctx|context|requestExtra|handlerExtra)$/;

/**
 * The identifier names a tool or request handler's context: a handler's parameter (or one typed or named as a
 * context), a local named as one inside a handler (`const [args, extra] = params` with rest parameters), or what
 * was handed one (`const meta = extra`, the parameter of `keyOf(extra)`); never a transport (its `sessionId` is the
 * transport rules' business).
 */
function isHandlerContext(object: Node, handlers: ReadonlySet<Node>, facts: FileFacts, depth = 0): boolean {
  const declaration = object.getSymbol()?.getDeclarations()[0];
  if (!declaration) return false;
  if (!namedAsContext(object, declaration, handlers) && !handedContext(declaration, handlers, facts, depth)) return false;
  return !facts.holds(object, 'StreamableHTTPServerTransport') && !facts.holds(object, 'SSEServerTransport');
}

function namedAsContext(object: Node, declaration: Node, handlers: ReadonlySet<Node>): boolean {
  if (Node.isParameterDeclaration(declaration))
    return handlers.has(declaration.getParent()) || namesContextType(declaration.getTypeNode(), 0) || CONTEXT_PARAM.test(object.getText());
  return (
    (Node.isBindingElement(declaration) || Node.isVariableDeclaration(declaration)) &&
    CONTEXT_PARAM.test(object.getText()) &&
    declaration.getAncestors().some((ancestor) => handlers.has(ancestor))
  );
}

/** How far a context is followed through aliases and the parameters it is handed to. */
const MAX_CONTEXT_DEPTH = 3;

/** `const meta = extra`, or a parameter of a project function some call hands a context to (`keyOf(extra)`). */
function handedContext(declaration: Node, handlers: ReadonlySet<Node>, facts: FileFacts, depth: number): boolean {
  if (depth >= MAX_CONTEXT_DEPTH) return false;
  const isContext = (node: Node | undefined) => {
    const value = node && unwrapExpression(node);
    return !!value && Node.isIdentifier(value) && isHandlerContext(value, handlers, facts, depth + 1);
  };
  if (Node.isVariableDeclaration(declaration)) return isContext(declaration.getInitializer());
  if (!Node.isParameterDeclaration(declaration)) return false;
  const fn = declaration.getParent();
  const index = (fn as Node & { getParameters?(): Node[] }).getParameters?.().indexOf(declaration) ?? -1;
  const named = Node.isFunctionDeclaration(fn) ? fn : fn.getParentIfKind(SyntaxKind.VariableDeclaration);
  const name = named?.getNameNode();
  if (index < 0 || !name || !Node.isIdentifier(name)) return false;
  return referencesOf(name).some((reference) => {
    const call = reference.getParent();
    return Node.isCallExpression(call) && call.getExpression() === reference && isContext(call.getArguments()[index]);
  });
}

/** Does a parameter's type name the SDK handler context, directly or through local type aliases? */
function namesContextType(typeNode: Node | undefined, depth: number): boolean {
  if (!typeNode || depth > 3) return false;
  if (/RequestHandlerExtra|ServerContext/.test(typeNode.getText())) return true;
  for (const reference of [typeNode, ...typeNode.getDescendants()].filter(Node.isTypeReference)) {
    for (const declaration of reference.getTypeName().getSymbol()?.getDeclarations() ?? []) {
      if (Node.isTypeAliasDeclaration(declaration) && namesContextType(declaration.getTypeNode(), depth + 1)) return true;
    }
  }
  return false;
}

/** The plan whose request-scoped credentials read this session id (in a lookup's key, or the key's declaration). */
function credentialsPlanAt(facts: FileFacts, node: Node): EndpointPlan | undefined {
  const inside = (span: Span | undefined) =>
    !!span && span.file === facts.relPath && span.start <= node.getStart() && node.getEnd() <= span.end;
  return facts.endpoints.find((plan) => plan.credentials?.readers.some((r) => inside(r.lookup) || inside(r.unusedKey)));
}

/**
 * `sessions.get(extra.sessionId)` (or `sessions[extra.sessionId]`) where no tool fills `sessions`: something outside
 * the tools (`onsessioninitialized`, the endpoint) writes it when a session starts. The store and the first write.
 */
function filledBySessionStart(read: Node, handlers: ReadonlySet<Node>): { store: string; fill: string } | undefined {
  let key = read;
  while (
    Node.isNonNullExpression(key.getParent()) ||
    Node.isAsExpression(key.getParent()) ||
    Node.isParenthesizedExpression(key.getParent())
  )
    key = key.getParent()!;
  const parent = key.getParent();
  const store = Node.isElementAccessExpression(parent)
    ? parent.getExpression()
    : Node.isCallExpression(parent) &&
        Node.isPropertyAccessExpression(parent.getExpression()) &&
        /^(?:get|has)$/.test((parent.getExpression() as PropertyAccessExpression).getName())
      ? (parent.getExpression() as PropertyAccessExpression).getExpression()
      : undefined;
  const name = store && storeName(store);
  if (!store || !name) return undefined;
  const writes = storeWrites(name);
  if (writes.length === 0) return undefined;
  const byTools = writes.some((write) =>
    write.getAncestors().some((ancestor) => handlers.has(ancestor) || calledFromTools(ancestor, handlers)),
  );
  return byTools ? undefined : { store: store.getText(), fill: writes[0].getText().split('\n')[0] };
}

/** A named function some tool handler calls (`cartFor(extra.sessionId)`): what it writes, the tools write. */
function calledFromTools(fn: Node, handlers: ReadonlySet<Node>): boolean {
  if (!Node.isFunctionDeclaration(fn) && !(Node.isArrowFunction(fn) || Node.isFunctionExpression(fn))) return false;
  const declaration = Node.isFunctionDeclaration(fn) ? fn : fn.getParentIfKind(SyntaxKind.VariableDeclaration);
  const name = declaration?.getNameNode();
  if (!name || !Node.isIdentifier(name)) return false;
  return referencesOf(name).some((reference) => reference.getAncestors().some((ancestor) => handlers.has(ancestor)));
}
