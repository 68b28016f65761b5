// A server held in a class field (`private readonly server = new McpServer(…)`, configured in the constructor) and
// `connect()`ed per connection: every client shares it. The field and the constructor statements that configure it
// can become a factory method of the class (`this.createMcpServer()`), when nothing but request handlers that connect
// it per request uses the field; otherwise this names the use that keeps it.
import {
  Node,
  SyntaxKind,
  type ClassDeclaration,
  type ClassExpression,
  type ConstructorDeclaration,
  type Identifier,
  type MethodDeclaration,
  type PropertyAccessExpression,
} from 'ts-morph';
import { descendantsOfKind } from '../node-index';
import type { FileFacts } from '../file-facts';
import { resolveHandler } from '../routes';
import type { ServerHoist, Span } from './model';
import {
  contains,
  firstLine,
  freeName,
  isFunctionNode,
  SERVER_CONFIG_METHODS,
  spanOf,
  statementOf,
  unwrapExpression,
  type FunctionNode,
  type RelPathOf,
} from './spans';
import { referencesOf } from '../references';

export function fieldHoist(
  access: PropertyAccessExpression,
  facts: FileFacts,
  relPath: RelPathOf,
): { hoist?: ServerHoist; blocker?: string } {
  const reference = access.getText();
  const field = access.getNameNode().getSymbol()?.getDeclarations()[0];
  const owner = field?.getParent();
  if (
    !Node.isPropertyDeclaration(field) ||
    field.isStatic() ||
    !Node.isIdentifier(field.getNameNode()) ||
    !(Node.isClassDeclaration(owner) || Node.isClassExpression(owner))
  )
    return { blocker: `\`${reference}\` is one server shared by every request, declared where mcp-migrate cannot turn it into a factory` };
  const name = field.getName();
  const assigned = field.getInitializer() ? undefined : assignedOnce(owner, name);
  const made = field.getInitializer() ?? assigned?.value;
  if (!made)
    return {
      blocker: `\`${reference}\` is declared without a value and not made by one \`${reference} = …\` statement of the class's constructor or methods`,
    };
  const handedIn = assigned && handedInAs(made, assigned.method);
  if (handedIn)
    return {
      blocker:
        `\`${reference}\` is the server handed to \`${handedIn}\` (${relPath(assigned.statement.getSourceFile())}:${assigned.statement.getStartLineNumber()}), ` +
        `one instance for every connection: take a function that builds a server there instead, and call it per request`,
    };
  if (!isMadeByCall(made)) return { blocker: `\`${reference}\` is not made by a constructor or factory call where it is declared` };
  // (configured where it is made: in the constructor, or in the method that assigns it)
  const configurer = assigned?.method ?? owner.getConstructors().find((c) => !!c.getBody());
  const setup = (configurer?.getStatements() ?? []).filter((s) => s !== assigned?.statement && usesField(s, name));
  const unmovable = setup.find((s) => !isFieldSetup(s, name) || usesConstructorScope(s, configurer!));
  if (unmovable)
    return { blocker: `\`${reference}\` is configured by \`${firstLine(unmovable)}\`, which cannot move into a factory method` };
  if (assigned && setup.some((s) => s.getStart() < assigned.statement.getStart()))
    return { blocker: `\`${reference}\` is used before \`${firstLine(assigned.statement)}\` makes it` };
  const nameNode = field.getNameNode() as Identifier;
  const other = referencesOf(nameNode).find(
    (ref) =>
      ref !== nameNode &&
      !setup.some((s) => contains(s, ref)) &&
      !(assigned && contains(assigned.statement, ref)) &&
      !connectedPerRequest(ref, facts),
  );
  if (other) {
    const at = `${relPath(other.getSourceFile())}:${other.getStartLineNumber()}`;
    return {
      blocker: `\`${reference}\` is one server kept in a class field and connected to every request, and \`${firstLine(statementOf(other) ?? other)}\` (${at}) uses it too, which would no longer be the server a client is connected to; make that code do without the one shared server first, then the field can become a factory method`,
    };
  }
  return {
    hoist: {
      file: relPath(field.getSourceFile()),
      declaration: spanOf(field, relPath),
      variable: name,
      factory: freeName('createMcpServer', [field.getSourceFile()]),
      exported: false,
      setup: setup.map((s) => spanOf(s, relPath)),
      keepsInstance: false,
      field: {
        after: spanOf(assigned?.method ?? configurer ?? field, relPath),
        ...(assigned ? { assignment: spanOf(assigned.statement, relPath) } : {}),
        ...(assigned ? emptiedMethod(assigned.method, [assigned.statement, ...setup], relPath) : {}),
      },
    },
  };
}

/**
 * A method (`setupServer()`) that only made and configured the server is left empty: it goes, with the statements
 * that call it (`this.setupServer();`), when those are its only uses.
 */
function emptiedMethod(
  method: MethodDeclaration | ConstructorDeclaration,
  moved: Node[],
  relPath: RelPathOf,
): { emptied?: { method: Span; calls: Span[] } } {
  if (!Node.isMethodDeclaration(method) || method.getStatements().some((s) => !moved.includes(s))) return {};
  const nameNode = method.getNameNode();
  if (!Node.isIdentifier(nameNode)) return {};
  const calls = referencesOf(nameNode).filter((ref) => ref !== nameNode);
  const statements = calls.map((ref) => {
    const access = ref.getParent();
    const call = access?.getParent();
    const statement = call?.getParent();
    const plain =
      Node.isPropertyAccessExpression(access) &&
      access.getExpression().getKind() === SyntaxKind.ThisKeyword &&
      Node.isCallExpression(call) &&
      call.getArguments().length === 0 &&
      Node.isExpressionStatement(statement);
    return plain ? statement : undefined;
  });
  if (statements.length === 0 || statements.some((s) => !s)) return {};
  return { emptied: { method: spanOf(method, relPath), calls: statements.map((s) => spanOf(s!, relPath)) } };
}

function isMadeByCall(made: Node): boolean {
  const call = unwrapExpression(made);
  return (Node.isNewExpression(call) || Node.isCallExpression(call)) && !Node.isAwaitExpression(made);
}

/**
 * `private server!: Server;` made by one `this.server = new Server(…)` statement of the class, in the constructor or
 * in a method (`setupServer()`): that statement, its value and the method; undefined when it is made anywhere else or
 * more than once.
 */
function assignedOnce(
  owner: ClassDeclaration | ClassExpression,
  name: string,
): { statement: Node; value: Node; method: MethodDeclaration | ConstructorDeclaration } | undefined {
  const writes = descendantsOfKind(owner, SyntaxKind.BinaryExpression).filter(
    (b) => Node.isBinaryExpression(b) && b.getOperatorToken().getKind() === SyntaxKind.EqualsToken && isFieldAccess(b.getLeft(), name),
  );
  if (writes.length !== 1 || !Node.isBinaryExpression(writes[0])) return undefined;
  const statement = writes[0].getParent();
  const method = statement?.getParent()?.getParent();
  if (!Node.isExpressionStatement(statement) || !(Node.isMethodDeclaration(method) || Node.isConstructorDeclaration(method)))
    return undefined;
  if (method.getParent() !== owner || (Node.isMethodDeclaration(method) && method.isStatic())) return undefined;
  return { statement, value: writes[0].getRight(), method };
}

/**
 * `start(server: Server) { this.server = server; }`: the value is a parameter of the method that assigns it — the
 * method and parameter as `start(server)` (`constructor(server)`), or undefined.
 */
function handedInAs(value: Node, method: MethodDeclaration | ConstructorDeclaration): string | undefined {
  const made = unwrapExpression(value);
  if (!Node.isIdentifier(made)) return undefined;
  const parameter = made.getSymbol()?.getDeclarations()[0];
  if (!Node.isParameterDeclaration(parameter) || parameter.getParent() !== method) return undefined;
  const name = Node.isConstructorDeclaration(method) ? 'constructor' : method.getName();
  return `${name}(${parameter.getName()})`;
}

/** `this.<name>` as written (not another object's property of that name). */
function isFieldAccess(node: Node, name: string): boolean {
  return (
    Node.isPropertyAccessExpression(node) &&
    node.getName() === name &&
    unwrapExpression(node.getExpression()).getKind() === SyntaxKind.ThisKeyword
  );
}

function usesField(statement: Node, name: string): boolean {
  return statement.getDescendantsOfKind(SyntaxKind.PropertyAccessExpression).some((a) => isFieldAccess(a, name));
}

/** `this.server.tool(…)`, `this.server.onerror = …`, `registerTools(this.server)` (a function that does not connect it). */
function isFieldSetup(statement: Node, name: string): boolean {
  if (!Node.isExpressionStatement(statement)) return false;
  const expression = unwrapExpression(statement.getExpression());
  const rootedAtField = (node: Node): boolean => {
    let current = unwrapExpression(node);
    while (Node.isPropertyAccessExpression(current) && !isFieldAccess(current, name)) current = unwrapExpression(current.getExpression());
    return isFieldAccess(current, name);
  };
  if (Node.isBinaryExpression(expression) && expression.getOperatorToken().getKind() === SyntaxKind.EqualsToken)
    return (
      Node.isPropertyAccessExpression(expression.getLeft()) &&
      !isFieldAccess(expression.getLeft(), name) &&
      rootedAtField(expression.getLeft())
    );
  if (!Node.isCallExpression(expression)) return false;
  const callee = expression.getExpression();
  if (Node.isPropertyAccessExpression(callee) && rootedAtField(callee.getExpression())) return SERVER_CONFIG_METHODS.test(callee.getName());
  const target = resolveHandler(callee);
  return (
    expression.getArguments().some((a) => isFieldAccess(unwrapExpression(a), name)) &&
    !(target && descendantsOfKind(target, SyntaxKind.CallExpression).some((c) => /\.(?:connect|listen)\(/.test(c.getText())))
  );
}

/** The statement reads the constructor's parameters or locals, which a method would not see. */
function usesConstructorScope(statement: Node, constructor: Node): boolean {
  return statement.getDescendantsOfKind(SyntaxKind.Identifier).some((id) => {
    const declaration = id.getSymbol()?.getDeclarations()[0];
    return !!declaration && contains(constructor, declaration) && !contains(statement, declaration);
  });
}

/** `this.server.connect(transport)` in a function that constructs the SDK transport it connects (a request handler). */
function connectedPerRequest(ref: Node, facts: FileFacts): boolean {
  const access = ref.getParent();
  if (!access || !isFieldAccess(access, ref.getText())) return false;
  const call = access.getParent();
  if (!Node.isPropertyAccessExpression(call) || call.getName() !== 'connect' || !Node.isCallExpression(call.getParent())) return false;
  const fn = call.getFirstAncestor((n) => isFunctionNode(n)) as FunctionNode | undefined;
  const transports = [...facts.constructions('StreamableHTTPServerTransport'), ...facts.constructions('SSEServerTransport')];
  return !!fn && transports.some((t) => contains(fn, t));
}
