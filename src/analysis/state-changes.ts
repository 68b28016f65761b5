// Where code changes what a value holds: assignments, updates and deletes through it, mutator calls on it
// (`list.push(…)`), methods of the project that change their `this`, and functions of the project that change the
// parameter it is handed to. Read by the session-state rule (state a tool changes is state a session kept).
import { Node, SyntaxKind, type CallExpression, type PropertyAccessExpression } from 'ts-morph';
import { isFunctionNode, rootOf } from './endpoints/spans';

const MUTATORS = /^(?:push|pop|shift|unshift|splice|set|delete|add|clear|sort|reverse|fill)$/;
const ASSIGNMENT = /^(?:[-+*/%&|^]|\*\*|<<|>>>?|&&|\|\||\?\?)?=$/;
/** How deep calls are followed to see whether they change what they are handed. */
const MAX_CHANGE_DEPTH = 2;

/**
 * What `node` holds changes here: `node = …`, `node.a.b = …`, `node.count++`, `delete node[k]`, `node.list.push(…)`,
 * a method of the project that changes its `this` (`node.record(…)`), or a function of the project that changes
 * the parameter `node` (or part of it) is handed to (`tool.run(args, node)`).
 */
export function changedAt(node: Node, depth = 0, unreadable = false): boolean {
  let target = node;
  for (
    let up = target.getParent();
    (Node.isPropertyAccessExpression(up) || Node.isElementAccessExpression(up)) && up.getExpression() === target;
    up = target.getParent()
  )
    target = up;
  const parent = target.getParent();
  if (Node.isBinaryExpression(parent) && parent.getLeft() === target) return ASSIGNMENT.test(parent.getOperatorToken().getText());
  if (Node.isPrefixUnaryExpression(parent) || Node.isPostfixUnaryExpression(parent)) return /\+\+|--/.test(parent.getText());
  if (Node.isDeleteExpression(parent)) return true;
  if (!Node.isCallExpression(parent) || depth >= MAX_CHANGE_DEPTH) return false;
  if (parent.getExpression() === target && Node.isPropertyAccessExpression(target) && target !== node)
    return MUTATORS.test(target.getName()) || methodChangesThis(target, depth + 1);
  const index = parent.getArguments().indexOf(target);
  const changes = index >= 0 ? callChangesArgument(parent, index, depth + 1) : false;
  return changes ?? unreadable;
}

/** `conversation.record(turn)` runs a method of the project that changes `this` (`this.turns.push(…)`). */
function methodChangesThis(method: PropertyAccessExpression, depth: number): boolean {
  const declaration = method.getNameNode().getSymbol()?.getDeclarations()[0];
  if (!Node.isMethodDeclaration(declaration) || declaration.getSourceFile().isDeclarationFile()) return false;
  return declaration.getDescendantsOfKind(SyntaxKind.ThisKeyword).some((self) => changedAt(self, depth));
}

/**
 * The project function `call` runs changes the parameter its argument `index` arrives in; `undefined` when the callee
 * cannot be read (no declaration: an untyped package, an element of an array the analysis has no type for).
 */
function callChangesArgument(call: CallExpression, index: number, depth: number): boolean | undefined {
  const callee = call.getExpression();
  const named = Node.isPropertyAccessExpression(callee) ? callee.getNameNode() : callee;
  let fn: Node | undefined = named.getSymbol()?.getDeclarations()[0];
  // (a global the analysis has no declaration for, `JSON.stringify`, `console.log`, reads what it is handed)
  if (!fn) return rootOf(callee).getSymbol()?.getDeclarations().length ? undefined : false;
  if (Node.isVariableDeclaration(fn) || Node.isPropertyAssignment(fn)) fn = fn.getInitializer();
  if (!isFunctionNode(fn) || fn.getSourceFile().isDeclarationFile()) return false;
  const parameter = fn.getParameters()[index];
  if (!Node.isParameterDeclaration(parameter) || !Node.isIdentifier(parameter.getNameNode())) return false;
  const symbol = parameter.getSymbol();
  return (fn.getBody()?.getDescendantsOfKind(SyntaxKind.Identifier) ?? []).some(
    (id) => id.getSymbol() === symbol && id !== parameter.getNameNode() && changedAt(id, depth),
  );
}

/** `{ … }`, `[ … ]`, `new Map()`: a container made here, whose contents only its holders change. */
export function isFreshContainer(node: Node | undefined): boolean {
  return (
    Node.isObjectLiteralExpression(node) ||
    Node.isArrayLiteralExpression(node) ||
    (Node.isNewExpression(node) && /^(?:Map|Set|WeakMap|Array|Object)$/.test(node.getExpression().getText()))
  );
}
