// A server held in a class field (`private readonly server = new McpServer(…)`, configured in the constructor) and
// `connect()`ed per connection: every client shares it. The field and the constructor statements that configure it
// can become a factory method of the class (`this.createMcpServer()`), when nothing but request handlers that connect
// it per request uses the field; otherwise this names the use that keeps it.
import { Node, SyntaxKind, type Identifier, type PropertyAccessExpression } from 'ts-morph';
import { descendantsOfKind } from '../node-index';
import type { FileFacts } from '../file-facts';
import { resolveHandler } from '../routes';
import type { ServerHoist } from './model';
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
  const made = field.getInitializer();
  if (
    !made ||
    !(Node.isNewExpression(unwrapExpression(made)) || Node.isCallExpression(unwrapExpression(made))) ||
    Node.isAwaitExpression(made)
  )
    return { blocker: `\`${reference}\` is not made by a constructor or factory call where it is declared` };
  const name = field.getName();
  const constructor = owner.getConstructors().find((c) => !!c.getBody());
  const setup = (constructor?.getStatements() ?? []).filter((s) => usesField(s, name));
  const unmovable = setup.find((s) => !isFieldSetup(s, name) || usesConstructorScope(s, constructor!));
  if (unmovable)
    return { blocker: `\`${reference}\` is configured by \`${firstLine(unmovable)}\`, which cannot move into a factory method` };
  const nameNode = field.getNameNode() as Identifier;
  const other = referencesOf(nameNode).find(
    (ref) => ref !== nameNode && !setup.some((s) => contains(s, ref)) && !connectedPerRequest(ref, facts),
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
      field: { after: spanOf(constructor ?? field, relPath) },
    },
  };
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
