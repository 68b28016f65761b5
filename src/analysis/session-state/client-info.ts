// What the client declared at `initialize`, as a tool or request handler reads it back: `getClientCapabilities()`,
// or a variable only the initialize hook sets.
import { Node, SyntaxKind, type CallExpression, type VariableDeclaration } from 'ts-morph';
import { isFunctionNode } from '../endpoints/spans';
import { changedAt } from '../state-changes';
import { descendantsOfKind, usesOfVariable } from '../node-index';
import { resolveOrigin } from '../resolve';
import { staticString } from '../routes';
import { isPerRequestMcpHandler } from '../sdk-modules';
import { callersOf } from './factories';
import type { StateHandler } from './handlers';

const CLIENT_INFO = /^(?:getClientCapabilities|getClientVersion)$/;

/** `server.server.getClientCapabilities()` / `getClientVersion()` inside a tool or request handler. */
export function clientInfoReads(tools: readonly StateHandler[]): Array<{ call: CallExpression; reader: string }> {
  const found: Array<{ call: CallExpression; reader: string }> = [];
  for (const tool of tools) {
    for (const call of tool.handler ? descendantsOfKind(tool.handler, SyntaxKind.CallExpression) : []) {
      const callee = call.getExpression();
      if (!Node.isPropertyAccessExpression(callee) || !CLIENT_INFO.test(callee.getName()) || call.getArguments().length > 0) continue;
      // (the initialize hook itself runs where the server has just learned it)
      if (initializeHook(call)) continue;
      // (`createMcpHandler(factory, { legacy: 'reject' })` serves only 2026-07-28 clients, whose every request declares it)
      if (servedOnlyToModernClients(call, 0)) continue;
      if (!found.some((f) => f.call === call)) found.push({ call, reader: tool.name });
    }
  }
  return found;
}

/**
 * A factory variable assigned only in what runs when the session initializes (`server.server.oninitialized = () =>
 * { markdown = … }`, a `notifications/initialized` handler) and read by a tool or request handler.
 */
export function setAtInitialize(
  variable: VariableDeclaration,
  factory: Node,
  tools: readonly StateHandler[],
): { hook: string; reader: string } | undefined {
  const references = usesOfVariable(variable, factory);
  if (!references) return undefined;
  const writes = references.filter((id) => changedAt(id));
  if (writes.length === 0) return undefined;
  let hook: string | undefined;
  for (const write of writes) {
    const at = initializeHook(write);
    if (!at) return undefined;
    hook ??= at;
  }
  // (a handler that reads it: the initialize hook's own writes are not reads)
  const reads = references.filter((id) => !writes.includes(id));
  const reader = tools.find((tool) => !!tool.handler && reads.some((id) => tool.handler!.containsRange(id.getPos(), id.getEnd())));
  return hook && reader ? { hook, reader: reader.name } : undefined;
}

/** The initialize hook a node runs in: a function assigned to `….oninitialized` or handed to `setNotificationHandler(Initialized…)`. */
function initializeHook(node: Node): string | undefined {
  for (const fn of node.getAncestors().filter((a) => isFunctionNode(a))) {
    const parent = fn.getParent();
    if (Node.isBinaryExpression(parent) && (parent.getRight() as Node) === fn) {
      const left = parent.getLeft();
      if (Node.isPropertyAccessExpression(left) && left.getName() === 'oninitialized') return left.getText();
    }
    if (Node.isCallExpression(parent) && parent.getArguments()[1] === fn) {
      const callee = parent.getExpression();
      const [method] = parent.getArguments();
      if (
        Node.isPropertyAccessExpression(callee) &&
        callee.getName() === 'setNotificationHandler' &&
        /InitializedNotificationSchema|notifications\/initialized/.test(method?.getText() ?? '')
      )
        return 'notifications/initialized';
    }
  }
  return undefined;
}

/** How many functions up a read is followed to the factory handed to `createMcpHandler`. */
const MAX_FACTORY_DEPTH = 3;

/**
 * Every way the code around `node` runs is the server factory handed to `createMcpHandler(factory, { legacy: 'reject'
 * })`: the v2 SDK serves only 2026-07-28 clients there, and fills what a client declares from each request's envelope.
 */
function servedOnlyToModernClients(node: Node, depth: number): boolean {
  const fn = node.getFirstAncestor((a) => isFunctionNode(a));
  if (!isFunctionNode(fn) || depth > MAX_FACTORY_DEPTH) return false;
  const handed = fn.getParent();
  if (Node.isCallExpression(handed) && handed.getArguments()[0] === fn && rejectsLegacyClients(handed)) return true;
  // (a callback — a tool's handler — runs as part of what encloses it; a named function, wherever it is called)
  const named = Node.isFunctionDeclaration(fn) || Node.isVariableDeclaration(fn.getParent());
  if (!named) return servedOnlyToModernClients(fn, depth);
  const callers = callersOf(fn);
  return callers.length > 0 && callers.every((call) => servedOnlyToModernClients(call, depth + 1));
}

/** `createMcpHandler(…, { legacy: 'reject' })` from the SDK. */
function rejectsLegacyClients(call: CallExpression): boolean {
  const origin = resolveOrigin(call.getExpression());
  if (!isPerRequestMcpHandler(origin)) return false;
  const options = call.getArguments()[1];
  const legacy = Node.isObjectLiteralExpression(options) ? options.getProperty('legacy') : undefined;
  return Node.isPropertyAssignment(legacy) && staticString(legacy.getInitializer()) === 'reject';
}
