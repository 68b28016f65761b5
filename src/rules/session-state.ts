import {
  descendantsOfKind,
  identifiersReferringTo,
  identifiersReferringToAny,
  identifiersUnder,
  nodesOfKind,
  refersTo,
  thisUnder,
} from '../analysis/node-index';
import {
  Node,
  SyntaxKind,
  ts,
  type CallExpression,
  type ClassDeclaration,
  type NewExpression,
  type ParameterDeclaration,
  type PropertyAccessExpression,
  type SourceFile,
  type VariableDeclaration,
  type Symbol as TsMorphSymbol,
} from 'ts-morph';
import type { Rule } from './rule';
import { resolveHandler, routeContextsOf, staticString } from '../analysis/routes';
import { toolAnnotationsArgument, toolRegistrations, type ToolRegistration } from '../analysis/tools';
import { resolveOrigin } from '../analysis/resolve';
import { isMcpModule } from '../analysis/sdk-modules';
import { enclosingFunction } from './shared';
import { storeName, storeWrites } from '../analysis/stores';
import type { FileFacts } from '../analysis/file-facts';
import type { EndpointPlan, Span } from '../analysis/endpoints/model';
import { isFunctionNode, unwrapExpression, type FunctionNode } from '../analysis/endpoints/spans';
import { referencesOf } from '../analysis/references';
import { callChangesVariable, changedAt, isFreshContainer } from '../analysis/state-changes';
import { packageServerFactories, packageServerPlan } from '../analysis/package-servers';

const CONTEXT_PARAM = /^(?:extra|ctx|context|requestExtra|handlerExtra)$/;

export const sessionState: Rule = {
  meta: {
    id: 'session-state',
    title: 'Tool behaviour that depends on per-session state',
    severity: 'warning',
    fix: 'unsafe',
    doc:
      'Without protocol sessions every request may reach a fresh server, so state keyed by `extra.sessionId`, state captured ' +
      'in a per-session server factory (or made there, or in the route handler of each connection, and handed to the function ' +
      'that registers the tools), a server a ' +
      'package builds per session, what the client declared at `initialize` (read back by a tool), or an AsyncLocalStorage ' +
      'context entered per session silently resets. Revision ' +
      '2026-07-28 replaces hidden session state with explicit handles: a `create_*`/`open_*` tool returns an unguessable ' +
      'handle that later calls pass as an ordinary argument (§ "Stateful Tools", SEP-2567).',
    hint: 'Mint a handle in an `open_*` tool and pass it as a tool argument; keep the state in a store keyed by handle with a bounded lifetime.',
    sources: ['spec 2026-07-28 server/tools.mdx § Stateful Tools', 'spec 2026-07-28 changelog.mdx § Major changes 1 (SEP-2567)'],
  },
  check({ sourceFile, facts, report }) {
    if (!facts.importsMcp && facts.tools.length === 0) return;
    const handlers = new Set(facts.tools.map((t) => t.handler).filter((h): h is Node => !!h));
    for (const access of nodesOfKind(sourceFile, SyntaxKind.PropertyAccessExpression)) {
      if (access.getName() !== 'sessionId') continue;
      const object = access.getExpression();
      // `server.server.transport?.sessionId` in a tool: the id of the transport that served the session.
      const viaTransport =
        Node.isPropertyAccessExpression(object) &&
        object.getName() === 'transport' &&
        access.getAncestors().some((ancestor) => handlers.has(ancestor));
      if (!viaTransport && (!Node.isIdentifier(object) || !isHandlerContext(object, handlers, facts))) continue;
      // The key of a credentials lookup the endpoint migration makes request-scoped: the plan carries it out.
      const carried = credentialsPlanAt(facts, access);
      if (carried) {
        report(
          access,
          `Session state: the tool reads \`${access.getText()}\` to look up credentials each request carries again; the endpoint migration reads them from the request instead.`,
          {
            data: { endpoint: carried },
          },
        );
        continue;
      }
      const filled = filledBySessionStart(access, handlers);
      if (filled) {
        report(
          access,
          `Session state: the tool reads \`${access.getText()}\`, which is undefined once sessions are gone, to look up \`${filled.store}\`, which is filled when a session starts (\`${filled.fill}\`): every lookup misses.`,
          { data: { filledAtSessionStart: filled.store } },
        );
        continue;
      }
      report(access, `Session state: the tool reads \`${access.getText()}\`, which is undefined once sessions are gone.`);
    }
    // const { sessionId } = extra;  — the id destructured from the handler context in the handler's body.
    for (const variable of nodesOfKind(sourceFile, SyntaxKind.VariableDeclaration)) {
      const pattern = variable.getNameNode();
      const init = variable.getInitializer();
      const object = init && unwrapExpression(init);
      if (!Node.isObjectBindingPattern(pattern) || !Node.isIdentifier(object) || !isHandlerContext(object, handlers, facts)) continue;
      for (const element of pattern.getElements()) {
        if ((element.getPropertyNameNode()?.getText() ?? element.getName()) !== 'sessionId') continue;
        report(
          element,
          `Session state: the tool destructures \`sessionId\` from \`${object.getText()}\`, which is undefined once sessions are gone.`,
        );
      }
    }
    // async ({ item }, { sessionId }) => …  — the id destructured from the handler context.
    for (const { handler, contextIndex } of contextParameters(facts.tools, sourceFile)) {
      const parameter = (handler as Node & { getParameters?(): Node[] }).getParameters?.()[contextIndex];
      if (!parameter || !Node.isParameterDeclaration(parameter)) continue;
      const pattern = parameter.getNameNode();
      if (!Node.isObjectBindingPattern(pattern)) continue;
      for (const element of pattern.getElements()) {
        if ((element.getPropertyNameNode()?.getText() ?? element.getName()) !== 'sessionId') continue;
        report(element, 'Session state: the tool destructures `sessionId` from its context, which is undefined once sessions are gone.');
      }
    }
    const mutators = [
      ...facts.tools.map((t) => ({ name: `tool \`${t.name}\``, handler: t.handler })),
      ...requestHandlers(sourceFile).map(({ method, handler }) => ({ name: `the \`${method}\` handler`, handler })),
    ];
    for (const { factory, construction } of serverFactories(facts, sourceFile)) {
      const body = (factory as Node & { getBody?(): Node | undefined }).getBody?.();
      if (!body || !Node.isBlock(body)) continue;
      // (its own variables, in nested blocks too — `if (features.cart) { const cart = []; server.tool(…) }` —, not
      // those of the functions inside it)
      const variables = body
        .getDescendantsOfKind(SyntaxKind.VariableDeclaration)
        .filter((v) => v.getFirstAncestor((a) => isFunctionNode(a)) === factory);
      for (const variable of variables) {
        const server = variable.getInitializer();
        const isServer = !!server && ((!!construction && server === construction) || facts.holds(variable.getNameNode(), 'McpServer'));
        const resource = isServer ? undefined : sessionResource(variable, mutators);
        if (resource) {
          report(
            variable,
            `Session state: \`${variable.getName()}\` is a resource made per session in the server factory (it has close()) and ${resource} uses it; without sessions each request gets a new one, and multi-step flows lose it.`,
            { data: { resource: true } },
          );
          continue;
        }
        const initialized = setAtInitialize(variable, factory, mutators);
        if (initialized) {
          report(
            variable,
            `Session state: \`${variable.getName()}\` is set when the session initializes (\`${initialized.hook}\`) and ${initialized.reader} reads it; without sessions a tool call reaches a fresh server that was never initialized, so it always sees its first value.`,
            { data: { clientInfo: true } },
          );
          continue;
        }
        const mutatedIn = toolMutating(variable, mutators);
        if (mutatedIn) {
          // (one declared in a nested block is the factory's too, but --unsafe moves only the factory's own statements)
          const nested = variable.getParent()?.getParent()?.getParent() !== body;
          report(
            variable,
            `Session state: \`${variable.getName()}\` lives in the per-session server factory and ${mutatedIn} changes it; a fresh server per request loses it.`,
            nested ? { data: { nestedBlock: true } } : undefined,
          );
        }
      }
      for (const keyed of keyedByServer(factory, facts, mutators)) {
        report(
          keyed.call,
          `Session state: ${keyed.tool} looks up \`${keyed.store}\` by the server built for each session (\`${keyed.call.getText().split('\n')[0]}\`); without sessions every request has a new server, and the lookup misses.`,
          { data: { keyedByServer: keyed.store } },
        );
      }
      for (const handed of stateHandedToHelpers(body, mutators)) {
        const what = Node.isVariableDeclaration(handed.made) ? handed.made.getName() : handed.made.getText().split('\n')[0];
        report(
          handed.made,
          `Session state: \`${what}\` is made for each server the factory builds and handed to \`${handed.helper}\`, where ${handed.mutatedIn} changes it; a fresh server per request loses it.`,
          { data: { handedTo: handed.helper } },
        );
      }
    }
    // fastmcp: the object `authenticate` returned is the session's (`context.session`); stateless, fastmcp
    // authenticates every request again, so what a tool changes on it is gone by the next call.
    for (const { at, tool } of fastmcpSessionChanges(facts.tools)) {
      report(
        at,
        `Session state: tool \`${tool}\` changes \`${at.getText()}\`, the object fastmcp's \`authenticate\` returned for the session; stateless, fastmcp authenticates every request again and the change is gone by the next call.`,
        { data: { frameworkSession: 'fastmcp' } },
      );
    }
    // What the client declared at `initialize`, read back by a tool: a fresh server per request never saw it.
    for (const { call, reader } of clientInfoReads(mutators)) {
      report(
        call,
        `Session state: ${reader} reads \`${call.getText()}\`, which the server learns at \`initialize\`; without sessions a tool call from a 2025-era client reaches a fresh server that never saw it, and it is undefined (2026-07-28 clients declare it with every request).`,
        { data: { clientInfo: true } },
      );
    }
    // State made per connection or request outside a server factory (a route handler, the factory handed to
    // `createMcpHandler`) and handed to the function that builds the server and registers the tools.
    for (const handed of stateHandedPerRequest(facts, sourceFile, mutators)) {
      const what = Node.isVariableDeclaration(handed.made) ? handed.made.getName() : handed.made.getText().split('\n')[0];
      report(
        handed.made,
        `Session state: \`${what}\` is made for each connection or request and handed to \`${handed.helper}\`, where ${handed.mutatedIn} changes it; a fresh server per request loses it.`,
        { data: { handedTo: handed.helper } },
      );
    }
    for (const kept of instanceStateChangedByTools(facts.tools)) {
      report(
        kept.field,
        `Session state: \`${kept.name}\` lives in each \`${kept.className}\`, made per connection (\`${kept.made.getText().split('\n')[0]}\`), and tool \`${kept.tool}\` changes it; a fresh server per request loses it.`,
        { data: { inInstance: kept.className } },
      );
    }
    for (const plan of facts.endpoints) {
      // The endpoint is kept because a call hands the session id to state (`sessionManager.create(id)`).
      const { verdict } = plan;
      if (verdict.migratable || verdict.at.file !== facts.relPath || !/keeps state per session/.test(verdict.reason)) continue;
      const at = facts.nodeAt(verdict.at);
      if (!at) continue;
      report(
        at,
        `Session state: \`${at.getText().split('\n')[0]}\` creates state per session (a store or manager keyed by the session id); without sessions every request starts without it, and tools that look it up by session lose it.`,
        // The endpoint's own marker already stands there.
        { data: { endpoint: plan } },
      );
    }
    for (const found of packageServerFactories(facts, sourceFile)) {
      report(
        found.call,
        `Session state: \`${found.factory}()\` from \`${found.module}\` builds a server per connection, with whatever it owns (a browser, a client); without sessions each request gets a new one, and multi-step flows lose it.`,
        { data: { packageServer: packageServerPlan(found, facts.relPath) } },
      );
    }
    for (const call of nodesOfKind(sourceFile, SyntaxKind.CallExpression)) {
      const callee = call.getExpression();
      if (!Node.isPropertyAccessExpression(callee) || callee.getName() !== 'run') continue;
      const storage = callee.getExpression();
      const declaration = storage.getSymbol()?.getDeclarations()[0];
      const init = declaration && Node.isVariableDeclaration(declaration) ? declaration.getInitializer() : undefined;
      if (!init || !/^new\s+(?:[\w$]+\.)?AsyncLocalStorage\b/.test(init.getText())) continue;
      if (routeContextsOf(call).length === 0) continue;
      report(call, 'Session state: an AsyncLocalStorage context is entered per request/session and read by tools.', { fix: 'manual' });
    }
  },
};

/**
 * The identifier names a tool or request handler's context: a handler's parameter (or one typed or named as a
 * context), or a local named as one inside a handler (`const [args, extra] = params` with rest parameters); never a
 * transport (its `sessionId` is the transport rules' business).
 */
function isHandlerContext(object: Node, handlers: ReadonlySet<Node>, facts: FileFacts): boolean {
  const declaration = object.getSymbol()?.getDeclarations()[0];
  if (!declaration) return false;
  if (Node.isParameterDeclaration(declaration)) {
    const typed = namesContextType(declaration.getTypeNode(), 0);
    if (!handlers.has(declaration.getParent()) && !typed && !CONTEXT_PARAM.test(object.getText())) return false;
  } else if (
    !(Node.isBindingElement(declaration) || Node.isVariableDeclaration(declaration)) ||
    !CONTEXT_PARAM.test(object.getText()) ||
    !declaration.getAncestors().some((ancestor) => handlers.has(ancestor))
  )
    return false;
  return !facts.holds(object, 'StreamableHTTPServerTransport') && !facts.holds(object, 'SSEServerTransport');
}

/** Does a parameter's type name the SDK handler context, directly or through local type aliases? */
function namesContextType(typeNode: Node | undefined, depth: number): boolean {
  if (!typeNode || depth > 3) return false;
  if (/RequestHandlerExtra|ServerContext/.test(typeNode.getText())) return true;
  for (const reference of [typeNode, ...typeNode.getDescendants()].filter(Node.isTypeReference)) {
    for (const declaration of reference.getTypeName().getSymbol()?.getDeclarations() ?? []) {
      if (Node.isTypeAliasDeclaration(declaration) && namesContextType(declaration.getTypeNode(), depth + 1)) return true;
    }
  }
  return false;
}

/**
 * Handlers and the index of their context parameter: `server.tool` / `registerTool` callbacks take it first when the
 * tool has no input schema and second otherwise; fastmcp `execute(args, context)` and `setRequestHandler(schema,
 * (request, extra) => …)` take it second.
 */
function contextParameters(tools: readonly ToolRegistration[], sourceFile: SourceFile): Array<{ handler: Node; contextIndex: number }> {
  const result: Array<{ handler: Node; contextIndex: number }> = [];
  for (const tool of tools) {
    if (!tool.handler) continue;
    if (tool.form === 'addTool') result.push({ handler: tool.handler, contextIndex: 1 });
    else if (tool.form === 'registerTool')
      result.push({ handler: tool.handler, contextIndex: tool.config?.getProperty('inputSchema') ? 1 : 0 });
    else if (tool.form === 'tool' && Node.isCallExpression(tool.node)) {
      const annotations = toolAnnotationsArgument(tool);
      const middle = tool.node.getArguments().slice(1, tool.callbackIndex);
      const hasSchema = middle.some(
        (arg) =>
          !Node.isStringLiteral(arg) &&
          !Node.isNoSubstitutionTemplateLiteral(arg) &&
          (annotations === 'unknown' || arg !== annotations?.node),
      );
      result.push({ handler: tool.handler, contextIndex: hasSchema ? 1 : 0 });
    }
  }
  for (const { handler } of requestHandlers(sourceFile)) result.push({ handler, contextIndex: 1 });
  return result;
}

/** Low-level `server.setRequestHandler(Schema | 'method', handler)` registrations. */
function requestHandlers(sourceFile: SourceFile): Array<{ method: string; handler: Node }> {
  const result: Array<{ method: string; handler: Node }> = [];
  for (const call of nodesOfKind(sourceFile, SyntaxKind.CallExpression)) {
    const callee = call.getExpression();
    if (!Node.isPropertyAccessExpression(callee) || callee.getName() !== 'setRequestHandler') continue;
    const [method, handlerArg] = call.getArguments();
    const handler = resolveHandler(handlerArg);
    if (method && handler) result.push({ method: staticString(method) ?? method.getText(), handler });
  }
  return result;
}

/** Description of a tool or request handler that mutates the variable (assigns it, or calls a mutating method on it). */
/**
 * A value the factory makes afresh (`new Conversation()`, a literal, or a local initialised with one) and hands to a
 * function of the project that registers tools (`registerChatTools(server, new Conversation())`), whose tools change
 * the parameter it arrives in.
 */
function stateHandedToHelpers(
  factoryBody: Node,
  tools: ReadonlyArray<{ name: string; handler?: Node }>,
): Array<{ made: Node; helper: string; mutatedIn: string }> {
  const found: Array<{ made: Node; helper: string; mutatedIn: string }> = [];
  for (const call of descendantsOfKind(factoryBody, SyntaxKind.CallExpression)) {
    if (call.getFirstAncestor((a) => a === factoryBody || isFunctionNode(a)) !== factoryBody) continue;
    const helper = calledFunction(call);
    if (!helper) continue;
    const helperTools = tools.filter((t) => !!t.handler && helper.node.containsRange(t.handler.getPos(), t.handler.getEnd()));
    if (helperTools.length === 0) continue;
    call.getArguments().forEach((argument, index) => {
      const parameter = helper.node.getParameters()[index];
      const made = parameter && madeAfresh(argument, factoryBody);
      const mutatedIn = made && toolMutating(parameter, helperTools);
      if (mutatedIn && !found.some((f) => f.made === made)) found.push({ made, helper: helper.name, mutatedIn });
    });
  }
  return found;
}

/**
 * The functions whose locals live as long as one server: those that build it (`new McpServer(…)`), and those that
 * register tools on a server for each connection or request — a route handler that adds tools to the server a
 * factory made, or a function of the project such a function or a factory calls (`registerTools(server)`).
 */
function serverFactories(facts: FileFacts, sourceFile: SourceFile): Array<{ factory: FunctionNode; construction?: Node }> {
  const found: Array<{ factory: FunctionNode; construction?: Node }> = [];
  for (const construction of facts.constructions('McpServer')) {
    const factory = enclosingFunction(construction);
    if (isFunctionNode(factory) && !found.some((f) => f.factory === factory)) found.push({ factory, construction });
  }
  const builders = new Set<Node>(found.map((f) => f.factory));
  const registrations = [...facts.tools.map((t) => t.node), ...requestHandlers(sourceFile).map((h) => h.handler.getParent()!)];
  for (const registration of registrations) {
    const fn = enclosingFunction(registration);
    if (!isFunctionNode(fn) || builders.has(fn) || found.some((f) => f.factory === fn)) continue;
    const perServer =
      servesPerRequest(registration, fn, facts) ||
      callersOf(fn).some((call) => {
        const caller = call.getFirstAncestor((a) => isFunctionNode(a));
        return !!caller && (builders.has(caller) || servesPerRequest(call, caller, facts));
      });
    if (perServer) found.push({ factory: fn });
  }
  return found;
}

/** Calls of a named function of the project (`registerTools(server)`), in any file of the project. */
function callersOf(fn: FunctionNode): CallExpression[] {
  const declaration = Node.isFunctionDeclaration(fn) ? fn : fn.getParentIfKind(SyntaxKind.VariableDeclaration);
  const name = declaration?.getNameNode();
  if (!name || !Node.isIdentifier(name)) return [];
  return referencesOf(name).flatMap((reference) => {
    const parent = reference.getParent();
    return Node.isCallExpression(parent) && parent.getExpression() === reference ? [parent] : [];
  });
}

/**
 * Calls, in a function that serves a request or a connection — an endpoint's request region, a route handler, the
 * factory handed to `createMcpHandler` — but not in a function that builds the server itself (the factory case
 * above), of a project function that registers tools, with a value made afresh there (`buildServer([])`,
 * `createServer(new Session())`, `const basket = []; buildServer(basket)`) that a tool of that function changes.
 */
function stateHandedPerRequest(
  facts: FileFacts,
  sourceFile: SourceFile,
  localTools: ReadonlyArray<{ name: string; handler?: Node }>,
): Array<{ made: Node; helper: string; mutatedIn: string }> {
  const found: Array<{ made: Node; helper: string; mutatedIn: string }> = [];
  const factories = new Set(facts.constructions('McpServer').map((c) => enclosingFunction(c)));
  for (const call of nodesOfKind(sourceFile, SyntaxKind.CallExpression)) {
    const caller = call.getFirstAncestor((a) => isFunctionNode(a));
    if (!caller || factories.has(caller)) continue;
    const body = caller.getBody();
    if (!body) continue;
    const helper = calledFunction(call);
    if (!helper) continue;
    const helperFile = helper.node.getSourceFile();
    const tools =
      helperFile === sourceFile
        ? localTools
        : [
            ...toolRegistrations(helperFile).map((t) => ({ name: `tool \`${t.name}\``, handler: t.handler })),
            ...requestHandlers(helperFile).map(({ method, handler }) => ({ name: `the \`${method}\` handler`, handler })),
          ];
    const helperTools = tools.filter((t) => !!t.handler && helper.node.containsRange(t.handler.getPos(), t.handler.getEnd()));
    if (helperTools.length === 0 || !servesPerRequest(call, caller, facts)) continue;
    call.getArguments().forEach((argument, index) => {
      const parameter = helper.node.getParameters()[index];
      const made = parameter && (madeAfresh(argument, body) ?? madeInServingFunction(argument, caller, facts));
      const mutatedIn = made && toolMutating(parameter, helperTools);
      if (mutatedIn && !found.some((f) => f.made === made)) found.push({ made, helper: helper.name, mutatedIn });
    });
  }
  return found;
}

/**
 * `const basket = []` in a route handler around `createMcpHandler(() => buildServer(basket))`: made afresh in an
 * enclosing function that itself serves each request (a variable of a function run once is shared, not lost).
 */
function madeInServingFunction(argument: Node, caller: FunctionNode, facts: FileFacts): Node | undefined {
  const declaration = Node.isIdentifier(argument) ? argument.getSymbol()?.getDeclarations()[0] : undefined;
  if (!Node.isVariableDeclaration(declaration)) return undefined;
  const owner = declaration.getFirstAncestor((a) => isFunctionNode(a));
  const body = owner?.getBody();
  if (!owner || !body || !owner.containsRange(caller.getPos(), caller.getEnd())) return undefined;
  return servesPerRequest(declaration, owner, facts) ? madeAfresh(argument, body) : undefined;
}

/** `call`, in `caller`, runs for each request or connection: in an endpoint's region, a route, or a handler's factory. */
function servesPerRequest(call: Node, caller: FunctionNode, facts: FileFacts): boolean {
  const file = facts.relPath;
  const inRegion = facts.endpoints.some((plan) =>
    plan.regions.some((r) => r.fn.file === file && r.fn.start <= caller.getStart() && caller.getEnd() <= r.fn.end),
  );
  if (inRegion || routeContextsOf(call).length > 0) return true;
  // createMcpHandler(() => buildServer(new Session()), …): the SDK calls the factory for every request.
  const handed = caller.getParent();
  if (!Node.isCallExpression(handed) || handed.getArguments()[0] !== caller) return false;
  const origin = resolveOrigin(handed.getExpression());
  return origin?.name === 'createMcpHandler' && isMcpModule(origin.module);
}

const KEYED = /^(?:get|set|has)$/;

/**
 * A tool of the factory that looks a store up by the server the factory built (`memory.get(server)`, a WeakMap of
 * per-server state), directly or through a function of the project it hands the server to (`memoryOf(server)`, whose
 * parameter keys such a lookup): each session's server had its entry.
 */
function keyedByServer(
  factory: FunctionNode,
  facts: FileFacts,
  tools: ReadonlyArray<{ name: string; handler?: Node }>,
): Array<{ call: CallExpression; store: string; tool: string }> {
  const found: Array<{ call: CallExpression; store: string; tool: string }> = [];
  const servers = new Set(
    factory
      .getDescendantsOfKind(SyntaxKind.VariableDeclaration)
      .filter((v) => v.getFirstAncestor((a) => isFunctionNode(a)) === factory && facts.holds(v.getNameNode(), 'McpServer'))
      .map((v) => v.getSymbol()),
  );
  servers.delete(undefined);
  if (servers.size === 0) return found;
  const lookupKey = (call: CallExpression): string | undefined => {
    const callee = call.getExpression();
    return Node.isPropertyAccessExpression(callee) && KEYED.test(callee.getName()) ? callee.getExpression().getText() : undefined;
  };
  for (const tool of tools) {
    if (!tool.handler || !factory.containsRange(tool.handler.getPos(), tool.handler.getEnd())) continue;
    for (const id of identifiersReferringToAny(tool.handler, servers as Set<TsMorphSymbol>)) {
      const call = id.getParent();
      if (!Node.isCallExpression(call) || call.getArguments()[0] !== id) continue;
      let store = lookupKey(call);
      if (!store) {
        // memoryOf(server): a function of the project whose first parameter keys a lookup
        const callee = call.getExpression();
        let fn: Node | undefined = Node.isIdentifier(callee) ? callee.getSymbol()?.getDeclarations()[0] : undefined;
        if (Node.isVariableDeclaration(fn)) fn = fn.getInitializer();
        const parameter =
          isFunctionNode(fn) && !fn.getSourceFile().isDeclarationFile()
            ? (fn.getParameters()[0] as ParameterDeclaration | undefined)
            : undefined;
        const symbol = parameter?.getNameNode().getSymbol();
        for (const use of symbol && isFunctionNode(fn) ? identifiersReferringTo(fn, symbol) : []) {
          const inner = use.getParent();
          if (Node.isCallExpression(inner) && inner.getArguments()[0] === use) store ??= lookupKey(inner);
        }
      }
      // (one finding per tool and store: its first lookup)
      if (store && !found.some((f) => f.store === store && f.tool === tool.name)) found.push({ call, store, tool: tool.name });
    }
  }
  return found;
}

/** Where an `addTool` handler changes `context.session` (or the `session` it destructures from its context). */
function fastmcpSessionChanges(tools: readonly ToolRegistration[]): Array<{ at: Node; tool: string }> {
  const found: Array<{ at: Node; tool: string }> = [];
  for (const tool of tools) {
    if (tool.form !== 'addTool' || !isFunctionNode(tool.handler)) continue;
    const context = tool.handler.getParameters()[1] as ParameterDeclaration | undefined;
    if (!context) continue;
    const name = context.getNameNode();
    const sessions: Node[] = [];
    if (Node.isIdentifier(name)) {
      const symbol = name.getSymbol();
      for (const access of tool.handler.getDescendantsOfKind(SyntaxKind.PropertyAccessExpression)) {
        const object = access.getExpression();
        if (access.getName() === 'session' && Node.isIdentifier(object) && refersTo(object, symbol)) sessions.push(access);
      }
    } else if (Node.isObjectBindingPattern(name)) {
      for (const element of name.getElements()) {
        if ((element.getPropertyNameNode()?.getText() ?? element.getName()) !== 'session') continue;
        const symbol = element.getNameNode().getSymbol();
        for (const id of identifiersReferringTo(tool.handler, symbol)) if (id !== element.getNameNode()) sessions.push(id);
      }
    }
    for (const session of sessions) {
      let at: Node = session;
      while (Node.isNonNullExpression(at.getParent()) || Node.isParenthesizedExpression(at.getParent())) at = at.getParent()!;
      if (!changedAt(at)) continue;
      // (shown as the field it changes, `session.cart`, when it changes one)
      const field = at.getParent();
      const shown = Node.isPropertyAccessExpression(field) && field.getExpression() === at ? field : at;
      if (!found.some((f) => f.at === shown)) found.push({ at: shown, tool: tool.name });
    }
  }
  return found;
}

const CLIENT_INFO = /^(?:getClientCapabilities|getClientVersion)$/;

/** `server.server.getClientCapabilities()` / `getClientVersion()` inside a tool or request handler. */
function clientInfoReads(tools: ReadonlyArray<{ name: string; handler?: Node }>): Array<{ call: CallExpression; reader: string }> {
  const found: Array<{ call: CallExpression; reader: string }> = [];
  for (const tool of tools) {
    for (const call of tool.handler?.getDescendantsOfKind(SyntaxKind.CallExpression) ?? []) {
      const callee = call.getExpression();
      if (!Node.isPropertyAccessExpression(callee) || !CLIENT_INFO.test(callee.getName()) || call.getArguments().length > 0) continue;
      if (!found.some((f) => f.call === call)) found.push({ call, reader: tool.name });
    }
  }
  return found;
}

/**
 * A factory variable assigned only in what runs when the session initializes (`server.server.oninitialized = () =>
 * { markdown = … }`, a `notifications/initialized` handler) and read by a tool or request handler.
 */
function setAtInitialize(
  variable: VariableDeclaration,
  factory: Node,
  tools: ReadonlyArray<{ name: string; handler?: Node }>,
): { hook: string; reader: string } | undefined {
  const name = variable.getNameNode();
  if (!Node.isIdentifier(name)) return undefined;
  const symbol = name.getSymbol();
  const references = identifiersReferringTo(factory, symbol).filter((id) => id !== name);
  const writes = references.filter((id) => changedAt(id));
  if (writes.length === 0) return undefined;
  let hook: string | undefined;
  for (const write of writes) {
    const at = initializeHook(write);
    if (!at) return undefined;
    hook ??= at;
  }
  const reader = tools.find((tool) => !!tool.handler && references.some((id) => tool.handler!.containsRange(id.getPos(), id.getEnd())));
  return hook && reader ? { hook, reader: reader.name } : undefined;
}

/** The initialize hook a node runs in: a function assigned to `….oninitialized` or handed to `setNotificationHandler(Initialized…)`. */
function initializeHook(node: Node): string | undefined {
  for (const fn of node.getAncestors().filter((a) => isFunctionNode(a))) {
    const parent = fn.getParent();
    if (Node.isBinaryExpression(parent) && (parent.getRight() as Node) === fn) {
      const left = parent.getLeft();
      if (Node.isPropertyAccessExpression(left) && left.getName() === 'oninitialized') return left.getText();
    }
    if (Node.isCallExpression(parent) && parent.getArguments()[1] === fn) {
      const callee = parent.getExpression();
      const [method] = parent.getArguments();
      if (
        Node.isPropertyAccessExpression(callee) &&
        callee.getName() === 'setNotificationHandler' &&
        /InitializedNotificationSchema|notifications\/initialized/.test(method?.getText() ?? '')
      )
        return 'notifications/initialized';
    }
  }
  return undefined;
}

/** The project function a call runs, when the callee names one (`registerChatTools(…)`). */
function calledFunction(call: CallExpression): { node: FunctionNode; name: string } | undefined {
  const callee = call.getExpression();
  if (!Node.isIdentifier(callee)) return undefined;
  const symbol = callee.getSymbol();
  const declaration = (symbol?.isAlias() ? symbol.getAliasedSymbol() : symbol)?.getDeclarations()[0];
  const fn = Node.isVariableDeclaration(declaration) ? declaration.getInitializer() : declaration;
  if (!isFunctionNode(fn) || fn.getSourceFile().isFromExternalLibrary() || fn.getSourceFile().isDeclarationFile()) return undefined;
  return { node: fn, name: callee.getText() };
}

/** `new X()`, an object or array literal, or a variable of the factory initialised with one (its declaration). */
function madeAfresh(argument: Node, factoryBody: Node): Node | undefined {
  const fresh = (node: Node | undefined) =>
    !!node && (Node.isNewExpression(node) || Node.isObjectLiteralExpression(node) || Node.isArrayLiteralExpression(node));
  if (fresh(argument)) return argument;
  const declaration = Node.isIdentifier(argument) ? argument.getSymbol()?.getDeclarations()[0] : undefined;
  const local = Node.isVariableDeclaration(declaration) && factoryBody.containsRange(declaration.getPos(), declaration.getEnd());
  return local && fresh(declaration.getInitializer()) ? declaration : undefined;
}

function toolMutating(variable: Node, tools: ReadonlyArray<{ name: string; handler?: Node }>): string | undefined {
  if (!(Node.isVariableDeclaration(variable) || Node.isParameterDeclaration(variable)) || !Node.isIdentifier(variable.getNameNode()))
    return undefined;
  const symbol = variable.getSymbol();
  const name = variable.getName();
  // A container made here (`{ history: [] }`, `new Map()`) handed to code the analysis cannot read may be changed there.
  const unreadable = Node.isVariableDeclaration(variable) && isFreshContainer(variable.getInitializer());
  for (const tool of tools) {
    if (!tool.handler) continue;
    for (const id of identifiersUnder(tool.handler)) {
      if (id.getText() === name && id.getSymbol() === symbol && changedAt(id, 0, unreadable)) return tool.name;
    }
    // (through a function the tool calls by name: `setUnit(args.unit)`, a local setter of the factory)
    if (descendantsOfKind(tool.handler, SyntaxKind.CallExpression).some((call) => callChangesVariable(call, symbol))) return tool.name;
  }
  return undefined;
}

/**
 * Tools registered inside a class (an `McpServer` subclass, or a class whose method builds the server) that change
 * the instance's own fields, where the class is instantiated inside a function (per connection, not once per
 * process): each connection had its own instance.
 */
function instanceStateChangedByTools(
  tools: readonly ToolRegistration[],
): Array<{ field: Node; name: string; className: string; made: Node; tool: string }> {
  const found: Array<{ field: Node; name: string; className: string; made: Node; tool: string }> = [];
  for (const tool of tools) {
    for (const self of tool.handler ? thisUnder(tool.handler) : []) {
      // (`this` of an arrow is the enclosing method's, constructor's or field initializer's: the class instance)
      const owner = self.getFirstAncestor(
        (a) => Node.isClassDeclaration(a) || (ts.isFunctionLike(a.compilerNode) && !Node.isArrowFunction(a)),
      );
      const classNode = Node.isClassDeclaration(owner) ? owner : owner?.getParent();
      const member = self.getParent();
      if (!Node.isClassDeclaration(classNode) || !Node.isPropertyAccessExpression(member) || !changedAt(self)) continue;
      const field = classNode.getProperty(member.getName()) ?? member;
      if (found.some((f) => f.field === field)) continue;
      const made = perCallInstance(classNode);
      if (made) found.push({ field, name: member.getName(), className: classNode.getName() ?? 'the class', made, tool: tool.name });
    }
  }
  return found;
}

/** A `new C(…)` of the class inside a function (per call), when the class is never instantiated once at module level. */
function perCallInstance(classNode: ClassDeclaration): Node | undefined {
  const name = classNode.getNameNode();
  const made = (name ? referencesOf(name) : [])
    .map((reference) => reference.getParent())
    .filter((parent): parent is NewExpression => Node.isNewExpression(parent));
  if (made.some((n) => !n.getFirstAncestor((a) => isFunctionNode(a)))) return undefined;
  return made[0];
}

/** The plan whose request-scoped credentials read this session id (in a lookup's key, or the key's declaration). */
function credentialsPlanAt(facts: FileFacts, node: Node): EndpointPlan | undefined {
  const inside = (span: Span | undefined) =>
    !!span && span.file === facts.relPath && span.start <= node.getStart() && node.getEnd() <= span.end;
  return facts.endpoints.find((plan) => plan.credentials?.readers.some((r) => inside(r.lookup) || inside(r.unusedKey)));
}

/**
 * `sessions.get(extra.sessionId)` (or `sessions[extra.sessionId]`) where no tool fills `sessions`: something outside
 * the tools (`onsessioninitialized`, the endpoint) writes it when a session starts. The store and the first write.
 */
function filledBySessionStart(read: Node, handlers: ReadonlySet<Node>): { store: string; fill: string } | undefined {
  let key = read;
  while (
    Node.isNonNullExpression(key.getParent()) ||
    Node.isAsExpression(key.getParent()) ||
    Node.isParenthesizedExpression(key.getParent())
  )
    key = key.getParent()!;
  const parent = key.getParent();
  const store = Node.isElementAccessExpression(parent)
    ? parent.getExpression()
    : Node.isCallExpression(parent) &&
        Node.isPropertyAccessExpression(parent.getExpression()) &&
        /^(?:get|has)$/.test((parent.getExpression() as PropertyAccessExpression).getName())
      ? (parent.getExpression() as PropertyAccessExpression).getExpression()
      : undefined;
  const name = store && storeName(store);
  if (!store || !name) return undefined;
  const writes = storeWrites(name);
  if (writes.length === 0) return undefined;
  const byTools = writes.some((write) =>
    write.getAncestors().some((ancestor) => handlers.has(ancestor) || calledFromTools(ancestor, handlers)),
  );
  return byTools ? undefined : { store: store.getText(), fill: writes[0].getText().split('\n')[0] };
}

/** A named function some tool handler calls (`cartFor(extra.sessionId)`): what it writes, the tools write. */
function calledFromTools(fn: Node, handlers: ReadonlySet<Node>): boolean {
  if (!Node.isFunctionDeclaration(fn) && !(Node.isArrowFunction(fn) || Node.isFunctionExpression(fn))) return false;
  const declaration = Node.isFunctionDeclaration(fn) ? fn : fn.getParentIfKind(SyntaxKind.VariableDeclaration);
  const name = declaration?.getNameNode();
  if (!name || !Node.isIdentifier(name)) return false;
  return referencesOf(name).some((reference) => reference.getAncestors().some((ancestor) => handlers.has(ancestor)));
}

const RELEASE = /^(?:close|dispose|destroy|disconnect|quit|end)$/;
const RESOURCE_CONSTRUCTOR =
  /^(?:new\s+[\w$.]*(?:Browser|Client|Pool|Connection|Sandbox|Page|Database|Driver)\b|(?:await\s+)?[\w$.]*\b(?:launch|connect|createClient|createConnection|createPool|newPage|newContext)\()/;

/**
 * The variable holds something that must be closed: its type has `close()` (when the analysis can see its class),
 * the code around it releases it (`browser.close()`, `db.end()`), or it is built the way browsers and clients are.
 */
function ownsResource(variable: VariableDeclaration): boolean {
  const close = variable.getType().getProperty('close');
  if (close?.getDeclarations().some((d) => Node.isMethodDeclaration(d) || Node.isMethodSignature(d) || Node.isPropertySignature(d)))
    return true;
  if (RESOURCE_CONSTRUCTOR.test(variable.getInitializer()?.getText() ?? '')) return true;
  const symbol = variable.getSymbol();
  const scope = variable.getFirstAncestor((node) => Node.isBlock(node) || Node.isSourceFile(node));
  return !!scope?.getDescendantsOfKind(SyntaxKind.CallExpression).some((call) => {
    const callee = call.getExpression();
    return (
      Node.isPropertyAccessExpression(callee) &&
      RELEASE.test(callee.getName()) &&
      Node.isIdentifier(callee.getExpression()) &&
      callee.getExpression().getSymbol() === symbol
    );
  });
}

/**
 * A factory variable that owns a resource — its value has a `close()` method (a browser, a database or API client,
 * a connection) — and that a tool uses: the description of the first such tool.
 */
function sessionResource(variable: Node, tools: ReadonlyArray<{ name: string; handler?: Node }>): string | undefined {
  if (!Node.isVariableDeclaration(variable) || !Node.isIdentifier(variable.getNameNode())) return undefined;
  if (!ownsResource(variable)) return undefined;
  const symbol = variable.getSymbol();
  const user = tools.find((tool) => !!tool.handler && identifiersReferringTo(tool.handler, symbol).length > 0);
  return user?.name;
}
