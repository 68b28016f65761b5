// The code that builds a fresh MCP server, read from the `X.connect(transport)` an endpoint makes: `createServer()`
// itself, or the initializer of a local `server` plus the statements that configure it (`registerTools(server)`),
// which must move with it or the migrated server would come up without its tools.
import type { TransformContext } from './context';
import { containsLocation, referencedNames, type AnyNode } from './ast';
import { sourceOf } from './routes';
import { indent } from './templates';

export interface ServerFactory {
  /** The expression that builds the server, as written: `createServer()`, `new McpServer({ … })`. */
  init: string;
  /** The initializer was awaited (`await createServer()`): the factory returns a promise. */
  awaited: boolean;
  /** The local the server was assigned to (`server`), when there was one. */
  variable?: string;
  /** Statements that configure the server before it serves, as written; they refer to `variable`. */
  setup: string[];
  /** Names the expression and the setup refer to. */
  uses: Set<string>;
}

/**
 * The factory behind the first `X.connect(…)` inside `scope`; `X`'s declaration is looked up in `declarations`.
 * A string says why there is none that can run outside the request (it uses one of `params`).
 */
export function serverFactoryOf(
  context: TransformContext,
  scope: AnyNode,
  declarations: AnyNode,
  params: Set<string>,
): ServerFactory | string | undefined {
  const { j } = context;
  for (const call of j(scope as never)
    .find(j.CallExpression, { callee: { property: { name: 'connect' } } })
    .nodes() as unknown as AnyNode[]) {
    const object = (call.callee as AnyNode).object as AnyNode;
    if (object.type === 'CallExpression' || object.type === 'NewExpression')
      return checked(
        context,
        { init: sourceOf(j, object), awaited: false, setup: [], uses: referencedNames(j, object) },
        params,
        handlerLocals(context, declarations, [object]),
      );
    if (object.type !== 'Identifier') continue;
    const variable = object.name as string;
    const declaratorPath = j(declarations as never)
      .find(j.VariableDeclarator, { id: { name: variable } })
      .paths()[0];
    let init = declaratorPath?.node.init as unknown as AnyNode | undefined;
    const awaited = init?.type === 'AwaitExpression';
    if (awaited) init = init!.argument as AnyNode;
    if (!init || (init.type !== 'CallExpression' && init.type !== 'NewExpression')) continue;
    const transport = ((call.arguments as AnyNode[])[0]?.name as string | undefined) ?? '';
    const setup = setupStatements(context, declaratorPath.parent?.node as AnyNode, variable, transport, call);
    const uses = referencedNames(j, init);
    for (const statement of setup) for (const name of referencedNames(j, statement)) uses.add(name);
    const locals = handlerLocals(context, declarations, [init, ...setup]);
    return checked(context, { init: sourceOf(j, init), awaited, variable, setup: setup.map((s) => sourceOf(j, s)), uses }, params, locals);
  }
  return undefined;
}

function checked(
  context: TransformContext,
  factory: ServerFactory,
  params: Set<string>,
  locals: Set<string> = new Set(),
): ServerFactory | string {
  const request = [...factory.uses].filter((name) => params.has(name) && name !== factory.variable);
  if (request.length > 0)
    return `building the server uses the request (${request.join(', ')}); a server factory runs outside the request handler`;
  const local = [...factory.uses].filter((name) => locals.has(name) && name !== factory.variable);
  if (local.length > 0)
    return `building the server uses the handler's own variables (${local.join(', ')}); a server factory runs outside the request handler`;
  return factory;
}

/** Names declared in the handler outside the given nodes: the factory, moved out of the handler, cannot see them. */
function handlerLocals(context: TransformContext, scope: AnyNode, except: AnyNode[]): Set<string> {
  const { j } = context;
  const names = new Set<string>();
  const inside = (node: AnyNode) =>
    !!node.loc && except.some((e) => e.loc && containsLocation(e, { line: node.loc!.start.line, column: node.loc!.start.column + 1 }));
  j(scope as never)
    .find(j.VariableDeclarator)
    .forEach((p) => {
      const node = p.node as unknown as AnyNode;
      const id = node.id as AnyNode;
      if (inside(node)) return;
      if (id.type === 'Identifier') names.add(id.name as string);
      else for (const name of referencedNames(j, id)) names.add(name);
    });
  j(scope as never)
    .find(j.FunctionDeclaration)
    .forEach((p) => {
      const node = p.node as unknown as AnyNode;
      if (!inside(node) && node.id) names.add((node.id as AnyNode).name as string);
    });
  return names;
}

/**
 * Statements of the declaration's block that use the server and not the transport: configuration to keep.
 * (Those using both are plumbing the new endpoint replaces: close handlers, session bookkeeping, connect.)
 */
function setupStatements(
  context: TransformContext,
  declaration: AnyNode | undefined,
  variable: string,
  transport: string,
  connect: AnyNode,
): AnyNode[] {
  const { j } = context;
  const block = findBlockOf(context, declaration);
  if (!block || !declaration) return [];
  const statements = block.body as AnyNode[];
  const after = statements.slice(statements.indexOf(declaration) + 1);
  return after.filter((statement) => {
    if (connect.loc && containsLocation(statement, { line: connect.loc.start.line, column: connect.loc.start.column + 1 })) return false;
    const names = referencedNames(j, statement);
    return names.has(variable) && !names.has(transport);
  });
}

function findBlockOf(context: TransformContext, statement: AnyNode | undefined): AnyNode | undefined {
  if (!statement) return undefined;
  const { j, root } = context;
  const blocks = [...root.find(j.BlockStatement).nodes(), ...root.find(j.Program).nodes()] as unknown as AnyNode[];
  return blocks.find((block) => (block.body as AnyNode[]).includes(statement));
}

/** `() => createServer()`, or a block that builds, configures and returns the server. */
export function factoryArrow(factory: ServerFactory): string {
  if (factory.setup.length === 0 || !factory.variable) return `() => ${factory.init}`;
  return [
    `${factory.awaited ? 'async ' : ''}() => {`,
    `  const ${factory.variable} = ${factory.awaited ? 'await ' : ''}${factory.init};`,
    ...factory.setup.map(indent),
    `  return ${factory.variable};`,
    '}',
  ].join('\n');
}

/** The expression as a statement in a request handler would write it: `await createServer()` when it was awaited. */
export function factoryCall(factory: ServerFactory): string {
  return `${factory.awaited ? 'await ' : ''}${factory.init}`;
}
