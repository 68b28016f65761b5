/**
 * session-handles — rule `session-state` (unsafe: it changes tools' arguments, a contract with clients).
 * State a tool kept in the protocol session — `extra.sessionId` as a key, or variables captured in a per-session
 * server factory — moves behind an explicit handle: an `open_session` tool mints it, each stateful tool takes a
 * required `session_handle` argument and answers an unknown or expired handle with a tool error.
 */
import type { API, FileInfo } from 'jscodeshift';
import { createContext, print, type TransformContext, type TransformOptions } from './lib/context';
import { containsLocation, isFunctionNode, referencedNames, type AnyNode } from './lib/ast';
import { declarationPlaceholder, inlinePlaceholder, placeholder } from './lib/emit';
import { afterImports, ensureNamedImport } from './lib/imports';
import { appendProperty, originalText } from './lib/source-edit';
import { HANDLE_ARG, handleStoreCode, openToolCode, type StoreVariable } from './lib/handle-store';
import { addMarker } from './lib/markers';
import type { Finding } from '../src/model';
import { endpointPlanOf, type EndpointPlan, type SessionStateFacts } from '../src/analysis/endpoints/model';

export const id = 'session-handles';
export const rules = ['session-state'];
export const parser = 'tsx';

interface StatefulTool {
  call: AnyNode;
  name: string;
  form: 'registerTool' | 'tool';
  handler: AnyNode;
  /** The handler is a function declared elsewhere in the file and registered by name: it is edited where it stands. */
  named?: { path: { replace(node: unknown): void }; declaration: boolean };
  /** The session reads (`extra.sessionId`, a destructured `sessionId`) inside the handler. */
  sessionReads: Finding[];
  movedVariables: string[];
}

export default function transform(file: FileInfo, api: API, options: TransformOptions = {}): string | undefined {
  const context = createContext(file, api, options, rules);
  // (a package's server per session is package-server-handles' to move)
  // (nor is what the client declared at initialize: no handle brings it back; mark-leftovers marks it)
  const found = context.findings.filter(
    (f) => f.ruleId === 'session-state' && !f.data?.packageServer && !f.data?.clientInfo && !f.data?.frameworkSession,
  );
  // Credentials the endpoint migration computes per request (migrate-endpoint runs first) need no handle.
  const anchors = found.filter((f) => !found.some((other) => readsRequestCredentials(endpointPlanOf(other), f)));
  if (anchors.length === 0) return undefined;
  const result = rewrite(context, anchors);
  if (result === true) return print(context);
  // Whole or nothing: a tool rewritten before another one failed is dropped with the rest (a fresh parse), so no
  // file ever names a handle store that was not written. The anchors that stop it get the reason; the others say so.
  const refusal = typeof result === 'string' ? { reason: result, stops: () => true } : result;
  const first = anchors.find(refusal.stops);
  const untouched = createContext(file, api, options, rules);
  let changed = false;
  for (const anchor of anchors) {
    const message =
      !first || refusal.stops(anchor)
        ? refusal.reason
        : `left as it was: this file's session state moves behind handles whole or not at all, and line ${first.line} stops it (${refusal.reason})`;
    changed = addMarker(untouched, anchor.line, 'session-state', message) || changed;
  }
  return changed ? print(untouched) : undefined;
}

/** The finding is the write or a lookup of credentials a plan makes request-scoped. */
function readsRequestCredentials(plan: EndpointPlan | undefined, finding: Finding): boolean {
  const credentials = plan?.credentials;
  if (!credentials) return false;
  return (
    endpointPlanOf(finding)?.id === plan.id ||
    credentials.readers.some((r) => r.lookup.file === finding.file && r.lookup.line === finding.line)
  );
}

/** Why the file's state cannot move behind handles, and which anchors that is about. */
interface Refusal {
  reason: string;
  stops(anchor: Finding): boolean;
}

function rewrite(context: TransformContext, anchors: Finding[]): true | string | Refusal {
  const { j, root } = context;
  const inStorage = (a: Finding) => /AsyncLocalStorage/.test(a.message);
  if (anchors.some(inStorage)) {
    return {
      reason:
        'state lives in AsyncLocalStorage entered per request; give the tools an explicit handle argument (an open_* tool that mints it) and look the state up by handle',
      stops: inStorage,
    };
  }
  const keyed = anchors.find((a) => a.data?.keyedByServer);
  if (keyed) {
    return {
      reason: `\`${String(keyed.data!.keyedByServer)}\` is looked up by the server object built for each session; key it by a handle that open_session mints instead, and give those tools a session_handle argument to look it up, by hand`,
      stops: (a) => !!a.data?.keyedByServer,
    };
  }
  const handed = anchors.find((a) => a.data?.handedTo || a.data?.inInstance);
  if (handed) {
    const where = handed.data!.handedTo
      ? `reaches the tools through a parameter of \`${String(handed.data!.handedTo)}\``
      : `lives in each \`${String(handed.data!.inInstance)}\` instance`;
    return {
      reason: `this state ${where}; keep it in a store keyed by a handle that open_session mints, and give those tools a session_handle argument to look it up, by hand`,
      stops: (a) => !!a.data?.handedTo || !!a.data?.inInstance,
    };
  }
  // Credentials the endpoint files by session id from each request: a handle is the wrong fix, whoever reads them.
  const fromRequest = anchors.find((a) => {
    const plan = endpointPlanOf(a);
    return !!plan && !plan.verdict.migratable && !!plan.verdict.state?.fromRequest;
  });
  if (fromRequest) {
    const plan = endpointPlanOf(fromRequest)!;
    const state = plan.verdict.migratable ? undefined : plan.verdict.state;
    const reads = (a: Finding) =>
      a === fromRequest ||
      (!!state?.store && a.data?.filledAtSessionStart === state.store) ||
      !!state?.readers.some((r) => r.file === a.file && r.line === a.line);
    return { reason: endpointStateReason(plan), stops: reads };
  }
  if (anchors.some((a) => a.data?.nestedBlock)) {
    return {
      reason:
        'this state is declared in a nested block of the server factory (an `if`, a loop), where the tools that use it are registered; move it behind a handle that open_session mints by hand',
      stops: (a) => !!a.data?.nestedBlock,
    };
  }
  const filledAtStart = anchors.find((a) => a.data?.filledAtSessionStart)?.data?.filledAtSessionStart;
  if (filledAtStart) {
    return {
      reason: `\`${String(filledAtStart)}\` is filled when a session starts, not by the tools, so a handle would find nothing: make open_session create that entry keyed by the handle it mints, then pass session_handle to the tools that read it`,
      stops: (a) => !!a.data?.filledAtSessionStart,
    };
  }
  // Factory variables reported by the detector (declarators), and the function that declares them.
  const factoryAnchors = anchors.filter((a) => /per-session server factory/.test(a.message) || a.data?.resource);
  const declarators = root
    .find(j.VariableDeclarator)
    .filter((p) => factoryAnchors.some((a) => p.node.loc!.start.line === a.line && p.node.loc!.start.column === a.column - 1))
    .paths();
  const moved: Array<{ path: (typeof declarators)[number]; variable: StoreVariable }> = [];
  for (const path of declarators) {
    const node = path.node as unknown as AnyNode;
    const id = node.id as AnyNode;
    if (id.type !== 'Identifier' || !node.init) return 'a session variable without a simple initializer; move it behind a handle by hand';
    const statement = path.parent?.node as AnyNode;
    if ((statement.declarations as AnyNode[]).length !== 1)
      return 'a session variable declared with others; split the declaration, then migrate';
    const typeAnnotation = (id.typeAnnotation as AnyNode | undefined)?.typeAnnotation as AnyNode | undefined;
    const fn = enclosingFunction(path);
    const initializer = originalText(context, node.init as AnyNode);
    const factoryLocals = fn ? localNames(context, fn) : new Set<string>();
    if ([...referencedNames(j, node.init)].some((n) => factoryLocals.has(n)))
      return `\`${id.name}\` starts from other factory locals; move it behind a handle by hand`;
    const closes = factoryAnchors.some((a) => a.data?.resource && a.line === node.loc!.start.line);
    if (
      closes &&
      j(node.init as never)
        .find(j.AwaitExpression)
        .size() +
        ((node.init as AnyNode).type === 'AwaitExpression' ? 1 : 0) >
        0
    )
      return `\`${id.name}\` is opened asynchronously; create it in an async open_session and close it on expiry by hand`;
    moved.push({
      path,
      variable: {
        name: id.name as string,
        type: typeAnnotation ? originalText(context, typeAnnotation) : undefined,
        initializer,
        closes,
      },
    });
  }
  const movedNames = moved.map((m) => m.variable.name);
  const found = statefulTools(context, anchors, movedNames);
  if (typeof found === 'string') return found;
  const tools = found;
  if (tools.length === 0) {
    const endpoint = anchors.find((a) => endpointPlanOf(a));
    return {
      reason: endpoint
        ? endpointStateReason(endpointPlanOf(endpoint)!)
        : 'no tool registration in this file reads this session state; add an explicit handle argument by hand',
      stops: (a) => !endpoint || a === endpoint,
    };
  }
  const stray = anchors.find((a) => /sessionId/.test(a.message) && !tools.some((t) => t.sessionReads.includes(a)));
  if (stray)
    return `the session id is read outside a tool handler (line ${stray.line}); pass the handle to that code by hand, then migrate`;
  if (root.find(j.FunctionDeclaration, { id: { name: 'sessionHandleState' } }).size() > 0)
    return "this file already keeps state behind handles (`sessionHandleState`, written for its low-level `tools/call` handler); move these tools' state into that store by hand";
  const factoryStatement = registrationStatement(tools[0].call, context);
  if (!factoryStatement) return 'tool registrations are not statements in a block; add an explicit handle argument by hand';
  // Every use of a moved variable must be inside a stateful tool's handler (which reads it from the handle's state),
  // except the factory statement that released a resource when the session ended: the handle store closes it now.
  const releases: Array<{ parent: unknown }> = [];
  for (const { path, variable } of moved) {
    const fn = enclosingFunction(path);
    const outside = fn
      ? j(fn.node as never)
          .find(j.Identifier, { name: variable.name })
          // (a property named like it, `{ currency: z.enum([…]) }` in a tool's input schema or `args.currency`, is not a use)
          .filter(
            (p) =>
              isReference(p as never) && p.parent.node !== path.node && !tools.some((t) => within(p.node as unknown as AnyNode, t.handler)),
          )
          .paths()
      : [];
    for (const use of outside) {
      const release = variable.closes ? releaseStatement(use, fn!.node) : undefined;
      if (!release) return `\`${variable.name}\` is used outside the tools that change it; move it behind a handle by hand`;
      releases.push(release);
    }
  }

  const zod = ensureNamedImport(context, ['zod'], 'z');
  const randomUUID = ensureNamedImport(context, ['node:crypto', 'crypto'], 'randomUUID');
  const handleSchema = `${HANDLE_ARG}: ${zod}.string().describe(${quote(context, 'Handle returned by open_session')})`;
  for (const tool of tools) {
    const outcome = rewriteTool(context, tool, handleSchema);
    if (outcome !== true) return outcome;
  }
  for (const { path } of moved) j(path.parent).remove();
  for (const release of new Set(releases)) j(release as never).remove();
  // The minting tool goes right before the first stateful tool, on the same server.
  const { block, statement, server } = factoryStatement;
  block.splice(
    block.indexOf(statement),
    0,
    placeholder(
      context,
      openToolCode({
        server,
        form: tools.some((t) => t.form === 'registerTool') ? 'registerTool' : 'tool',
        tools: tools.map((t) => t.name),
        quote: context.quote,
      }),
      'block',
    ),
  );
  insertAfterImports(
    context,
    placeholder(
      context,
      handleStoreCode({ typescript: context.typescript, variables: moved.map((m) => m.variable), quote: context.quote, randomUUID }),
      'block',
    ),
  );
  return true;
}

/**
 * Per-session state an endpoint creates (`registry.open(id)`, `setAuthContext(id, auth)`) that no `registerTool`/`tool`
 * handler of this file reads: what the analysis found about it, and what a handle would need.
 */
function endpointStateReason(plan: EndpointPlan): string {
  const state = plan.verdict.migratable ? undefined : plan.verdict.state;
  const readers = state?.readers ?? [];
  const where = (r: (typeof readers)[number]) => `\`${r.text.trim()}\` (${r.file}:${r.line}${r.in ? `, in ${r.in}` : ''})`;
  if (state?.fromRequest) {
    const carried = state.fallback
      ? `, which the endpoint also reads back (${where(state.fallback)}) for requests that do not carry it: require it on every POST rather than a handle`
      : ', which every POST carries again: a handle would only make clients repeat it';
    return `the state is a value computed from the request (\`${state.fromRequest}\`)${carried}; hand it to the server built per request and to its readers instead${readers.length ? ` (${readers.map(where).join(', ')})` : ''}`;
  }
  const lowLevel = readers.filter((r) => /^the `/.test(r.in ?? ''));
  if (lowLevel.length > 0) {
    const dispatch = lowLevel.find((r) => r.in === 'the `tools/call` handler');
    const others = lowLevel.filter((r) => r.in !== 'the `tools/call` handler');
    return (
      `the state is read back by session id in low-level request handlers (${lowLevel.map(where).join(', ')}), not in \`registerTool\`/\`tool\` handlers, which is where session handles are written` +
      (dispatch
        ? `: add an open_session tool that creates it under a minted handle, a required session_handle in every tool's input schema, and look it up by that handle in the \`tools/call\` handler`
        : '') +
      others.map(outsideToolCalls).join('') +
      (state?.noHandle ? `; mcp-migrate does not write these handles itself: ${state.noHandle}` : '')
    );
  }
  return readers.length > 0
    ? `the state is read back by session id at ${readers.map(where).join(', ')}, not in a tool registration of this file; add an explicit handle argument there by hand`
    : 'no tool registration in this file reads this session state; add an explicit handle argument by hand';
}

/**
 * A low-level handler other than `tools/call` that reads the state (`initialize` filling it): code that reads nothing of
 * its request could move into open_session; code that fills it from its request cannot, since no tool call carries that.
 */
function outsideToolCalls(reader: SessionStateFacts['readers'][number]): string {
  const where = `${reader.in} (${reader.file}:${reader.line})`;
  return reader.request
    ? `; ${where} fills it from that request (\`${reader.request}\`), which no tool call carries, so open_session cannot create it the same way: take those values as open_session arguments, or read them from configuration, by hand`
    : `; ${where} reads it outside any tool call, where no handle arrives, and reads nothing of its request: move that code into open_session`;
}

/**
 * `void browser.close()` (or `.dispose()`, `.end()`…) inside a statement of the factory body that does nothing else
 * (`server.server.onclose = () => { void browser.close(); }`): that statement, which the handle store replaces.
 */
function releaseStatement(use: { node: unknown; parent: unknown }, factory: AnyNode): { parent: unknown } | undefined {
  const member = (use as { parent: { node: AnyNode; parent: { node: AnyNode } } }).parent;
  const call = member.parent.node;
  if (member.node.type !== 'MemberExpression' || call.type !== 'CallExpression' || call.callee !== member.node) return undefined;
  if (!/^(?:close|dispose|destroy|disconnect|quit|end)$/.test(String((member.node.property as AnyNode).name))) return undefined;
  let path = member.parent as unknown as { node: AnyNode; parent: { node: AnyNode } | null };
  while (path.parent && path.parent.node !== (factory.body as AnyNode)) path = path.parent as typeof path;
  if (!path.parent) return undefined;
  const statement = path.node;
  const calls = statement.type === 'ExpressionStatement' ? countCalls(statement) : Infinity;
  return calls === 1 ? (path as { parent: unknown }) : undefined;
}

function countCalls(node: AnyNode): number {
  let count = 0;
  const visit = (value: unknown): void => {
    if (!value || typeof value !== 'object') return;
    if (Array.isArray(value)) return value.forEach(visit);
    const child = value as AnyNode;
    if (child.type === 'CallExpression') count++;
    for (const key of Object.keys(child)) if (key !== 'loc' && key !== 'comments') visit(child[key]);
  };
  visit(node);
  return count;
}

function quote(context: TransformContext, text: string): string {
  return context.quote === 'double' ? `"${text}"` : `'${text}'`;
}

function within(node: AnyNode, container: AnyNode): boolean {
  return !!node.loc && !!container.loc && containsLocation(container, { line: node.loc.start.line, column: node.loc.start.column + 1 });
}

function enclosingFunction(path: { parent: unknown; node: unknown }): { node: AnyNode } | undefined {
  let current = (path as { parent: { node: AnyNode; parent: unknown } | null }).parent;
  while (current && !isFunctionNode(current.node)) current = current.parent as typeof current;
  return current ?? undefined;
}

function localNames(context: TransformContext, fn: { node: AnyNode }): Set<string> {
  const names = new Set<string>();
  context
    .j(fn.node as never)
    .find(context.j.VariableDeclarator)
    .forEach((p) => {
      if (p.node.id.type === 'Identifier') names.add(p.node.id.name);
    });
  for (const param of (fn.node.params as AnyNode[]) ?? []) if (param.type === 'Identifier') names.add(param.name as string);
  return names;
}

/**
 * Tool registrations whose handler reads the session id (an anchor) or uses a moved variable. A handler registered
 * by name is followed to its function in this file (used nowhere else); one built by a helper (`timed(fn)`) cannot
 * take the handle safely, and stops the rewrite (the reason, as a string).
 */
function statefulTools(context: TransformContext, anchors: Finding[], movedNames: string[]): StatefulTool[] | string {
  const { j, root } = context;
  const tools: StatefulTool[] = [];
  let refusal: string | undefined;
  root.find(j.CallExpression).forEach((p) => {
    const call = p.node as unknown as AnyNode;
    const callee = call.callee as AnyNode;
    if (refusal || callee.type !== 'MemberExpression') return;
    const method = (callee.property as AnyNode).name;
    if (method !== 'registerTool' && method !== 'tool') return;
    const args = call.arguments as AnyNode[];
    const last = args[args.length - 1];
    if (!last || args.length < 2) return;
    const nameNode = args[0];
    const name =
      nameNode.type === 'StringLiteral' || nameNode.type === 'Literal' ? String(nameNode.value) : originalText(context, nameNode);
    const named = last.type === 'Identifier' ? namedHandler(context, last.name as string) : undefined;
    const handler = isFunctionNode(last) ? last : named?.handler;
    const sessionReads = handler ? anchors.filter((a) => /sessionId/.test(a.message) && within(anchorNode(a), handler)) : [];
    const movedVariables = handler ? movedNames.filter((n) => referencedNames(j, handler).has(n)) : [];
    if (!handler) {
      const inside = anchors.some((a) => /sessionId/.test(a.message) && within(anchorNode(a), last));
      if (inside || movedNames.some((n) => referencedNames(j, last).has(n)))
        refusal = `\`${name}\`: its handler is built by \`${originalText(context, last).split('(')[0]}(…)\`, which the handle cannot be threaded through; register an inline handler or add a ${HANDLE_ARG} argument by hand`;
      return;
    }
    if (sessionReads.length === 0 && movedVariables.length === 0) return;
    tools.push({ call, name, form: method, handler, named: named?.site, sessionReads, movedVariables });
  });
  return refusal ?? tools;
}

function anchorNode(anchor: Finding): AnyNode {
  return { type: 'x', loc: { start: { line: anchor.line, column: anchor.column - 1 }, end: { line: anchor.line, column: anchor.column } } };
}

/** `function name(…) {…}` or `const name = (…) => …` in this file, referenced once (by the registration). */
function namedHandler(context: TransformContext, name: string): { handler: AnyNode; site: NonNullable<StatefulTool['named']> } | undefined {
  const { j, root } = context;
  const uses = root
    .find(j.Identifier, { name })
    .filter((p) => isReference(p as never) && !(p.parent.node.type === 'FunctionDeclaration' && p.parent.node.id === p.node))
    .size();
  if (uses !== 1) return undefined;
  const declaration = root.find(j.FunctionDeclaration, { id: { name } }).paths()[0];
  if (declaration) return { handler: declaration.node as unknown as AnyNode, site: { path: declaration, declaration: true } };
  const variable = root
    .find(j.VariableDeclarator, { id: { name } })
    .filter((p) => isFunctionNode(p.node.init as never))
    .paths()[0];
  if (!variable) return undefined;
  return { handler: variable.node.init as unknown as AnyNode, site: { path: variable.get('init'), declaration: false } };
}

function registrationStatement(
  call: AnyNode,
  context: TransformContext,
): { block: AnyNode[]; statement: AnyNode; server: string } | undefined {
  const { j, root } = context;
  const path = root
    .find(j.ExpressionStatement)
    .filter((p) => (p.node.expression as unknown) === call)
    .paths()[0];
  const block = path?.parent?.node as AnyNode | undefined;
  if (!path || !block || !Array.isArray(block.body)) return undefined;
  const callee = call.callee as AnyNode;
  return {
    block: block.body as AnyNode[],
    statement: path.node as unknown as AnyNode,
    server: originalText(context, callee.object as AnyNode),
  };
}

function rewriteTool(context: TransformContext, tool: StatefulTool, handleSchema: string): true | string {
  const { j } = context;
  const args = tool.call.arguments as AnyNode[];
  const handler = tool.handler;
  const params = handler.params as AnyNode[];
  // 1. The schema gets a required handle argument.
  let hadArgs: boolean;
  if (tool.form === 'registerTool') {
    const config = args[1];
    if (!config || config.type !== 'ObjectExpression')
      return `\`${tool.name}\`: the config is not an object literal; add a ${HANDLE_ARG} argument by hand`;
    const schemaProperty = (config.properties as AnyNode[]).find((p) => (p.key as AnyNode | undefined)?.name === 'inputSchema');
    if (schemaProperty && (schemaProperty.value as AnyNode).type !== 'ObjectExpression')
      return `\`${tool.name}\`: inputSchema is not an object literal; add a ${HANDLE_ARG} argument by hand`;
    hadArgs = !!schemaProperty;
    args[1] = j.identifier(
      inlinePlaceholder(
        context,
        schemaProperty
          ? replaceInside(
              context,
              config,
              schemaProperty.value as AnyNode,
              appendProperty(context, schemaProperty.value as AnyNode, handleSchema),
            )
          : appendProperty(context, config, `inputSchema: { ${handleSchema} }`),
      ),
    ) as unknown as AnyNode;
  } else {
    const middle = args.slice(1, -1);
    const schema = middle.find(
      (a) =>
        a.type === 'ObjectExpression' &&
        !(a.properties as AnyNode[]).every((p) => /Hint$|^title$/.test(String((p.key as AnyNode | undefined)?.name))),
    );
    hadArgs = !!schema;
    if (schema)
      args[args.indexOf(schema)] = j.identifier(
        inlinePlaceholder(context, appendProperty(context, schema, handleSchema)),
      ) as unknown as AnyNode;
    else {
      const at = 1 + middle.filter((a) => a.type === 'StringLiteral' || a.type === 'Literal' || a.type === 'TemplateLiteral').length;
      args.splice(at, 0, j.identifier(inlinePlaceholder(context, `{ ${handleSchema} }`)) as unknown as AnyNode);
    }
  }
  // 2–4. The handler, edited as text so its layout stays: it reads the handle from its arguments, uses it where
  // it used the session id, reads moved variables from the handle's state, and rejects an unknown handle first.
  const binding = bindHandle(context, tool, hadArgs);
  if (typeof binding === 'string') return binding;
  const { edits, handleExpr } = binding;
  for (const read of tool.sessionReads) {
    if (binding.destructured && atAnchor(binding.destructured, read)) continue;
    const node = j(handler as never)
      .find(j.MemberExpression, { property: { name: 'sessionId' } })
      .filter((p) => atAnchor(p.node as unknown as AnyNode, read))
      .paths()[0]?.node as unknown as AnyNode | undefined;
    if (!node)
      return `\`${tool.name}\`: the session id is read in a shape mcp-migrate does not rewrite (line ${read.line}); add a ${HANDLE_ARG} argument by hand`;
    edits.push({ start: node.start as number, end: node.end as number, text: handleExpr });
  }
  if (tool.movedVariables.length > 0) {
    j(handler as never)
      .find(j.Identifier)
      .filter((p) => tool.movedVariables.includes(p.node.name) && isReference(p as never))
      .forEach((p) => {
        const node = p.node as unknown as AnyNode;
        const parent = p.parent.node as AnyNode;
        const shorthand = (parent.type === 'ObjectProperty' || parent.type === 'Property') && parent.shorthand;
        edits.push({
          start: node.start as number,
          end: node.end as number,
          text: shorthand ? `${node.name}: state.${node.name}` : `state.${node.name}`,
        });
      });
  }
  const guard = [
    ...binding.prelude,
    ...(tool.movedVariables.length > 0
      ? [`const state = sessionHandleState(${handleExpr});`, `if (!state) return unknownSessionHandle();`]
      : [`if (!sessionHandleState(${handleExpr})) return unknownSessionHandle();`]),
  ];
  const body = handler.body as AnyNode;
  const unit = context.useTabs ? '\t' : ' '.repeat(context.tabWidth);
  const handlerIndent = lineIndent(context, handler.start as number);
  if (body.type === 'BlockStatement') {
    const first = (body.body as AnyNode[])[0];
    const indent = first ? lineIndent(context, first.start as number) : handlerIndent + unit;
    const at = (body.start as number) + 1;
    edits.push({ start: at, end: at, text: guard.map((line) => `\n${indent}${line}`).join('') });
  } else {
    // An expression body (possibly parenthesised, as in `=> ({ … })`) becomes a block that returns it.
    const indent = handlerIndent + unit;
    const extra = body.extra as { parenthesized?: boolean; parenStart?: number } | undefined;
    const start = extra?.parenthesized && extra.parenStart !== undefined ? extra.parenStart : (body.start as number);
    const end = extra?.parenthesized ? context.parsed.indexOf(')', body.end as number) + 1 : (body.end as number);
    edits.push({ start, end: start, text: `{${guard.map((line) => `\n${indent}${line}`).join('')}\n${indent}return ` });
    // Zero-width insertions (one more indent unit per continuation line) compose with the edits inside.
    for (let at = context.parsed.indexOf('\n', start); at >= 0 && at < end; at = context.parsed.indexOf('\n', at + 1)) {
      edits.push({ start: at + 1, end: at + 1, text: unit });
    }
    edits.push({ start: end, end, text: `;\n${handlerIndent}}` });
  }
  const code = applyEdits(context, handler, edits);
  if (tool.named?.declaration) tool.named.path.replace(declarationPlaceholder(context, code));
  else if (tool.named) tool.named.path.replace(j.identifier(inlinePlaceholder(context, code)));
  else args[args.indexOf(handler)] = j.identifier(inlinePlaceholder(context, code)) as unknown as AnyNode;
  return true;
}

interface HandleBinding {
  edits: TextEdit[];
  /** How the handler body reads the handle. */
  handleExpr: string;
  /** Lines the body starts with (a destructured `sessionId` now bound to the handle). */
  prelude: string[];
  /** The `sessionId` element the context destructured, now bound by the prelude. */
  destructured?: AnyNode;
}

function atAnchor(node: AnyNode, anchor: Finding): boolean {
  const start = (node.loc as { start: { line: number; column: number } } | undefined)?.start;
  return !!start && start.line === anchor.line && start.column === anchor.column - 1;
}

/**
 * Where the handler gets the handle from, for every parameter shape: none (`async () =>`), an object pattern, a named
 * or `_`-prefixed argument, rest parameters, a context destructured for its `sessionId`. A handler declared apart
 * from the registration has no contextual type, so in TypeScript its new handle binding is typed.
 */
function bindHandle(context: TransformContext, tool: StatefulTool, hadArgs: boolean): HandleBinding | string {
  const handler = tool.handler;
  const params = handler.params as AnyNode[];
  const edits: TextEdit[] = [];
  const prelude: string[] = [];
  const typed = context.typescript && !!tool.named;
  const handleType = `{ ${HANDLE_ARG}: string }`;
  const unusual = `\`${tool.name}\`: unusual handler parameters; add a ${HANDLE_ARG} argument by hand`;
  const contextParam = params[hadArgs ? 1 : 0];
  const destructured = contextParam?.type === 'ObjectPattern' ? sessionIdElement(contextParam) : undefined;
  let handleExpr: string = HANDLE_ARG;
  let contextGone = false;
  const first = params[0];
  if (!hadArgs || !first) {
    // The tool had no arguments (its first parameter, if any, was the context) or ignored them: a new first one.
    const binding = `{ ${HANDLE_ARG} }${typed ? `: ${handleType}` : ''}`;
    if (first && first === contextParam && destructured && params.length === 1 && (first.properties as AnyNode[]).length === 1) {
      edits.push({ start: first.start as number, end: first.end as number, text: binding });
      contextGone = true;
    } else if (!first) {
      const open = context.parsed.indexOf('(', handler.start as number);
      if (open < 0 || open > ((handler.body as AnyNode).start as number)) return unusual;
      edits.push({ start: open + 1, end: open + 1, text: binding });
    } else if (isParenthesized(context, handler, first)) {
      edits.push({ start: first.start as number, end: first.start as number, text: `${binding}, ` });
    } else {
      edits.push({ start: first.start as number, end: first.end as number, text: `(${binding}, ${originalText(context, first)})` });
    }
  } else if (first.type === 'ObjectPattern') {
    const properties = first.properties as AnyNode[];
    const rest = properties.find((p) => p.type === 'RestElement');
    const last = properties[properties.length - 1];
    if (rest) handleExpr = `${originalText(context, rest.argument as AnyNode)}.${HANDLE_ARG}`;
    else if (!first.typeAnnotation)
      edits.push({ start: first.start as number, end: first.end as number, text: appendProperty(context, first, HANDLE_ARG) });
    else if (last) edits.push({ start: last.end as number, end: last.end as number, text: `, ${HANDLE_ARG}` });
    else return unusual;
    extendAnnotation(context, first, handleType, edits);
  } else if (first.type === 'Identifier') {
    handleExpr = `${first.name}.${HANDLE_ARG}`;
    extendAnnotation(context, first, handleType, edits);
  } else if (first.type === 'RestElement' && (first.argument as AnyNode).type === 'Identifier' && !first.typeAnnotation) {
    handleExpr = `${(first.argument as AnyNode).name}[0].${HANDLE_ARG}`;
  } else {
    return unusual;
  }
  if (destructured) {
    // `{ sessionId }` leaves the context (the parameter goes when nothing else is in it); the name is the handle now.
    const elements = contextParam.properties as AnyNode[];
    if (contextGone) {
      // replaced by the handle binding above
    } else if (elements.length === 1 && contextParam === params[params.length - 1]) {
      const previous = params[params.indexOf(contextParam) - 1];
      edits.push({ start: previous.end as number, end: contextParam.end as number, text: '' });
    } else if (elements.length === 1) {
      edits.push({ start: contextParam.start as number, end: patternEnd(contextParam), text: '{}' });
    } else {
      const index = elements.indexOf(destructured.element);
      const start = index > 0 ? (elements[index - 1].end as number) : (destructured.element.start as number);
      const end = index > 0 ? (destructured.element.end as number) : (elements[1].start as number);
      edits.push({ start, end, text: '' });
    }
    prelude.push(`const ${destructured.local} = ${handleExpr};`);
  }
  return { edits, handleExpr, prelude, destructured: destructured?.element };
}

/** `sessionId` (or `sessionId: sid`) in a destructured context, and the local name it binds. */
function sessionIdElement(pattern: AnyNode): { element: AnyNode; local: string } | undefined {
  for (const element of pattern.properties as AnyNode[]) {
    const key = element.key as AnyNode | undefined;
    const value = element.value as AnyNode | undefined;
    if (key?.name === 'sessionId' && value?.type === 'Identifier') return { element, local: value.name as string };
  }
  return undefined;
}

/** A typed parameter (`args: { fruit: string }`) gets the handle in its type too: `… & { session_handle: string }`. */
function extendAnnotation(context: TransformContext, param: AnyNode, handleType: string, edits: TextEdit[]): void {
  const annotation = (param.typeAnnotation as AnyNode | undefined)?.typeAnnotation as AnyNode | undefined;
  if (!annotation) return;
  const type = originalText(context, annotation);
  const simple = /^(?:TSTypeLiteral|TSTypeReference)$/.test(annotation.type as string);
  edits.push({ start: annotation.start as number, end: annotation.end as number, text: `${simple ? type : `(${type})`} & ${handleType}` });
}

/** The end of an object pattern itself (its type annotation, if any, follows). */
function patternEnd(pattern: AnyNode): number {
  const annotation = pattern.typeAnnotation as AnyNode | undefined;
  return annotation ? (annotation.start as number) : (pattern.end as number);
}

interface TextEdit {
  start: number;
  end: number;
  text: string;
}

/** The node's source with the edits (absolute offsets, non-overlapping) applied. */
function applyEdits(context: TransformContext, node: AnyNode, edits: TextEdit[]): string {
  let text = originalText(context, node);
  const base = node.start as number;
  for (const edit of [...edits].sort((a, b) => b.start - a.start || b.end - a.end)) {
    text = text.slice(0, edit.start - base) + edit.text + text.slice(edit.end - base);
  }
  return text;
}

function lineIndent(context: TransformContext, offset: number): string {
  const source = context.parsed;
  const lineStart = source.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*/.exec(source.slice(lineStart))![0];
}

/** `(extra) => …` rather than `extra => …`. */
function isParenthesized(context: TransformContext, handler: AnyNode, param: AnyNode): boolean {
  const before = context.parsed.slice(handler.start as number, param.start as number);
  return before.includes('(');
}

/** The text of `outer` with `inner` (a node inside it) replaced by `replacement`. */
function replaceInside(context: TransformContext, outer: AnyNode, inner: AnyNode, replacement: string): string {
  const text = originalText(context, outer);
  const start = (inner.start as number) - (outer.start as number);
  const end = (inner.end as number) - (outer.start as number);
  return text.slice(0, start) + replacement + text.slice(end);
}

function isReference(path: { node: AnyNode; parent: { node: AnyNode } }): boolean {
  const parent = path.parent.node;
  if (
    (parent.type === 'MemberExpression' || parent.type === 'OptionalMemberExpression') &&
    parent.property === path.node &&
    !parent.computed
  )
    return false;
  if ((parent.type === 'ObjectProperty' || parent.type === 'Property') && parent.key === path.node && !parent.shorthand) return false;
  if (parent.type === 'VariableDeclarator' && parent.id === path.node) return false;
  return true;
}

function insertAfterImports(context: TransformContext, statement: AnyNode): void {
  const body = context.root.find(context.j.Program).get('body').value as AnyNode[];
  body.splice(afterImports(body), 0, statement);
}
