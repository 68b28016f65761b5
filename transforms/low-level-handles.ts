/**
 * low-level-handles — rule `session-state` (unsafe: it changes tools' arguments, a contract with clients).
 * A low-level server (`setRequestHandler(CallToolRequestSchema, …)`) built per session, whose `tools/call` handler
 * reads per-session state back by session id (`this.registry.workspaceOf(sessionId)`), keeps that state behind an
 * explicit handle instead: `tools/list` lists open_session and a required `session_handle` on every tool, `tools/call`
 * answers open_session by minting a handle and otherwise reads the state of the handle it is passed, and the endpoint
 * no longer makes the state per session, so the endpoint migration (which runs next) can serve it statelessly.
 * Whole or nothing: a shape it cannot rewrite entirely is left as it was for session-handles to mark.
 */
import type { API, ASTPath, FileInfo } from 'jscodeshift';
import { createContext, print, type TransformContext, type TransformOptions } from './lib/context';
import { declaredNames, isFunctionNode, referencedNames, type AnyNode } from './lib/ast';
import { inlinePlaceholder, placeholder } from './lib/emit';
import { afterImports, ensureNamedImport } from './lib/imports';
import { originalText } from './lib/source-edit';
import { dispatchGuardLines, handleStoreCode, listedToolsCode } from './lib/handle-store';
import { endpointPlanOf, type EndpointPlan, type Span } from '../src/analysis/endpoints/model';

export const id = 'low-level-handles';
export const rules = ['session-state'];
export const parser = 'tsx';

/** Names the guard declares at the top of the `tools/call` handler. */
const GUARD_NAMES = ['sessionHandle', 'toolArguments', 'sessionState', 'openedHandle'];

export default function transform(file: FileInfo, api: API, options: TransformOptions = {}): string | undefined {
  const context = createContext(file, api, options, rules);
  const plans = new Map<string, EndpointPlan>();
  for (const finding of context.findings) {
    const plan = endpointPlanOf(finding);
    if (plan && !plan.verdict.migratable && plan.verdict.state?.perHandle && plan.verdict.at.file === finding.file)
      plans.set(plan.id, plan);
  }
  // One state per file: two would need two stores, or one record for both; neither is written yet.
  if (plans.size !== 1) return undefined;
  const [plan] = plans.values();
  return rewrite(context, plan) ? print(context) : undefined;
}

type Path = ASTPath<AnyNode>;

/** What the rewrite edits, all found before anything is changed (whole or nothing). */
interface LowLevelSite {
  property: string;
  initializer: string;
  /** The state has `close()`: expiry and the cap close it. */
  closes?: boolean;
  /** The endpoint's statement that made the state per session (removed). */
  write: Path;
  /** The `setRequestHandler(CallToolRequestSchema, handler)` call, its handler and the handler's request parameter. */
  dispatch: Path;
  handler: AnyNode;
  request: string;
  /** The readers in that handler (`registry.workspaceOf(sessionId)`), read from the handle's state instead. */
  readers: Path[];
  /** The server factory, the position of its session id parameter, and its calls (which pass the session id). */
  factory: Path;
  key: number;
  callers: Path[];
  /** The `tools` values `tools/list` returns, wrapped. */
  listing: Path[];
  /** The `initialize` code that filled a new session's state, moved into open_session. */
  fill?: { local: string; lines: string[]; statements: Path[] };
}

function rewrite(context: TransformContext, plan: EndpointPlan): boolean {
  const site = siteOf(context, plan);
  if (!site) return false;
  const { j } = context;
  for (const value of site.listing)
    value.replace(j.identifier(inlinePlaceholder(context, `withSessionHandle(${originalText(context, value.node)})`)));
  const dispatchCode = rewrittenDispatch(context, site.handler, site.readers, site.property, {
    request: site.request,
    state: 'sessionState',
    quote: context.quote,
    fill: site.fill && { local: site.fill.local, property: site.property, lines: site.fill.lines, typescript: context.typescript },
  });
  for (const statement of site.fill?.statements ?? []) j(statement as never).remove();
  (site.dispatch.get('arguments', 1) as Path).replace(j.identifier(inlinePlaceholder(context, dispatchCode)) as never);
  (site.factory.node.params as AnyNode[]).splice(site.key, 1);
  for (const call of site.callers) (call.node.arguments as AnyNode[]).splice(site.key, 1);
  j(site.write as never).remove();
  const randomUUID = ensureNamedImport(context, ['node:crypto', 'crypto'], 'randomUUID');
  const store = handleStoreCode({
    typescript: context.typescript,
    variables: [{ name: site.property, initializer: site.initializer, closes: site.closes }],
    quote: context.quote,
    randomUUID,
  });
  const body = context.root.find(j.Program).get('body').value as AnyNode[];
  const listed = listedToolsCode({ typescript: context.typescript, quote: context.quote });
  body.splice(afterImports(body), 0, placeholder(context, `${store}\n\n${listed}`, 'block'));
  return true;
}

function siteOf(context: TransformContext, plan: EndpointPlan): LowLevelSite | undefined {
  const { j, root } = context;
  const verdict = plan.verdict;
  const perHandle = verdict.migratable ? undefined : verdict.state?.perHandle;
  // A file that has a handle store already (written before) gets no second one.
  if (verdict.migratable || !perHandle || root.find(j.FunctionDeclaration, { id: { name: 'sessionHandleState' } }).size() > 0)
    return undefined;
  const write = statementAt(context, verdict.at);
  const readers = perHandle.readers.map((span) => callAt(context, span));
  if (!write || readers.some((r) => !r)) return undefined;
  const dispatch = registrationAround(readers[0]!, /CallToolRequestSchema$/);
  if (!dispatch || readers.some((r) => registrationAround(r!, /CallToolRequestSchema$/)?.node !== dispatch.node)) return undefined;
  const handler = (dispatch.node.arguments as AnyNode[])[1];
  const request = ((handler?.params as AnyNode[] | undefined) ?? [])[0];
  if (!handler || !isFunctionNode(handler) || request?.type !== 'Identifier' || (handler.body as AnyNode).type !== 'BlockStatement')
    return undefined;
  if (GUARD_NAMES.some((name) => declares(context, handler, name))) return undefined;
  // The factory gets the session id only to read the state: it loses that parameter, and its callers the argument.
  const factory = enclosingFunction(dispatch);
  const filler = perHandle.filler ? callAt(context, perHandle.filler) : undefined;
  const key = factory && sessionKey(context, factory, [...(readers as Path[]), ...(filler ? [filler] : [])]);
  const callers = factory && key ? factoryCalls(context, factory, key.index) : undefined;
  const listing = factory ? listedTools(context, factory, receiverOf(dispatch.node)) : undefined;
  if (!factory || !key || !callers || !listing) return undefined;
  const fill = perHandle.filler ? movedFill(context, perHandle.filler, factory, dispatch, handler) : undefined;
  if (perHandle.filler && !fill) return undefined;
  return {
    property: perHandle.property,
    initializer: perHandle.initializer,
    closes: perHandle.closes,
    write,
    dispatch,
    handler,
    request: request.name as string,
    readers: readers as Path[],
    factory,
    key: key.index,
    callers,
    listing,
    fill,
  };
}

/** The guard first, then each reader reads the handle's state: edited as text, so the handler keeps its layout. */
function rewrittenDispatch(
  context: TransformContext,
  handler: AnyNode,
  readers: Path[],
  property: string,
  guard: Parameters<typeof dispatchGuardLines>[0],
): string {
  const body = handler.body as AnyNode;
  const first = (body.body as AnyNode[])[0];
  const indent = first ? lineIndent(context, first.start as number) : lineIndent(context, handler.start as number) + '  ';
  const edits = [
    {
      start: (body.start as number) + 1,
      end: (body.start as number) + 1,
      text: dispatchGuardLines(guard)
        .map((line) => (line ? `\n${indent}${line}` : '\n'))
        .join(''),
    },
    ...readers.map((r) => ({ start: r.node.start as number, end: r.node.end as number, text: `${guard.state}.${property}` })),
  ];
  let text = originalText(context, handler);
  const base = handler.start as number;
  for (const edit of edits.sort((a, b) => b.start - a.start))
    text = text.slice(0, edit.start - base) + edit.text + text.slice(edit.end - base);
  return text;
}

/**
 * The `initialize` code that filled a new session's state (`const workspace = registry.workspaceOf(sessionId)` and the
 * statements after it that use `workspace`), to run in open_session for a new handle instead. It must read nothing
 * else of the `initialize` handler (its request, its other locals), return nothing, and name nothing the `tools/call`
 * handler declares (open_session runs at its top); what stays in `initialize` must not use the state.
 */
/**
 * A statement of `initialize` can run in the `tools/call` handler's open_session branch: it does not return, awaits
 * only where that handler is async, uses `this` only where both are arrows, and names none of `locals` (either
 * handler's own bindings, which it would not see or would see as something else).
 */
function movable(j: TransformContext['j'], statement: AnyNode, handler: AnyNode, toolsHandler: AnyNode, locals: Set<string>): boolean {
  const has = (type: Parameters<ReturnType<TransformContext['j']>['find']>[0]) =>
    j(statement as never)
      .find(type)
      .size() > 0;
  if (statement.type === 'ReturnStatement' || has(j.ReturnStatement)) return false;
  if (has(j.AwaitExpression) && !toolsHandler.async) return false;
  const arrows = handler.type === 'ArrowFunctionExpression' && toolsHandler.type === 'ArrowFunctionExpression';
  if (has(j.ThisExpression) && !arrows) return false;
  return ![...referencedNames(j, statement)].some((name) => locals.has(name));
}

function movedFill(
  context: TransformContext,
  span: Span,
  factory: Path,
  dispatch: Path,
  toolsHandler: AnyNode,
): { local: string; lines: string[]; statements: Path[] } | undefined {
  const { j } = context;
  const reader = callAt(context, span);
  const initialize = reader && registrationAround(reader, /InitializeRequestSchema$/);
  const handler = (initialize?.node.arguments as AnyNode[] | undefined)?.[1];
  if (!initialize || !handler || !isFunctionNode(handler) || (handler.body as AnyNode).type !== 'BlockStatement') return undefined;
  if (enclosingFunction(initialize)?.node !== factory.node || receiverOf(initialize.node) !== receiverOf(dispatch.node)) return undefined;
  const declarator = reader.parent as Path;
  const declaration = declarator.parent as Path;
  const body = handler.body as AnyNode;
  if (declarator.node.type !== 'VariableDeclarator' || (declarator.node.id as AnyNode).type !== 'Identifier') return undefined;
  if ((declaration.node.declarations as AnyNode[]).length !== 1 || (declaration.parent as Path).node !== body) return undefined;
  const local = (declarator.node.id as AnyNode).name as string;
  const statements = (declaration.parent as Path).get('body') as unknown as { value: AnyNode[]; get(i: number): Path };
  const all = statements.value;
  const at = all.indexOf(declaration.node);
  const uses = (node: AnyNode, name: string) => referencedNames(j, node).has(name);
  const moved = all.slice(at + 1).filter((statement) => uses(statement, local));
  const kept = all.filter((statement, index) => index !== at && !moved.includes(statement));
  if (kept.some((statement) => uses(statement, local))) return undefined;
  const handlerLocals = new Set([
    ...(handler.params as AnyNode[]).flatMap((p) => (p.type === 'Identifier' ? [p.name as string] : [...referencedNames(j, p)])),
    ...kept.flatMap((statement) => declaredNames(statement)),
  ]);
  const toolsLocals = new Set<string>();
  j(toolsHandler.body as never)
    .find(j.VariableDeclarator)
    .forEach((p) =>
      declaredNames({ type: 'VariableDeclaration', declarations: [p.node] } as unknown as AnyNode).forEach((n) => toolsLocals.add(n)),
    );
  const locals = new Set([...handlerLocals, ...toolsLocals]);
  locals.delete(local);
  if (!moved.every((statement) => movable(j, statement, handler, toolsHandler, locals))) return undefined;
  const indent = lineIndent(context, declaration.node.start as number);
  const lines = moved.flatMap((statement) =>
    withLeadingComments(context, statement)
      .split('\n')
      .map((line, index) => (index === 0 || !line.startsWith(indent) ? line : line.slice(indent.length))),
  );
  return { local, lines, statements: [declaration, ...moved.map((statement) => statements.get(all.indexOf(statement)))] };
}

/** The statement's text from its first leading comment on (a comment above moved code moves with it). */
function withLeadingComments(context: TransformContext, statement: AnyNode): string {
  const comments = ((statement.comments ?? statement.leadingComments ?? []) as AnyNode[]).filter(
    (c) => c.leading !== false && (c.end as number) <= (statement.start as number),
  );
  const start = comments.length > 0 ? Math.min(...comments.map((c) => c.start as number)) : (statement.start as number);
  return context.parsed.slice(start, statement.end as number);
}

function lineIndent(context: TransformContext, offset: number): string {
  const lineStart = context.parsed.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*/.exec(context.parsed.slice(lineStart))![0];
}

/** The expression statement that is (or is only) the call at `span`. */
function statementAt(context: TransformContext, span: Span): Path | undefined {
  const call = callAt(context, span);
  const parent = call?.parent as Path | undefined;
  if (!parent) return undefined;
  if (parent.node.type === 'ExpressionStatement') return parent;
  if (parent.node.type === 'AwaitExpression' && (parent.parent as Path).node.type === 'ExpressionStatement') return parent.parent as Path;
  return undefined;
}

function callAt(context: TransformContext, span: Span): Path | undefined {
  return context.root
    .find(context.j.CallExpression)
    .filter((p) => {
      const loc = p.node.loc;
      return !!loc && loc.start.line === span.line && loc.start.column === span.column - 1;
    })
    .paths()[0] as unknown as Path | undefined;
}

/** The `setRequestHandler(Schema, …)` call whose schema matches, around a node. */
function registrationAround(path: Path, schema: RegExp): Path | undefined {
  for (let current = path.parent as Path | null; current; current = current.parent as Path | null) {
    const node = current.node;
    if (node.type !== 'CallExpression') continue;
    const callee = node.callee as AnyNode;
    const first = (node.arguments as AnyNode[])[0];
    if (
      callee.type === 'MemberExpression' &&
      (callee.property as AnyNode).name === 'setRequestHandler' &&
      first &&
      schema.test(nameOf(first))
    )
      return current;
  }
  return undefined;
}

function nameOf(node: AnyNode): string {
  if (node.type === 'Identifier') return node.name as string;
  if (node.type === 'MemberExpression') return `${nameOf(node.object as AnyNode)}.${nameOf(node.property as AnyNode)}`;
  return '';
}

function receiverOf(call: AnyNode): string {
  return nameOf((call.callee as AnyNode).object as AnyNode) || String(((call.callee as AnyNode).object as AnyNode).type);
}

function enclosingFunction(path: Path): Path | undefined {
  for (let current = path.parent as Path | null; current; current = current.parent as Path | null) {
    if (isFunctionNode(current.node)) return current;
  }
  return undefined;
}

/** The handler (or a function inside it) already declares the name. */
function declares(context: TransformContext, handler: AnyNode, name: string): boolean {
  return (
    context
      .j(handler as never)
      .find(context.j.Identifier, { name })
      .size() > 0
  );
}

/**
 * The factory parameter every reader passes as its only argument (`sessionId`), used nowhere else in the factory,
 * and its position.
 */
function sessionKey(context: TransformContext, factory: Path, readers: Path[]): { index: number } | undefined {
  const params = factory.node.params as AnyNode[];
  const keys = readers.map((r) => ((r.node.arguments as AnyNode[]).length === 1 ? (r.node.arguments as AnyNode[])[0] : undefined));
  const names = new Set(keys.map((k) => (k?.type === 'Identifier' ? (k.name as string) : undefined)));
  const [name] = names;
  if (names.size !== 1 || !name) return undefined;
  const index = params.findIndex((p) => p.type === 'Identifier' && p.name === name);
  if (index < 0) return undefined;
  const readerKeys = new Set(readers.map((r) => (r.node.arguments as AnyNode[])[0]));
  const uses = context
    .j(factory.node.body as never)
    .find(context.j.Identifier, { name })
    .filter((p) => !readerKeys.has(p.node as unknown as AnyNode));
  return uses.size() === 0 ? { index } : undefined;
}

/**
 * Every call of the factory in this file (`this.buildServer(id)`, `buildServer(id)`), which must be every use of its
 * name, each passing the argument at `index`. A factory another module could call is not changed.
 */
function factoryCalls(context: TransformContext, factory: Path, index: number): Path[] | undefined {
  const named = factoryName(factory);
  if (!named) return undefined;
  const method = factory.node.type === 'ClassMethod';
  const calls: Path[] = [];
  let other = false;
  context.root.find(context.j.Identifier, { name: named.name }).forEach((p) => {
    const id = p.node as unknown as AnyNode;
    if (id === named.declared) return;
    const member = p.parent.node as AnyNode;
    // A method is called as `this.name(…)`; a function by its bare name.
    const viaThis = member.type === 'MemberExpression' && member.property === id && (member.object as AnyNode).type === 'ThisExpression';
    const callee = (viaThis ? p.parent : p) as Path;
    const call = callee.parent as Path;
    const isCall = call.node.type === 'CallExpression' && call.node.callee === callee.node;
    if (viaThis === method && isCall && (call.node.arguments as AnyNode[]).length > index) calls.push(call);
    else other = true;
  });
  return other || calls.length === 0 ? undefined : calls;
}

/** A class method's, function declaration's or `const name = (…) =>` name, and the identifier declaring it; none if exported. */
function factoryName(factory: Path): { name: string; declared: AnyNode } | undefined {
  const node = factory.node;
  const holder = factory.parent as Path;
  const declared =
    node.type === 'ClassMethod'
      ? (node.key as AnyNode)
      : node.type === 'FunctionDeclaration'
        ? (node.id as AnyNode | null)
        : holder.node.type === 'VariableDeclarator'
          ? (holder.node.id as AnyNode)
          : undefined;
  // (a method is found on instances too, but another module's `server.buildServer(id)` then fails to compile, loudly)
  const statement =
    node.type === 'FunctionDeclaration' ? holder : node.type === 'ClassMethod' ? undefined : (holder.parent as Path | null)?.parent;
  const exported = !!(statement as Path | undefined)?.node.type.startsWith('Export');
  return declared?.type === 'Identifier' && !exported ? { name: declared.name as string, declared } : undefined;
}

/**
 * The `tools` values a `setRequestHandler(ListToolsRequestSchema, …)` handler of the same server returns
 * (`{ tools: getAllToolDefinitions() }`): each is wrapped, whatever expression builds it.
 */
function listedTools(context: TransformContext, factory: Path, server: string): Path[] | undefined {
  const { j } = context;
  const registrations = j(factory.node.body as never)
    .find(j.CallExpression)
    .filter((p) => {
      const node = p.node as unknown as AnyNode;
      const callee = node.callee as AnyNode;
      const first = (node.arguments as AnyNode[])[0];
      return (
        callee.type === 'MemberExpression' &&
        (callee.property as AnyNode).name === 'setRequestHandler' &&
        !!first &&
        /ListToolsRequestSchema$/.test(nameOf(first)) &&
        receiverOf(node) === server
      );
    })
    .paths();
  if (registrations.length !== 1) return undefined;
  const handler = (registrations[0].node.arguments as unknown as AnyNode[])[1];
  if (!handler || !isFunctionNode(handler)) return undefined;
  const body = handler.body as AnyNode;
  const results: AnyNode[] = [];
  if (body.type === 'BlockStatement') {
    j(body as never)
      .find(j.ReturnStatement)
      .filter((p) => ownedBy(p as unknown as Path, body))
      .forEach((p) => results.push(p.node.argument as unknown as AnyNode));
  } else results.push(body);
  const values: Path[] = [];
  for (const result of results) {
    if (result?.type !== 'ObjectExpression') return undefined;
    const tools = j(result as never)
      .find(j.ObjectProperty, { key: { name: 'tools' } })
      .filter((p) => (p.parent.node as unknown) === result)
      .paths()[0];
    if (!tools) return undefined;
    values.push(tools.get('value') as unknown as Path);
  }
  return values.length > 0 ? values : undefined;
}

/** The node belongs to the function whose body is `body`, not to a function nested in it. */
function ownedBy(path: Path, body: AnyNode): boolean {
  for (let current = path.parent as Path | null; current && current.node !== body; current = current.parent as Path | null) {
    if (isFunctionNode(current.node)) return false;
  }
  return true;
}
