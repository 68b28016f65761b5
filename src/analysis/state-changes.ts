// Where code changes what a value holds: assignments, updates and deletes through it, mutator calls on it
// (`list.push(…)`), methods of the project that change their `this`, and functions of the project that change the
// parameter it is handed to. Read by the session-state rule (state a tool changes is state a session kept).
import { Node, SyntaxKind, type CallExpression, type PropertyAccessExpression, type Symbol as MorphSymbol } from 'ts-morph';
import { descendantsOfKind, identifiersReferringTo, thisUnder } from './node-index';
import { isFunctionNode, rootOf, type FunctionNode } from './endpoints/spans';

// (`next` advances an iterator or generator: `ids.next()` moves a per-session sequence on)
const MUTATORS = /^(?:push|pop|shift|unshift|splice|set|delete|add|clear|sort|reverse|fill|next)$/;
const ASSIGNMENT = /^(?:[-+*/%&|^]|\*\*|<<|>>>?|&&|\|\||\?\?)?=$/;
/** How deep calls are followed to see whether they change what they are handed. */
const MAX_CHANGE_DEPTH = 2;
/** How deep a destructuring assignment's pattern is followed. */
const MAX_PATTERN_DEPTH = 8;

/**
 * What `node` holds changes here: `node = …`, `node.a.b = …`, `node.count++`, `delete node[k]`, `node.list.push(…)`,
 * a method of the project that changes its `this` (`node.record(…)`), or a function of the project that changes
 * the parameter `node` (or part of it) is handed to (`tool.run(args, node)`).
 */
export function changedAt(node: Node, depth = 0, unreadable = false): boolean {
  let target = node;
  // (through members and the wrappers around them: `state!.items`, `(list as string[]).push(…)`)
  for (
    let up = target.getParent();
    (Node.isPropertyAccessExpression(up) ||
      Node.isElementAccessExpression(up) ||
      Node.isNonNullExpression(up) ||
      Node.isParenthesizedExpression(up) ||
      Node.isAsExpression(up)) &&
    up.getExpression() === target;
    up = target.getParent()
  )
    target = up;
  const parent = target.getParent();
  if (Node.isBinaryExpression(parent) && parent.getLeft() === target) return ASSIGNMENT.test(parent.getOperatorToken().getText());
  if (assignedByDestructuring(target)) return true;
  if (Node.isPrefixUnaryExpression(parent) || Node.isPostfixUnaryExpression(parent)) return /\+\+|--/.test(parent.getText());
  if (Node.isDeleteExpression(parent)) return true;
  if (!Node.isCallExpression(parent) || depth >= MAX_CHANGE_DEPTH) return false;
  if (parent.getExpression() === target && Node.isPropertyAccessExpression(target) && target !== node)
    return MUTATORS.test(target.getName()) || methodChangesThis(target, depth + 1);
  const index = parent.getArguments().indexOf(target);
  // Object.assign(state, { … }) changes its first argument.
  if (index === 0 && /^Object\.assign$/.test(parent.getExpression().getText())) return true;
  const changes = index >= 0 ? callChangesArgument(parent, index, depth + 1) : false;
  return changes ?? unreadable;
}

/** `[prev, last] = [last, t]`, `({ total } = next)`, `for (last of items)`: a destructuring assignment writes it. */
function assignedByDestructuring(target: Node): boolean {
  let node = target;
  for (let depth = 0; depth < MAX_PATTERN_DEPTH; depth++) {
    const parent = node.getParent();
    if ((Node.isForOfStatement(parent) || Node.isForInStatement(parent)) && parent.getInitializer() === node) return true;
    if (Node.isBinaryExpression(parent) && parent.getLeft() === node)
      return node !== target && parent.getOperatorToken().getKind() === SyntaxKind.EqualsToken;
    const inPattern =
      Node.isArrayLiteralExpression(parent) ||
      Node.isObjectLiteralExpression(parent) ||
      Node.isShorthandPropertyAssignment(parent) ||
      Node.isSpreadElement(parent) ||
      Node.isSpreadAssignment(parent) ||
      (Node.isPropertyAssignment(parent) && parent.getInitializer() === node);
    if (!inPattern) return false;
    node = parent;
  }
  return false;
}

/**
 * `conversation.record(turn)` runs a method of the project that changes `this` (`this.turns.push(…)`), or the state
 * it closes over: `tally.bump(key)` where `createTally()` returned `{ bump(key) { counts.set(…) } }` around its own
 * `counts`.
 */
function methodChangesThis(method: PropertyAccessExpression, depth: number): boolean {
  let declaration: Node | undefined = method.getNameNode().getSymbol()?.getDeclarations()[0];
  if (!declaration || declaration.getSourceFile().isDeclarationFile()) return false;
  if (Node.isMethodDeclaration(declaration) && thisUnder(declaration).some((self) => changedAt(self, depth))) return true;
  if (Node.isPropertyAssignment(declaration)) declaration = declaration.getInitializer();
  return isFunctionNode(declaration) && changesCapturedState(declaration, depth);
}

/**
 * The function changes a variable it closes over that a function around it declares (a factory's local, made again
 * on each of its calls): state the object it belongs to carries. Variables at module level are one per process, and
 * its own locals are new on each call; neither counts.
 */
export function changesCapturedState(fn: FunctionNode, depth: number): boolean {
  for (const id of fn.getBody()?.getDescendantsOfKind(SyntaxKind.Identifier) ?? []) {
    const declaration = id.getSymbol()?.getDeclarations()[0];
    if (!Node.isVariableDeclaration(declaration) && !Node.isParameterDeclaration(declaration)) continue;
    if (declaration.getSourceFile() !== fn.getSourceFile() || fn.containsRange(declaration.getPos(), declaration.getEnd())) continue;
    const owner = declaration.getFirstAncestor((a) => isFunctionNode(a));
    if (!owner || !owner.containsRange(fn.getPos(), fn.getEnd())) continue;
    if (changedAt(id, depth)) return true;
  }
  return false;
}

/**
 * A function the code calls by name (`setUnit(u)`, `remember(entry)`: a local function of the factory, or a
 * function of the project) changes the variable `symbol` names, directly or through the functions it calls by name.
 */
export function callChangesVariable(call: CallExpression, symbol: MorphSymbol | undefined, depth = 0): boolean {
  if (!symbol || depth >= MAX_CHANGE_DEPTH) return false;
  const callee = call.getExpression();
  if (!Node.isIdentifier(callee)) return false;
  let fn: Node | undefined = callee.getSymbol()?.getDeclarations()[0];
  if (Node.isVariableDeclaration(fn)) fn = fn.getInitializer();
  if (!isFunctionNode(fn) || fn.getSourceFile().isDeclarationFile()) return false;
  const body = fn.getBody();
  if (!body) return false;
  if (identifiersReferringTo(body, symbol).some((id) => changedAt(id, depth + 1))) return true;
  return descendantsOfKind(body, SyntaxKind.CallExpression).some((inner) => callChangesVariable(inner, symbol, depth + 1));
}

/**
 * The project function `call` runs changes the parameter its argument `index` arrives in; `undefined` when the callee
 * cannot be read (no declaration: an untyped package, an element of an array the analysis has no type for).
 */
function callChangesArgument(call: CallExpression, argument: number, depth: number): boolean | undefined {
  let callee = call.getExpression();
  let index = argument;
  // addItem.bind(null, items): the arguments after `this` arrive in addItem's parameters, in order
  if (Node.isPropertyAccessExpression(callee) && callee.getName() === 'bind') {
    callee = callee.getExpression();
    index -= 1;
    if (index < 0) return false;
  }
  const named = Node.isPropertyAccessExpression(callee) ? callee.getNameNode() : callee;
  let fn: Node | undefined = named.getSymbol()?.getDeclarations()[0];
  // (a global the analysis has no declaration for, `JSON.stringify`, `console.log`, reads what it is handed)
  if (!fn) return rootOf(callee).getSymbol()?.getDeclarations().length ? undefined : false;
  if (Node.isVariableDeclaration(fn) || Node.isPropertyAssignment(fn)) fn = fn.getInitializer();
  if (!isFunctionNode(fn) || fn.getSourceFile().isDeclarationFile()) return false;
  const parameter = fn.getParameters()[index];
  if (!Node.isParameterDeclaration(parameter) || !Node.isIdentifier(parameter.getNameNode())) return false;
  const symbol = parameter.getSymbol();
  const body = fn.getBody();
  return !!body && identifiersReferringTo(body, symbol).some((id) => id !== parameter.getNameNode() && changedAt(id, depth));
}

/** `{ … }`, `[ … ]`, `new Map()`: a container made here, whose contents only its holders change. */
export function isFreshContainer(node: Node | undefined): boolean {
  return (
    Node.isObjectLiteralExpression(node) ||
    Node.isArrayLiteralExpression(node) ||
    (Node.isNewExpression(node) && /^(?:Map|Set|WeakMap|Array|Object)$/.test(node.getExpression().getText()))
  );
}
