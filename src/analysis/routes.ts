// The HTTP routing model: which method(s) and path reach a piece of code. Covers framework calls
// (express/Router/koa-router/hono/fastify: `app.get(path, …handlers)`, `app.all`, `app.use`, `app.on`,
// `fastify.route({ method, url, handler })`) and hand-written branches (`if (req.method === 'GET' &&
// url.pathname === '/sse')`, `switch (req.method)`) as in node:http servers and fetch handlers.
import { nodesOfKind } from './node-index';
import { Node, SyntaxKind, ts, type CallExpression, type Project, type PropertyAccessExpression, type SourceFile } from 'ts-morph';
import { otherReferencesOf } from './references';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS';
/** `any`: a method-agnostic registration (`app.all`, `app.use`, a branch with no method test). */
export type MethodSet = ReadonlySet<HttpMethod> | 'any';

export interface RouteCall {
  call: CallExpression;
  receiver: Node;
  methods: MethodSet;
  /** Path argument (absent for path-less `use`). */
  path?: Node;
  /** Arguments between the path and the final handler (middleware, options). */
  middlewares: Node[];
  /** The final handler argument as written. */
  handlerArg: Node;
  /** The function it resolves to, when it is one. */
  handler?: Node;
}

export interface RouteContext {
  /** Effective methods; `unknown` when the code is not reached from any route we can see. */
  methods: MethodSet | 'unknown';
  /** Path expressions constraining the code, innermost first. */
  paths: Node[];
  /** The route registrations the code is reached from. */
  routes: RouteCall[];
}

const CALL_METHODS: Record<string, MethodSet> = {
  get: new Set<HttpMethod>(['GET']),
  post: new Set<HttpMethod>(['POST']),
  put: new Set<HttpMethod>(['PUT']),
  patch: new Set<HttpMethod>(['PATCH']),
  delete: new Set<HttpMethod>(['DELETE']),
  del: new Set<HttpMethod>(['DELETE']),
  head: new Set<HttpMethod>(['HEAD']),
  options: new Set<HttpMethod>(['OPTIONS']),
  all: 'any',
  use: 'any',
};

const routeCache = new WeakMap<SourceFile, RouteCall[]>();

export function routeCalls(file: SourceFile): RouteCall[] {
  let cached = routeCache.get(file);
  if (!cached) {
    cached = nodesOfKind(file, SyntaxKind.CallExpression).flatMap((call) => asRouteCall(call) ?? []);
    routeCache.set(file, cached);
  }
  return cached;
}

export function isFunctionLike(node: Node | undefined): boolean {
  return (
    !!node &&
    (Node.isArrowFunction(node) || Node.isFunctionExpression(node) || Node.isFunctionDeclaration(node) || Node.isMethodDeclaration(node))
  );
}

function isPathLike(node: Node): boolean {
  return (
    Node.isStringLiteral(node) ||
    Node.isNoSubstitutionTemplateLiteral(node) ||
    Node.isTemplateExpression(node) ||
    Node.isIdentifier(node) ||
    Node.isPropertyAccessExpression(node) ||
    Node.isRegularExpressionLiteral(node) ||
    (Node.isArrayLiteralExpression(node) && node.getElements().every(isPathLike)) ||
    (Node.isBinaryExpression(node) && node.getOperatorToken().getKind() === SyntaxKind.PlusToken)
  );
}

/**
 * The function a handler argument denotes: itself, a named function (also imported), a class member
 * (`this.onPost`, `this.onPost.bind(this)`), or the function wrapped by `asyncHandler(fn)`.
 */
export function resolveHandler(arg: Node | undefined, depth = 0): Node | undefined {
  if (!arg || depth > 3) return undefined;
  if (isFunctionLike(arg)) return arg;
  if (Node.isParenthesizedExpression(arg) || Node.isAsExpression(arg) || Node.isNonNullExpression(arg)) {
    return resolveHandler(arg.getExpression(), depth + 1);
  }
  if (Node.isIdentifier(arg)) {
    for (const declaration of arg.getSymbol()?.getDeclarations() ?? []) {
      if (Node.isFunctionDeclaration(declaration)) return declaration;
      if (Node.isVariableDeclaration(declaration)) {
        const init = declaration.getInitializer();
        if (init) return resolveHandler(init, depth + 1);
      }
      if (Node.isImportSpecifier(declaration)) {
        const target = importedDeclaration(declaration);
        if (target) return resolveHandler(target, depth + 1);
      }
    }
    return undefined;
  }
  if (Node.isPropertyAccessExpression(arg)) {
    // `this.onPost` — a method (or an arrow-function property) of the enclosing class.
    if (arg.getExpression().getKind() === SyntaxKind.ThisKeyword) return classMember(arg, arg.getName());
    return objectMember(arg, depth);
  }
  if (Node.isCallExpression(arg)) {
    const callee = arg.getExpression();
    // `this.onPost.bind(this)`, `handler.bind(null)`
    if (Node.isPropertyAccessExpression(callee) && callee.getName() === 'bind') return resolveHandler(callee.getExpression(), depth + 1);
    // `asyncHandler(fn)`, `wrap(async (req, res) => …)`
    return arg.getArguments().find(isFunctionLike) ?? resolveHandler(arg.getArguments().find(Node.isIdentifier), depth + 1);
  }
  if (Node.isFunctionDeclaration(arg)) return arg;
  return undefined;
}

/** `handlers.stream` — a method (or a property holding a function) of an object literal (`const handlers = { stream() {…} }`). */
function objectMember(access: PropertyAccessExpression, depth: number): Node | undefined {
  // Asking the checker what a property access denotes means typing its object (`res.status(500).json`: the call, the
  // parameter, …), most of what resolving a handler costs. Only a member of some object literal counts, and a member
  // is declared under the name it is accessed by: when no project file declares one so named, there is none.
  if (!mayBeObjectLiteralMember(access.getSourceFile().getProject(), access.getName())) return undefined;
  for (const declaration of access.getSymbol()?.getDeclarations() ?? []) {
    if (!Node.isObjectLiteralExpression(declaration.getParent())) continue;
    if (Node.isMethodDeclaration(declaration)) return declaration;
    if (Node.isPropertyAssignment(declaration)) return resolveHandler(declaration.getInitializer(), depth + 1);
    if (Node.isShorthandPropertyAssignment(declaration)) return resolveHandler(declaration.getNameNode(), depth + 1);
  }
  return undefined;
}

/**
 * Some file of the project declares an object literal method, property or shorthand named `name`, or one with a
 * computed name that is not a literal (which may be any name).
 */
function mayBeObjectLiteralMember(project: Project, name: string): boolean {
  return project.getSourceFiles().some((file) => {
    const names = objectLiteralMemberNames(file);
    return names === ANY_NAME || names.has(name);
  });
}

const ANY_NAME = 'any';
const memberNames = new WeakMap<SourceFile, ReadonlySet<string> | typeof ANY_NAME>();

function objectLiteralMemberNames(file: SourceFile): ReadonlySet<string> | typeof ANY_NAME {
  let names = memberNames.get(file);
  if (!names) {
    const members = [
      ...nodesOfKind(file, SyntaxKind.PropertyAssignment),
      ...nodesOfKind(file, SyntaxKind.ShorthandPropertyAssignment),
      ...nodesOfKind(file, SyntaxKind.MethodDeclaration),
    ].filter((member) => Node.isObjectLiteralExpression(member.getParent()));
    const found = new Set<string>();
    for (const member of members) {
      const name = declaredName(member.compilerNode.name);
      if (name === undefined) {
        names = ANY_NAME;
        break;
      }
      found.add(name);
    }
    names ??= found;
    memberNames.set(file, names);
  }
  return names;
}

/** The name a member is declared under; undefined when it is computed from something other than a literal. */
function declaredName(name: ts.PropertyName): string | undefined {
  if (!ts.isComputedPropertyName(name)) return name.text;
  return ts.isStringLiteralLike(name.expression) || ts.isNumericLiteral(name.expression) ? name.expression.text : undefined;
}

/** A class member function by name: a method, or a property initialised with a function. */
function classMember(inside: Node, name: string): Node | undefined {
  const owner = inside.getFirstAncestor((a) => Node.isClassDeclaration(a) || Node.isClassExpression(a));
  if (!owner || !(Node.isClassDeclaration(owner) || Node.isClassExpression(owner))) return undefined;
  const method = owner.getMethod(name);
  if (method) return method;
  const property = owner.getProperty(name);
  const init = property?.getInitializer();
  return init && isFunctionLike(init) ? init : undefined;
}

/** For `import { x } from './local'`, the declaration of `x` in that project file. */
function importedDeclaration(specifier: Node): Node | undefined {
  if (!Node.isImportSpecifier(specifier)) return undefined;
  const file = specifier.getImportDeclaration().getModuleSpecifierSourceFile();
  if (!file) return undefined;
  const name = specifier.getNameNode().getText();
  const symbol = file.getExportSymbols().find((s) => s.getName() === name);
  const declaration = symbol?.getAliasedSymbol()?.getDeclarations()[0] ?? symbol?.getDeclarations()[0];
  if (!declaration) return undefined;
  if (Node.isVariableDeclaration(declaration)) return declaration.getInitializer();
  return declaration;
}

function asRouteCall(call: CallExpression): RouteCall | undefined {
  const callee = call.getExpression();
  if (!Node.isPropertyAccessExpression(callee)) return undefined;
  const name = callee.getName();
  const args = call.getArguments();
  const receiver = callee.getExpression();

  if (name === 'route' && args.length === 1 && Node.isObjectLiteralExpression(args[0])) {
    return fastifyRoute(call, receiver, args[0]);
  }
  if (name === 'on' && args.length >= 3 && isPathLike(args[1])) {
    const methods = methodsFromLiteral(args[0]);
    if (!methods) return undefined;
    return build(call, receiver, methods, args[1], args.slice(2));
  }
  const methods = CALL_METHODS[name];
  if (!methods || args.length === 0) return undefined;
  const chain = routeChain(receiver);
  if (chain) return build(call, chain.receiver, methods, chain.path, args);
  if (name === 'use' && args.length >= 1 && !isPathLike(args[0])) {
    // path-less middleware: app.use(handler)
    const handlerArg = args[args.length - 1];
    if (!isFunctionLike(resolveHandler(handlerArg))) return undefined;
    return { call, receiver, methods, middlewares: args.slice(0, -1), handlerArg, handler: resolveHandler(handlerArg) };
  }
  if (args.length < 2 || !isPathLike(args[0])) return undefined;
  return build(call, receiver, methods, args[0], args.slice(1));
}

/** express `app.route('/mcp').post(h).get(h)`: the path of the `.route(path)` call the chain starts from, and its receiver. */
function routeChain(receiver: Node): { path: Node; receiver: Node } | undefined {
  let current: Node = receiver;
  for (let i = 0; i < 12 && Node.isCallExpression(current); i++) {
    const callee = current.getExpression();
    if (!Node.isPropertyAccessExpression(callee)) return undefined;
    const args = current.getArguments();
    if (callee.getName() === 'route' && args.length === 1 && isPathLike(args[0]))
      return { path: args[0], receiver: callee.getExpression() };
    if (!CALL_METHODS[callee.getName()]) return undefined;
    current = callee.getExpression();
  }
  return undefined;
}

function build(call: CallExpression, receiver: Node, methods: MethodSet, path: Node, rest: Node[]): RouteCall | undefined {
  const handlerArg = rest[rest.length - 1];
  const handler = resolveHandler(handlerArg);
  // `map.get(key, fallback)`-like calls are not routes: require a function or a router/app to mount.
  if (
    !handler &&
    !(
      methods === 'any' &&
      (Node.isIdentifier(handlerArg) || Node.isCallExpression(handlerArg) || Node.isPropertyAccessExpression(handlerArg))
    )
  ) {
    return undefined;
  }
  return { call, receiver, methods, path, middlewares: rest.slice(0, -1), handlerArg, handler };
}

function fastifyRoute(call: CallExpression, receiver: Node, options: Node): RouteCall | undefined {
  if (!Node.isObjectLiteralExpression(options)) return undefined;
  const prop = (key: string) => {
    const p = options.getProperty(key);
    return p && Node.isPropertyAssignment(p) ? p.getInitializer() : p && Node.isMethodDeclaration(p) ? p : undefined;
  };
  const method = prop('method');
  const url = prop('url') ?? prop('path');
  const handlerArg = prop('handler');
  if (!method || !url || !handlerArg) return undefined;
  const methods = methodsFromLiteral(method);
  if (!methods) return undefined;
  return { call, receiver, methods, path: url, middlewares: [], handlerArg, handler: resolveHandler(handlerArg) };
}

function methodsFromLiteral(node: Node): MethodSet | undefined {
  const values = Node.isArrayLiteralExpression(node) ? node.getElements() : [node];
  const methods = new Set<HttpMethod>();
  for (const value of values) {
    if (!Node.isStringLiteral(value) && !Node.isNoSubstitutionTemplateLiteral(value)) return undefined;
    const text = value.getLiteralValue().toUpperCase();
    if (text === 'ALL' || text === '*') return 'any';
    methods.add(text as HttpMethod);
  }
  return methods;
}

/** Static string value of a path expression, when it has one (literals and `const` bindings, object constants). */
export function staticString(node: Node | undefined, depth = 0): string | undefined {
  if (!node || depth > 4) return undefined;
  // (`case 'GET /sse':` of a `switch (`${req.method} ${url.pathname}`)` stands for its path)
  const labelled = methodPathLabel(node);
  if (labelled) return labelled.path;
  if (Node.isStringLiteral(node) || Node.isNoSubstitutionTemplateLiteral(node)) return node.getLiteralValue();
  if (Node.isParenthesizedExpression(node) || Node.isAsExpression(node)) return staticString(node.getExpression(), depth + 1);
  if (Node.isIdentifier(node) || Node.isPropertyAccessExpression(node)) {
    const nameNode = Node.isPropertyAccessExpression(node) ? node.getNameNode() : node;
    for (const declaration of nameNode.getSymbol()?.getDeclarations() ?? []) {
      if (Node.isVariableDeclaration(declaration) || Node.isPropertyAssignment(declaration)) {
        const value = staticString(declaration.getInitializer(), depth + 1);
        if (value !== undefined) return value;
      }
    }
  }
  return undefined;
}

/**
 * The value a path expression most likely has: its static value, or the default of `env.X ?? '/mcp'` (directly or
 * through a const). For messages only; code keeps the expression.
 */
export function likelyString(node: Node | undefined, depth = 0): string | undefined {
  if (!node || depth > 4) return undefined;
  const value = staticString(node);
  if (value !== undefined) return value;
  if (Node.isBinaryExpression(node) && /^(?:\?\?|\|\|)$/.test(node.getOperatorToken().getText())) return staticString(node.getRight());
  if (Node.isIdentifier(node)) {
    const declaration = node.getSymbol()?.getDeclarations()[0];
    if (Node.isVariableDeclaration(declaration)) return likelyString(declaration.getInitializer(), depth + 1);
  }
  return undefined;
}

// ---- branch constraints ---------------------------------------------------------------------------

interface BranchConstraint {
  methods?: Set<HttpMethod>;
  paths: Node[];
}

const METHOD_EXPR = /(?:^|\.)method$/i;
const PATH_EXPR = /(?:^|[.\s(])(?:url|pathname|path|routePath|route)$/i;

/** `url.pathname`, `req.url`, `ctx.path`: an expression a path test compares. */
export function isPathSubject(expression: Node): boolean {
  return PATH_EXPR.test(expression.getText());
}

/** Positive method/path tests in an `if` condition (`&&`/`||` chains of `===` against literals). */
export function conditionConstraint(condition: Node): BranchConstraint {
  const constraint: BranchConstraint = { paths: [] };
  const visit = (node: Node) => {
    const n = Node.isParenthesizedExpression(node) ? node.getExpression() : node;
    if (Node.isBinaryExpression(n)) {
      const op = n.getOperatorToken().getKind();
      if (op === SyntaxKind.AmpersandAmpersandToken || op === SyntaxKind.BarBarToken) {
        visit(n.getLeft());
        visit(n.getRight());
        return;
      }
      if (op === SyntaxKind.EqualsEqualsEqualsToken || op === SyntaxKind.EqualsEqualsToken) {
        const [subject, literal] =
          Node.isStringLiteral(n.getRight()) || Node.isNoSubstitutionTemplateLiteral(n.getRight())
            ? [n.getLeft(), n.getRight()]
            : [n.getRight(), n.getLeft()];
        if (!(Node.isStringLiteral(literal) || Node.isNoSubstitutionTemplateLiteral(literal))) {
          // url.pathname === MCP_PATH
          if (PATH_EXPR.test(n.getLeft().getText())) constraint.paths.push(n.getRight());
          return;
        }
        const subjectText = subject.getText();
        if (METHOD_EXPR.test(subjectText)) {
          (constraint.methods ??= new Set()).add(literal.getLiteralValue().toUpperCase() as HttpMethod);
        } else if (PATH_EXPR.test(subjectText)) {
          constraint.paths.push(literal);
        }
      }
      return;
    }
    if (Node.isCallExpression(n)) {
      const callee = n.getExpression();
      if (
        Node.isPropertyAccessExpression(callee) &&
        /^(?:startsWith|endsWith|includes)$/.test(callee.getName()) &&
        PATH_EXPR.test(callee.getExpression().getText())
      ) {
        const [arg] = n.getArguments();
        if (arg) constraint.paths.push(arg);
      }
    }
  };
  visit(condition);
  return constraint;
}

/**
 * `${req.method} ${url.pathname}`: a switch subject that joins the method and the path with one space, as
 * hand-rolled routers do (`case 'GET /sse':`, `case 'POST /messages':`). Its method and path expressions.
 */
export function methodPathSubject(expression: Node): { method: Node; path: Node } | undefined {
  let e = expression;
  while (Node.isParenthesizedExpression(e) || Node.isAsExpression(e)) e = e.getExpression();
  if (!Node.isTemplateExpression(e) || e.getHead().getLiteralText() !== '') return undefined;
  const spans = e.getTemplateSpans();
  if (spans.length !== 2 || spans[0].getLiteral().getLiteralText() !== ' ' || spans[1].getLiteral().getLiteralText() !== '')
    return undefined;
  const [method, path] = spans.map((span) => span.getExpression());
  return METHOD_EXPR.test(method.getText()) && PATH_EXPR.test(path.getText()) ? { method, path } : undefined;
}

/** `case 'GET /sse':` of a switch on `${req.method} ${url.pathname}`: the method and the path it stands for. */
export function methodPathLabel(label: Node): { method: HttpMethod; path: string } | undefined {
  if (!(Node.isStringLiteral(label) || Node.isNoSubstitutionTemplateLiteral(label))) return undefined;
  const clause = label.getParent();
  if (!Node.isCaseClause(clause) || clause.getExpression() !== label) return undefined;
  const switchStatement = clause.getParent()?.getParent();
  if (!Node.isSwitchStatement(switchStatement) || !methodPathSubject(switchStatement.getExpression())) return undefined;
  const match = /^([A-Za-z]+) (\/\S*)$/.exec(label.getLiteralValue());
  return match ? { method: match[1].toUpperCase() as HttpMethod, path: match[2] } : undefined;
}

function switchCaseMethods(clause: Node): { methods?: Set<HttpMethod>; paths: Node[] } | undefined {
  if (!Node.isCaseClause(clause)) return undefined;
  const switchStatement = clause.getParent()?.getParent();
  if (!switchStatement || !Node.isSwitchStatement(switchStatement)) return undefined;
  const subject = switchStatement.getExpression().getText();
  const methodPath = !!methodPathSubject(switchStatement.getExpression());
  // `case 'GET': case 'DELETE': …` — empty clauses just before this one fall through into it.
  const clauses = switchStatement.getCaseBlock().getClauses();
  let first = clauses.indexOf(clause);
  while (first > 0 && Node.isCaseClause(clauses[first - 1]) && clauses[first - 1].getStatements().length === 0) first--;
  const literals: Node[] = [];
  const values: string[] = [];
  for (const c of clauses.slice(first, clauses.indexOf(clause) + 1)) {
    const expr = Node.isCaseClause(c) ? c.getExpression() : undefined;
    if (!expr || !(Node.isStringLiteral(expr) || Node.isNoSubstitutionTemplateLiteral(expr))) return undefined;
    literals.push(expr);
    values.push(expr.getLiteralValue());
  }
  if (methodPath) {
    // (`case 'GET /sse':` — its label is its path too: staticString reads the path out of it)
    const labels = literals.map((literal) => methodPathLabel(literal));
    if (labels.some((label) => !label)) return undefined;
    return { methods: new Set(labels.map((label) => label!.method)), paths: literals };
  }
  if (METHOD_EXPR.test(subject)) return { methods: new Set(values.map((v) => v.toUpperCase() as HttpMethod)), paths: [] };
  if (PATH_EXPR.test(subject)) return { paths: literals };
  return undefined;
}

/**
 * The route contexts that reach `node`: walk out through branches and the enclosing function; when the
 * function is a route handler, or a named function passed as one, take that route's method and path.
 */
export function routeContextsOf(node: Node, depth = 0): RouteContext[] {
  let methods: MethodSet | 'unknown' = 'unknown';
  const paths: Node[] = [];
  let child: Node = node;
  let current: Node | undefined = node.getParent();
  while (current) {
    if (Node.isIfStatement(current) && current.getThenStatement() === child) {
      const c = conditionConstraint(current.getExpression());
      if (c.methods && methods === 'unknown') methods = c.methods;
      paths.push(...c.paths);
    } else if (Node.isBlock(current)) {
      // `if (req.method !== 'POST') { res.writeHead(405).end(); return; }` before the code: only POST gets here.
      const guarded: Set<HttpMethod> | undefined = methods === 'unknown' ? guardMethods(current, child) : undefined;
      if (guarded) methods = guarded;
      // `if (url.pathname !== '/mcp') return new Response(null, { status: 404 });`: only /mcp gets here.
      paths.push(...guardPaths(current, child));
    } else if (Node.isCaseClause(current)) {
      const c = switchCaseMethods(current);
      if (c?.methods && methods === 'unknown') methods = c.methods;
      if (c) paths.push(...c.paths);
    } else if (isFunctionLike(current)) {
      const routes = routesForFunction(current, depth);
      if (routes.length > 0) {
        return routes.map((route) => ({
          methods: methods === 'unknown' ? route.methods : methods,
          paths: route.path ? [...paths, route.path] : paths,
          routes: [route],
        }));
      }
      const named = methodNamedHandler(current);
      if (named) {
        return [
          {
            methods: methods === 'unknown' ? new Set([named.method]) : methods,
            paths: named.path ? [...paths, named.path] : paths,
            routes: [],
          },
        ];
      }
      // A function that is not a route handler: keep walking out (closures inside a request handler, e.g. http.createServer callback).
    }
    child = current;
    current = current.getParent();
  }
  if (methods === 'unknown' && paths.length === 0) return [];
  return [{ methods: methods === 'unknown' && paths.length > 0 ? 'any' : methods, paths, routes: [] }];
}

/** Methods left by early-exit guards (`if (m !== 'POST') return …`) among the statements of `block` before `child`. */
function guardMethods(block: Node, child: Node): Set<HttpMethod> | undefined {
  if (!Node.isBlock(block)) return undefined;
  for (const statement of block.getStatements()) {
    if (statement === child) break;
    if (!Node.isIfStatement(statement) || statement.getElseStatement() || !exits(statement.getThenStatement())) continue;
    const condition = statement.getExpression();
    if (!Node.isBinaryExpression(condition)) continue;
    const op = condition.getOperatorToken().getKind();
    if (op !== SyntaxKind.ExclamationEqualsEqualsToken && op !== SyntaxKind.ExclamationEqualsToken) continue;
    const [subject, literal] = Node.isStringLiteral(condition.getRight())
      ? [condition.getLeft(), condition.getRight()]
      : [condition.getRight(), condition.getLeft()];
    if (Node.isStringLiteral(literal) && METHOD_EXPR.test(subject.getText()))
      return new Set([literal.getLiteralValue().toUpperCase() as HttpMethod]);
  }
  return undefined;
}

/** Paths left by early-exit guards (`if (url.pathname !== '/mcp') return …`) among the statements before `child`. */
function guardPaths(block: Node, child: Node): Node[] {
  if (!Node.isBlock(block)) return [];
  const paths: Node[] = [];
  for (const statement of block.getStatements()) {
    if (statement === child) break;
    const path = guardedPath(statement);
    if (path) paths.push(path);
  }
  return paths;
}

/**
 * `if (<path> !== '/mcp') <exit>` (no else): the path it lets through, else undefined. The path is a string literal,
 * or a name whose value is likely a path (`if (url.pathname !== MCP_PATH)`, `!== config.mcpPath`).
 */
export function guardedPath(statement: Node): Node | undefined {
  if (!Node.isIfStatement(statement) || statement.getElseStatement() || !exits(statement.getThenStatement())) return undefined;
  const condition = statement.getExpression();
  if (!Node.isBinaryExpression(condition)) return undefined;
  const op = condition.getOperatorToken().getKind();
  if (op !== SyntaxKind.ExclamationEqualsEqualsToken && op !== SyntaxKind.ExclamationEqualsToken) return undefined;
  const [left, right] = [condition.getLeft(), condition.getRight()];
  if (Node.isStringLiteral(right)) return isPathSubject(left) ? right : undefined;
  if (Node.isStringLiteral(left)) return isPathSubject(right) ? left : undefined;
  if (isPathSubject(left) && isPathName(right)) return right;
  if (isPathSubject(right) && isPathName(left)) return left;
  return undefined;
}

/** A constant or property whose likely value is a path (`MCP_PATH`, `config.path`). */
function isPathName(node: Node): boolean {
  return (Node.isIdentifier(node) || Node.isPropertyAccessExpression(node)) && !!likelyString(node)?.startsWith('/');
}

/** The statement always leaves the function (`return`/`throw`, or a block ending in one). */
export function exits(statement: Node): boolean {
  if (Node.isReturnStatement(statement) || Node.isThrowStatement(statement)) return true;
  if (Node.isBlock(statement)) {
    const last = statement.getStatements().at(-1);
    return !!last && (Node.isReturnStatement(last) || Node.isThrowStatement(last));
  }
  return false;
}

const UPPER_METHODS = new Set<string>(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);

/**
 * A handler named by its HTTP method: Next.js/SvelteKit route modules (`export async function GET(request)`,
 * `export const DELETE = …`) and Bun.serve `routes: { '/mcp': { GET: (req) => …, POST: … } }`.
 */
export function methodNamedHandler(fn: Node): { method: HttpMethod; path?: Node } | undefined {
  if (Node.isFunctionDeclaration(fn)) {
    const name = fn.getName();
    return name && UPPER_METHODS.has(name) && fn.isExported() ? { method: name as HttpMethod } : undefined;
  }
  const holder = Node.isMethodDeclaration(fn) ? fn : fn.getParent();
  if (!holder) return undefined;
  if (Node.isVariableDeclaration(holder) && UPPER_METHODS.has(holder.getName())) {
    const statement = holder.getVariableStatement();
    return statement?.isExported() ? { method: holder.getName() as HttpMethod } : undefined;
  }
  if ((Node.isPropertyAssignment(holder) || Node.isMethodDeclaration(holder)) && Node.isObjectLiteralExpression(holder.getParent())) {
    const name = holder.getName();
    if (!UPPER_METHODS.has(name)) return undefined;
    // `'/mcp': { GET: … }`: the enclosing property's key is the path.
    const outer = holder.getParent()?.getParent();
    const key = outer && Node.isPropertyAssignment(outer) ? outer.getNameNode() : undefined;
    const path =
      key && (Node.isStringLiteral(key) || Node.isNoSubstitutionTemplateLiteral(key)) && key.getLiteralValue().startsWith('/')
        ? key
        : undefined;
    return { method: name as HttpMethod, path };
  }
  return undefined;
}

function routesForFunction(fn: Node, depth: number): RouteCall[] {
  const file = fn.getSourceFile();
  const direct = routeCalls(file).filter(
    (route) => route.handler === fn || (route.handlerArg !== fn && isUnder(fn, route.handlerArg) && isWrapperCall(route.handlerArg)),
  );
  if (direct.length > 0 || depth > 2) return direct;
  // A named handler: find where it is passed to a route registration (same file, or files importing it).
  const nameNode = functionNameNode(fn);
  if (!nameNode) return [];
  const found: RouteCall[] = [];
  for (const reference of otherReferencesOf(nameNode)) {
    const routeFile = reference.getSourceFile();
    for (const route of routeCalls(routeFile)) {
      if (route.handlerArg === reference || route.middlewares.includes(reference) || isUnder(reference, route.handlerArg)) {
        found.push(route);
      }
    }
  }
  return found;
}

/**
 * `node` lies in `ancestor`'s subtree (its JSDoc included): `ancestor.getDescendants().includes(node)`, found up the
 * parent chain instead of by wrapping every node of the subtree (a whole inline handler, for every route of the file).
 */
function isUnder(node: Node, ancestor: Node): boolean {
  const target = ancestor.compilerNode;
  for (let up = node.compilerNode.parent; up; up = up.parent) if (up === target) return true;
  return false;
}

function isWrapperCall(node: Node): boolean {
  return Node.isCallExpression(node);
}

function functionNameNode(fn: Node): Node | undefined {
  if (Node.isFunctionDeclaration(fn)) return fn.getNameNode();
  const parent = fn.getParent();
  if (parent && Node.isVariableDeclaration(parent) && Node.isIdentifier(parent.getNameNode())) return parent.getNameNode();
  return undefined;
}

export function methodsInclude(methods: MethodSet | 'unknown', method: HttpMethod): boolean {
  return methods === 'any' || (methods !== 'unknown' && methods.has(method));
}
