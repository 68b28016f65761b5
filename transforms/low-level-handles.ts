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
import { isFunctionNode, type AnyNode } from './lib/ast';
import { inlinePlaceholder, placeholder } from './lib/emit';
import { afterImports, ensureNamedImport } from './lib/imports';
import { originalText } from './lib/source-edit';
import { dispatchGuardLines, handleStoreCode, listedToolsCode } from './lib/handle-store';
import { endpointPlanOf, type EndpointPlan, type SessionStateFacts, type Span } from '../src/analysis/endpoints/model';

export const id = 'low-level-handles';
export const rules = ['session-state'];
export const parser = 'tsx';

/** Names the guard declares at the top of the `tools/call` handler. */
const GUARD_NAMES = ['sessionHandle', 'toolArguments', 'sessionState'];

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

function rewrite(context: TransformContext, plan: EndpointPlan): boolean {
  if (plan.verdict.migratable) return false;
  const state = plan.verdict.state as SessionStateFacts & { perHandle: NonNullable<SessionStateFacts['perHandle']> };
  const { property, initializer } = state.perHandle;
  const write = statementAt(context, plan.verdict.at);
  const readers = state.perHandle.readers.map((span) => callAt(context, span));
  if (!write || readers.some((r) => !r)) return false;
  const dispatch = registrationAround(readers[0]!, /CallToolRequestSchema$/);
  if (!dispatch || readers.some((r) => registrationAround(r!, /CallToolRequestSchema$/)?.node !== dispatch.node)) return false;
  const handler = (dispatch.node.arguments as AnyNode[])[1];
  const request = ((handler?.params as AnyNode[] | undefined) ?? [])[0];
  if (!handler || !isFunctionNode(handler) || request?.type !== 'Identifier' || (handler.body as AnyNode).type !== 'BlockStatement')
    return false;
  if (GUARD_NAMES.some((name) => declares(context, handler, name))) return false;
  // The factory gets the session id only to read the state: it loses that parameter, and its callers the argument.
  const factory = enclosingFunction(dispatch);
  const key = sessionKey(context, factory, readers as Path[]);
  const callers = factory && key ? factoryCalls(context, factory, key.index) : undefined;
  const listing = factory ? listedTools(context, factory, receiverOf(dispatch.node)) : undefined;
  if (!factory || !key || !callers || !listing) return false;

  for (const value of listing)
    value.replace(context.j.identifier(inlinePlaceholder(context, `withSessionHandle(${originalText(context, value.node)})`)));
  const dispatchCode = rewrittenDispatch(context, handler, request.name as string, readers as Path[], property);
  (dispatch.get('arguments', 1) as Path).replace(context.j.identifier(inlinePlaceholder(context, dispatchCode)) as never);
  (factory.node.params as AnyNode[]).splice(key.index, 1);
  for (const call of callers) (call.node.arguments as AnyNode[]).splice(key.index, 1);
  context.j(write as never).remove();
  const randomUUID = ensureNamedImport(context, ['node:crypto', 'crypto'], 'randomUUID');
  const store = handleStoreCode({
    typescript: context.typescript,
    variables: [{ name: property, initializer }],
    quote: context.quote,
    randomUUID,
  });
  const body = context.root.find(context.j.Program).get('body').value as AnyNode[];
  body.splice(
    afterImports(body),
    0,
    placeholder(context, `${store}\n\n${listedToolsCode({ typescript: context.typescript, quote: context.quote })}`, 'block'),
  );
  return true;
}

/** The guard first, then each reader reads the handle's state: edited as text, so the handler keeps its layout. */
function rewrittenDispatch(context: TransformContext, handler: AnyNode, request: string, readers: Path[], property: string): string {
  const body = handler.body as AnyNode;
  const first = (body.body as AnyNode[])[0];
  const indent = first ? lineIndent(context, first.start as number) : lineIndent(context, handler.start as number) + '  ';
  const edits = [
    {
      start: (body.start as number) + 1,
      end: (body.start as number) + 1,
      text: dispatchGuardLines({ request, state: 'sessionState', quote: context.quote })
        .map((line) => `\n${indent}${line}`)
        .join(''),
    },
    ...readers.map((r) => ({ start: r.node.start as number, end: r.node.end as number, text: `sessionState.${property}` })),
  ];
  let text = originalText(context, handler);
  const base = handler.start as number;
  for (const edit of edits.sort((a, b) => b.start - a.start))
    text = text.slice(0, edit.start - base) + edit.text + text.slice(edit.end - base);
  return text;
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
function sessionKey(context: TransformContext, factory: Path | undefined, readers: Path[]): { index: number } | undefined {
  if (!factory) return undefined;
  const params = factory.node.params as AnyNode[];
  const names = new Set(
    readers.map((r) => ((r.node.arguments as AnyNode[]).length === 1 ? (r.node.arguments as AnyNode[])[0] : undefined)),
  );
  const [key] = names;
  if (names.size !== 1 || key?.type !== 'Identifier') return undefined;
  const index = params.findIndex((p) => p.type === 'Identifier' && p.name === key.name);
  if (index < 0) return undefined;
  const readerKeys = new Set(readers.map((r) => (r.node.arguments as AnyNode[])[0]));
  const uses = context
    .j(factory.node.body as never)
    .find(context.j.Identifier, { name: key.name as string })
    .filter((p) => !readerKeys.has(p.node as unknown as AnyNode));
  return uses.size() === 0 ? { index } : undefined;
}

/**
 * Every call of the factory in this file (`this.buildServer(id)`, `buildServer(id)`), which must be every use of its
 * name, each passing the argument at `index`. A factory another module could call is not changed.
 */
function factoryCalls(context: TransformContext, factory: Path, index: number): Path[] | undefined {
  const { j, root } = context;
  const node = factory.node;
  const parent = (factory.parent as Path).node;
  const name =
    node.type === 'ClassMethod' && (node.key as AnyNode).type === 'Identifier'
      ? ((node.key as AnyNode).name as string)
      : node.type === 'FunctionDeclaration'
        ? ((node.id as AnyNode | null)?.name as string | undefined)
        : parent.type === 'VariableDeclarator' && (parent.id as AnyNode).type === 'Identifier'
          ? ((parent.id as AnyNode).name as string)
          : undefined;
  if (!name) return undefined;
  const exported =
    (factory.parent as Path).node.type.startsWith('Export') ||
    ((factory.parent as Path).parent as Path | null)?.node.type.startsWith('Export');
  if (exported) return undefined;
  const calls: Path[] = [];
  let other = false;
  root.find(j.Identifier, { name }).forEach((p) => {
    const id = p.node as unknown as AnyNode;
    if (id === node.key || id === node.id || id === parent.id) return;
    const member = p.parent.node as AnyNode;
    const callee = member.type === 'MemberExpression' && member.property === id ? (p.parent as Path) : (p as unknown as Path);
    const call = callee.parent as Path;
    if (node.type === 'ClassMethod' && (callee === (p as unknown as Path) || (member.object as AnyNode).type !== 'ThisExpression'))
      other = true;
    else if (call.node.type !== 'CallExpression' || call.node.callee !== callee.node || (call.node.arguments as AnyNode[]).length <= index)
      other = true;
    else calls.push(call);
  });
  return other || calls.length === 0 ? undefined : calls;
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
