// Findings of the endpoint rules that no plan's spans hold: what the analysis knows about the construct, so that
// `apply` leaves it to the marker of the endpoint it belongs to, or marks it with the exact construct and why it was
// not rewritten — never with "a shape mcp-migrate does not rewrite".
//
// A construct belongs to an endpoint when the endpoint's request functions reach it (a helper they call that builds
// the transport or reads the session header, an import only they use), or when it reaches them (options handed to
// the function whose listener calls the handler). Such a finding carries the plan; when the plan is not carried out,
// its one marker speaks for the endpoint.
import { ENDPOINT_EVENT } from '../file-facts';
import { Node, SyntaxKind, type ClassDeclaration, type NewExpression, type SourceFile } from 'ts-morph';
import { descendantsOfKind } from '../node-index';
import { resolveHandler } from '../routes';
import { isSdkSymbol } from '../sdk-modules';
import { resolveOrigin } from '../resolve';
import type { EndpointPlan, Span } from './model';
import { isFunctionNode, type FunctionNode, type RelPathOf } from './spans';
import { injectedMethod } from './sites';
import { referencesOf } from '../references';

export type Leftover =
  /** Code of an endpoint that is not migrated: the plan's marker stands for it. */
  | { kind: 'endpoint'; plan: EndpointPlan }
  /** What the construct is, and why mcp-migrate does not rewrite it. */
  | { kind: 'reason'; reason: string };

/** How many calls away from a request function a construct may be and still belong to its endpoint. */
const MAX_CALLS = 3;

export function explainLeftover(node: Node, plans: EndpointPlan[], relPath: RelPathOf): Leftover | undefined {
  const stopped = plans.filter((plan) => !plan.verdict.migratable && plan.regions.length > 0);
  const plan = reachedFrom(node, stopped, relPath) ?? reaching(node, stopped, relPath) ?? sharedBy(node, stopped, relPath);
  if (plan) return { kind: 'endpoint', plan };
  const reason =
    foreignTransportReason(node.getSourceFile()) ??
    subclassedTransportReason(node, relPath) ??
    handRolledReason(node) ??
    ownStreamableTransportReason(node) ??
    returnedEventStoreReason(node) ??
    headerParameterReason(node, plans, relPath) ??
    exportedHelperReason(node, plans, relPath);
  return reason ? { kind: 'reason', reason } : undefined;
}

// ---- reach ---------------------------------------------------------------------------------------------------------

function within(node: Node, span: Span, relPath: RelPathOf): boolean {
  return relPath(node.getSourceFile()) === span.file && node.getStart() >= span.start && node.getEnd() <= span.end;
}

/** The plan one of whose request functions holds the node. */
function regionPlanOf(node: Node, plans: EndpointPlan[], relPath: RelPathOf): EndpointPlan | undefined {
  return plans.find((plan) => plan.regions.some((region) => within(node, region.fn, relPath)));
}

/** The function (the node, or one that holds it) called by name: a declaration, a variable's function, a method. */
function namedFunctionOf(node: Node): { fn: FunctionNode; name: Node } | undefined {
  for (const ancestor of [node, ...node.getAncestors()]) {
    if (!isFunctionNode(ancestor)) continue;
    if (Node.isFunctionDeclaration(ancestor) || Node.isMethodDeclaration(ancestor)) {
      const name = ancestor.getNameNode();
      return name ? { fn: ancestor, name } : undefined;
    }
    // (an anonymous callback belongs to the function around it: `onsessioninitialized: (id) => { … }` in a helper)
    const variable = ancestor.getParentIfKind(SyntaxKind.VariableDeclaration);
    if (variable) return { fn: ancestor, name: variable.getNameNode() };
  }
  return undefined;
}

/** The exported function whose body calls `fn` (`startHTTPServer`, whose listener calls the handler), by name. */
export function exportedCallerOf(fn: FunctionNode): string | undefined {
  const named = namedFunctionOf(fn);
  if (!named || named.fn !== fn) return undefined;
  for (const call of callsOf(named.name)) {
    for (const ancestor of call.getAncestors()) {
      const outer = isFunctionNode(ancestor) ? namedFunctionOf(ancestor) : undefined;
      if (outer?.fn === ancestor && isExported(outer.fn)) return outer.name.getText();
    }
  }
  return undefined;
}

function isExported(fn: FunctionNode): boolean {
  return Node.isFunctionDeclaration(fn) ? fn.isExported() : !!fn.getFirstAncestorByKind(SyntaxKind.VariableStatement)?.isExported();
}

/** Calls of the function named by `name` (references in callee position). */
function callsOf(name: Node): Node[] {
  if (!Node.isIdentifier(name)) return [];
  return referencesOf(name).filter((reference) => {
    const callee = Node.isPropertyAccessExpression(reference.getParent()) ? reference.getParent()! : reference;
    const call = callee.getParent();
    return !!call && Node.isCallExpression(call) && call.getExpression() === callee;
  });
}

/**
 * The endpoint whose request functions reach the node: it sits in a helper they call (up to {@link MAX_CALLS} calls
 * away), or in an import only they use.
 */
function reachedFrom(node: Node, plans: EndpointPlan[], relPath: RelPathOf): EndpointPlan | undefined {
  const declaration = node.getFirstAncestorByKind(SyntaxKind.ImportDeclaration);
  if (declaration) return importedFor(declaration, plans, relPath);
  let helpers = [namedFunctionOf(node)].filter((h) => !!h);
  const seen = new Set<Node>();
  for (let depth = 0; depth < MAX_CALLS && helpers.length > 0; depth++) {
    const callers: Node[] = helpers.flatMap((helper) => (seen.has(helper.fn) ? [] : (seen.add(helper.fn), callsOf(helper.name))));
    for (const call of callers) {
      const plan = regionPlanOf(call, plans, relPath);
      if (plan) return plan;
    }
    helpers = callers.map(namedFunctionOf).filter((h) => !!h);
  }
  return undefined;
}

/** Every value the import brings in is used only by one endpoint's request functions (or helpers they call). */
function importedFor(declaration: Node, plans: EndpointPlan[], relPath: RelPathOf): EndpointPlan | undefined {
  const names = declaration.getDescendantsOfKind(SyntaxKind.Identifier).filter((id) => {
    const parent = id.getParent();
    return Node.isImportSpecifier(parent) ? parent.getAliasNode() === id || !parent.getAliasNode() : Node.isImportClause(parent);
  });
  const owners = new Set<EndpointPlan | undefined>();
  for (const name of names) {
    for (const use of referencesOf(name)) {
      // (the import itself, and type positions: a type runs no code, it follows the values)
      if (use.getFirstAncestorByKind(SyntaxKind.ImportDeclaration) || Node.isTypeReference(use.getParent())) continue;
      owners.add(regionPlanOf(use, plans, relPath) ?? reachedFrom(use, plans, relPath));
    }
  }
  const [owner] = owners;
  return owners.size === 1 ? owner : undefined;
}

/**
 * The endpoint the node is handed to: an option in the object passed to its request function, or to a function that
 * calls it (up to {@link MAX_CALLS} calls away: `startHTTPServer({ eventStore })` whose listener calls the handler).
 */
function reaching(node: Node, plans: EndpointPlan[], relPath: RelPathOf): EndpointPlan | undefined {
  const argument = node.getAncestors().find((a) => Node.isObjectLiteralExpression(a) && Node.isCallExpression(a.getParent()));
  const call = argument?.getParentIfKind(SyntaxKind.CallExpression);
  if (!call || !call.getArguments().includes(argument as never)) return undefined;
  let targets = [resolveHandler(call.getExpression())].filter((f) => !!f);
  const seen = new Set<Node>();
  for (let depth = 0; depth <= MAX_CALLS && targets.length > 0; depth++) {
    const next: Node[] = [];
    for (const target of targets) {
      if (seen.has(target)) continue;
      seen.add(target);
      const plan = plans.find((p) => p.regions.some((region) => sameSpan(target, region.fn, relPath)));
      if (plan) return plan;
      for (const inner of descendantsOfKind(target, SyntaxKind.CallExpression)) {
        const callee = resolveHandler(inner.getExpression());
        if (callee) next.push(callee);
      }
    }
    targets = next;
  }
  return undefined;
}

/**
 * The endpoint that hands every request to the transport the node helps make: `export const transport = new
 * StreamableHTTPServerTransport({ sessionIdGenerator })` in a module of its own, whose one transport a request function
 * of the endpoint uses (`transport.handleRequest(req, res)`). The endpoint's marker says it is shared and what to do.
 */
function sharedBy(node: Node, plans: EndpointPlan[], relPath: RelPathOf): EndpointPlan | undefined {
  const construction = [node, ...node.getAncestors()].find(
    (a): a is NewExpression => Node.isNewExpression(a) && isSdkSymbol(resolveOrigin(a.getExpression()), 'StreamableHTTPServerTransport'),
  );
  const declaration = construction?.getParentIfKind(SyntaxKind.VariableDeclaration);
  const name = declaration?.getInitializer() === construction ? declaration?.getNameNode() : undefined;
  if (!name || !Node.isIdentifier(name)) return undefined;
  for (const reference of referencesOf(name)) {
    if (reference === name) continue;
    const plan = regionPlanOf(reference, plans, relPath);
    if (plan) return plan;
  }
  return undefined;
}

function sameSpan(node: Node, span: Span, relPath: RelPathOf): boolean {
  return relPath(node.getSourceFile()) === span.file && node.getStart() === span.start && node.getEnd() === span.end;
}

// ---- reasons -------------------------------------------------------------------------------------------------------

/**
 * A transport that is not the SDK's serves the file's endpoint: a class named `…Transport` from a package no framework
 * adapter knows, or a local class extending one.
 */
function foreignTransportReason(file: SourceFile): string | undefined {
  for (const construction of descendantsOfKind(file, SyntaxKind.NewExpression)) {
    const name = construction.getExpression().getText();
    const origin = foreignTransportOrigin(file, name);
    if (!origin) continue;
    const what = origin.base === name ? `\`${name}\`` : `\`${name}\` (it extends \`${origin.base}\`)`;
    return (
      `this endpoint is served by ${what} from \`${origin.module}\`, not by an SDK transport, and mcp-migrate rewrites only the SDK's ` +
      `transports: make it stateless by hand — mint and read no \`Mcp-Session-Id\`, answer GET and DELETE with 405, a fresh server per POST — ` +
      `or serve it with the SDK's Streamable HTTP transport`
    );
  }
  return undefined;
}

function foreignTransportOrigin(file: SourceFile, name: string): { base: string; module: string } | undefined {
  const local = file.getClass(name);
  const base = local?.getExtends()?.getExpression().getText() ?? name;
  if (!/Transport$/.test(base)) return undefined;
  for (const declaration of file.getImportDeclarations()) {
    const module = declaration.getModuleSpecifierValue();
    if (module.startsWith('.') || module.startsWith('@modelcontextprotocol/')) continue;
    // (a framework's transport an adapter knows, `@hono/mcp`'s, is modelled like the SDK's)
    if (isSdkSymbol({ module, name: base }, 'StreamableHTTPServerTransport')) continue;
    if (declaration.getNamedImports().some((named) => (named.getAliasNode() ?? named.getNameNode()).getText() === base))
      return { base, module };
  }
  return undefined;
}

/**
 * The node constructs a class of the project that extends one of the SDK's server transports
 * (`class KeepAliveSseTransport extends SSEServerTransport`, whose `start()` also starts a keep-alive timer): the
 * endpoint is served by the subclass, and what it adds is the author's to carry over.
 */
function subclassedTransportReason(node: Node, relPath: RelPathOf): string | undefined {
  // (the finding's position is the `new` keyword, whose parent is the construction)
  const construction =
    [node, node.getParent()].find((n) => Node.isNewExpression(n)) ?? node.getFirstDescendantByKind(SyntaxKind.NewExpression);
  const callee = construction?.getExpression();
  if (!callee || !Node.isIdentifier(callee)) return undefined;
  const symbol = callee.getSymbol();
  const declarations = (symbol?.getAliasedSymbol() ?? symbol)?.getDeclarations() ?? [];
  const subclass = declarations.find((d) => Node.isClassDeclaration(d) && !d.getSourceFile().isInNodeModules());
  if (!subclass || !Node.isClassDeclaration(subclass)) return undefined;
  const base = subclass.getExtends()?.getExpression();
  const sdk = (['SSEServerTransport', 'StreamableHTTPServerTransport'] as const).find(
    (name) => !!base && isSdkSymbol(resolveOrigin(base), name),
  );
  if (!sdk) return undefined;
  const overrides = subclass
    .getMethods()
    .map((method) => `\`${method.getName()}()\``)
    .join(', ');
  return (
    `this endpoint is served by \`${subclass.getName()}\` (${relPath(subclass.getSourceFile())}:${subclass.getStartLineNumber()}), a class ` +
    `of the project that extends the SDK's \`${sdk}\`${overrides ? ` (it overrides ${overrides})` : ''}, and mcp-migrate rewrites ` +
    `only endpoints served by the SDK's transports themselves: serve it with \`${sdk}\` (carry over by hand what the subclass ` +
    `adds, if a stateless endpoint still needs it), then run apply again`
  );
}

/** The node is part of a class that writes the HTTP+SSE `event: endpoint` stream itself. */
function handRolledReason(node: Node): string | undefined {
  const owner = node.getFirstAncestorByKind(SyntaxKind.ClassDeclaration);
  if (!owner || !ENDPOINT_EVENT.test(owner.getText())) return undefined;
  return (
    `\`${owner.getName() ?? 'this class'}\` hand-rolls the HTTP+SSE transport (it writes the \`event: endpoint\` stream itself), so there ` +
    `is no SDK endpoint for mcp-migrate to rewrite or guard: answer a foreign Origin with 403 where its requests arrive, or replace it ` +
    `with the SDK's stateless Streamable HTTP transport`
  );
}

/**
 * The node is part of a class that serves Streamable HTTP itself and handles `Mcp-Session-Id` on its own: one that
 * implements the MCP `Transport` interface (often a copy of the SDK's transport), or one that writes the header on
 * its responses without any SDK transport (a hand-rolled endpoint class with `handlePost` / `handleGet` /
 * `handleDelete` and its own session map). Or the node is a route that hands its request to a method of such a class.
 */
function ownStreamableTransportReason(node: Node): string | undefined {
  const owner = node.getFirstAncestorByKind(SyntaxKind.ClassDeclaration);
  if (owner) {
    const kind = ownStreamableKind(owner);
    return kind ? ownStreamableReason(owner, kind) : undefined;
  }
  return servedByOwnStreamable(node);
}

type OwnStreamableKind = 'transport' | 'endpoint';

function ownStreamableKind(owner: ClassDeclaration): OwnStreamableKind | undefined {
  if (!/mcp-session-id/i.test(owner.getText())) return undefined;
  const implementsTransport = owner.getImplements().some((clause) => {
    const origin = resolveOrigin(clause.getExpression());
    return origin?.name === 'Transport' && /^@modelcontextprotocol\//.test(origin.module);
  });
  if (implementsTransport) return 'transport';
  const usesSdkTransport = descendantsOfKind(owner, SyntaxKind.NewExpression).some((construction) =>
    (['SSEServerTransport', 'StreamableHTTPServerTransport'] as const).some((name) =>
      isSdkSymbol(resolveOrigin(construction.getExpression()), name),
    ),
  );
  return !usesSdkTransport && writesSessionHeader(owner) ? 'endpoint' : undefined;
}

/** `res.setHeader('Mcp-Session-Id', id)` (or `.header(…)`, `.set(…)`, `.append(…)`) somewhere in the node. */
function writesSessionHeader(node: Node): boolean {
  return descendantsOfKind(node, SyntaxKind.CallExpression).some((call) => {
    const callee = call.getExpression();
    if (!Node.isPropertyAccessExpression(callee) || !['setHeader', 'header', 'set', 'append'].includes(callee.getName())) return false;
    const [name] = call.getArguments();
    return !!name && Node.isStringLiteral(name) && /^mcp-session-id$/i.test(name.getLiteralText());
  });
}

function ownStreamableReason(owner: ClassDeclaration, kind: OwnStreamableKind): string {
  const name = owner.getName() ?? 'this class';
  if (kind === 'endpoint')
    return (
      `\`${name}\` serves Streamable HTTP itself, without the SDK's transport (it mints \`Mcp-Session-Id\` and keeps its own sessions), ` +
      `so there is no SDK endpoint for mcp-migrate to rewrite: make it stateless by hand — mint and read no \`Mcp-Session-Id\`, answer ` +
      `each POST on its own, GET and DELETE with 405 — or serve its routes with the SDK's transport in stateless mode`
    );
  const used = owner.getNameNode()
    ? referencesOf(owner.getNameNode()!).some((ref) => !owner.containsRange(ref.getPos(), ref.getEnd()))
    : true;
  return (
    `\`${name}\` implements the Streamable HTTP transport itself (it mints and checks \`Mcp-Session-Id\`), so it is not an endpoint ` +
    `mcp-migrate can rewrite: ${used ? `serve the endpoints that use it with the SDK's transport in stateless mode` : `nothing in this project uses it: delete it, unless other packages import it`}`
  );
}

/**
 * A route (`app.delete('/mcp', auth, async (req, res) => { await sessions.handleDelete(req, res); })`) whose handler
 * hands the request to a method of a class that serves Streamable HTTP itself: the route is that class's to change.
 */
function servedByOwnStreamable(node: Node): string | undefined {
  const route = [node, ...node.getAncestors()].find((a) => Node.isCallExpression(a) && a.getArguments().some(isFunctionNode));
  if (!route || !Node.isCallExpression(route)) return undefined;
  for (const handler of route.getArguments().filter(isFunctionNode)) {
    for (const call of descendantsOfKind(handler, SyntaxKind.CallExpression)) {
      const callee = call.getExpression();
      if (!Node.isPropertyAccessExpression(callee)) continue;
      const method = callee.getNameNode().getSymbol()?.getDeclarations()[0];
      if (!method || !Node.isMethodDeclaration(method) || method.getSourceFile().isInNodeModules()) continue;
      const owner = method.getParentIfKind(SyntaxKind.ClassDeclaration);
      if (!owner || ownStreamableKind(owner) !== 'endpoint') continue;
      const file = method.getSourceFile().getBaseName();
      return (
        `this route hands its request to \`${owner.getName() ?? 'a class'}.${callee.getName()}()\` (${file}:${method.getStartLineNumber()}), and ` +
        `${ownStreamableReason(owner, 'endpoint')}`
      );
    }
  }
  return undefined;
}

/**
 * `eventStore: new InMemoryEventStore()` in an object a function returns (`createStores()` making the stores at
 * start-up), not in a transport's options: the store reaches a transport later, through whatever keeps the result.
 */
function returnedEventStoreReason(node: Node): string | undefined {
  const property = Node.isPropertyAssignment(node) ? node : node.getFirstAncestorByKind(SyntaxKind.PropertyAssignment);
  if (!property || property.getName() !== 'eventStore') return undefined;
  const object = property.getParent();
  const returned = object?.getParent();
  if (!object || !returned || !Node.isReturnStatement(returned)) return undefined;
  const fn = returned.getFirstAncestor((a) => isFunctionNode(a)) as FunctionNode | undefined;
  const name = fn && (Node.isFunctionDeclaration(fn) || Node.isMethodDeclaration(fn)) ? fn.getName() : undefined;
  const made = property.getInitializer()?.getText() ?? property.getName();
  return (
    `${name ? `\`${name}()\`` : 'this function'} returns an event store (\`${made}\`) that the project hands a transport as its \`eventStore\` ` +
    `option; it only replays events for sessions: drop it with that option once the endpoint is stateless`
  );
}

/** `req.headers['mcp-session-id'] ?? req.ip ?? 'unknown'`: what a session-id read falls back to, as written. */
function sessionFallbackOf(node: Node): string | undefined {
  let read: Node = node;
  const climbs = (parent: Node | undefined) =>
    !!parent &&
    (Node.isAsExpression(parent) ||
      Node.isParenthesizedExpression(parent) ||
      Node.isElementAccessExpression(parent) ||
      Node.isNonNullExpression(parent));
  // (from the header's name to the read: `req.headers['mcp-session-id']`, `req.header('mcp-session-id')`, a cast)
  const argumentOf = (parent: Node | undefined) =>
    !!parent && Node.isCallExpression(parent) && parent.getArguments().includes(read as never);
  while (climbs(read.getParent()) || argumentOf(read.getParent())) read = read.getParentOrThrow();
  const fallbacks: string[] = [];
  for (let parent = read.getParent(); parent && Node.isBinaryExpression(parent) && parent.getLeft() === read; parent = read.getParent()) {
    const operator = parent.getOperatorToken().getKind();
    if (operator !== SyntaxKind.QuestionQuestionToken && operator !== SyntaxKind.BarBarToken) break;
    fallbacks.push(parent.getRight().getText());
    read = parent;
  }
  return fallbacks.length > 0 ? fallbacks.join(' ?? ') : undefined;
}

/** A helper the package exports (or re-exports): removing what it does changes the package's API. */
function exportedHelperReason(node: Node, plans: EndpointPlan[], relPath: RelPathOf): string | undefined {
  const helper = namedFunctionOf(node);
  if (!helper || !Node.isIdentifier(helper.name)) return undefined;
  const exports = referencesOf(helper.name)
    .filter((reference) => !!reference.getFirstAncestorByKind(SyntaxKind.ExportDeclaration))
    .map((reference) => relPath(reference.getSourceFile()));
  if (!isExported(helper.fn) && exports.length === 0) return undefined;
  const callers = new Set(callsOf(helper.name).flatMap((call) => regionPlanOf(call, plans, relPath)?.path.display ?? []));
  const serves =
    callers.size > 0 ? ` for the endpoint${callers.size > 1 ? 's' : ''} ${[...callers].map((p) => `\`${p}\``).join(', ')}` : '';
  const name = `\`${helper.name.getText()}()\`${serves}`;
  const used = referencesOf(helper.name).some(
    (reference) =>
      reference !== helper.name &&
      !reference.getFirstAncestorByKind(SyntaxKind.ExportDeclaration) &&
      !reference.getFirstAncestorByKind(SyntaxKind.ImportDeclaration),
  );
  if (exports.length === 0 && used) {
    const fallback = sessionFallbackOf(node);
    return (
      `${name} is exported, so mcp-migrate leaves it (other modules may import it); it still runs, and without sessions no request ` +
      `carries \`Mcp-Session-Id\`, so ${fallback ? `every request gets its fallback, \`${fallback}\`` : 'what it reads of the session is gone'}: ` +
      `key it by what identifies a caller now (a token, an API key), or make it ignore the session`
    );
  }
  if (exports.length === 0)
    return `${name} is exported, so mcp-migrate leaves it (other modules may import it): make it ignore the session, or drop it once nothing imports it`;
  const by = [...new Set(exports)].map((file) => `\`${file}\``).join(', ');
  return (
    `${name} is re-exported by ${by}, the package's API, so mcp-migrate leaves it: make it ignore the session, or drop it in a ` +
    `release that may change that API`
  );
}

/**
 * `@Headers('mcp-session-id') sessionId` on a NestJS route method that only hands the id on to the function this run
 * migrates (`this.mcpService.handle(req, res, body, sessionId)`): the function ignores it from now on, and the route
 * still reads the header. Which call, and what to do.
 */
function headerParameterReason(node: Node, plans: EndpointPlan[], relPath: RelPathOf): string | undefined {
  const decorator = node.getFirstAncestorByKind(SyntaxKind.Decorator);
  const parameter = decorator?.getParent();
  const nameNode = Node.isParameterDeclaration(parameter) ? parameter.getNameNode() : undefined;
  if (!decorator || !Node.isParameterDeclaration(parameter) || !Node.isIdentifier(nameNode)) return undefined;
  const uses = referencesOf(nameNode).filter((reference) => reference !== nameNode);
  const calls = uses.map((use) => {
    const call = use.getParent();
    return Node.isCallExpression(call) && call.getArguments().includes(use as never) ? call : undefined;
  });
  if (uses.length === 0 || calls.some((call) => !call)) return undefined;
  const migrated = plans.filter((plan) => plan.verdict.migratable);
  for (const call of calls) {
    const callee = call!.getExpression();
    const fn = resolveHandler(callee) ?? injectedMethod(callee);
    if (!fn || !migrated.some((plan) => plan.regions.some((region) => within(fn, region.fn, relPath)))) return undefined;
  }
  const names = [...new Set(calls.map((call) => `\`${call!.getExpression().getText()}(…)\``))].join(', ');
  const name = parameter.getName();
  return (
    `\`${decorator.getText()} ${name}\` reads the session header only to hand it to ${names}, which this run makes stateless ` +
    `(it ignores the id now): delete the parameter and pass \`undefined\` in its place`
  );
}
