// A getter that cached one server and handed it to every request becomes a factory in place (the plan's
// CachedServerGetter): the guard that handed out the cached server goes, the assignment that built it declares a
// local, and the module variable goes. Callers keep calling it by its name.
import type { CachedServerGetter } from '../../src/analysis/endpoints/model';
import type { TransformContext } from './context';
import { statementsOf, topStatement, type AnyNode } from './ast';
import { functionAt, pathAt } from './locate';
import { inlinePlaceholder } from './emit';

const NOTE = '// mcp-migrate: a fresh server per call (stateless Streamable HTTP); it cached one server for every request.';

export function uncacheGetter(context: TransformContext, getter: CachedServerGetter): void {
  const { j } = context;
  const fn = functionAt(context, getter.fn);
  const guard = pathAt(context, getter.guard, ['IfStatement']);
  const assignment = pathAt(context, getter.assignment, ['ExpressionStatement']);
  const declarator = pathAt(context, getter.declaration, ['VariableDeclarator']);
  const build = (assignment?.node as unknown as AnyNode | undefined)?.expression as AnyNode | undefined;
  if (!fn || !guard || !build || build.type !== 'AssignmentExpression' || !declarator)
    throw new Error(`the cached server getter \`${getter.name}\` was not found`);
  guard.prune();
  // (the statement stays where it is, so its comments and spacing do; only its text becomes a declaration)
  const indentation = /^[ \t]*/.exec(context.file.source.split('\n')[getter.assignment.line - 1] ?? '')![0];
  const made = j(build.right as never)
    .toSource()
    .split('\n')
    .map((line, i) => (i === 0 || line === '' ? line : indentation + line))
    .join('\n');
  const declared = `const ${getter.variable} = ${made}`;
  (assignment!.node as unknown as AnyNode).expression = j.identifier(inlinePlaceholder(context, declared)) as never;
  topStatement(declarator).prune();
  const holder = topStatement(fn).node as unknown as AnyNode;
  const note = (statementsOf(j, `${NOTE}\nx;`)[0].comments as AnyNode[]) ?? [];
  holder.comments = [...((holder.comments as AnyNode[] | undefined) ?? []), ...note];
}
