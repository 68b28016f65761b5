// A memoised server getter: a function whose only job is to build, configure and cache one server in a module
// variable (`if (server) return server; server = new McpServer(…); registerTools(server); return server;`). Every
// request that calls it gets the same server. When nothing else reads the variable, the getter can build a fresh
// server per call instead (the cache and its variable go); when something does, this names the reader.
import { Node, SyntaxKind, type CallExpression, type Statement } from 'ts-morph';
import { descendantsOfKind } from '../node-index';
import type { CachedServerGetter } from './model';
import {
  contains,
  declarationOf,
  firstLine,
  functionNameNode,
  isFunctionNode,
  referencesTo,
  spanOf,
  statementOf,
  unwrapExpression,
  type FunctionNode,
  type RelPathOf,
} from './spans';

/**
 * What the call's callee is: not a memoising getter (undefined); one in a shape the migration rewrites (the plan's
 * getter, with a blocker when other code reads its cache); or one it does not rewrite (why, as a sentence).
 */
export function cachedGetterOf(call: CallExpression, region: Node, relPath: RelPathOf): CachedServerGetter | string | undefined {
  const fn = calledFunction(call);
  const cache = fn && cachedVariable(fn);
  if (!fn || !cache) return undefined;
  const name = call.getExpression().getText();
  const handsOut = `\`${name}()\` hands out one cached server (\`${cache.getText()}\`) to every request`;
  const shape = getterShape(fn);
  if (!shape) return `${handsOut}; make it build a fresh one per call first`;
  const { variable, guard, assignment } = shape;
  const getter: CachedServerGetter = {
    name,
    fn: spanOf(fn, relPath),
    variable: variable.getName(),
    declaration: spanOf(variable, relPath),
    guard: spanOf(guard, relPath),
    assignment: spanOf(assignment, relPath),
  };
  const reader = readerOf(variable.getNameNode(), fn) ?? serverUserOf(fn, region);
  if (reader) {
    const { node, reads } = reader;
    const where = `${relPath(node.getSourceFile())}:${node.getStartLineNumber()}`;
    const what =
      reads === 'variable' ? `reads \`${getter.variable}\`` : `uses the server \`${name}()\` returns for more than connecting it`;
    getter.blocker = `${handsOut}, and \`${firstLine(statementOf(node) ?? node)}\` (${where}) ${what}, which would no longer be the server a client is connected to; make that code do without the one cached server first, then \`${name}()\` can build a fresh one per call`;
  }
  return getter;
}

/** The function a call runs, through imports: a function declaration, or a variable holding an arrow or function. */
function calledFunction(call: CallExpression): FunctionNode | undefined {
  const callee = call.getExpression();
  if (!Node.isIdentifier(callee)) return undefined;
  const declaration = declarationOf(callee);
  const fn = Node.isVariableDeclaration(declaration) ? declaration.getInitializer() : declaration;
  return fn && isFunctionNode(fn) && !Node.isMethodDeclaration(fn) ? fn : undefined;
}

/** The outer variable the function returns (`return cached`), if it returns one: the mark of a memoiser. */
function cachedVariable(fn: FunctionNode): Node | undefined {
  for (const statement of descendantsOfKind(fn, SyntaxKind.ReturnStatement)) {
    if (statement.getFirstAncestor(isFunctionNode) !== fn) continue;
    const value = statement.getExpression();
    const returned = value && Node.isIdentifier(value) ? value.getSymbol()?.getDeclarations()[0] : undefined;
    if (returned && Node.isVariableDeclaration(returned) && !contains(fn, returned)) return value;
  }
  return undefined;
}

/**
 * The getter is exactly: the guard that hands out the cached server, the assignment that builds it, statements that
 * configure it, and `return <variable>;` — the variable a module-level `let` of its own, with no value or an empty one.
 */
function getterShape(
  fn: FunctionNode,
): { variable: Node & { getName(): string; getNameNode(): Node }; guard: Statement; assignment: Statement } | undefined {
  const body = fn.getBody();
  if (!body || !Node.isBlock(body)) return undefined;
  const statements = body.getStatements();
  const [guard, assignment] = statements;
  const last = statements.at(-1);
  if (statements.length < 3 || !last || !Node.isReturnStatement(last)) return undefined;
  const returned = last.getExpression();
  const variable = returned && Node.isIdentifier(returned) ? returned.getSymbol()?.getDeclarations()[0] : undefined;
  if (!Node.isVariableDeclaration(variable) || !Node.isIdentifier(variable.getNameNode())) return undefined;
  const declared = variable.getVariableStatement();
  const empty = variable.getInitializer();
  if (
    !declared ||
    !Node.isSourceFile(declared.getParent()) ||
    declared.getDeclarationKind() !== 'let' ||
    declared.getDeclarations().length !== 1 ||
    (empty && !/^(?:null|undefined)$/.test(empty.getText()))
  )
    return undefined;
  const symbol = variable.getNameNode().getSymbol();
  const isVariable = (node: Node | undefined) =>
    !!node && Node.isIdentifier(unwrapExpression(node)) && unwrapExpression(node).getSymbol() === symbol;
  if (!isCacheGuard(guard, isVariable) || !isBuild(assignment, isVariable)) return undefined;
  // The statements between configure the server: no other return, and no other write of the variable.
  for (const statement of statements.slice(2, -1)) {
    if (descendantsOfKind(statement, SyntaxKind.ReturnStatement).some((r) => r.getFirstAncestor(isFunctionNode) === fn)) return undefined;
    if (descendantsOfKind(statement, SyntaxKind.BinaryExpression).some((b) => isAssignmentTo(b, isVariable))) return undefined;
  }
  return { variable, guard, assignment };
}

/** `if (cached) return cached;` (or `{ return cached; }`, or the test `cached != null` / `!== undefined`), no else. */
function isCacheGuard(statement: Node, isVariable: (node: Node | undefined) => boolean): boolean {
  if (!Node.isIfStatement(statement) || statement.getElseStatement()) return false;
  const test = unwrapExpression(statement.getExpression());
  const tested =
    isVariable(test) ||
    (Node.isBinaryExpression(test) &&
      /^!==?$/.test(test.getOperatorToken().getText()) &&
      isVariable(test.getLeft()) &&
      /^(?:null|undefined)$/.test(test.getRight().getText()));
  let then = statement.getThenStatement();
  if (Node.isBlock(then) && then.getStatements().length === 1) then = then.getStatements()[0];
  return tested && Node.isReturnStatement(then) && isVariable(then.getExpression());
}

/** `cached = new McpServer(…);` or `cached = createServer(…);` (awaited or not). */
function isBuild(statement: Node, isVariable: (node: Node | undefined) => boolean): boolean {
  if (!Node.isExpressionStatement(statement)) return false;
  const expression = statement.getExpression();
  if (!Node.isBinaryExpression(expression) || !isAssignmentTo(expression, isVariable)) return false;
  const made = unwrapExpression(expression.getRight());
  return Node.isNewExpression(made) || Node.isCallExpression(made);
}

function isAssignmentTo(binary: Node, isVariable: (node: Node | undefined) => boolean): boolean {
  return Node.isBinaryExpression(binary) && binary.getOperatorToken().getKind() === SyntaxKind.EqualsToken && isVariable(binary.getLeft());
}

/** Code that needs the one cached server: it reads the variable, or uses what the getter returns beyond connecting it. */
interface Reader {
  node: Node;
  reads: 'variable' | 'getter';
}

/** The first reference to the cache variable outside the getter (in any file: an import is a reader too). */
function readerOf(nameNode: Node, fn: FunctionNode): Reader | undefined {
  const reader = referencesTo(nameNode).find((ref) => !contains(fn, ref));
  return reader && { node: reader, reads: 'variable' };
}

/**
 * A call of the getter outside the request handler whose server is used for more than connecting (or closing) it:
 * `getServer().server.notification(…)` needs the one server every client is connected to.
 */
function serverUserOf(fn: FunctionNode, region: Node): Reader | undefined {
  const nameNode = functionNameNode(fn);
  if (!nameNode) return undefined;
  for (const ref of referencesTo(nameNode)) {
    const call = ref.getParent();
    if (!Node.isCallExpression(call) || call.getExpression() !== ref || contains(region, call)) continue;
    if (!onlyConnected(call)) return { node: call, reads: 'getter' };
  }
  return undefined;
}

/** `getServer().connect(t)`, or `const s = getServer()` with `s` only connected or closed. */
function onlyConnected(call: CallExpression): boolean {
  let use: Node | undefined = call.getParent();
  while (use && (Node.isAwaitExpression(use) || Node.isParenthesizedExpression(use))) use = use.getParent();
  if (Node.isPropertyAccessExpression(use)) return /^(?:connect|close)$/.test(use.getName());
  if (!Node.isVariableDeclaration(use) || !Node.isIdentifier(use.getNameNode())) return false;
  const uses = referencesTo(use.getNameNode());
  return uses.every((id) => {
    const access = id.getParent();
    return Node.isPropertyAccessExpression(access) && access.getExpression() === id && /^(?:connect|close)$/.test(access.getName());
  });
}

/**
 * A method of a project class whose every `return` hands out a field of its instance (`getServer() { return
 * this.server; }`), called on an instance the handler does not make (`this.mcpService.getServer()`, a service injected
 * into the controller): every request gets the one server that instance holds. Why, as a sentence; undefined when
 * the call is not such a getter.
 */
export function heldServerOf(call: CallExpression, region: Node): string | undefined {
  const callee = call.getExpression();
  if (!Node.isPropertyAccessExpression(callee)) return undefined;
  const owner = unwrapExpression(callee.getExpression());
  // (an instance the handler made itself, `new Builder().getServer()`, is its own)
  if (Node.isNewExpression(owner) || Node.isCallExpression(owner)) return undefined;
  const ownerDeclaration = Node.isIdentifier(owner) ? declarationOf(owner) : undefined;
  if (ownerDeclaration && contains(region, ownerDeclaration)) return undefined;
  const [method] = callee.getNameNode().getSymbol()?.getDeclarations() ?? [];
  if (!method || !Node.isMethodDeclaration(method)) return undefined;
  const owningClass = method.getParent();
  if (!Node.isClassDeclaration(owningClass) || method.isStatic() || method.getSourceFile().isInNodeModules()) return undefined;
  if (method.getSourceFile().isDeclarationFile()) return undefined;
  const returns = descendantsOfKind(method, SyntaxKind.ReturnStatement).filter((r) => r.getFirstAncestor(isFunctionNode) === method);
  if (returns.length === 0) return undefined;
  const fields = new Set<string>();
  for (const statement of returns) {
    const value = statement.getExpression() && unwrapExpression(statement.getExpression()!);
    if (!value || !Node.isPropertyAccessExpression(value) || value.getExpression().getKind() !== SyntaxKind.ThisKeyword) return undefined;
    fields.add(value.getName());
  }
  if (fields.size !== 1) return undefined;
  const [field] = fields;
  // Where the field is given its server (`this.server = new McpServer(…)` in `onModuleInit`), to name it.
  const assignment = descendantsOfKind(owningClass, SyntaxKind.BinaryExpression).find((b) => {
    const left = b.getLeft();
    return (
      b.getOperatorToken().getKind() === SyntaxKind.EqualsToken &&
      Node.isPropertyAccessExpression(left) &&
      left.getName() === field &&
      left.getExpression().getKind() === SyntaxKind.ThisKeyword
    );
  });
  const builtIn = assignment?.getFirstAncestor(isFunctionNode);
  const builtName = builtIn && Node.isMethodDeclaration(builtIn) ? ` (built in \`${builtIn.getName()}\`)` : '';
  const className = owningClass.getName() ?? 'its class';
  return (
    `\`${callee.getText()}()\` returns \`this.${field}\`, the one server a \`${className}\` instance holds${builtName}: give ` +
    `\`${className}\` a method that builds a fresh server per call (registering on it every tool the class and its callers add to ` +
    `\`this.${field}\`), call that per request, then apply again`
  );
}
