// The code a migrated endpoint runs, per target, in the adapter's idiom: a method other than POST gets 405, then the
// Origin guard, then the server built the way the old initialize branch built it (its prelude kept), then a fresh
// stateless transport (2025-11-25) or a createMcpHandler (2026-07-28) serves the request.
import type { ErrorAnswer, FrameworkAdapter, HandlerParams, RequestAccess, Style } from '../../src/frameworks';
import type { Region, ServedCatch } from '../../src/analysis/endpoints/model';
import { indent, quoted } from '../../src/frameworks/code';
import { servedInScope } from './request-scope';

type ServedAfter = NonNullable<Region['servedAfter']>;

/** Where the v1 SDK's Web-standard Streamable HTTP transport is imported from (a fetch handler's, 2025-11-25). */
export const V1_WEB_TRANSPORT = [
  '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js',
  '@modelcontextprotocol/sdk/server/webStandardStreamableHttp',
];

/** How the endpoint gets its server: statements that build it (using `server` as the local), or a factory arrow. */
export interface ServerCode {
  /** Statements kept from the old handler that compute the server's inputs or answer early. */
  prelude: string[];
  /** `const server = createServer();` and the statements that configure it. */
  build: string[];
  /** The local the built server is in. */
  variable: string;
  /** The same as a factory: `() => createServer()` or a block arrow that builds, configures and returns it. */
  factory: string;
  /** Credentials the request carries: it is served inside `scope.run(value, …)` (lib/request-scope.ts). */
  scope?: { name: string; value: string };
}

export interface BodyInput {
  adapter: FrameworkAdapter;
  params: HandlerParams;
  style: Style;
  /** A non-POST method can reach the handler: answer it with 405 first. */
  methodCheck: boolean;
  /** The guard statement(s), when the endpoint needs one (see guardCode). */
  guard?: string[];
  server: ServerCode;
  /** Names this body declares. */
  names: { transport: string; handler: string };
  /** The old handler's parsed body expression, when it passed one. */
  parsedBody?: string;
  /** The old handler's catch clause around its serve call: the new serve keeps it instead of the template's. */
  servedCatch?: ServedCatch;
  /** The call the old handler served inside (`scope.run(value, async () => …)`): the new serve runs in it too. */
  servedWithin?: { callee: string; args: string[] };
  /** What the old handler ran after serving (`console.log(…)`): it runs after the new serve. */
  servedAfter?: ServedAfter;
}

export const METHOD_NOT_ALLOWED: ErrorAnswer = { status: 405, code: -32000, message: 'Method not allowed.', allowPost: true };
const INTERNAL_ERROR: ErrorAnswer = { status: 500, code: -32603, message: 'Internal server error' };

export function goneAnswer(endpoint: string): ErrorAnswer {
  return {
    status: 410,
    code: -32000,
    message: `The HTTP+SSE transport was removed; use Streamable HTTP: POST ${endpoint.replace(/['"`]/g, '')}`,
  };
}

/** An answer that leaves the handler: the adapter's statements, plus `return;` where they do not return. */
export function earlyAnswer(adapter: FrameworkAdapter, params: HandlerParams, answer: ErrorAnswer, style: Style): string[] {
  const lines = adapter.answer(params, answer, style);
  return /^return\b/.test(lines.at(-1) ?? '') ? lines : [...lines, 'return;'];
}

function accessOf(input: BodyInput): RequestAccess {
  const access = input.adapter.access(input.params);
  if (!access) throw new Error(`the ${input.adapter.id} handler's parameters cannot reach the request`);
  return access;
}

function methodCheck(input: BodyInput, access: RequestAccess): string[] {
  if (!input.methodCheck) return [];
  const request = access.flavor === 'node' ? access.req : access.request;
  return [
    `if (${request}.method !== ${quoted(input.style.quote, 'POST')}) {`,
    indent(earlyAnswer(input.adapter, input.params, METHOD_NOT_ALLOWED, input.style).join('\n')),
    `}`,
  ];
}

/** 2025-11-25: a fresh server and a stateless transport of the v1 SDK per request, both closed with the response. */
export function statelessBody(
  input: BodyInput,
  transportClass: string,
  options: { jsonResponse: boolean; exactOptional?: boolean },
): string[] {
  const access = accessOf(input);
  const { transport } = input.names;
  const server = input.server.variable;
  // Stateless is `sessionIdGenerator: undefined` (the SDK's idiom); under exactOptionalPropertyTypes, leaving it out.
  const stateless = [
    ...(options.exactOptional ? [] : ['sessionIdGenerator: undefined']),
    ...(options.jsonResponse ? ['enableJsonResponse: true'] : []),
  ];
  const transportOptions = stateless.length > 0 ? `{ ${stateless.join(', ')} }` : '{}';
  const head = [
    `// mcp-migrate: stateless Streamable HTTP: POST only, a fresh server and transport per request, no sessions.`,
    ...methodCheck(input, access),
    ...(input.guard ?? []),
    ...input.server.prelude,
    ...input.server.build,
    `const ${transport} = new ${transportClass}(${transportOptions});`,
  ];
  const failure = input.adapter.answer(input.params, INTERNAL_ERROR, input.style);
  const s = (t: string) => quoted(input.style.quote, t);
  if (access.flavor === 'web') {
    return [
      ...head,
      `try {`,
      `  await ${server}.connect(${transport});`,
      ...returnServed(input, inScope(input, `${transport}.handleRequest(${webArguments(input, access.request)})`), true).map(indent),
      ...catchClause(input, [`console.error(${s('MCP request failed:')}, error);`, ...failure]),
    ];
  }
  const body = input.parsedBody ?? access.body;
  const serve = `${valueReturns(input) ? 'return ' : ''}await ${inScope(input, `${transport}.handleRequest(${access.req}, ${access.res}${body ? `, ${body}` : ''})`)};`;
  return [
    ...head,
    `${access.res}.on(${s('close')}, () => {`,
    `  void ${transport}.close();`,
    `  void ${server}.close();`,
    `});`,
    ...access.handOver,
    `try {`,
    `  await ${server}.connect(${transport});`,
    `  ${serve}`,
    ...catchClause(input, [
      `console.error(${s('MCP request failed:')}, error);`,
      `if (!${access.res}.headersSent) {`,
      // After hand-over the framework no longer answers: write Node's response directly.
      indent(nodeFailure(access.res, input.style)),
      `}`,
    ]),
    ...(input.servedAfter?.statements ?? []),
  ];
}

/**
 * A Web handler returns what serving answered; with statements the old handler ran after serving, they run before
 * it returns (`const mcpResponse = await …; console.log(…); return mcpResponse;`).
 */
function returnServed(input: BodyInput, serving: string, awaitReturn: boolean): string[] {
  const after = input.servedAfter;
  if (!after) return [`return ${awaitReturn ? 'await ' : ''}${serving};`];
  const result = after.result ?? 'mcpResponse';
  return [`const ${result} = await ${serving};`, ...after.statements, `return ${result};`];
}

/** `} catch (…) { … }` closing a `try`: the old handler's own clause when it is kept, else the template's. */
function catchClause(input: BodyInput, template: string[]): string[] {
  const own = ownCatch(input);
  const head = own ? (own.param ? `} catch (${own.param}) {` : '} catch {') : '} catch (error) {';
  return [head, ...(own ? own.statements : template).map(indent), '}'];
}

/**
 * The old handler's catch clause, unless the new body hands the response over to Node first (fastify's `hijack()`,
 * koa's `ctx.respond = false`): an answer written the framework's way (`reply.code(500).send(…)`) would then never
 * reach the client, and the request would hang.
 */
function ownCatch(input: BodyInput): ServedCatch | undefined {
  const access = accessOf(input);
  return access.flavor === 'web' || access.handOver.length === 0 ? input.servedCatch : undefined;
}

/** Serving the request, inside the credentials' scope when there is one. */
function inScope(input: BodyInput, serve: string): string {
  const scope = input.server.scope;
  const scoped = scope ? servedInScope(scope.name, scope.value, serve) : serve;
  const within = input.servedWithin;
  return within ? `${within.callee}(${[...within.args, `() => ${scoped}`].join(', ')})` : scoped;
}

/**
 * The kept prelude answers with a value (`return res.status(401).json(…)`): the endpoint then returns what serving
 * returns (void) too, so `noImplicitReturns` sees a function that may return nothing, as the old one did.
 */
function valueReturns(input: BodyInput): boolean {
  // (not when the old handler did more after serving: that runs after the serve, and the function falls off its end as before)
  if (input.servedAfter) return false;
  return input.server.prelude.some((statement) => /\breturn\s+(?!;)\S/.test(statement));
}

function nodeFailure(res: string, style: Style): string {
  const s = (t: string) => quoted(style.quote, t);
  return `${res}.writeHead(500, { ${s('Content-Type')}: ${s('application/json')} }).end(JSON.stringify({ jsonrpc: ${s('2.0')}, error: { code: -32603, message: ${s('Internal server error')} }, id: null }));`;
}

/**
 * 2026-07-28: createMcpHandler serves the request (2026-07-28, and 2025-era clients statelessly unless rejected).
 * `handler` is an expression: the module-level handler, or `createMcpHandler(…)` built per request when the factory
 * needs what the request computed.
 */
export function handlerBody(input: BodyInput, handler: { perRequest?: string; call: string }): string[] {
  const access = accessOf(input);
  const lines = [
    `// mcp-migrate: createMcpHandler serves protocol 2026-07-28 with a fresh server per request (GET/DELETE answer 405).`,
    ...methodCheck(input, access),
    ...(input.guard ?? []),
    ...input.server.prelude,
    ...(handler.perRequest ? [handler.perRequest] : []),
  ];
  if (access.flavor === 'web')
    return [
      ...lines,
      ...served(input, ...returnServed(input, inScope(input, `${handler.call}.fetch(${webArguments(input, access.request)})`), false)),
    ];
  const body = input.parsedBody ?? access.body;
  const serve = `${valueReturns(input) ? 'return ' : ''}await ${inScope(input, `${handler.call}(${access.req}, ${access.res}${body ? `, ${body}` : ''})`)};`;
  return [...lines, ...access.handOver, ...served(input, serve), ...(input.servedAfter?.statements ?? [])];
}

/**
 * A Web Request, with the body the handler already parsed (`handleRequest(req, res, body)` on a Node request bridged
 * from it by fetch-to-node): `request, { parsedBody: body }`.
 */
function webArguments(input: BodyInput, request: string): string {
  return input.parsedBody ? `${request}, { parsedBody: ${input.parsedBody} }` : request;
}

/** The serve statements, inside the old handler's catch clause when it had one. */
function served(input: BodyInput, ...serve: string[]): string[] {
  return ownCatch(input) ? ['try {', ...serve.map(indent), ...catchClause(input, [])] : serve;
}
