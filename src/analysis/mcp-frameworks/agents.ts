// Cloudflare `agents`: a Worker routes requests to `MyMCP.serveSSE(path)` / `.mount(path)` (HTTP+SSE) and
// `MyMCP.serve(path)` (Streamable HTTP with a session per client in a Durable Object), where `MyMCP extends McpAgent`
// registers its tools in `init()`. agents 0.32 deprecates McpAgent for `createMcpHandler(factory)` from
// `agents/mcp/server`: a fresh SDK v2 server per request, Host and Origin validated (`dist/mcp/server/index.d.ts`).
// The plan says what moves into the factory and which routes answer 410, or what keeps the agent.
import * as path from 'node:path';
import { Node, SyntaxKind, type CallExpression, type ClassDeclaration, type PropertyAccessExpression } from 'ts-morph';
import { descendantsOfKind, thisUnder } from '../node-index';
import type { FileFacts } from '../file-facts';
import { isSdkSymbol } from '../sdk-modules';
import { declarationsBehind, resolveOrigin } from '../resolve';
import { positionOf, type Position } from './options';

/** A route of the Worker: `MyMCP.serveSSE('/sse').fetch(request, env, ctx)` and the like. */
export interface AgentRoute {
  /** The `….fetch(…)` call, replaced whole. */
  call: Position;
  /** `gone`: an HTTP+SSE route (answers 410); `endpoint`: Streamable HTTP, served by the stateless handler. */
  kind: 'gone' | 'endpoint';
  /** The arguments of `fetch`, as written (`request, env, ctx`). */
  args: string[];
  /**
   * The route is a handler object, not called (`apiHandlers: { '/sse': MyMCP.serveSSE('/sse') }` of
   * @cloudflare/workers-oauth-provider): `call` is the route call itself, replaced by `{ fetch: (request, env, ctx) => … }`.
   */
  handlerObject?: boolean;
}

export interface AgentsPlan {
  /** The McpAgent subclass (its name stays exported: wrangler's Durable Object migrations name it). */
  agentClass: string;
  /** Its declaration. */
  at: Position;
  /** `new McpServer({…})` its `server` field is initialised with, as written. */
  server: string;
  /** The statements of `init()`, as written (`this.server` is what they configure). */
  setup: string[];
  /**
   * `init()` reads `this.props`: the props of the request (`ctx.props`, or the verified OAuth props), which
   * agents' stateless handler exposes to the factory through `getMcpAuthContext()`.
   */
  props: boolean;
  /** The props type the agent declared (`McpAgent<Env, State, Props>`), as written. */
  propsType?: string;
  routes: AgentRoute[];
  /** The Streamable HTTP endpoint the handler serves. */
  endpoint: string;
  /**
   * No route serves Streamable HTTP (a Worker that routes only `MyMCP.serveSSE('/sse')`): a route for `endpoint` goes
   * in before this statement (the one that holds the first HTTP+SSE route), with that route's `fetch` arguments.
   */
  addedRoute?: { before: Position; args: string[] };
  /** Why the agent cannot become a factory, at the construct that stops it. */
  blocker?: { reason: string; at: Position };
}

/**
 * The module whose `createMcpHandler` serves a migrated McpAgent on 2026-07-28: agents' own (the default, what agents
 * recommends), or the SDK's, which leaves `agents` unused (the engine's choice when the agents raise cannot install).
 */
export type AgentsHandlerModule = 'agents/mcp/server' | '@modelcontextprotocol/server';

export const AGENTS_HANDLER_MODULE: AgentsHandlerModule = 'agents/mcp/server';

const V2_TARGET = '2026-07-28';

/** Why the agent stays as it is on this target, at the construct that stops it; undefined when it moves. */
export function agentBlocker(
  plan: AgentsPlan,
  target: string,
  handlerModule: AgentsHandlerModule = AGENTS_HANDLER_MODULE,
): { reason: string; line: number } | undefined {
  if (plan.blocker) return { reason: plan.blocker.reason, line: plan.blocker.at.line };
  if ((target === V2_TARGET && handlerModule === AGENTS_HANDLER_MODULE) || !plan.props) return undefined;
  // Otherwise the handler takes the props from the route's ExecutionContext, as the agent's routes did (agents' own
  // handler reads them with getMcpAuthContext()).
  const endpoints = [...plan.routes.filter((r) => r.kind === 'endpoint'), ...(plan.addedRoute ? [plan.addedRoute] : [])];
  const route = endpoints.find((r) => r.args.length < 3);
  return route
    ? {
        reason: `init() reads this.props, and \`.fetch(${route.args.join(', ')})\` hands over no ExecutionContext whose props the stateless handler could pass on`,
        line: 'call' in route ? route.call.line : route.before.line,
      }
    : undefined;
}

/** The agent is not moved: one marker stands for all of its routes. */
export function marksAgentInstead(plan: AgentsPlan, target: string, handlerModule?: AgentsHandlerModule): boolean {
  return !!agentBlocker(plan, target, handlerModule);
}

const AGENT_STATE = /^this\.(state|setState|env|ctx|sql|storage|name|schedule)\b/;

/** The plan for a route call `Agent.serveSSE(…)`, `.mount(…)` or `.serve(…)` whose class is declared in this file. */
export function agentsPlan(routeCall: CallExpression, facts: FileFacts): AgentsPlan | undefined {
  const callee = routeCall.getExpression();
  if (!Node.isPropertyAccessExpression(callee) || !isRouteMethod(callee.getName())) return undefined;
  const agent = agentClassOf(callee.getExpression());
  if (!agent) return importedAgentPlan(routeCall);
  const routes: AgentRoute[] = [];
  let blocker: AgentsPlan['blocker'];
  let endpoint = '/mcp';
  let firstGone: CallExpression | undefined;
  for (const call of descendantsOfKind(facts.sourceFile, SyntaxKind.CallExpression)) {
    const route = call.getExpression();
    if (!Node.isPropertyAccessExpression(route) || !isRouteMethod(route.getName())) continue;
    if (agentClassOf(route.getExpression()) !== agent) continue;
    const fetch = call.getParent();
    const outer = fetch?.getParent();
    // (a handler object in a map of handlers by path: OAuthProvider's `apiHandlers`)
    if (Node.isPropertyAssignment(fetch) && fetch.getInitializer() === call && Node.isObjectLiteralExpression(fetch.getParent())) {
      routes.push({ call: positionOf(call), kind: servesSse(call) ? 'gone' : 'endpoint', args: HANDLER_ARGS, handlerObject: true });
      if (!servesSse(call)) endpoint = routePath(call) ?? endpoint;
      continue;
    }
    if (!fetch || !Node.isPropertyAccessExpression(fetch) || fetch.getName() !== 'fetch' || !outer || !Node.isCallExpression(outer)) {
      blocker ??= {
        reason: `\`${call.getText()}\` is not called as \`.fetch(request, env, ctx)\`: route it by hand`,
        at: positionOf(call),
      };
      continue;
    }
    const kind = servesSse(call) ? 'gone' : 'endpoint';
    if (kind === 'endpoint') endpoint = routePath(call) ?? endpoint;
    routes.push({ call: positionOf(outer), kind, args: outer.getArguments().map((a) => a.getText()) });
    if (kind === 'gone') firstGone ??= outer;
  }
  const added = routes.some((r) => r.kind === 'endpoint') || !firstGone ? undefined : addedRouteBefore(firstGone);
  if (!blocker && !routes.some((r) => r.kind === 'endpoint') && routes.some((r) => r.handlerObject))
    blocker = {
      reason: `the Worker's handlers serve only HTTP+SSE: add a Streamable HTTP one (\`${agent.getName()}.serve('/mcp')\`) beside them and run apply again`,
      at: routes.find((r) => r.handlerObject)!.call,
    };
  if (typeof added === 'string') blocker ??= { reason: added, at: positionOf(firstGone!) };
  const members = agentMembers(agent);
  blocker ??= members.blocker;
  return {
    agentClass: agent.getName() ?? 'McpAgent',
    at: positionOf(agent),
    server: members.server ?? '',
    setup: members.setup,
    props: members.props,
    ...(agent.getExtends()?.getTypeArguments()[2] ? { propsType: agent.getExtends()!.getTypeArguments()[2].getText() } : {}),
    routes,
    endpoint,
    ...(added && typeof added !== 'string' ? { addedRoute: added } : {}),
    ...(blocker ? { blocker } : {}),
  };
}

/**
 * Where a Worker that routes only HTTP+SSE gets its Streamable HTTP route: before the statement of its request
 * handler that holds the first HTTP+SSE route (`if (url.pathname === '/sse') return MyMCP.serveSSE('/sse').fetch(…)`);
 * or why it cannot (the route is not a statement of a block, or its `fetch` is not handed the request).
 */
function addedRouteBefore(fetchCall: CallExpression): AgentsPlan['addedRoute'] | string {
  const args = fetchCall.getArguments().map((a) => a.getText());
  // (a statement of the handler's own body: the route may sit in an `if` block that only its paths reach)
  const handler = fetchCall.getFirstAncestor(
    (node) =>
      Node.isFunctionDeclaration(node) || Node.isFunctionExpression(node) || Node.isArrowFunction(node) || Node.isMethodDeclaration(node),
  );
  const body = handler?.getBody();
  const statement = body && Node.isBlock(body) ? fetchCall.getFirstAncestor((node) => node.getParent() === body) : undefined;
  if (!statement || args.length === 0 || !Node.isIdentifier(fetchCall.getArguments()[0]))
    return `the Worker routes only HTTP+SSE (\`${fetchCall.getText()}\`), and mcp-migrate cannot tell where to add a Streamable HTTP route: add \`MyMCP.serve('/mcp')\` beside it and run apply again`;
  return { before: positionOf(statement), args };
}

/**
 * A Worker that routes to an agent declared in another module (`import { MyMCP } from './MyMCP'`): the class and its
 * routes move together or not at all, so the plan only says why it stays.
 */
function importedAgentPlan(routeCall: CallExpression): AgentsPlan | undefined {
  const callee = routeCall.getExpression() as PropertyAccessExpression;
  const name = callee.getExpression();
  const agent = declarationsBehind(name).find(Node.isClassDeclaration);
  const base = agent?.getExtends()?.getExpression();
  if (!agent || !base || !isSdkSymbol(resolveOrigin(base), 'McpAgent')) return undefined;
  const where = path.relative(path.dirname(routeCall.getSourceFile().getFilePath()), agent.getSourceFile().getFilePath());
  // (one marker for the agent, at its first HTTP+SSE route in the file)
  const first =
    descendantsOfKind(routeCall.getSourceFile(), SyntaxKind.CallExpression).find((call) => {
      const route = call.getExpression();
      return (
        Node.isPropertyAccessExpression(route) &&
        isRouteMethod(route.getName()) &&
        route.getExpression().getText() === name.getText() &&
        servesSse(call)
      );
    }) ?? routeCall;
  return {
    agentClass: name.getText(),
    at: positionOf(agent),
    server: '',
    setup: [],
    props: false,
    routes: [],
    endpoint: '/mcp',
    blocker: {
      reason:
        `\`${name.getText()}\` is declared in ${where.startsWith('.') ? where : `./${where}`}, not in this Worker; mcp-migrate moves an agent ` +
        'whose class and routes are in one file (move the class here and run apply again, or serve `createMcpHandler(factory)` by hand)',
      at: positionOf(first),
    },
  };
}

/** The `fetch` arguments a handler object's route is written with. */
const HANDLER_ARGS = ['request', 'env', 'ctx'];

/** `'/mcp'` of `MyMCP.serve('/mcp')`, when written as a string. */
function routePath(call: CallExpression): string | undefined {
  const path = call.getArguments()[0];
  return path && (Node.isStringLiteral(path) || Node.isNoSubstitutionTemplateLiteral(path)) ? path.getLiteralValue() : undefined;
}

function isRouteMethod(name: string): boolean {
  return name === 'serveSSE' || name === 'mount' || name === 'serve';
}

/** `serveSSE`, `mount`, and `serve(…, { transport: 'sse' | 'auto' })` serve HTTP+SSE. */
export function servesSse(call: CallExpression): boolean {
  const callee = call.getExpression();
  if (!Node.isPropertyAccessExpression(callee)) return false;
  if (callee.getName() !== 'serve') return true;
  const options = call.getArguments()[1];
  const transport = options && Node.isObjectLiteralExpression(options) ? options.getProperty('transport') : undefined;
  const value = transport && Node.isPropertyAssignment(transport) ? transport.getInitializer()?.getText().replace(/["'`]/g, '') : undefined;
  return value === 'sse' || value === 'auto';
}

/** The class declaration behind `MyMCP` when it extends McpAgent (from `agents/mcp`) in this file. */
export function agentClassOf(expression: Node): ClassDeclaration | undefined {
  if (!Node.isIdentifier(expression)) return undefined;
  const declaration = expression.getSymbol()?.getDeclarations()[0];
  if (!declaration || !Node.isClassDeclaration(declaration) || declaration.getSourceFile() !== expression.getSourceFile()) return undefined;
  const base = declaration.getExtends()?.getExpression();
  return base && isSdkSymbol(resolveOrigin(base), 'McpAgent') ? declaration : undefined;
}

/** The agent's `server` initialiser and `init()` statements, or what else it holds that a factory cannot. */
function agentMembers(agent: ClassDeclaration): { server?: string; setup: string[]; props: boolean; blocker?: AgentsPlan['blocker'] } {
  const setup: string[] = [];
  let props = false;
  let server: string | undefined;
  // init() first: session state there is the reason that matters most.
  const init = agent.getMethod('init');
  if (init) {
    for (const statement of init.getStatements()) setup.push(dedented(statement));
    const uses = thisUnder(init).map((self) => self.getParentOrThrow());
    props = uses.some((use) => Node.isPropertyAccessExpression(use) && use.getName() === 'props');
    const state = uses.find((use) => !(Node.isPropertyAccessExpression(use) && (use.getName() === 'server' || use.getName() === 'props')));
    if (state) {
      const construct = AGENT_STATE.exec(state.getText())?.[0] ?? state.getText().slice(0, 40);
      return {
        setup,
        props,
        blocker: {
          reason: `session state: \`init()\` reads \`${construct}\`, which lives on the agent's Durable Object; a stateless factory has none (pass it as a tool argument handle, or keep the agent)`,
          at: positionOf(state),
        },
      };
    }
  }
  for (const member of agent.getMembers()) {
    if (member === init) continue;
    if (Node.isPropertyDeclaration(member) && member.getName() === 'server') {
      const initializer = member.getInitializer();
      if (!initializer || !Node.isNewExpression(initializer))
        return { setup, props, blocker: { reason: '`server` is not built with `new McpServer(…)`', at: positionOf(member) } };
      server = initializer.getText();
      continue;
    }
    return {
      setup,
      props,
      blocker: {
        reason: `the agent has more than \`server\` and \`init()\` (\`${member.getText().split('\n')[0]}\`)`,
        at: positionOf(member),
      },
    };
  }
  if (!server) return { setup, props, blocker: { reason: 'the agent has no `server = new McpServer(…)` field', at: positionOf(agent) } };
  return { server, setup, props };
}

/** The statement's text with its continuation lines moved left by the indentation of its first line. */
function dedented(statement: Node): string {
  const indentation = statement.getIndentationText();
  return statement
    .getText()
    .split('\n')
    .map((line, index) => (index > 0 && line.startsWith(indentation) ? line.slice(indentation.length) : line))
    .join('\n');
}
