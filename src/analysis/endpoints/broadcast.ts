// Code beside an endpoint that sends something to every open session: a loop over the endpoint's session table (an
// admin route announcing to every client, a timer pushing updates) calling a send method of each session's server or
// transport. What it reaches are the sessions and, for HTTP+SSE, their open streams; a stateless endpoint keeps
// neither, so once the table is gone the loop would reach no one. The endpoint stops at the loop (the migration
// would otherwise drop it as a loop over a store nothing fills) and its marker says what the loop did.
import { Node, SyntaxKind } from 'ts-morph';
import { descendantsOfKind } from '../node-index';
import { referencesOf } from '../references';
import { storeName } from '../stores';
import { contains, firstLine, isFunctionNode, type FunctionNode } from './spans';

/** Methods of a server or transport that send to the client (notifications, server-to-client requests, raw messages). */
const SEND =
  /^(?:send|notification|request|ping|sendLoggingMessage|sendResourceListChanged|sendResourceUpdated|sendToolListChanged|sendPromptListChanged|createMessage|elicitInput|listRoots)$/;

export interface Broadcast {
  /** The loop over the table, and the send call in it. */
  loop: Node;
  send: Node;
  /** The table as written at the loop. */
  store: string;
}

/**
 * The first loop outside the endpoint's request functions (`regions`) over one of its session tables (`stores`: the
 * declarations of the variables or fields that hold its transports) whose body sends to each session.
 */
export function broadcastOver(stores: readonly Node[], regions: readonly FunctionNode[]): Broadcast | undefined {
  for (const declaration of stores) {
    const name =
      Node.isVariableDeclaration(declaration) || Node.isPropertyDeclaration(declaration) ? storeName(declaration.getNameNode()) : undefined;
    if (!name) continue;
    for (const reference of referencesOf(name)) {
      if (reference === name || regions.some((fn) => contains(fn, reference))) continue;
      const loop = loopOver(reference);
      const receivers = new Set([name.getText(), ...(loop?.bound ?? [])]);
      const send = loop && descendantsOfKind(loop.body, SyntaxKind.CallExpression).find((call) => isSend(call, receivers));
      if (loop && send) return { loop: loop.node, send, store: reference.getText() };
    }
  }
  return undefined;
}

/** The reason an endpoint stops at a broadcast, for its marker. */
export function broadcastReason(broadcast: Broadcast): string {
  return (
    `this loop sends \`${firstLine(broadcast.send)}\` to every open session of the endpoint (each one in \`${broadcast.store}\`); ` +
    'a stateless endpoint keeps no session or stream open, so it would reach no one: deliver it in the response to a ' +
    'request (a notification sent from a tool), or drop the broadcast, then migrate'
  );
}

/** A send method called on a session of the table: on what the loop binds for each one, or on the table's entry. */
function isSend(call: Node, receivers: ReadonlySet<string>): boolean {
  if (!Node.isCallExpression(call)) return false;
  const callee = call.getExpression();
  if (!Node.isPropertyAccessExpression(callee) || !SEND.test(callee.getName())) return false;
  let root: Node = callee.getExpression();
  while (
    Node.isPropertyAccessExpression(root) ||
    Node.isElementAccessExpression(root) ||
    Node.isNonNullExpression(root) ||
    Node.isParenthesizedExpression(root)
  )
    root = root.getExpression();
  return Node.isIdentifier(root) && receivers.has(root.getText());
}

/** The names a loop binds for each element: its variable (or the names it destructures), the callback's parameters. */
function boundNames(binding: Node | undefined): string[] {
  if (!binding) return [];
  return [binding, ...binding.getDescendants()].flatMap((node) => {
    if (Node.isVariableDeclaration(node) || Node.isParameterDeclaration(node) || Node.isBindingElement(node)) {
      const name = node.getNameNode();
      return Node.isIdentifier(name) ? [name.getText()] : [];
    }
    return [];
  });
}

/**
 * The loop that iterates what the reference names, up to the function around it: `for (… of|in <it>)` whose iterable
 * holds it (`Object.values(clients)`, `clients.values()`), or `<it>.forEach(cb)` / `.map(cb)` on an expression holding it.
 */
function loopOver(reference: Node): { node: Node; body: Node; bound: string[] } | undefined {
  for (let child = reference, parent = reference.getParent(); parent; child = parent, parent = parent.getParent()) {
    if (isFunctionNode(parent)) return undefined;
    if ((Node.isForOfStatement(parent) || Node.isForInStatement(parent)) && parent.getExpression() === child)
      return { node: parent, body: parent.getStatement(), bound: boundNames(parent.getInitializer()) };
    if (Node.isPropertyAccessExpression(parent) && parent.getExpression() === child && /^(?:forEach|map)$/.test(parent.getName())) {
      const call = parent.getParent();
      const callback = Node.isCallExpression(call) ? call.getArguments()[0] : undefined;
      if (callback && isFunctionNode(callback))
        return { node: call!, body: callback, bound: callback.getParameters().flatMap((p) => boundNames(p)) };
    }
  }
  return undefined;
}
