// stdio-to-HTTP bridges: an HTTP+SSE handler that serves a child stdio MCP server. Two shapes exist. The handler
// connects a server whose request handlers forward to one SDK `Client` of the child: that is an ordinary server
// (shared, or built per connection) and needs nothing here. Or the handler takes the transport's messages over
// (`transport.onmessage = (message) => child.stdin.write(…)`) and the child answers everything, initialize
// included: the server it connected is a placeholder, so building it per request would serve nothing. This module
// finds the second shape, and the child behind it: one child for every client, or one per connection. An `onmessage`
// that edits each message and hands it on to the handler the SDK installed is neither: an interceptor.
import { Node, SyntaxKind, type BinaryExpression, type CallExpression, type NewExpression, type VariableDeclaration } from 'ts-morph';
import { descendantsOfKind } from '../node-index';
import type { FileFacts } from '../file-facts';
import { resolveOrigin } from '../resolve';
import type { BridgePlan, BridgeRelay, Span } from './model';
import type { RegionNode } from './regions';
import { connectCalls } from './sites';
import { contains, rootOf, spanOf, statementOf, unwrapExpression, type RelPathOf } from './spans';

const CHILD_PROCESS = /^(?:node:)?child_process$/;
const PROCESS_STARTERS = new Set(['spawn', 'fork', 'exec', 'execFile']);

/**
 * What the region's HTTP+SSE handler does with the transport's messages, when it assigns `transport.onmessage`: takes
 * them over for a child process (a bridge), or edits each one and hands it on to the handler the SDK installed (an
 * interceptor: it changes every message of the connection before the server answers it, and a stateless endpoint has
 * no such hook).
 */
export function messageTakeoverOf(region: RegionNode, facts: FileFacts, relPath: RelPathOf): { bridge?: BridgePlan; interceptor?: Span } {
  const forward = onmessageAssignment(region, facts);
  if (!forward) return {};
  if (passesOnToOwnHandler(forward)) return { interceptor: spanOf(forward, relPath) };
  return { bridge: bridgeOf(region, facts, forward, relPath) };
}

/** The bridge behind an `onmessage` that takes the transport's messages over: its child, one or one per connection. */
function bridgeOf(region: RegionNode, facts: FileFacts, forward: BinaryExpression, relPath: RelPathOf): BridgePlan {
  const starts = childStarts(region.fn);
  const perConnection = starts[0];
  if (perConnection) {
    return {
      forward: spanOf(forward, relPath),
      child: { start: spanOf(perConnection, relPath), code: firstLine(perConnection), perConnection: true },
      routeParams: routeParams(region),
    };
  }
  const child = childOfForward(forward.getRight());
  return {
    forward: spanOf(forward, relPath),
    child: child ? { start: spanOf(child.start, relPath), code: firstLine(child.start), perConnection: false } : undefined,
    routeParams: routeParams(region),
    relay: child && relayOf(region, facts, forward, child.declaration, relPath),
  };
}

/** `transport.onmessage = …` on the handler's SSE transport. */
function onmessageAssignment(region: RegionNode, facts: FileFacts): BinaryExpression | undefined {
  return descendantsOfKind(region.fn, SyntaxKind.BinaryExpression).find((assignment) => {
    const target = assignment.getLeft();
    return (
      assignment.getOperatorToken().getKind() === SyntaxKind.EqualsToken &&
      Node.isPropertyAccessExpression(target) &&
      target.getName() === 'onmessage' &&
      facts.holds(target.getExpression(), 'SSEServerTransport')
    );
  });
}

/**
 * `const own = transport.onmessage; transport.onmessage = (message, extra) => { …; own?.(message, extra) }`: the new
 * handler edits each message and hands it on to the one the SDK installed, so the connected server answers it. An
 * interceptor, not a bridge.
 */
function passesOnToOwnHandler(forward: BinaryExpression): boolean {
  const target = forward.getLeft().getText();
  const handler = forward.getRight();
  if (!Node.isArrowFunction(handler) && !Node.isFunctionExpression(handler)) return false;
  return handler.getDescendantsOfKind(SyntaxKind.CallExpression).some((call) => {
    const callee = call.getExpression();
    const declaration = Node.isIdentifier(callee) ? callee.getSymbol()?.getDeclarations()[0] : undefined;
    const init = declaration && Node.isVariableDeclaration(declaration) ? declaration.getInitializer() : undefined;
    const saved = init && unwrapExpression(init);
    return !!saved && saved.getText() === target;
  });
}

/** What the stdio-bridge transform changes for a one-child bridge, when the shape is one it rewrites. */
function relayOf(
  region: RegionNode,
  facts: FileFacts,
  forward: Node,
  child: VariableDeclaration,
  relPath: RelPathOf,
): BridgeRelay | undefined {
  const declaration = statementOf(child);
  const forwardStatement = statementOf(forward);
  const connect = connectCalls(facts, region.block)[0];
  const scope = declaration?.getParent();
  if (!declaration || !forwardStatement || !connect || !scope || !Node.isIdentifier(child.getNameNode())) return undefined;
  if (forwardStatement.getParent() !== region.block || !region.fn.isAsync?.()) return undefined;
  const name = child.getName();
  // The child's output goes to the SSE transports: `child.stdout.on('data', …)` calling `transport.send(…)`.
  const output = (scope.getChildSyntaxList()?.getChildren() ?? []).filter(
    (statement) =>
      statement !== declaration &&
      !contains(statement, region.fn) &&
      statement
        .getDescendantsOfKind(SyntaxKind.PropertyAccessExpression)
        .some((access) => access.getName() === 'stdout' && access.getExpression().getText() === name) &&
      statement
        .getDescendantsOfKind(SyntaxKind.PropertyAccessExpression)
        .some((access) => access.getName() === 'send' && Node.isCallExpression(access.getParent())),
  );
  if (output.length === 0) return undefined;
  return {
    child: name,
    declaration: spanOf(declaration, relPath),
    server: spanOf(connect.server, relPath),
    forward: spanOf(forwardStatement, relPath),
    output: output.map((statement) => spanOf(statement, relPath)),
  };
}

/** Where child processes start inside a node: `spawn(…)` and friends from child_process, `new StdioClientTransport(…)`. */
function childStarts(within: Node): Array<CallExpression | NewExpression> {
  const calls = descendantsOfKind(within, SyntaxKind.CallExpression).filter((call) => {
    const origin = resolveOrigin(call.getExpression());
    return !!origin && CHILD_PROCESS.test(origin.module) && PROCESS_STARTERS.has(origin.name);
  });
  const transports = descendantsOfKind(within, SyntaxKind.NewExpression).filter((construction) => {
    const origin = resolveOrigin(construction.getExpression());
    return !!origin && origin.name === 'StdioClientTransport' && /^@modelcontextprotocol\//.test(origin.module);
  });
  return [...calls, ...transports].sort((a, b) => a.getStart() - b.getStart());
}

/** The child process the forwarding function writes to (`child.stdin.write(…)`): its declaration and start. */
function childOfForward(forward: Node): { declaration: VariableDeclaration; start: Node } | undefined {
  for (const call of descendantsOfKind(forward, SyntaxKind.CallExpression)) {
    const callee = call.getExpression();
    if (!Node.isPropertyAccessExpression(callee) || callee.getName() !== 'write') continue;
    const stream = callee.getExpression();
    if (!Node.isPropertyAccessExpression(stream) || stream.getName() !== 'stdin') continue;
    const declaration = rootOf(stream).getSymbol()?.getDeclarations()[0];
    const init = Node.isVariableDeclaration(declaration) ? declaration.getInitializer() : undefined;
    const start = init && childStarts(declaration!.getParentOrThrow()).find((s) => contains(init, s));
    if (start) return { declaration: declaration as VariableDeclaration, start };
  }
  return undefined;
}

/** Route parameters in the handler's path (`/:command/sse` → `command`). */
function routeParams(region: RegionNode): string[] {
  const path = region.path?.getText() ?? '';
  return [...path.matchAll(/:([A-Za-z_$][\w$]*)/g)].map((m) => m[1]);
}

function firstLine(node: Node): string {
  const text = node.getText().split('\n')[0];
  return text.length < node.getText().length ? `${text.replace(/[\s,({[]*$/, '')}, …)` : text;
}
