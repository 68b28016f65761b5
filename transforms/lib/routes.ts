// Route registrations as jscodeshift sees them: `app.get(path, …mw, handler)`, `router.all(…)`,
// `app.route(path).post(h).get(h)`. Used to find and replace the MCP endpoint's routes.
import type { JSCodeshift } from 'jscodeshift';
import { containsLocation, isFunctionNode, type AnyNode } from './ast';
import type { TransformContext } from './context';
import type { Finding } from '../../src/model';

export const ROUTE_METHODS = new Set(['get', 'post', 'put', 'patch', 'delete', 'all', 'use']);

export interface RouteStatement {
  /** Index of the statement in its block body. */
  index: number;
  statement: AnyNode;
  receiver: AnyNode;
  receiverText: string;
  path: AnyNode;
  pathText: string;
  /** Each `.method(…args)` of the statement (one, or several for a `.route(path)` chain). */
  registrations: Array<{ method: string; middlewares: AnyNode[]; handler: AnyNode }>;
}

export function sourceOf(j: JSCodeshift, node: AnyNode): string {
  return j(node as never).toSource();
}

/** A receiver's code without the comments recast attaches to it (`app /* note *\/ .get(…)` is `app`). */
function receiverCode(j: JSCodeshift, node: AnyNode): string {
  return sourceOf(j, node)
    .replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, '')
    .replace(/\s+/g, ' ')
    .replace(/\s*([.?]+)\s*/g, '$1')
    .trim();
}

function isPathLike(node: AnyNode | undefined): boolean {
  if (!node) return false;
  return (
    ['StringLiteral', 'Literal', 'TemplateLiteral', 'Identifier', 'MemberExpression', 'RegExpLiteral'].includes(node.type) ||
    (node.type === 'ArrayExpression' && (node.elements as AnyNode[]).every(isPathLike)) ||
    (node.type === 'BinaryExpression' && node.operator === '+')
  );
}

function isHandlerLike(node: AnyNode | undefined): boolean {
  return (
    !!node && (isFunctionNode(node) || node.type === 'Identifier' || node.type === 'CallExpression' || node.type === 'MemberExpression')
  );
}

/** Parse one statement as a route registration (or chain of them). */
export function asRouteStatement(j: JSCodeshift, statement: AnyNode, index: number): RouteStatement | undefined {
  if (statement.type !== 'ExpressionStatement') return undefined;
  let expression = statement.expression as AnyNode;
  if (expression.type === 'AwaitExpression') expression = expression.argument as AnyNode;
  const registrations: RouteStatement['registrations'] = [];
  let current: AnyNode = expression;
  for (let depth = 0; depth < 12; depth++) {
    if (current.type !== 'CallExpression') return undefined;
    const callee = current.callee as AnyNode;
    if (callee.type !== 'MemberExpression' || callee.computed) return undefined;
    const method = (callee.property as AnyNode).name as string;
    const args = current.arguments as AnyNode[];
    if (method === 'route' && args.length === 1 && isPathLike(args[0])) {
      if (registrations.length === 0) return undefined;
      const receiver = callee.object as AnyNode;
      return {
        index,
        statement,
        receiver,
        receiverText: receiverCode(j, receiver),
        path: args[0],
        pathText: sourceOf(j, args[0]),
        registrations: registrations.reverse(),
      };
    }
    if (!ROUTE_METHODS.has(method)) return undefined;
    const object = callee.object as AnyNode;
    const chained = object.type === 'CallExpression';
    if (chained && args.length >= 1 && args.every(isHandlerLike) && !isPathLike(args[0])) {
      registrations.push({ method, middlewares: args.slice(0, -1), handler: args[args.length - 1] });
      current = object;
      continue;
    }
    if (chained && args.length >= 1 && args.every(isHandlerLike) && args[0].type === 'Identifier') {
      // `.get(handlerName)` in a chain: an identifier is a handler here, not a path.
      registrations.push({ method, middlewares: args.slice(0, -1), handler: args[args.length - 1] });
      current = object;
      continue;
    }
    if (registrations.length > 0) return undefined;
    if (args.length < 2 || !isPathLike(args[0]) || !isHandlerLike(args[args.length - 1])) return undefined;
    return {
      index,
      statement,
      receiver: object,
      receiverText: receiverCode(j, object),
      path: args[0],
      pathText: sourceOf(j, args[0]),
      registrations: [{ method, middlewares: args.slice(1, -1), handler: args[args.length - 1] }],
    };
  }
  return undefined;
}

/** What an endpoint region does with the SDK transports. */
export type EndpointRole = 'sse-stream' | 'sse-messages' | 'streamable';

/** The roles of route handlers or branches: SSE stream (the anchored construction), SSE messages, Streamable HTTP. */
export function endpointRoles(j: JSCodeshift, regions: AnyNode[], anchors: Finding[]): Set<EndpointRole> {
  const roles = new Set<EndpointRole>();
  for (const region of regions) {
    // `transport?.handlePostMessage(…)` is an OptionalCallExpression in babel's tree.
    const calls = [
      ...j(region as never)
        .find(j.CallExpression)
        .nodes(),
      ...j(region as never)
        .find(j.OptionalCallExpression)
        .nodes(),
    ] as unknown as AnyNode[];
    for (const call of calls) {
      const callee = call.callee as AnyNode;
      if (callee.type !== 'MemberExpression' && callee.type !== 'OptionalMemberExpression') continue;
      const name = (callee.property as AnyNode).name;
      if (name === 'handlePostMessage') roles.add('sse-messages');
      if (name === 'handleRequest') roles.add('streamable');
    }
    if (anchors.some((a) => a.ruleId === 'legacy-sse-transport' && /SSEServerTransport/.test(a.message) && containsLocation(region, a)))
      roles.add('sse-stream');
  }
  return roles;
}

/** Every statement list of the file: the program body and each block. */
export function statementLists(context: TransformContext): AnyNode[][] {
  const { j, root } = context;
  return ([...root.find(j.Program).nodes(), ...root.find(j.BlockStatement).nodes()] as unknown as AnyNode[]).map(
    (block) => block.body as AnyNode[],
  );
}

/** Functions declared in the file by name (declarations and `const f = () => …`), for handlers passed by name. */
export function functionsByName(context: TransformContext): Map<string, AnyNode> {
  const { j, root } = context;
  const map = new Map<string, AnyNode>();
  root.find(j.FunctionDeclaration).forEach((p) => {
    if (p.node.id) map.set(p.node.id.name as string, p.node as unknown as AnyNode);
  });
  root.find(j.VariableDeclarator).forEach((p) => {
    const init = p.node.init as unknown as AnyNode | null;
    if (p.node.id.type === 'Identifier' && init && isFunctionNode(init)) map.set(p.node.id.name, init);
  });
  return map;
}

/** What a request path is called in route tests: `url`, `req.url`, `url.pathname`, `path`, `routePath`. */
export const PATH_SUBJECT = /(?:^|[.\s(])(?:url|pathname|path|routePath|route)$/i;

/** `if (url.pathname !== '/mcp') return …;` (no else, the branch always leaves): everything after it is that route. */
export function isPathGuard(j: JSCodeshift, statement: AnyNode): boolean {
  if (statement.type !== 'IfStatement' || statement.alternate) return false;
  const exit = statement.consequent as AnyNode;
  const last = exit.type === 'BlockStatement' ? (exit.body as AnyNode[]).at(-1) : exit;
  if (!last || (last.type !== 'ReturnStatement' && last.type !== 'ThrowStatement')) return false;
  const test = statement.test as AnyNode;
  if (test.type !== 'BinaryExpression' || (test.operator !== '!==' && test.operator !== '!=')) return false;
  const isString = (n: AnyNode) => n.type === 'StringLiteral' || (n.type === 'Literal' && typeof n.value === 'string');
  const subject = isString(test.right as AnyNode)
    ? (test.left as AnyNode)
    : isString(test.left as AnyNode)
      ? (test.right as AnyNode)
      : undefined;
  return !!subject && PATH_SUBJECT.test(sourceOf(j, subject));
}

/**
 * The innermost function around `anchor` whose body routes with a path guard before the anchor's statement:
 * its body and the index of the first statement after the guard.
 */
export function guardClauseRoute(
  context: TransformContext,
  anchor: Pick<Finding, 'line' | 'column'>,
): { fn: AnyNode; block: AnyNode; from: number } | undefined {
  const { j, root } = context;
  const fns = (root.find(j.Function).nodes() as unknown as AnyNode[]).filter(
    (fn) => (fn.body as AnyNode).type === 'BlockStatement' && (fn.body as AnyNode).loc && containsLocation(fn.body as AnyNode, anchor),
  );
  const fn = fns.at(-1);
  if (!fn) return undefined;
  const block = fn.body as AnyNode;
  const statements = block.body as AnyNode[];
  const at = statements.findIndex((s) => containsLocation(s, anchor));
  if (at < 0) return undefined;
  for (let k = at - 1; k >= 0; k--) if (isPathGuard(j, statements[k])) return { fn, block, from: k + 1 };
  return undefined;
}

/** The parsed-body argument the old code gave `transport.handleRequest(req, res, body)`, as written (first found). */
export function parsedBodyArgument(j: JSCodeshift, regions: AnyNode[]): string | undefined {
  for (const region of regions) {
    const calls = [
      ...j(region as never)
        .find(j.CallExpression)
        .nodes(),
      ...j(region as never)
        .find(j.OptionalCallExpression)
        .nodes(),
    ] as unknown as AnyNode[];
    for (const call of calls) {
      const callee = call.callee as AnyNode;
      const name = (callee.property as AnyNode | undefined)?.name;
      const args = call.arguments as AnyNode[];
      if ((name === 'handleRequest' || name === 'handlePostMessage') && args.length >= 3) return sourceOf(j, args[2]);
    }
  }
  return undefined;
}
