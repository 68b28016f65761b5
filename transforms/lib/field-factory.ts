// A server kept in a class field becomes a factory method of the class (the plan's ServerHoist with `field`): the
// field and the constructor statements that configured it move into `private createMcpServer() { … }`, which
// builds, configures and returns a fresh server; request handlers call `this.createMcpServer()`.
import type { ServerHoist, Span } from '../../src/analysis/endpoints/model';
import type { TransformContext } from './context';
import { statementsOf, type AnyNode } from './ast';
import { nodeAt, pathAt } from './locate';

const NOTE = '// mcp-migrate: a fresh server per request (stateless Streamable HTTP); it was shared by every connection.';
const MEMBER_TYPES = ['ClassMethod', 'ClassProperty', 'ClassPrivateProperty', 'PropertyDefinition'];

export function moveFieldIntoMethod(context: TransformContext, hoist: ServerHoist): void {
  const { j } = context;
  const fieldPath = pathAt(context, hoist.declaration, ['ClassProperty', 'PropertyDefinition']);
  const members = (fieldPath?.parent?.node as unknown as AnyNode | undefined)?.body as AnyNode[] | undefined;
  const field = fieldPath?.node as unknown as AnyNode | undefined;
  const after = hoist.field && nodeAt(context, hoist.field.after, MEMBER_TYPES);
  if (!field || !Array.isArray(members) || !after) throw new Error(`the server field \`${hoist.variable}\` was not found`);
  const removed = (span: Span, what: string): AnyNode => {
    const path = pathAt(context, span, ['ExpressionStatement']);
    const list = (path?.parent?.node as unknown as AnyNode | undefined)?.body as AnyNode[] | undefined;
    if (!path || !Array.isArray(list)) throw new Error(`the ${what} of \`${hoist.variable}\` was not found`);
    list.splice(list.indexOf(path.node as unknown as AnyNode), 1);
    return path.node as unknown as AnyNode;
  };
  // (declared without a value: `this.server = new Server(…)` made it, in a method or the constructor)
  const value = hoist.field?.assignment
    ? ((removed(hoist.field.assignment, 'assignment').expression as AnyNode).right as AnyNode)
    : (field.value as AnyNode);
  const setup = hoist.setup.map((span) => {
    const statement = removed(span, 'setup');
    // `this.server.tool(…)` configures the local `server` now.
    j(statement as never)
      .find(j.MemberExpression, { object: { type: 'ThisExpression' }, property: { name: hoist.variable } })
      .replaceWith(j.identifier(hoist.variable) as never);
    return statement;
  });
  const [holder] = statementsOf(
    j,
    `class Holder {\n  ${context.typescript ? 'private ' : ''}${hoist.factory}() {\n    return ${hoist.variable};\n  }\n}`,
  );
  const method = ((holder.body as AnyNode).body as AnyNode[])[0];
  const declaration = j.variableDeclaration('const', [j.variableDeclarator(j.identifier(hoist.variable), value as never)]);
  ((method.body as AnyNode).body as AnyNode[]).unshift(declaration as unknown as AnyNode, ...setup);
  method.comments = (statementsOf(j, `${NOTE}\nx;`)[0].comments as AnyNode[]) ?? [];
  const at = members.indexOf(field);
  members.splice(at, 1);
  members.splice(after === field ? at : members.indexOf(after) + 1, 0, method);
  const emptied = hoist.field?.emptied;
  if (emptied) {
    for (const call of emptied.calls) removed(call, 'call');
    const made = nodeAt(context, emptied.method, ['ClassMethod']);
    if (!made) throw new Error(`the method that made \`${hoist.variable}\` was not found`);
    members.splice(members.indexOf(made), 1);
  }
}
