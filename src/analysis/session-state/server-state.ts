// State a session kept on the server built for it: fields the project adds to that server, the tools, prompts and
// resources a handler registers on it or switches on and off, and the server (or its transport) as a lookup key.
import { Node, SyntaxKind, type Symbol as MorphSymbol } from 'ts-morph';
import type { FileFacts } from '../file-facts';
import { isFunctionNode, unwrapExpression, type FunctionNode } from '../endpoints/spans';
import { changedAt } from '../state-changes';
import { staticString } from '../routes';
import { descendantsOfKind, identifiersReferringTo, identifiersReferringToAny } from '../node-index';
import type { StateHandler } from './handlers';
import type { SessionStateFact } from './model';

const REGISTRATION = /^(?:tool|registerTool|prompt|registerPrompt|resource|registerResource|resourceTemplate)$/;
const SWITCH = /^(?:enable|disable|update|remove)$/;

/** The symbols of the servers the factory builds (its variables and parameters that hold an `McpServer`). */
export function factoryServers(factory: FunctionNode, facts: FileFacts): Set<MorphSymbol> {
  const declared = [...descendantsOfKind(factory, SyntaxKind.VariableDeclaration), ...factory.getParameters()];
  const servers = new Set<MorphSymbol>();
  for (const declaration of declared) {
    if (!Node.isVariableDeclaration(declaration) && !Node.isParameterDeclaration(declaration)) continue;
    if (declaration.getFirstAncestor((a) => isFunctionNode(a)) !== factory) continue;
    const symbol = declaration.getSymbol();
    if (symbol && facts.holds(declaration.getNameNode(), 'McpServer')) servers.add(symbol);
  }
  return servers;
}

/**
 * What stands for the server in a handler: the references to it, and those to a local of the handler initialised
 * with the members around one (`const t = server.server.transport!`).
 */
export function serverReferences(handler: Node, servers: ReadonlySet<MorphSymbol>): Node[] {
  const references: Node[] = [];
  // (the checker is asked only about identifiers spelled like a server or its alias: asking about every identifier
  // of every handler, property names included, was a twentieth of what `check` cost on the bench tree)
  for (const id of identifiersReferringToAny(handler, servers)) {
    references.push(id);
    const key = serverChain(id);
    const alias = key.getParent();
    if (!Node.isVariableDeclaration(alias) || alias.getInitializer() !== key) continue;
    const aliasName = alias.getNameNode();
    references.push(...identifiersReferringTo(handler, alias.getSymbol()).filter((use) => use !== aliasName));
  }
  return references;
}

/** `server.server.transport!`: the member chain (and the wrappers) around a reference to the server. */
export function serverChain(reference: Node): Node {
  let node = reference;
  for (let up = wrapping(node); up; up = wrapping(node)) node = up;
  return node;
}

/** The member access, `!`, parentheses or `as` whose expression is `node`. */
function wrapping(node: Node): Node | undefined {
  const up = node.getParent();
  const wraps =
    Node.isPropertyAccessExpression(up) || Node.isNonNullExpression(up) || Node.isParenthesizedExpression(up) || Node.isAsExpression(up);
  return wraps && up.getExpression() === node ? up : undefined;
}

/**
 * What handlers of the factory change on the server it built: a field the project adds (`server.history.push(…)`),
 * a tool registered in a handler, or one a handler switches (`admin.enable()` on what `registerTool` returned).
 */
export function serverStateFacts(factory: FunctionNode, facts: FileFacts, handlers: readonly StateHandler[]): SessionStateFact[] {
  const servers = factoryServers(factory, facts);
  if (servers.size === 0) return [];
  const found: SessionStateFact[] = [];
  const registered = registeredInFactory(factory, servers);
  const registeredSymbols = new Set(registered.keys());
  for (const { name, handler } of handlers) {
    if (!handler || !factory.containsRange(handler.getPos(), handler.getEnd())) continue;
    for (const reference of serverReferences(handler, servers)) found.push(...serverChanges(reference, name));
    for (const id of identifiersReferringToAny(handler, registeredSymbols)) {
      const registration = registered.get(id.getSymbol()!);
      const call = id.getParent()?.getParent();
      const member = id.getParent();
      if (registration && Node.isPropertyAccessExpression(member) && SWITCH.test(member.getName()) && Node.isCallExpression(call))
        found.push({ kind: 'server-registration', at: call, handler: name, what: `\`${registration}\` is registered in the factory` });
    }
  }
  return found;
}

/** A change a handler makes through one reference to the server: a field of the project's, or a registration. */
function serverChanges(reference: Node, handler: string): SessionStateFact[] {
  for (let up = wrapping(reference); up; up = wrapping(up)) {
    if (!Node.isPropertyAccessExpression(up)) continue;
    const call = up.getParent();
    if (REGISTRATION.test(up.getName()) && Node.isCallExpression(call) && call.getExpression() === up)
      return [{ kind: 'server-registration', at: call, handler, what: 'registered in the handler' }];
    if (sdkMember(up)) continue;
    return changedAt(up) ? [{ kind: 'server-field', at: up, handler }] : [];
  }
  return [];
}

/** The member is the SDK's (declared in its typings), not a field the project put on the server. */
function sdkMember(access: Node): boolean {
  if (!Node.isPropertyAccessExpression(access)) return false;
  const declarations = access.getNameNode().getSymbol()?.getDeclarations() ?? [];
  return declarations.length > 0 && declarations.every((d) => d.getSourceFile().isDeclarationFile());
}

/** Variables of the factory that hold what a registration returned (`const admin = server.registerTool('admin', …)`). */
function registeredInFactory(factory: FunctionNode, servers: ReadonlySet<MorphSymbol>): Map<MorphSymbol, string> {
  const found = new Map<MorphSymbol, string>();
  for (const variable of descendantsOfKind(factory, SyntaxKind.VariableDeclaration)) {
    const init = variable.getInitializer();
    const call = init && unwrapExpression(init);
    const callee = Node.isCallExpression(call) ? call.getExpression() : undefined;
    if (!Node.isPropertyAccessExpression(callee) || !REGISTRATION.test(callee.getName())) continue;
    const root = serverRoot(callee.getExpression());
    const symbol = variable.getSymbol();
    const name = Node.isCallExpression(call) ? staticString(call.getArguments()[0]) : undefined;
    if (root && servers.has(root) && symbol) found.set(symbol, name ?? variable.getName());
  }
  return found;
}

/** The server symbol an expression like `server` or `server.server` starts from. */
function serverRoot(expression: Node): MorphSymbol | undefined {
  let node = unwrapExpression(expression);
  while (Node.isPropertyAccessExpression(node)) node = unwrapExpression(node.getExpression());
  return Node.isIdentifier(node) ? node.getSymbol() : undefined;
}

const COLLECT = /^(?:add|push|unshift|set)$/;

/**
 * `live.add(server)` in the factory, into a collection declared outside it that a handler reads (a broadcast to every
 * session): each session's server stayed in it while the session lived; a request's server is gone once it answers.
 */
export function collectedServers(factory: FunctionNode, facts: FileFacts, handlers: readonly StateHandler[]): SessionStateFact[] {
  const servers = factoryServers(factory, facts);
  const found: SessionStateFact[] = [];
  for (const call of descendantsOfKind(factory, SyntaxKind.CallExpression)) {
    const callee = call.getExpression();
    if (!Node.isPropertyAccessExpression(callee) || !COLLECT.test(callee.getName())) continue;
    // (the factory's own code: a handler's `visits.set(server, …)` is a lookup keyed by the server)
    if (handlers.some(({ handler }) => !!handler && handler.containsRange(call.getPos(), call.getEnd()))) continue;
    const values = callee.getName() === 'set' ? call.getArguments().slice(1) : call.getArguments();
    const holdsServer = values.some((arg) => {
      const root = unwrapExpression(arg);
      return Node.isIdentifier(root) && servers.has(root.getSymbol()!);
    });
    const collection = serverRoot(callee.getExpression());
    const declaration = collection?.getDeclarations()[0];
    if (!holdsServer || !collection || !declaration || factory.containsRange(declaration.getPos(), declaration.getEnd())) continue;
    const reader = handlers.find(({ handler }) => !!handler && identifiersReferringTo(handler, collection).length > 0);
    if (reader) found.push({ kind: 'servers-collected', at: call, store: callee.getExpression().getText(), reader: reader.name });
  }
  return found;
}
