// Request regions: for each place the MCP transport is handed a request, the function (or the branch inside one)
// that handles it, how requests reach that function (routes with their mount prefix, node:http listeners, fetch
// handlers, method-named exports, calls from other handlers), which methods and path reach it and which framework
// serves it.
import { Node, SyntaxKind, type Block, type CallExpression, type IfStatement, type SourceFile, type SwitchStatement } from 'ts-morph';
import {
  conditionConstraint,
  exits,
  isPathSubject,
  methodPathLabel,
  methodPathSubject,
  likelyString,
  methodNamedHandler,
  guardedPath,
  resolveHandler,
  routeCalls,
} from '../routes';
import { descendantsOfKind, nodesOfKind } from '../node-index';
import { resolveOrigin } from '../resolve';
import { adapters } from '../../frameworks';
import { nestRoute } from '../../frameworks/nest';
import type { FrameworkId, HttpMethod, Methods } from './model';
import { contains, declarationOf, isFunctionNode, rootOf, unwrapExpression, type FunctionNode } from './spans';
import { otherReferencesOf } from '../references';

/** What reaches a request function, on the ts-morph tree (converted to plan data later). */
export type ArrivalNode =
  | {
      kind: 'route';
      call: CallExpression;
      receiver: Node;
      methods: Methods;
      path?: Node;
      mountPrefix?: string;
      middlewares: Node[];
      inline: boolean;
    }
  | { kind: 'listener'; site: Node; web: boolean }
  | { kind: 'method-named'; methods: Methods; path?: Node }
  | { kind: 'call'; call: CallExpression; caller: RegionNode };

export interface RegionNode {
  kind: 'function' | 'branch' | 'after-guard';
  fn: FunctionNode;
  block: Node;
  from?: number;
  /** The `if` whose path test leads to the branch, or the `switch (url.pathname)` whose case it is. */
  branch?: IfStatement | SwitchStatement;
  /** What the branch's path test compares (`url.pathname`). */
  pathSubject?: Node;
  methods: Methods;
  path?: Node;
  arrivals: ArrivalNode[];
  framework: FrameworkId | undefined;
}

const MAX_CALL_DEPTH = 3;

/**
 * The function whose parameter an argument comes from: `res`, `reply.raw`, `ctx.res`, `c.req.raw`, or a local bound
 * from one (`const { req, res } = ctx`).
 */
export function requestFunctionOf(argument: Node, depth = 0): FunctionNode | undefined {
  if (depth > 3) return undefined;
  const bridged = bridgedRequest(argument);
  if (bridged) return requestFunctionOf(bridged, depth + 1);
  const root = rootOf(argument);
  if (!Node.isIdentifier(root)) return undefined;
  for (const declaration of root.getSymbol()?.getDeclarations() ?? []) {
    const parameter = Node.isParameterDeclaration(declaration)
      ? declaration
      : Node.isBindingElement(declaration)
        ? declaration.getFirstAncestorByKind(SyntaxKind.Parameter)
        : undefined;
    if (parameter) {
      const fn = parameter.getParent();
      if (isFunctionNode(fn)) return fn;
    }
    const variable = Node.isBindingElement(declaration) ? declaration.getFirstAncestorByKind(SyntaxKind.VariableDeclaration) : declaration;
    if (Node.isVariableDeclaration(variable)) {
      const init = variable.getInitializer();
      if (init) return requestFunctionOf(init, depth + 1);
    }
  }
  return undefined;
}

/** Calls that turn a Web Request into Node's `req`/`res` for the SDK's Node transport. */
const REQUEST_BRIDGES = [{ module: 'fetch-to-node', name: 'toReqRes' }];

/** The Web Request a bridge call is given (`toReqRes(c.req.raw)` → `c.req.raw`): the handler's own request. */
function bridgedRequest(node: Node): Node | undefined {
  const call = unwrapExpression(node);
  if (!Node.isCallExpression(call)) return undefined;
  const origin = resolveOrigin(call.getExpression());
  const bridges = origin && REQUEST_BRIDGES.some((b) => b.module === origin.module && b.name === origin.name);
  return bridges ? call.getArguments()[0] : undefined;
}

/**
 * The expression reads a Node request or response made from a Web Request by a bridge (`req.body` after
 * `const { req, res } = toReqRes(c.req.raw)`): the stateless endpoint takes the Web Request, and that name goes.
 */
export function readsBridgedRequest(expression: Node): boolean {
  const root = rootOf(expression);
  if (!Node.isIdentifier(root)) return false;
  return (root.getSymbol()?.getDeclarations() ?? []).some((declaration) => {
    const variable = Node.isBindingElement(declaration) ? declaration.getFirstAncestorByKind(SyntaxKind.VariableDeclaration) : declaration;
    const init = Node.isVariableDeclaration(variable) ? variable.getInitializer() : undefined;
    return !!init && !!bridgedRequest(init);
  });
}

/** The region around a node inside a request function: the innermost path branch, the rest after a path guard, or the function. */
export function regionAround(node: Node, fn: FunctionNode, depth = 0): RegionNode | undefined {
  const body = fn.getBody();
  if (!body) return undefined;
  let branch: IfStatement | undefined;
  for (let current: Node | undefined = node; current && current !== body; current = current.getParent()) {
    const parent = current.getParent();
    const pathCase = pathCaseOf(current);
    if (pathCase) {
      const arrivals = arrivalsOf(fn, depth);
      const [switchStatement, label] = pathCase;
      // (`case 'GET /sse':` of a switch on `${req.method} ${url.pathname}`: that method, and the path it tests)
      const methodPath = methodPathSubject(switchStatement.getExpression());
      const labelled = methodPathLabel(label);
      return {
        kind: 'branch',
        fn,
        block: current,
        branch: switchStatement,
        methods: labelled ? intersect(unionMethods(arrivals), [labelled.method]) : unionMethods(arrivals),
        path: label,
        pathSubject: methodPath?.path ?? switchStatement.getExpression(),
        arrivals,
        framework: frameworkOf(fn, arrivals),
      };
    }
    if (
      Node.isIfStatement(parent) &&
      parent.getThenStatement() === current &&
      conditionConstraint(parent.getExpression()).paths.length > 0
    ) {
      branch = parent;
      break;
    }
  }
  const arrivals = arrivalsOf(fn, depth);
  const functionMethods = unionMethods(arrivals);
  const functionPath = arrivalPath(arrivals);
  const framework = frameworkOf(fn, arrivals);
  if (branch && Node.isBlock(branch.getThenStatement())) {
    const constraint = conditionConstraint(branch.getExpression());
    const methods = constraint.methods ? intersect(functionMethods, [...constraint.methods]) : functionMethods;
    const path = constraint.paths[0];
    return {
      kind: 'branch',
      fn,
      block: branch.getThenStatement(),
      branch,
      methods,
      path,
      pathSubject: path && pathSubjectOf(path),
      arrivals,
      framework,
    };
  }
  // (an expression body, `(req, res) => serveMcp(req, res)`, has no statements: it is the whole function, given braces when rewritten)
  const statements = Node.isBlock(body) ? body.getStatements() : [];
  const at = statements.findIndex((s) => contains(s, node));
  for (let k = at - 1; k >= 0; k--) {
    const path = guardedPath(statements[k]);
    if (path) return { kind: 'after-guard', fn, block: body, from: k + 1, methods: functionMethods, path, arrivals, framework };
    // (`if (req.url === '/sse') { …; return; }` before it: the rest serves every other path, apart from that branch)
    if (isExitingPathBranch(statements[k]))
      return { kind: 'after-guard', fn, block: body, from: k + 1, methods: functionMethods, path: functionPath, arrivals, framework };
  }
  return { kind: 'function', fn, block: body, methods: functionMethods, path: functionPath, arrivals, framework };
}

/**
 * `case '/sse': { … }` of a `switch (url.pathname)`: the braced block a case runs (followed by nothing but `break;`),
 * with the switch and the case's path.
 */
function pathCaseOf(block: Node): [SwitchStatement, Node] | undefined {
  const clause = block.getParent();
  if (!Node.isBlock(block) || !Node.isCaseClause(clause)) return undefined;
  const [first, ...rest] = clause.getStatements();
  if (first !== (block as Block) || rest.some((s) => !Node.isBreakStatement(s))) return undefined;
  const label = clause.getExpression();
  const switchStatement = clause.getParent()?.getParent();
  if (!Node.isSwitchStatement(switchStatement)) return undefined;
  if (methodPathSubject(switchStatement.getExpression())) return label && methodPathLabel(label) ? [switchStatement, label] : undefined;
  if (!isPathSubject(switchStatement.getExpression())) return undefined;
  return Node.isStringLiteral(label) || Node.isNoSubstitutionTemplateLiteral(label) ? [switchStatement, label] : undefined;
}

/** `if (<path test>) { …; return; }` with no else: the statements after it never see that path. */
function isExitingPathBranch(statement: Node): boolean {
  return (
    Node.isIfStatement(statement) &&
    !statement.getElseStatement() &&
    exits(statement.getThenStatement()) &&
    conditionConstraint(statement.getExpression()).paths.length > 0
  );
}

/**
 * The route handlers that do nothing but call this helper (`(req, res) => openStream('/sse', '/messages', req, res)`),
 * when two or more on different paths reach it and nothing else does: the paths need different answers (the
 * endpoint, 405, 410), so each route is rewritten where it is registered and the helper, a local function, goes.
 */
export function thinWrapperCallers(region: RegionNode): RegionNode[] | undefined {
  if (region.kind !== 'function' || region.arrivals.length < 2 || Node.isMethodDeclaration(region.fn)) return undefined;
  const callers = region.arrivals.map((arrival) =>
    arrival.kind === 'call' && isThinWrapper(arrival.caller, arrival.call) ? arrival.caller : undefined,
  );
  if (!callers.every((caller) => !!caller)) return undefined;
  const paths = new Set(callers.map((caller) => caller!.path?.getText()));
  return paths.size > 1 ? (callers as RegionNode[]) : undefined;
}

function isThinWrapper(caller: RegionNode, call: CallExpression): boolean {
  if (caller.kind !== 'function' || caller.arrivals.length === 0 || caller.arrivals.some((a) => a.kind !== 'route')) return false;
  const body = caller.fn.getBody();
  const statements = body && Node.isBlock(body) ? body.getStatements() : undefined;
  const only = statements ? (statements.length === 1 ? statements[0] : undefined) : body;
  const expression = only && (Node.isExpressionStatement(only) || Node.isReturnStatement(only)) ? only.getExpression() : only;
  if (!expression) return false;
  const called = unwrapExpression(Node.isVoidExpression(expression) ? expression.getExpression() : expression);
  return called === call;
}

/** `url.pathname` in `url.pathname === '/mcp'` or `url.pathname.startsWith('/mcp')`. */
function pathSubjectOf(path: Node): Node | undefined {
  const parent = path.getParent();
  if (Node.isBinaryExpression(parent)) return parent.getLeft() === path ? parent.getRight() : parent.getLeft();
  if (Node.isCallExpression(parent)) {
    const callee = parent.getExpression();
    if (Node.isPropertyAccessExpression(callee)) return callee.getExpression();
  }
  return undefined;
}

function unionMethods(arrivals: ArrivalNode[]): Methods {
  const methods = new Set<HttpMethod>();
  for (const arrival of arrivals) {
    const m =
      arrival.kind === 'route' || arrival.kind === 'method-named'
        ? arrival.methods
        : arrival.kind === 'call'
          ? arrival.caller.methods
          : 'any';
    if (m === 'any') return 'any';
    m.forEach((method) => methods.add(method));
  }
  return arrivals.length === 0 ? 'any' : [...methods];
}

function intersect(methods: Methods, constraint: HttpMethod[]): Methods {
  return methods === 'any' ? constraint : methods.filter((m) => constraint.includes(m));
}

function arrivalPath(arrivals: ArrivalNode[]): Node | undefined {
  for (const arrival of arrivals) {
    if (arrival.kind === 'route' || arrival.kind === 'method-named') {
      if (arrival.path) return arrival.path;
    } else if (arrival.kind === 'call' && arrival.caller.path) {
      return arrival.caller.path;
    }
  }
  return undefined;
}

const arrivalCache = new WeakMap<Node, ArrivalNode[]>();

/** Every way requests reach the function. */
export function arrivalsOf(fn: FunctionNode, depth = 0): ArrivalNode[] {
  const cached = arrivalCache.get(fn);
  if (cached) return cached;
  const arrivals: ArrivalNode[] = [...routeArrivals(fn), ...listenerArrivals(fn)];
  const named = methodNamedHandler(fn);
  if (named) arrivals.push({ kind: 'method-named', methods: [named.method], path: named.path });
  if (arrivals.length === 0 && depth < MAX_CALL_DEPTH) arrivals.push(...callArrivals(fn, depth));
  arrivalCache.set(fn, arrivals);
  return arrivals;
}

function routeArrivals(fn: FunctionNode): ArrivalNode[] {
  const arrivals: ArrivalNode[] = [];
  const decorated = nestRoute(fn);
  if (decorated) {
    const { decorator, controller, methods, path, prefix } = decorated;
    const receiver = controller.getNameNode() ?? controller;
    arrivals.push({ kind: 'route', call: decorator, receiver, methods, path, mountPrefix: prefix, middlewares: [], inline: true });
  }
  for (const file of fn.getProject().getSourceFiles()) {
    for (const route of routeCalls(file)) {
      const viaMiddleware = route.middlewares.some((m) => resolveHandler(m) === fn);
      if (route.handler !== fn && !viaMiddleware) continue;
      arrivals.push({
        kind: 'route',
        call: route.call,
        receiver: route.receiver,
        methods: route.methods === 'any' ? 'any' : [...route.methods],
        path: route.path,
        mountPrefix: mountPrefix(route.receiver),
        middlewares: route.middlewares,
        inline: route.handlerArg === fn,
      });
    }
  }
  return arrivals;
}

/** `http.createServer(fn)`, `server.on('request', fn)`, `{ fetch: fn }` / `{ async fetch(request) {} }` (Workers, Bun, hono serve). */
function listenerArrivals(fn: FunctionNode): ArrivalNode[] {
  const sites: Node[] = [fn];
  const holder = fn.getParent();
  if (Node.isVariableDeclaration(holder)) sites.push(...otherReferencesOf(holder.getNameNode()));
  if (Node.isFunctionDeclaration(fn) && fn.getNameNode()) sites.push(...otherReferencesOf(fn.getNameNode()!));
  const arrivals: ArrivalNode[] = [];
  for (const site of sites) {
    const parent = site.getParent();
    if (Node.isCallExpression(parent) && parent.getArguments().includes(site as never)) {
      const callee = parent.getExpression().getText();
      const [first] = parent.getArguments();
      const isRequestEvent = /\.on$/.test(callee) && Node.isStringLiteral(first) && first.getLiteralValue() === 'request';
      if (/(?:^|\.)createServer$/.test(callee) || isRequestEvent) arrivals.push({ kind: 'listener', site: parent, web: false });
      else if (/^(?:Deno\.serve|Bun\.serve)$/.test(callee)) arrivals.push({ kind: 'listener', site: parent, web: true });
    }
    const property = Node.isMethodDeclaration(site)
      ? site
      : Node.isPropertyAssignment(parent) || Node.isShorthandPropertyAssignment(parent)
        ? parent
        : undefined;
    if (property && property.getName() === 'fetch' && Node.isObjectLiteralExpression(property.getParent())) {
      arrivals.push({ kind: 'listener', site: property, web: true });
    }
  }
  // (Next.js Pages Router: the default export of a file under pages/api/ gets every request to its path, with Node's
  // request and response)
  if (arrivals.length === 0 && isPagesApiHandler(fn)) arrivals.push({ kind: 'listener', site: fn, web: false });
  return arrivals;
}

/** `export default function handler(req, res)` (or a default-exported const) in a `pages/api/` file. */
function isPagesApiHandler(fn: FunctionNode): boolean {
  if (fn.getParameters().length !== 2 || !/(?:^|\/)pages\/api\//.test(fn.getSourceFile().getFilePath())) return false;
  if (Node.isFunctionDeclaration(fn) && fn.isDefaultExport()) return true;
  const holder = fn.getParent();
  if (Node.isExportAssignment(holder)) return true;
  const name = Node.isVariableDeclaration(holder) ? holder.getNameNode() : Node.isFunctionDeclaration(fn) ? fn.getNameNode() : undefined;
  return (
    !!name &&
    fn
      .getSourceFile()
      .getExportAssignments()
      .some((a) => !a.isExportEquals() && a.getExpression().getText() === name.getText())
  );
}

/** Calls that hand this function the caller's request objects (`serveMcp(req, res, sessions)`). */
function callArrivals(fn: FunctionNode, depth: number): ArrivalNode[] {
  const arrivals: ArrivalNode[] = [];
  for (const call of callsOf(fn)) {
    // The argument that carries the request: the one whose function requests reach (`handle(factory, req, res)`
    // passes an outer function's `factory` first).
    const callers = new Set(call.getArguments().map((argument) => requestFunctionOf(argument)));
    for (const callerFn of callers) {
      if (!callerFn || callerFn === fn) continue;
      const caller = regionAround(call, callerFn, depth + 1);
      if (!caller || caller.arrivals.length === 0) continue;
      arrivals.push({ kind: 'call', call, caller });
      break;
    }
  }
  return arrivals;
}

/** Call expressions whose callee is the function (by name, `this.name`, or an imported binding of it). */
function callsOf(fn: FunctionNode): CallExpression[] {
  const nameNode =
    Node.isFunctionDeclaration(fn) || Node.isMethodDeclaration(fn)
      ? fn.getNameNode()
      : Node.isVariableDeclaration(fn.getParent())
        ? (fn.getParent() as Node & { getNameNode(): Node }).getNameNode()
        : undefined;
  if (!nameNode) return [];
  const calls: CallExpression[] = [];
  for (const reference of otherReferencesOf(nameNode)) {
    const access = Node.isPropertyAccessExpression(reference.getParent()) ? reference.getParent()! : reference;
    const call = access.getParent();
    if (Node.isCallExpression(call) && call.getExpression() === access) calls.push(call);
  }
  return calls;
}

/**
 * `app.use('/admin', router)` anywhere in the project mounts the receiver's router under '/admin'; the router that
 * mounts it may itself be mounted (`outer.use(router)` with no path, `app.use('/api', outer)`): the prefixes add up
 * (`/api/admin`).
 */
function mountPrefix(receiver: Node, seen = new Set<Node>()): string | undefined {
  const declaration = declarationOf(receiver);
  if (!declaration || seen.has(declaration) || seen.size > 4) return undefined;
  seen.add(declaration);
  for (const file of receiver.getProject().getSourceFiles()) {
    for (const route of routeCalls(file)) {
      if (route.methods !== 'any' || !route.path || route.handlerArg === receiver) continue;
      if (declarationOf(route.handlerArg) !== declaration) continue;
      const prefix = likelyString(route.path);
      if (prefix === undefined) continue;
      const own = prefix === '/' ? '' : prefix.replace(/\/$/, '');
      const outer = mountPrefix(route.receiver, seen) ?? '';
      if (outer + own) return outer + own;
    }
    // (`outer.use(router)`: no path of its own, the router serves under wherever `outer` is mounted)
    for (const { router, mountedOn } of pathlessMounts(file)) {
      if (router === receiver || declarationOf(router) !== declaration) continue;
      const outer = mountPrefix(mountedOn, seen);
      if (outer) return outer;
    }
  }
  // (a framework's own mounting: fastify's `register(plugin, { prefix })`)
  return adapters.map((adapter) => adapter.mountPrefix?.(receiver)).find((prefix) => prefix !== undefined);
}

const pathlessMountsCache = new WeakMap<SourceFile, Array<{ router: Node; mountedOn: Node }>>();

/** `outer.use(router)` calls of a file: the router (an identifier) and what it is mounted on. */
function pathlessMounts(file: SourceFile): Array<{ router: Node; mountedOn: Node }> {
  let mounts = pathlessMountsCache.get(file);
  if (!mounts) {
    mounts = [];
    // (most files mount nothing: their text says so without walking their calls)
    if (file.getFullText().includes('.use(')) {
      for (const call of nodesOfKind(file, SyntaxKind.CallExpression)) {
        const callee = call.getExpression();
        const args = call.getArguments();
        if (!Node.isPropertyAccessExpression(callee) || callee.getName() !== 'use' || args.length !== 1) continue;
        if (Node.isIdentifier(args[0])) mounts.push({ router: args[0], mountedOn: callee.getExpression() });
      }
    }
    pathlessMountsCache.set(file, mounts);
  }
  return mounts;
}

// ---- framework -------------------------------------------------------------------------------------------------

/** The framework serving a request function: from where its route's receiver was made, typed parameters, or usage. */
function frameworkOf(fn: FunctionNode, arrivals: ArrivalNode[]): FrameworkId | undefined {
  const params = parameterNames(fn);
  for (const arrival of arrivals) {
    if (arrival.kind === 'listener') return arrival.web || params.length === 1 ? 'web-fetch' : 'node-http';
    if (arrival.kind === 'method-named') return 'web-fetch';
    if (arrival.kind === 'call') {
      // The helper gets the caller's own objects, or Node's raw ones (`reply.raw`, `ctx.req`).
      const passesRaw = arrival.call.getArguments().some((a) => /\.(?:raw|req|res)$/.test(a.getText()));
      return passesRaw ? 'node-http' : arrival.caller.framework;
    }
    if (Node.isDecorator(arrival.call.getParent())) return 'nest';
    const byReceiver = receiverFramework(arrival.receiver);
    if (byReceiver) return byReceiver;
  }
  return parameterFramework(fn) ?? adapters.find((a) => a.readsLike?.(fn, params))?.id ?? (params.length >= 2 ? 'express' : undefined);
}

/** The decorator that injects each parameter (`@Res() res` → `Res`), or ''. */
export function parameterDecorators(fn: FunctionNode): string[] {
  return fn.getParameters().map((p) => {
    const call = Node.isParameterDeclaration(p) ? p.getDecorators()[0]?.getCallExpression() : undefined;
    const callee = call?.getExpression();
    return callee ? (Node.isPropertyAccessExpression(callee) ? callee.getName() : callee.getText()) : '';
  });
}

export function parameterNames(fn: FunctionNode): string[] {
  return fn.getParameters().map((p) => (Node.isParameterDeclaration(p) && Node.isIdentifier(p.getNameNode()) ? p.getName() : ''));
}

function receiverFramework(receiver: Node): FrameworkId | undefined {
  const declaration = declarationOf(receiver);
  if (!declaration) return undefined;
  if (Node.isVariableDeclaration(declaration) || Node.isPropertyDeclaration(declaration)) {
    const init = declaration.getInitializer();
    const made = init ? unwrapExpression(init) : undefined;
    if (made && (Node.isCallExpression(made) || Node.isNewExpression(made))) {
      const origin = resolveOrigin(rootOf(made.getExpression()));
      const byModule = origin && adapters.find((a) => a.modules.test(origin.module));
      if (byModule) return byModule.id;
    }
    const typed = typeFramework(declaration.getTypeNode());
    if (typed) return typed;
  }
  if (Node.isParameterDeclaration(declaration)) return typeFramework(declaration.getTypeNode()) ?? contextualFramework(declaration);
  return undefined;
}

/**
 * An untyped parameter of a function a variable's type describes: `const plugin: FastifyPluginAsync = async (app) =>`
 * (the plugin's instance is fastify's, whatever its handlers' bodies look like).
 */
function contextualFramework(parameter: Node): FrameworkId | undefined {
  const fn = parameter.getParent();
  const holder = fn && isFunctionNode(fn) ? unwrapParents(fn) : undefined;
  return holder && Node.isVariableDeclaration(holder) ? typeFramework(holder.getTypeNode()) : undefined;
}

/** The node holding a function expression, past parentheses and `as`/`satisfies` wrappers. */
function unwrapParents(node: Node): Node | undefined {
  let current = node.getParent();
  while (current && (Node.isParenthesizedExpression(current) || Node.isAsExpression(current) || Node.isSatisfiesExpression(current)))
    current = current.getParent();
  return current;
}

function parameterFramework(fn: FunctionNode): FrameworkId | undefined {
  for (const parameter of fn.getParameters()) {
    if (!Node.isParameterDeclaration(parameter)) continue;
    const framework = typeFramework(parameter.getTypeNode());
    if (framework) return framework;
  }
  return undefined;
}

/** A type's framework: from the module it is imported from (`Context` is hono's or koa's), else from its name. */
function typeFramework(typeNode: Node | undefined): FrameworkId | undefined {
  if (!typeNode || !Node.isTypeReference(typeNode)) return undefined;
  const typeName = typeNode.getTypeName();
  const first = Node.isQualifiedName(typeName) ? rootOfQualified(typeName) : typeName;
  const origin = resolveOrigin(first);
  const byModule = origin && adapters.find((a) => a.modules.test(origin.module));
  if (byModule) return byModule.id;
  const last = Node.isQualifiedName(typeName) ? typeName.getRight().getText() : typeName.getText();
  return adapters.find((a) => a.typeNames?.test(last))?.id;
}

function rootOfQualified(name: Node): Node {
  let current = name;
  while (Node.isQualifiedName(current)) current = current.getLeft();
  return current;
}

/** Every `if` of the function body that routes by path (for listeners serving several paths). */
export function pathBranches(fn: FunctionNode): IfStatement[] {
  const body = fn.getBody();
  if (!body) return [];
  return descendantsOfKind(body, SyntaxKind.IfStatement).filter((s) => conditionConstraint(s.getExpression()).paths.length > 0);
}

export function filesOf(node: Node): SourceFile[] {
  return node.getProject().getSourceFiles();
}

export { nodesOfKind };
