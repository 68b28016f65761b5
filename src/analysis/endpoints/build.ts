// Builds the endpoint plans of a project, once per analysis: transport sites → request regions → endpoints (regions
// linked by a shared session store, one receiver and path, or one request listener) → one plan each, with a verdict.
import { Node, SyntaxKind, ts, type CallExpression, type Project, type SourceFile } from 'ts-morph';
import { FileFacts } from '../file-facts';
import { likelyString, resolveHandler, routeCalls, staticString } from '../routes';
import { descendantsOfKind, identifiersReferringTo, identifiersWithin, nodesOfKind } from '../node-index';
import { servesMcp } from '../serves-mcp';
import { bindSites, LOOPBACK } from '../binds';
import { adapterFor } from '../../frameworks';
import { controllerRoutes } from '../../frameworks/nest';
import {
  DEFAULT_ENDPOINT_PATH,
  joinPath,
  type Arrival,
  type BridgePlan,
  type EndpointPlan,
  type HttpMethod,
  type Methods,
  type Region,
  type RegionRole,
  type ServerSource,
  type Span,
} from './model';
import {
  parameterDecorators,
  parameterNames,
  regionAround,
  requestFunctionOf,
  thinWrapperCallers,
  type ArrivalNode,
  type RegionNode,
  readsBridgedRequest,
} from './regions';
import { SessionMachinery, sessionSiteNodes, sessionStateCalls, transportSites, type TransportSite } from './sites';
import { regionStatements, serverSourceOf, type StartupTransport } from './server-source';
import { servedCatchOf, servedWithinOf } from './served-catch';
import { servedAfterKept, servedAfterOf, servedResultOf } from './served-after';
import { isTestFile } from './classify';
import { messageTakeoverOf } from './bridge';
import { exportedCallerOf } from './leftovers';
import { sessionRoutesBeside } from './session-routes';
import { sessionStateOf, sessionStateReason, traceSessionState } from './session-state';
import { requestCredentialsOf } from './request-credentials';
import { broadcastOver, broadcastReason } from './broadcast';
import { readsOrigin } from '../origin';
import {
  contains,
  declarationOf,
  isFunctionNode,
  rootOf,
  sameReceiver,
  spanOf,
  templateText,
  templateTextWithComments,
  unwrapExpression,
  type FunctionNode,
  type RelPathOf,
} from './spans';

interface DraftRegion {
  /** Where the region is rewritten. */
  node: RegionNode;
  roles: Set<TransportSite['kind']>;
  sites: TransportSite[];
  facts: FileFacts;
  /** For a route that only calls a shared helper: the helper, whose body holds the transport code. */
  helper?: RegionNode;
  /** The session stores it uses (their declarations), once the regions are grouped. */
  stores?: Node[];
}

/** The code that handles the request: the region's own, or that of the helper its route calls. */
function handling(draft: DraftRegion): RegionNode {
  return draft.helper ?? draft.node;
}

/** A helper several thin route wrappers call becomes one region per wrapper, analysed through the helper. */
function liftedToWrappers(draft: DraftRegion): DraftRegion[] {
  const callers = thinWrapperCallers(draft.node);
  return callers ? callers.map((caller) => ({ ...draft, node: caller, helper: draft.node })) : [draft];
}

interface Orphan {
  site: TransportSite;
  why: string;
}

const cache = new WeakMap<Project, EndpointPlan[]>();

/** The endpoint plans of the project (computed once per project; a re-analysis builds a new project). */
export function projectEndpoints(project: Project, relPath: RelPathOf): EndpointPlan[] {
  let plans = cache.get(project);
  if (!plans) {
    plans = buildPlans(project, relPath);
    cache.set(project, plans);
  }
  return plans;
}

function buildPlans(project: Project, relPath: RelPathOf): EndpointPlan[] {
  const regions = new Map<string, DraftRegion>();
  const orphans: Orphan[] = [];
  const files = project.getSourceFiles().filter((f) => !isTestFile(relPath(f), f));
  for (const file of files) {
    const facts = new FileFacts(file, { validatesOrigin: false });
    // (a file may reach the SDK only through project modules: its transport a project subclass of the SDK's or made
    // by a helper module, its server from a factory module)
    if (!facts.importsMcp && !servesMcp(file)) continue;
    for (const site of transportSites(facts)) {
      const fn = site.requestArgs.map((a) => requestFunctionOf(a)).find((f) => !!f);
      const region = fn ? regionAround(site.node, fn) : undefined;
      if (!region) {
        orphans.push({ site, why: 'the transport is handed a request outside any request handler mcp-migrate can see' });
        continue;
      }
      const key = `${relPath(region.fn.getSourceFile())}:${region.block.getStart()}:${region.from ?? 0}`;
      const draft = regions.get(key) ?? { node: region, roles: new Set(), sites: [], facts };
      draft.roles.add(site.kind);
      draft.sites.push(site);
      regions.set(key, draft);
    }
  }
  const local = bindsLoopbackOnly(files);
  const plans = groupRegions([...regions.values()].flatMap(liftedToWrappers), storeNames(project)).map((group) =>
    planOf([...group, ...sessionRoutesOf(group)], relPath, local),
  );
  for (const orphan of orphans) plans.push(orphanPlan(orphan, relPath, local));
  return withUniqueIds(plans).sort((a, b) => a.id.localeCompare(b.id));
}

/**
 * Transforms find plans by id: two endpoints of one file without a path of their own (HTTP+SSE routes that get a new
 * endpoint, a GET/DELETE helper whose POST is gone) or on the same path of two apps would otherwise share one, and
 * one plan would be applied (or reported served) for the other. Each repeated id gets its first region's line.
 */
function withUniqueIds(plans: EndpointPlan[]): EndpointPlan[] {
  const counts = new Map<string, number>();
  for (const plan of plans) counts.set(plan.id, (counts.get(plan.id) ?? 0) + 1);
  return plans.map((plan) => (counts.get(plan.id)! > 1 ? { ...plan, id: `${plan.id}@${plan.regions[0]?.fn.line ?? 0}` } : plan));
}

// ---- grouping ----------------------------------------------------------------------------------------------------

/** Regions of one endpoint: a shared session store, one receiver and path, or branches of one listener. */
function groupRegions(regions: DraftRegion[], storeNames: Set<string>): DraftRegion[][] {
  const parent = regions.map((_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i])));
  const union = (a: number, b: number) => {
    parent[find(a)] = find(b);
  };
  const byKey = new Map<string, number>();
  const link = (key: string, i: number) => {
    const other = byKey.get(key);
    if (other === undefined) byKey.set(key, i);
    else union(other, i);
  };
  regions.forEach((region, i) => {
    region.stores = sessionStores(region, storeNames);
    for (const store of region.stores) link(`store:${nodeKey(store)}`, i);
    if (region.node.kind === 'branch' || region.node.kind === 'after-guard') link(`listener:${nodeKey(region.node.fn)}`, i);
    for (const receiver of receiverKeys(region.node)) link(`route:${receiver}:${pathKey(region.node)}`, i);
  });
  const groups = new Map<number, DraftRegion[]>();
  regions.forEach((region, i) => groups.set(find(i), [...(groups.get(find(i)) ?? []), region]));
  // HTTP+SSE served by the app that also serves Streamable HTTP joins that endpoint: its old paths answer 410.
  const all = joinedStrayMessages([...groups.values()]);
  const streamable = all.filter((g) => g.some((r) => r.roles.has('streamable')));
  const merged: DraftRegion[][] = [...streamable];
  for (const group of all.filter((g) => !streamable.includes(g))) {
    const receivers = new Set(group.flatMap((r) => receiverKeys(r.node)));
    const host = streamable.find((g) => g.some((r) => receiverKeys(r.node).some((k) => receivers.has(k))));
    if (host) host.push(...group);
    else merged.push(group);
  }
  return merged;
}

/**
 * A messages route linked to no stream (the stream never files its transport where the route looks it up) joins the
 * one stream of the same app that has no messages route: the stream's migration makes the new endpoint, and the
 * messages route, whose transports can no longer exist, answers 410 with the stream's old path. Left alone, it kept a
 * marker the first time and was answered 410 by the second run, once the new endpoint was there.
 */
function joinedStrayMessages(groups: DraftRegion[][]): DraftRegion[][] {
  const only = (group: DraftRegion[], role: TransportSite['kind']) => group.every((r) => r.roles.size === 1 && r.roles.has(role));
  const receivers = (group: DraftRegion[]) => new Set(group.flatMap((r) => receiverKeys(r.node)));
  const joined = new Set<DraftRegion[]>();
  for (const stray of groups.filter((g) => only(g, 'sse-messages'))) {
    const keys = receivers(stray);
    const streams = groups.filter((g) => only(g, 'sse-stream') && [...receivers(g)].some((k) => keys.has(k)));
    if (streams.length !== 1) continue;
    streams[0].push(...stray);
    joined.add(stray);
  }
  return groups.filter((g) => !joined.has(g));
}

function nodeKey(node: Node): string {
  return `${node.getSourceFile().getFilePath()}:${node.getStart()}`;
}

/** The DELETE routes that end the sessions of a Streamable HTTP route of the group (regions without transport sites). */
function sessionRoutesOf(group: DraftRegion[]): DraftRegion[] {
  const endpoint = group.find((r) => r.roles.has('streamable') && !r.helper);
  if (!endpoint) return [];
  return sessionRoutesBeside(
    endpoint.node,
    group.map((r) => r.node),
  ).map((node) => ({ node, roles: new Set(), sites: [], facts: endpoint.facts }));
}

/** Session stores the region uses: variables outside it that hold transports (maps, objects, arrays). */
function sessionStores(region: DraftRegion, storeNames: Set<string>): Node[] {
  const stores = new Set<Node>();
  const handler = handling(region);
  for (const id of identifiersWithin(handler.block, (name) => storeNames.has(name))) {
    const declaration = id.getSymbol()?.getDeclarations()[0];
    if (!declaration || contains(handler.fn, declaration)) continue;
    if (!(Node.isVariableDeclaration(declaration) || Node.isPropertyDeclaration(declaration))) continue;
    if (region.facts.holds(id, 'SSEServerTransport') || region.facts.holds(id, 'StreamableHTTPServerTransport')) stores.add(declaration);
  }
  return [...stores];
}

/**
 * The names variables and class properties are declared with in the project's files. A store is one of these, so
 * {@link sessionStores} asks the type checker only about identifiers spelled like one (most of a handler's are not).
 */
function storeNames(project: Project): Set<string> {
  const names = new Set<string>();
  for (const file of project.getSourceFiles()) {
    for (const declaration of nodesOfKind(file, SyntaxKind.VariableDeclaration)) names.add(declaration.getNameNode().getText());
    for (const declaration of nodesOfKind(file, SyntaxKind.PropertyDeclaration)) {
      const name = declaration.getNameNode();
      names.add(Node.isStringLiteral(name) ? name.getLiteralValue() : name.getText());
    }
  }
  return names;
}

function receiverKeys(region: RegionNode): string[] {
  return region.arrivals.flatMap((arrival): string[] => {
    if (arrival.kind === 'route') {
      const declaration = declarationOf(arrival.receiver);
      return [declaration ? nodeKey(declaration) : `${arrival.receiver.getSourceFile().getFilePath()}:${arrival.receiver.getText()}`];
    }
    if (arrival.kind === 'listener') return [nodeKey(region.fn)];
    if (arrival.kind === 'call') return receiverKeys(arrival.caller);
    return [region.fn.getSourceFile().getFilePath()];
  });
}

function pathKey(region: RegionNode): string {
  return region.path ? (staticString(region.path) ?? region.path.getText()) : '';
}

// ---- one plan ------------------------------------------------------------------------------------------------------

function roleOf(roles: Set<TransportSite['kind']>): RegionRole {
  if (roles.size === 0) return 'session';
  if (roles.has('streamable')) return 'streamable';
  if (roles.has('sse-stream') && roles.has('sse-messages')) return 'sse-both';
  return roles.has('sse-stream') ? 'sse-stream' : 'sse-messages';
}

function receivesPost(methods: Methods): boolean {
  return methods === 'any' || methods.includes('POST');
}

function planOf(group: DraftRegion[], relPath: RelPathOf, local: boolean): EndpointPlan {
  // In source order: by file, then by offset as a number (as text, "1100" would sort before "998").
  const ordered = [...group].sort(
    (a, b) =>
      a.node.block.getSourceFile().getFilePath().localeCompare(b.node.block.getSourceFile().getFilePath()) ||
      a.node.block.getStart() - b.node.block.getStart(),
  );
  // The region that becomes the endpoint: Streamable HTTP's POST handler, or one serving both HTTP+SSE halves on
  // one path (its path stays; POST gets Streamable HTTP). Split HTTP+SSE routes get a new endpoint beside them.
  const primary =
    ordered.find((r) => r.roles.has('streamable') && receivesPost(r.node.methods) && r.node.methods !== 'any') ??
    ordered.find((r) => r.roles.has('streamable') && receivesPost(r.node.methods)) ??
    ordered.find((r) => roleOf(r.roles) === 'sse-both') ??
    ordered.find((r) => roleOf(r.roles) === 'sse-messages' && receivesPost(r.node.methods) && servesStreamPath(r, ordered));
  const stream = ordered.find((r) => r.roles.has('sse-stream'));
  // The server comes from the code that connects it: the endpoint's own, or the stream's.
  const source = [primary, stream].find((r) => !!r && (r.roles.has('streamable') || r.roles.has('sse-stream'))) ?? ordered[0];
  const machinery = new SessionMachinery(source.facts, handling(source).block);
  // (the handler rewritten in place keeps its own logging; a new endpoint does not take the stream route's)
  const inPlace = source === primary && !source.helper && source.roles.has('streamable');
  // (what the handler rewritten in place did after serving, `console.log(…took…)`, runs after the new serve)
  const serve = inPlace ? oneServe(source) : undefined;
  const tail = serve ? servedAfterOf(source.node.block, serve, machinery) : [];
  const carried = [...requestValues(source), ...servedBodies(source), ...servedWrapperArguments(source), ...tail];
  const others = group.filter((r) => r !== source).map((r) => handling(r).block);
  const server = serverSourceOf(handling(source), source.facts, machinery, relPath, { carried, logs: inPlace }, others);
  const after = tail.length > 0 ? servedAfterKept(rewrittenStatements(source.node), serve!, tail, server.prelude ?? []) : { kept: [] };
  if (after.blocker && server.source.kind !== 'unknown') server.source = { kind: 'unknown', why: after.blocker };
  if (source.helper) server.source = liftedServer(server.source, source.helper, group);
  const regions = ordered.map((r) => regionPlan(r, relPath, r === primary));
  if (after.kept.length > 0) {
    const result = servedResultOf(serve!)?.getName();
    regions[ordered.indexOf(source)].servedAfter = {
      statements: after.kept.map((statement) => templateTextWithComments(statement)),
      ...(result ? { result } : {}),
    };
  }
  // (routes mounted where the analysis cannot follow, when the old transport names its messages URL: the prefix)
  const advertised = advertisedPrefix(ordered);
  if (advertised) {
    for (const region of regions)
      for (const arrival of region.arrivals) if (arrival.kind === 'route' && !arrival.mountPrefix) arrival.mountPrefix = advertised;
  }
  // (a new endpoint beside split HTTP+SSE routes serves with the parsed body the messages route handed its transport)
  const messagesBody = !primary && stream ? parsedMessagesBody(ordered) : undefined;
  if (messagesBody) regions[ordered.indexOf(stream!)].messagesBody = messagesBody;
  const pathNode = primary?.node.path;
  const prefix = primary ? (mountPrefixOf(primary.node) ?? advertised) : undefined;
  const pathValue = pathNode ? staticString(pathNode) : undefined;
  const path = pathNode
    ? { code: pathNode.getText(), value: pathValue, display: joinPath(prefix, likelyString(pathNode) ?? pathNode.getText()) }
    : primary
      ? { code: '', display: 'every path it listens on' }
      : undefined;
  const constructions = group.flatMap((r) =>
    r.facts.constructions('StreamableHTTPServerTransport').filter((c) => contains(handling(r).block, c)),
  );
  const { startup } = server;
  // (the options of the one transport made at start-up, e.g. `enableJsonResponse`, are the endpoint's)
  const optioned = startup && Node.isNewExpression(startup.construction) ? [...constructions, startup.construction] : constructions;
  const options = (name: string) =>
    optioned.map((c) => c.getArguments()[0]).map((o) => (o && Node.isObjectLiteralExpression(o) ? o.getProperty(name) : undefined));
  // Stateless already: a fresh server and a session-less transport per request, POST only.
  const stateless =
    server.source.kind === 'built' &&
    !server.source.cached &&
    !stream &&
    !group.some((r) => r.roles.has('sse-messages')) &&
    constructions.length > 0 &&
    constructions.every((c) => {
      const [o] = c.getArguments();
      const generator = o && Node.isObjectLiteralExpression(o) ? o.getProperty('sessionIdGenerator') : undefined;
      const value = generator && Node.isPropertyAssignment(generator) ? generator.getInitializer()?.getText() : 'undefined';
      return !o || value === 'undefined' || value === 'void 0';
    }) &&
    group.every((r) => r.node.methods !== 'any' && (r.node.methods as string[]).every((m) => m === 'POST'));
  const first = regions[0];
  const plan: EndpointPlan = {
    id: `${(primary ?? source).node.fn.getSourceFile() ? relPath((primary ?? source).node.fn.getSourceFile()) : first.fn.file}#${path?.display ?? '(new endpoint)'}`,
    framework: (primary ?? source).node.framework ?? 'express',
    path: path ?? { code: '', display: '' },
    regions,
    server: server.source,
    transport: {
      jsonResponse: options('enableJsonResponse').some(
        (p) => !!p && Node.isPropertyAssignment(p) && p.getInitializer()?.getText() === 'true',
      ),
    },
    stateless,
    ...(stream ? messageTakeoverOf(stream.node, stream.facts, relPath) : {}),
    ...(startup ? { startupTransport: startupTransportPlan(startup, relPath) } : {}),
    sessionSites: group
      .flatMap((r) => sessionSiteNodes(r.node.block.getSourceFile()).filter((n) => contains(handling(r).block, n)))
      .map((n) => spanOf(n, relPath)),
    originGuarded: group.every((r) => originGuarded(r.node) || (!!r.helper && originGuarded(r.helper))),
    local,
    unrouted: primary ? unroutedMethods(primary.node) : [],
    verdict: { migratable: true },
  };
  // (the server's region: its kept statements are where the endpoint computes what it serves with)
  plan.verdict = verdictOf(plan, group, { ...server, endpoint: handling(source).fn }, relPath);
  return plan;
}

function startupTransportPlan(startup: StartupTransport, relPath: RelPathOf): NonNullable<EndpointPlan['startupTransport']> {
  const span = (node: Node) => spanOf(node, relPath);
  return { declaration: span(startup.declaration), connect: span(startup.connect), closes: startup.closes.map(span) };
}

/**
 * HTTP+SSE messages posted to `/mcp`, where the stream is served too: that route becomes the endpoint, on the path
 * Streamable HTTP clients are given anyway. (A pair on `/sse` gets a new endpoint beside it.)
 */
function servesStreamPath(messages: DraftRegion, group: DraftRegion[]): boolean {
  const path = pathKey(messages.node);
  return (
    path === DEFAULT_ENDPOINT_PATH &&
    group.some(
      (r) => r.roles.has('sse-stream') && pathKey(r.node) === path && receiverKeys(r.node).join() === receiverKeys(messages.node).join(),
    )
  );
}

/**
 * A server built in a helper several routes call is built in the endpoint's route instead: only when building it
 * needs nothing from the helper (no request, no statements before it) and every name it uses is in scope there.
 */
function liftedServer(source: ServerSource, helper: RegionNode, group: DraftRegion[]): ServerSource {
  const why = `the server is built inside \`${functionName(helper.fn)}\`, which several routes call; build it in a factory the routes can call first`;
  if (source.kind !== 'built') return source;
  if (source.requestScoped || source.prelude.length > 0) return { kind: 'unknown', why };
  const inScope = (wrapper: RegionNode) => new Set(wrapper.fn.getSymbolsInScope(ts.SymbolFlags.Value).map((s) => s.getName()));
  const lifted = group.filter((r) => r.helper === helper);
  return lifted.every((r) => source.uses.every((name) => inScope(r.node).has(name))) ? source : { kind: 'unknown', why };
}

function functionName(fn: Node): string {
  const named = Node.isFunctionDeclaration(fn) ? fn.getName() : undefined;
  const variable = fn.getParentIfKind(SyntaxKind.VariableDeclaration)?.getName();
  return named ?? variable ?? 'a helper';
}

/** GET and DELETE, when no route of the endpoint's receiver answers them on the endpoint's path. */
function unroutedMethods(endpoint: RegionNode): HttpMethod[] {
  const route = endpoint.arrivals.find((a) => a.kind === 'route');
  if (!route || route.kind !== 'route' || route.methods === 'any' || !route.path) return [];
  const pathOf = (node: Node) => staticString(node) ?? node.getText();
  const routed = new Set<HttpMethod>();
  // Routes of the same receiver, or (NestJS) the decorated methods of the same controller.
  const siblings = Node.isDecorator(route.call.getParent())
    ? controllerRoutes(route.call)
    : routeCalls(route.call.getSourceFile()).filter((call) => sameReceiver(call.receiver, route.receiver));
  for (const call of siblings) {
    if (!call.path || pathOf(call.path) !== pathOf(route.path)) continue;
    // (`app.use('/mcp', express.json())` is middleware: it passes every method on)
    if ('call' in call && isMiddleware(call.call)) continue;
    if (call.methods === 'any') return [];
    call.methods.forEach((method) => routed.add(method));
  }
  return (['GET', 'DELETE'] as const).filter((method) => !routed.has(method));
}

function isMiddleware(call: Node): boolean {
  const callee = Node.isCallExpression(call) ? call.getExpression() : undefined;
  return !!callee && Node.isPropertyAccessExpression(callee) && callee.getName() === 'use';
}

/**
 * The prefix an HTTP+SSE pair's routes are mounted under, read off the messages URL the stream hands its clients
 * (`new SSEServerTransport('/api/mcp/messages', res)` for a `router.post('/messages')`): for routes on one router
 * whose mounting the analysis did not find (it is in a file with no MCP code, or made at run time).
 */
function advertisedPrefix(ordered: DraftRegion[]): string | undefined {
  if (ordered.some((r) => mountPrefixOf(r.node) !== undefined)) return undefined;
  const messages = ordered.find((r) => r.roles.has('sse-messages') && !r.helper);
  const messagesPath = messages?.node.path ? staticString(messages.node.path) : undefined;
  if (!messages || !messagesPath || !messagesPath.startsWith('/')) return undefined;
  const found = new Set<string>();
  for (const stream of ordered) {
    if (stream.helper || receiverKeys(stream.node).join() !== receiverKeys(messages.node).join()) continue;
    for (const site of stream.sites) {
      if (site.kind !== 'sse-stream' || !Node.isNewExpression(site.node)) continue;
      const advertised = likelyString(site.node.getArguments()[0])?.replace(/[?#].*$/, '');
      if (!advertised?.startsWith('/') || advertised.length <= messagesPath.length || !advertised.endsWith(messagesPath)) return undefined;
      found.add(advertised.slice(0, -messagesPath.length).replace(/\/$/, ''));
    }
  }
  return found.size === 1 ? [...found][0] || undefined : undefined;
}

function mountPrefixOf(region: RegionNode): string | undefined {
  for (const arrival of region.arrivals) {
    if (arrival.kind === 'route' && arrival.mountPrefix) return arrival.mountPrefix;
    if (arrival.kind === 'call') {
      const prefix = mountPrefixOf(arrival.caller);
      if (prefix) return prefix;
    }
  }
  return undefined;
}

/** The arguments of the call the region serves inside (`scope.run({ userId }, …)`): the new endpoint computes them too. */
function servedWrapperArguments(draft: DraftRegion): Node[] {
  if (draft.helper) return [];
  const serves = draft.sites.filter((s) => s.kind !== 'sse-stream' && Node.isCallExpression(s.node));
  const within = serves.length === 1 ? servedWithinOf(draft.node.fn, serves[0].node) : undefined;
  return within ? within.getArguments().slice(0, -1) : [];
}

/** The statements a rewrite of the region replaces: its block's, after the path guard for an `after-guard` region. */
function rewrittenStatements(region: RegionNode): Node[] {
  return Node.isBlock(region.block) ? region.block.getStatements().slice(region.from ?? 0) : [region.block];
}

/** The region's one call that hands the transport a request (`transport.handleRequest(…)`), when it has one. */
function oneServe(draft: DraftRegion): Node | undefined {
  const serves = draft.sites.filter((s) => s.kind !== 'sse-stream' && Node.isCallExpression(s.node));
  return serves.length === 1 ? serves[0].node : undefined;
}

/**
 * The parsed bodies the region hands its transport (`transport.handleRequest(req, res, body)`): the new endpoint
 * serves with the same one, so what computes it (`const body = await readJson(req)`) stays.
 */
function servedBodies(draft: DraftRegion): Node[] {
  // (a helper's body is read under the helper's parameter names, not the route's)
  if (draft.helper) return [];
  return draft.sites.flatMap((s) => {
    const body = s.kind !== 'sse-stream' && Node.isCallExpression(s.node) ? handedBody(s.node) : undefined;
    return body ? [body] : [];
  });
}

/** The parsed body a serve call hands over: Node's `handleRequest(req, res, body)`, Web's `handleRequest(request, { parsedBody })`. */
function handedBody(serve: CallExpression): Node | undefined {
  const [, second, third] = serve.getArguments();
  if (third) return third;
  const option = second && Node.isObjectLiteralExpression(second) ? second.getProperty('parsedBody') : undefined;
  if (Node.isPropertyAssignment(option)) return option.getInitializer();
  return Node.isShorthandPropertyAssignment(option) ? option.getNameNode() : undefined;
}

/**
 * The parsed body every HTTP+SSE messages route hands `handlePostMessage(req, res, body)`, when it is read straight
 * off one of the route's parameters (`ctx.request.body`, `request.body`), at the same place in each: the parameter's
 * index and the access after it. Undefined when a route reads the stream itself, or computes the body some other way.
 */
function parsedMessagesBody(ordered: DraftRegion[]): Region['messagesBody'] {
  let found: Region['messagesBody'];
  for (const draft of ordered) {
    if (!draft.roles.has('sse-messages')) continue;
    if (draft.helper) return undefined;
    const fn = draft.node.fn;
    // (decorated parameters, NestJS's `@Body() body`, are not the same from one handler to the next)
    if (fn.getParameters().some((p) => Node.isParameterDeclaration(p) && p.getDecorators().length > 0)) return undefined;
    for (const site of draft.sites) {
      if (site.kind !== 'sse-messages' || !Node.isCallExpression(site.node)) continue;
      const body = site.node.getArguments()[2];
      if (!body) return undefined;
      const root = rootOf(body);
      const param = Node.isIdentifier(root) ? fn.getParameters().findIndex((p) => p === declarationOf(root)) : -1;
      if (param < 0 || Node.isCallExpression(unwrapExpression(body)) || readsBridgedRequest(body)) return undefined;
      const access = body.getText().slice(root.getEnd() - body.getStart());
      if (!/^(?:\??\.[A-Za-z_$][\w$]*)+$/.test(access)) return undefined;
      if (found && (found.param !== param || found.access !== access)) return undefined;
      found = { param, access };
    }
  }
  return found;
}

function regionPlan(draft: DraftRegion, relPath: RelPathOf, endpoint: boolean): Region {
  const region = draft.node;
  const params = parameterNames(region.fn);
  const paramTypes = region.fn.getParameters().map((p) => {
    const type = Node.isParameterDeclaration(p) ? p.getTypeNode() : undefined;
    return type ? `: ${type.getText()}` : '';
  });
  const serves = draft.helper ? [] : draft.sites.filter((s) => s.kind !== 'sse-stream' && Node.isCallExpression(s.node));
  const served = servedBodies(draft)[0];
  const parsedBody = served && !readsBridgedRequest(served) ? served : undefined;
  const servedCatch = endpoint && serves.length === 1 ? servedCatchOf(region.fn, serves[0].node) : undefined;
  const within = endpoint && serves.length === 1 ? servedWithinOf(region.fn, serves[0].node) : undefined;
  const servedWithin = within && {
    callee: within.getExpression().getText(),
    args: within
      .getArguments()
      .slice(0, -1)
      .map((a) => templateText(a)),
  };
  return {
    role: roleOf(draft.roles),
    endpoint,
    kind: region.kind,
    fn: spanOf(region.fn, relPath),
    block: spanOf(region.block, relPath),
    from: region.from,
    branch: region.branch ? spanOf(region.branch, relPath) : undefined,
    pathSubject: region.pathSubject?.getText(),
    params,
    paramTypes,
    paramDecorators: parameterDecorators(region.fn),
    paramText: region.fn.getParameters().map((p) => p.getText()),
    async: !!region.fn.isAsync?.(),
    methods: region.methods,
    path: region.path?.getText(),
    pathValue: region.path ? staticString(region.path) : undefined,
    arrivals: region.arrivals.map((a) => arrivalPlan(a, relPath)),
    framework: region.framework ?? 'express',
    parsedBody: parsedBody?.getText(),
    servedCatch,
    servedWithin,
  };
}

function arrivalPlan(arrival: ArrivalNode, relPath: RelPathOf): Arrival {
  switch (arrival.kind) {
    case 'route':
      return {
        kind: 'route',
        registration: spanOf(arrival.call, relPath),
        receiver: arrival.receiver.getText(),
        methods: arrival.methods,
        path: arrival.path?.getText(),
        mountPrefix: arrival.mountPrefix,
        middlewares: arrival.middlewares.map((m) => m.getText()),
        inline: arrival.inline,
      };
    case 'listener':
      return { kind: 'listener', site: spanOf(arrival.site, relPath) };
    case 'method-named':
      return { kind: 'method-named', methods: arrival.methods, path: arrival.path?.getText() };
    case 'call':
      return { kind: 'call', call: spanOf(arrival.call, relPath), caller: spanOf(arrival.caller.fn, relPath) };
  }
}

/** Something in front of the region checks Origin: the handler itself, a route middleware, or an app that does. */
function originGuarded(region: RegionNode): boolean {
  if (readsOrigin(region.fn) || callsOriginCheck(region.fn)) return true;
  return region.arrivals.some((arrival) => {
    if (arrival.kind === 'call') return originGuarded(arrival.caller);
    if (arrival.kind !== 'route') return false;
    return arrival.middlewares.some((m) => /origin/i.test(m.getText())) || receiverValidatesOrigin(arrival.receiver);
  });
}

/** The handler calls a project function that checks Origin (`if (rejectForeignOrigin(req, res)) return;`). */
function callsOriginCheck(fn: Node): boolean {
  return descendantsOfKind(fn, SyntaxKind.CallExpression).some((call) => {
    const target = resolveHandler(call.getExpression());
    return !!target && target !== fn && readsOrigin(target);
  });
}

function receiverValidatesOrigin(receiver: Node): boolean {
  const declaration = declarationOf(receiver);
  if (!declaration) return false;
  // `app.use(checkOrigin)`, `app.use(localhostOriginValidation())`: middleware in front of every route of the app.
  for (const file of receiver.getProject().getSourceFiles()) {
    for (const call of nodesOfKind(file, SyntaxKind.CallExpression)) {
      const callee = call.getExpression();
      if (!Node.isPropertyAccessExpression(callee) || callee.getName() !== 'use' || declarationOf(callee.getExpression()) !== declaration)
        continue;
      for (const argument of call.getArguments()) {
        // A function that reads Origin, or a middleware named for it (`originValidation()`); `cors({ origin })` is not.
        const fn = resolveHandler(argument);
        const named = Node.isCallExpression(argument)
          ? argument.getExpression().getText()
          : Node.isIdentifier(argument)
            ? argument.getText()
            : '';
        if (fn ? readsOrigin(fn) : /origin/i.test(named)) return true;
      }
    }
  }
  const init = Node.isVariableDeclaration(declaration) ? declaration.getInitializer()?.getText() : undefined;
  if (init && /^createMcp(?:Express|Hono|Fastify)App\(/.test(init)) {
    const file = declaration.getSourceFile();
    return file.getImportDeclarations().some((d) => /^@modelcontextprotocol\/(?:express|hono|fastify)$/.test(d.getModuleSpecifierValue()));
  }
  return false;
}

function bindsLoopbackOnly(files: SourceFile[]): boolean {
  const hosts = files.flatMap((file) => (servesMcp(file) ? bindSites(file).map((site) => site.host) : []));
  return hosts.length > 0 && hosts.every((host) => typeof host === 'string' && LOOPBACK.has(host));
}

// ---- verdict -------------------------------------------------------------------------------------------------------

/** Every request reaches the region through routes registered for other methods than `method`. */
function reachedOnlyWithout(region: RegionNode, method: HttpMethod): boolean {
  return (
    region.arrivals.length > 0 &&
    region.arrivals.every((arrival) => arrival.kind === 'route' && arrival.methods !== 'any' && !arrival.methods.includes(method))
  );
}

function verdictOf(
  plan: EndpointPlan,
  group: DraftRegion[],
  server: { connect?: Node; prelude?: Node[]; endpoint: FunctionNode },
  relPath: RelPathOf,
): EndpointPlan['verdict'] {
  const stop = (reason: string, at: Span) => ({ migratable: false as const, reason, at });
  // Credentials filed by session id that each request carries again are computed per request instead.
  const states = group.flatMap((draft) =>
    sessionStates(draft).map((state) => ({ state, region: handling(draft).block, request: handling(draft).fn })),
  );
  const credentials =
    states.length > 0
      ? requestCredentialsOf({ states, endpoint: server.endpoint, prelude: server.prelude ?? [], connect: server.connect, relPath })
      : undefined;
  if (credentials && 'credentials' in credentials) plan.credentials = credentials.credentials;
  for (const draft of group) {
    const region = draft.node;
    const at = spanOf(region.fn, relPath);
    if (!region.framework)
      return stop(optionsObjectReason(region.fn) ?? `the framework serving this handler is not recognised; rewrite it by hand`, at);
    const params = parameterNames(region.fn);
    if (
      !adapterFor(region.framework).access({ names: params, types: [], decorators: parameterDecorators(region.fn) }) ||
      params
        .slice(0, region.framework === 'express' || region.framework === 'node-http' || region.framework === 'fastify' ? 2 : 1)
        .some((p) => p === '')
    ) {
      return stop('the handler destructures its request parameters; name them to let mcp-migrate rewrite it', at);
    }
    if (draft.roles.has('streamable') && (draft.roles.has('sse-stream') || draft.roles.has('sse-messages'))) {
      return stop('one handler serves both Streamable HTTP and HTTP+SSE; split it by path first', at);
    }
    // (the stateless endpoint would answer every request here 405, and a second run would take the route for a stream)
    if (draft.roles.has('sse-messages') && reachedOnlyWithout(region, 'POST')) {
      return stop('the HTTP+SSE messages are handled on a route no POST reaches; route the messages by POST first', at);
    }
    const [state] = plan.credentials ? [] : sessionStates(draft);
    if (state) {
      const facts = sessionStateOf(state, handling(draft).block, handling(draft).fn, relPath);
      const why = credentials && 'why' in credentials ? `; mcp-migrate does not do this itself: ${credentials.why}` : '';
      return {
        ...stop(sessionStateReason(state.getText().split('\n')[0], facts) + why, spanOf(state, relPath)),
        state: facts,
        kept: transportHelpers(draft).map(({ fn }) => spanOf(fn, relPath)),
      };
    }
    const global = moduleStateSetForTools(handling(draft).block, draft.facts);
    if (global) {
      return stop(
        `session state: this handler sets \`${global.name}\` (\`${global.write.getText().split('\n')[0]}\`), a module variable tool \`${global.tool}\` reads; ` +
          'it held what the request that opened the session carried, and the stateless endpoint would lose it (or let each request overwrite it for every client): pass it with every request (a tool argument, or a header the endpoint reads per request), then migrate',
        spanOf(global.write, relPath),
      );
    }
    if (!region.fn.isAsync?.() && region.arrivals.some((a) => a.kind === 'call')) {
      return stop('the helper that handles the request is not async; make it async first', at);
    }
    if (region.arrivals.length === 0) return stop('no route, listener or caller reaches this handler', at);
  }
  // (a loop beside the endpoint that sends to every session in its table would reach no one; a bridge's loop writing
  // the child's output to every stream is its own relay, which the stdio-bridge transform replaces)
  const broadcast = plan.bridge
    ? undefined
    : broadcastOver(
        group.flatMap((draft) => draft.stores ?? []),
        group.flatMap((draft) => [draft.node.fn, ...(draft.helper ? [draft.helper.fn] : [])]),
      );
  if (broadcast) return stop(broadcastReason(broadcast), spanOf(broadcast.loop, relPath));
  if (plan.bridge && !plan.bridge.relay) return stop(...bridgeStop(plan.bridge));
  if (plan.interceptor) return stop(INTERCEPTOR_STOP, plan.interceptor);
  const source = plan.server;
  const serverAt = server.connect ? spanOf(server.connect, relPath) : plan.regions[0].fn;
  // A relayed bridge's server is a placeholder the stdio-bridge transform replaces first.
  if (!plan.bridge && source.kind === 'unknown') return stop(source.why, serverAt);
  if (source.kind === 'built' && source.cached?.blocker) return stop(source.cached.blocker, serverAt);
  if (!plan.bridge && source.kind === 'shared' && (source.blocker || !(source.hoist || source.factoryCall))) {
    return stop(source.blocker ?? 'the shared server cannot become a factory', source.declaration);
  }
  if (!plan.path.code && !plan.regions.some((r) => r.role === 'streamable' || r.role === 'sse-both')) {
    const stream = group.find((r) => r.roles.has('sse-stream'))?.node;
    const addable = stream && (stream.kind === 'branch' || stream.arrivals.some((a) => a.kind === 'route'));
    if (!addable)
      return stop(
        'the HTTP+SSE stream is not served by a route or a path branch that a new POST endpoint can stand beside',
        plan.regions[0].fn,
      );
  }
  return { migratable: true };
}

/**
 * An assignment, in the handler itself (not a callback inside it, like the `close` handler that resets it), to a
 * `let`/`var` at module level that a tool of that file reads (`apiKey = req.query.key`, read by the forecast tool):
 * state the connection set for the tools, which the endpoint's rewrite would drop or share. Servers and transports
 * kept in module variables are the endpoint's own business.
 */
function moduleStateSetForTools(block: Node, facts: FileFacts): { name: string; write: Node; tool: string } | undefined {
  const owner = block.getFirstAncestor((a) => isFunctionNode(a));
  for (const assignment of descendantsOfKind(block, SyntaxKind.BinaryExpression)) {
    if (!/^(?:[-+*/%&|^]|\*\*|<<|>>>?|&&|\|\||\?\?)?=$/.test(assignment.getOperatorToken().getText())) continue;
    const left = assignment.getLeft();
    if (!Node.isIdentifier(left) || assignment.getFirstAncestor((a) => isFunctionNode(a)) !== owner) continue;
    const declaration = left.getSymbol()?.getDeclarations()[0];
    if (!Node.isVariableDeclaration(declaration) || declaration.getFirstAncestor((a) => isFunctionNode(a))) continue;
    if (declaration.getSourceFile() !== block.getSourceFile()) continue;
    if (['McpServer', 'SSEServerTransport', 'StreamableHTTPServerTransport'].some((s) => facts.holds(left, s as never))) continue;
    const symbol = left.getSymbol();
    const tool = facts.tools.find((t) => !!t.handler && identifiersReferringTo(t.handler, symbol).length > 0);
    if (tool) return { name: left.getText(), write: assignment, tool: tool.name };
  }
  return undefined;
}

/** The request-derived values the region files by session id (`setAuth(id, auth)`: `auth`), as the region passes them. */
function requestValues(draft: DraftRegion): Node[] {
  return sessionStates(draft)
    .map((state) => traceSessionState(state, handling(draft).block, handling(draft).fn))
    .flatMap((traced) => (traced.fromRequest && traced.value ? [traced.value.written] : []));
}

/**
 * State kept per session in the region, or by a helper it calls to build its transport (`openSession(id, user)` whose
 * session callback files the user under the id): the region's own calls first, then those helper calls.
 */
function sessionStates(draft: DraftRegion): Node[] {
  let states = statesOf.get(draft);
  if (!states) statesOf.set(draft, (states = findSessionStates(draft)));
  return states;
}

const statesOf = new WeakMap<DraftRegion, Node[]>();

function findSessionStates(draft: DraftRegion): Node[] {
  const own = sessionStateCalls(draft.facts, handling(draft).block);
  const stateful = new Set(
    transportHelpers(draft)
      .filter(({ fn }) => sessionStateCalls(new FileFacts(fn.getSourceFile(), { validatesOrigin: false }), fn.getBody() ?? fn).length > 0)
      .map(({ fn }) => fn),
  );
  // Every call of those helpers (each branch passes its own value).
  const helperCalls = descendantsOfKind(handling(draft).block, SyntaxKind.CallExpression).filter((call) =>
    stateful.has(resolveHandler(call.getExpression()) as FunctionNode),
  );
  return [...own, ...helperCalls.filter((call) => !own.includes(call))];
}

/** Functions the region calls that construct its SDK transports (`setupTransportAndSession(id, store, server)`). */
function transportHelpers(draft: DraftRegion): Array<{ call: Node; fn: FunctionNode }> {
  const region = handling(draft);
  const constructions = [...draft.facts.constructions('StreamableHTTPServerTransport'), ...draft.facts.constructions('SSEServerTransport')];
  const helpers: Array<{ call: Node; fn: FunctionNode }> = [];
  for (const call of descendantsOfKind(region.block, SyntaxKind.CallExpression)) {
    const fn = resolveHandler(call.getExpression());
    if (!isFunctionNode(fn) || contains(region.fn, fn) || helpers.some((h) => h.fn === fn)) continue;
    if (constructions.some((construction) => contains(fn, construction))) helpers.push({ call, fn });
  }
  return helpers;
}

/**
 * A handler that takes its request objects inside an options object (`handle({ req, res, stateless, eventStore })`):
 * requests cannot be followed to it, and the transport options are its callers' API.
 */
function optionsObjectReason(fn: FunctionNode): string | undefined {
  const [first] = fn.getParameters();
  const pattern = first && Node.isParameterDeclaration(first) ? first.getNameNode() : undefined;
  if (!pattern || !Node.isObjectBindingPattern(pattern)) return undefined;
  const names = pattern.getElements().map((e) => e.getName());
  const objects = names.filter((n) => /^(?:req|request|res|response)$/.test(n));
  if (objects.length === 0) return undefined;
  const options = names.filter((n) => /stateless|session|eventStore|sse|endpoint/i.test(n));
  const library = exportedCallerOf(fn);
  const callers = library ? `\`${library}()\`, which the module exports, and its callers` : 'its callers';
  const api = options.length ? `, and its options (${options.map((o) => `\`${o}\``).join(', ')}) are the API of ${callers}` : '';
  return `the handler takes its request objects inside an options object (\`{ ${objects.join(', ')}, … }\`), so mcp-migrate cannot follow requests to it${api}: migrate it by hand (a fresh server and a session-less transport per POST, 405 on GET and DELETE), or take \`req, res\` as parameters first`;
}

const INTERCEPTOR_STOP =
  '`transport.onmessage` is wrapped: every message of the connection is changed (its `_meta`, from what the connection holds: ' +
  'a session id, a client) before the server answers it, and whatever reads that is keyed by the connection. A stateless ' +
  'endpoint has no connection to take it from: pass it with each request (a header the endpoint reads, or a tool argument), ' +
  'drop the wrapper, then migrate';

/** Why a bridge that forwards raw messages to its child is not migrated, and where to say so. */
function bridgeStop(bridge: BridgePlan): [string, Span] {
  const child = bridge.child;
  const chosen = bridge.routeParams.length
    ? `, chosen by the route parameter ${bridge.routeParams.map((p) => `\`:${p}\``).join(', ')}`
    : '';
  if (child?.perConnection)
    return [
      `stdio bridge with one child process per SSE connection (\`${child.code}\`${chosen}): the child answers every message, initialize included, and holds that client's state, so a stateless POST has no child to forward to. Serve POST by hand: per request start (or take from a pool keyed by command and environment) an initialized child, forward the request, answer with its response; GET and DELETE 405, the old SSE paths 410, an Origin guard`,
      child.start,
    ];
  return [
    `stdio bridge: \`transport.onmessage\` hands every message to ${child ? `the child process (\`${child.code}\`)` : 'a child process mcp-migrate cannot see'}${chosen}, which answers them, so the connected server is a placeholder. Serve POST by hand: a fresh server per request that forwards to the child through one SDK \`Client\`, which initializes it once`,
    bridge.forward,
  ];
}

function orphanPlan(orphan: Orphan, relPath: RelPathOf, local: boolean): EndpointPlan {
  const at = spanOf(orphan.site.node, relPath);
  return {
    id: `${at.file}#${at.line}`,
    framework: 'express',
    path: { code: '', display: '' },
    regions: [],
    server: { kind: 'unknown', why: orphan.why },
    transport: { jsonResponse: false },
    stateless: false,
    sessionSites: [],
    originGuarded: false,
    local,
    unrouted: [],
    verdict: { migratable: false, reason: orphan.why, at },
  };
}

export { regionStatements };
