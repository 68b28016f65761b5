// What the old handler did after its transport handled the request: `await transport.handleRequest(req, res, body);
// console.log(`took ${Date.now() - started} ms`); metrics.count('mcp')`. The rewritten handler runs the same statements
// after its own serve, so a migration does not silently drop them; the session's own bookkeeping there goes with the
// sessions.
import { Node } from 'ts-morph';
import type { SessionMachinery } from './sites';
import { contains, firstLine, freeIdentifiers, statementOf, valueSymbol } from './spans';

/**
 * The statements that run after `serve` on the way out of `block` (the region's block): those after the serve's
 * statement in its block, then after each enclosing `try` or plain block, up to `block`. A serve inside a branch or a
 * loop has no such tail (the branch goes with the session code). Bare `return;` and session bookkeeping are left out.
 */
export function servedAfterOf(block: Node, serve: Node, machinery: SessionMachinery): Node[] {
  const statements: Node[] = [];
  let holder = statementOf(serve);
  while (holder && holder !== block) {
    const parent = holder.getParent();
    if (!parent || !Node.isBlock(parent)) return [];
    const siblings = parent.getStatements();
    statements.push(...siblings.slice(siblings.indexOf(holder as never) + 1));
    if (parent === block) break;
    const outer = parent.getParent();
    // (out of a try block, or a plain `{ … }`; any other block is a branch, a loop or a callback)
    if (!outer || (!(Node.isTryStatement(outer) && outer.getTryBlock() === parent) && !Node.isBlock(outer))) return [];
    holder = outer;
  }
  return statements.filter((s) => !isBareExit(s) && !returnsServed(s, serve) && !machinery.touches(s));
}

/**
 * What the old handler answered with its serve: `return response;` after `const response = await
 * transport.handleRequest(request)`, or `return toFetchResponse(res)` of the Node response it handed the transport.
 * The new serve answers with its own.
 */
function returnsServed(statement: Node, serve: Node): boolean {
  const value = Node.isReturnStatement(statement) ? statement.getExpression() : undefined;
  if (!value) return false;
  const result = servedResultOf(serve);
  const handed = Node.isCallExpression(serve) ? serve.getArguments().filter(Node.isIdentifier) : [];
  const served = new Set([...(result ? [result] : []), ...handed.map((a) => valueSymbol(a)?.getDeclarations()[0])]);
  return freeIdentifiers(value).some((id) => served.has(valueSymbol(id)?.getDeclarations()[0]));
}

/**
 * The tail as the new serve runs it. A statement that reads a local of the rewritten statements (`rewritten`, the
 * region's) which neither the kept tail nor the kept prelude declares reads what only the session code computed
 * (`if (progressTimer) clearInterval(progressTimer)` after a progress loop that ran through the session's server): it
 * is session code, and goes with it. `blocker`: the tail answers the request another way (`return res.json(…)`), which
 * the new serve cannot follow.
 */
export function servedAfterKept(rewritten: Node[], serve: Node, tail: Node[], prelude: Node[]): { kept: Node[]; blocker?: string } {
  const answer = tail.find((statement) => Node.isReturnStatement(statement));
  if (answer) return { kept: [], blocker: `the handler answers \`${firstLine(answer)}\` after serving` };
  const result = servedResultOf(serve);
  let kept = tail;
  for (let changed = true; changed;) {
    const declared = [...kept, ...prelude, ...(result ? [result] : [])];
    const next = kept.filter((statement) =>
      freeIdentifiers(statement).every((id) => {
        const declaration = valueSymbol(id)?.getDeclarations()[0];
        return !declaration || !rewritten.some((r) => contains(r, declaration)) || declared.some((d) => contains(d, declaration));
      }),
    );
    changed = next.length < kept.length;
    kept = next;
  }
  return { kept };
}

/**
 * `const response = await transport.handleRequest(request)`: the declaration of the local the served Response is
 * kept in (a Web handler's), which the statements after it may read; the new serve keeps it in a local of that name.
 */
export function servedResultOf(serve: Node): (Node & { getName(): string }) | undefined {
  const served = statementOf(serve);
  const [declaration, ...more] = served && Node.isVariableStatement(served) ? served.getDeclarations() : [];
  if (!declaration || more.length > 0 || !Node.isIdentifier(declaration.getNameNode())) return undefined;
  const init = declaration.getInitializer();
  const value = init && Node.isAwaitExpression(init) ? init.getExpression() : init;
  return value === serve ? declaration : undefined;
}

function isBareExit(statement: Node): boolean {
  return (
    (Node.isReturnStatement(statement) && !statement.getExpression()) ||
    Node.isBreakStatement(statement) ||
    Node.isEmptyStatement(statement)
  );
}
