// The endpoint model: for every MCP endpoint of a project, one typed plan computed once by the analysis. It says
// how requests arrive, which functions (or branches) handle them and what each does with the transport, where the
// server comes from, what session machinery it has, what guards it and whether it can be migrated — and if not, the
// exact construct that stops it. The plan is plain data (spans, names and code as written), so it travels on
// findings, through JSON and into the transforms, which read it and never re-discover routes.

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS';
/** Methods that reach a region: a list, or `any` for method-agnostic registrations and branches. */
export type Methods = HttpMethod[] | 'any';

/** The frameworks an endpoint can be served by; each has one adapter in src/frameworks/. */
export type FrameworkId = 'express' | 'fastify' | 'koa' | 'hono' | 'nest' | 'node-http' | 'web-fetch';

/** A range of a project file: offsets into the text the analysis saw, and 1-based line/column for people. */
export interface Span {
  /** Path relative to the scanned root (like a finding's `file`). */
  file: string;
  start: number;
  end: number;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
}

/** What a request region does with the MCP transport. */
export type RegionRole =
  /** Streamable HTTP: hands requests to `transport.handleRequest` (any method reaching it). */
  | 'streamable'
  /** The GET half of HTTP+SSE: opens the event stream (`new SSEServerTransport(path, res)`). */
  | 'sse-stream'
  /** The POST half of HTTP+SSE: `transport.handlePostMessage(req, res)` for a session. */
  | 'sse-messages'
  /** One region serving both halves of HTTP+SSE on one path. */
  | 'sse-both'
  /** A DELETE route of the endpoint's path that ends the app's own session by its id, with no transport. */
  | 'session';

/** How requests reach a request function. */
export type Arrival =
  | {
      kind: 'route';
      /** The registration call (`app.post('/mcp', auth, handler)`). */
      registration: Span;
      /** The receiver as written (`app`, `this.app`, `router`). */
      receiver: string;
      methods: Methods;
      /** The path argument as written (`'/mcp'`, `MCP_PATH`); absent for a path-less `use`. */
      path?: string;
      /** Where a router is mounted (`app.use('/admin', router)`), as a static string. */
      mountPrefix?: string;
      /** Arguments between the path and the handler, as written. */
      middlewares: string[];
      /** The handler argument is the request function itself (inline), not a reference to it. */
      inline: boolean;
    }
  /** A node:http request listener (`http.createServer(fn)`) or a Web fetch handler (`export default { fetch }`). */
  | { kind: 'listener'; site: Span }
  /** `export async function POST(request)` (Next.js) or Bun `routes: { '/mcp': { POST } }`. */
  | { kind: 'method-named'; methods: Methods; path?: string }
  /** Called from another request function with the request objects (`serveMcp(req, res, …)`). */
  | { kind: 'call'; call: Span; caller: Span };

/** A place requests are handled: a whole function, an `if` branch inside one, or the rest of one after a path guard. */
export interface Region {
  role: RegionRole;
  /** This region becomes the endpoint (the others answer 405 or 410). */
  endpoint: boolean;
  kind: 'function' | 'branch' | 'after-guard';
  /** The function the region is in. */
  fn: Span;
  /** The statements rewritten in place: the function body, the branch block, or the guard's block. */
  block: Span;
  /** For `after-guard`: the index of the first statement after the path guard in `block`. */
  from?: number;
  /** For `branch`: the `if` statement, and what its path test compares (`url.pathname`). */
  branch?: Span;
  pathSubject?: string;
  /** The function's parameter names as written ('' for a destructuring pattern). */
  params: string[];
  /** Their type annotations as written (`: Request`), or ''. */
  paramTypes: string[];
  /** The decorator that injects each (`Res` for NestJS's `@Res() res`), or ''. */
  paramDecorators: string[];
  /** Each parameter as written, decorators and type included. */
  paramText: string[];
  /** The function is async (a rewritten body may await). */
  async: boolean;
  methods: Methods;
  /** The endpoint path constraining the region (route path or branch test), as written. */
  path?: string;
  /** Its static value, when it has one. */
  pathValue?: string;
  arrivals: Arrival[];
  framework: FrameworkId;
  /** The body the old code handed the transport (`req.body`, `request.body`), as written. */
  parsedBody?: string;
  /**
   * For the HTTP+SSE stream a new endpoint is made from: the body the messages handler handed `handlePostMessage`,
   * read off one of its parameters (`ctx.request.body` is `{ param: 0, access: '.request.body' }`). A body parser
   * (koa-bodyparser) has read the stream by then, so the new endpoint hands the transport the same parsed body.
   */
  messagesBody?: { param: number; access: string };
  /** The author's catch clause around the transport's `handleRequest`, kept around the new serve (see served-catch.ts). */
  servedCatch?: ServedCatch;
  /**
   * The call whose callback the old handler served the request in (`requestContext.run({ userId }, async () => {
   * await transport.handleRequest(…) })`): the new serve runs inside the same call. `args`: the arguments before the
   * callback, as written.
   */
  servedWithin?: { callee: string; args: string[] };
  /**
   * What the old handler ran after the transport handled the request (`console.log(…)`, `metrics.count(…)`), as
   * written, in template indentation: the new endpoint runs it after its serve. Session bookkeeping is not in it.
   * `result`: the local a Web handler kept the served Response in (`const response = await transport.handleRequest(…)`).
   */
  servedAfter?: { statements: string[]; result?: string };
}

/** A catch clause as written: its variable (absent for `catch {`) and its statements, in template indentation. */
export interface ServedCatch {
  param?: string;
  statements: string[];
}

/** Where the server a region connects comes from. */
export type ServerSource =
  /** Built in the region itself: `const server = createServer(token)` or `new McpServer(…)` + setup statements. */
  | {
      kind: 'built';
      /** The expression that builds it, as written. */
      init: string;
      awaited: boolean;
      /** The local it is assigned to, when there is one. */
      variable?: string;
      /** The pattern that local is destructured with (`{ server, cleanup }`), when it comes out of one. */
      binding?: string;
      /** Statements after the declaration that configure it (`registerTools(server)`), as written. */
      setup: string[];
      /**
       * Statements of the region, in order, that compute the server's inputs or answer early (`if (!token) return
       * res.status(401)…`); they move into the new handler before the server is built.
       */
      prelude: string[];
      /** Names from outside the region the expression, setup and prelude use. */
      uses: string[];
      /** Building it needs the request (the handler's parameters or locals): the factory runs per request. */
      requestScoped: boolean;
      /** The expression calls a getter that caches one server: it must build a fresh one per call first. */
      cached?: CachedServerGetter;
    }
  /** A server created once (module level, enclosing scope, a parameter bound to one) and connected per request. */
  | {
      kind: 'shared';
      /** How the region refers to it (`server`, `this.server`). */
      reference: string;
      /** Its declaration. */
      declaration: Span;
      /** The declaration and the statements that configure it, when they can become a factory (else `blocker`). */
      hoist?: ServerHoist;
      /** It is made by one call of a factory in scope (`const server = buildServer()`): requests call that instead. */
      factoryCall?: string;
      blocker?: string;
      /**
       * Statements of the region before the server is connected that answer early or compute what the request is
       * served with (`const user = await lookupUser(…); if (!user) return res.status(401)…`): they stay in the new
       * handler, before it builds its server.
       */
      prelude?: string[];
    }
  /** `sharedTransport`: the handler serves every request with one transport made outside it (rule `shared-transport`). */
  | { kind: 'unknown'; why: string; sharedTransport?: true };

/** How a shared server becomes a factory: where it is declared, what moves into the factory and what else changes. */
export interface ServerHoist {
  /** The file that declares the shared server, and its declaration there. */
  file: string;
  declaration: Span;
  /** The variable (`server`). */
  variable: string;
  /** The factory's name, free in every file that refers to it (`createMcpServer`). */
  factory: string;
  /** Another file calls the factory: it is exported, and imported there. */
  exported: boolean;
  /** Top-level statements that configure it (`server.tool(…)`, `registerTools(server)`), moved into the factory. */
  setup: Span[];
  /** Uses outside the request regions that keep one instance (`server.connect(stdio)`, `server.close()`). */
  keepsInstance: boolean;
  /**
   * It is a class field (`private readonly server = new McpServer(…)`) configured in the constructor (`setup`): the
   * factory is a method of the class (`this.createMcpServer()`), placed after `after` (the constructor, or the field).
   */
  field?: {
    after: Span;
    /**
     * Declared without a value and made by one statement (`this.server = new Server(…)` in `setupServer()` or the
     * constructor): the factory's value is that statement's, and the statement goes.
     */
    assignment?: Span;
    /** The method that made it, left empty, and the statements that only call it (`this.setupServer();`): they go. */
    emptied?: { method: Span; calls: Span[] };
  };
  /**
   * The regions reach it through a parameter (`startSseServer(server)`): the parameter becomes a factory and these
   * call sites pass the factory instead of the instance.
   */
  parameter?: {
    fn: Span;
    name: string;
    index: number;
    callSites: Span[];
    /** Arguments that tests pass (servers of their own): each becomes `() => <argument>`. */
    wrapSites: Span[];
  };
  /** Its callers configure it: their registrations become a callback the factory runs on every server it builds. */
  registrations?: ServerRegistrations;
}

/**
 * A server built in a function that hands it out inside an object (`return { server, start }`), which the callers
 * configure (`const { server, start } = createApp(); server.tool(…); start();`) before anything connects it. The
 * function takes the registrations as a callback, run by the factory on every server it builds; each caller passes
 * the statements that configured the returned server, and stops taking the server where nothing else reads it.
 */
export interface ServerRegistrations {
  /** The function that builds the server and hands it out: it gets the callback as a parameter. */
  builder: Span;
  /** The callback parameter: its name (free in the builder's file), its index, and its type as code (TypeScript). */
  parameter: string;
  index: number;
  type?: string;
  /** Every call of the builder passes a callback: the parameter is required (else it defaults to one that does nothing). */
  required: boolean;
  sites: RegistrationSite[];
}

/** A call of the builder whose returned server is configured by the statements after it. */
export interface RegistrationSite {
  call: Span;
  /** The number of arguments the call passes (`undefined` fills the gap up to the callback). */
  arguments: number;
  /** The callback's parameter (`server`): the name the statements used, or a free one. */
  parameter: string;
  /** The statements that configured the returned server, in order: they move into the callback. */
  setup: Span[];
  /** The expressions in them that read the returned server (`app.server`), renamed to the parameter. */
  references: Span[];
  /** `server` in `const { server, start } = createApp()`, which nothing else reads: removed. */
  binding?: Span;
}

/**
 * A getter whose only job is to build, configure and cache one server in a module variable (`if (server) return
 * server; server = new McpServer(…); registerTools(server); return server;`), so every request gets the same server.
 * It becomes a factory in place: the guard and the variable go, the assignment declares a local.
 */
export interface CachedServerGetter {
  /** The getter as the region calls it (`getMcpServer`), and the function. */
  name: string;
  fn: Span;
  /** The module variable that caches the server (`mcpServer`), and its declaration (removed with its statement). */
  variable: string;
  declaration: Span;
  /** `if (mcpServer) return mcpServer;`, removed. */
  guard: Span;
  /** `mcpServer = new Server(…);`, which becomes `const mcpServer = new Server(…);`. */
  assignment: Span;
  /** Other code needs the one cached server (it reads the variable, or uses the getter's server): which, and where. */
  blocker?: string;
}

/** What the transport was configured with, beyond sessions. */
export interface TransportOptions {
  /** `enableJsonResponse: true`. */
  jsonResponse: boolean;
}

/**
 * A stdio-to-HTTP bridge whose HTTP+SSE handler takes the transport's messages over and writes them to a child
 * process (src/analysis/endpoints/bridge.ts): the child answers everything, initialize included.
 */
export interface BridgePlan {
  /** The assignment that takes the messages over (`transport.onmessage = (message) => …`). */
  forward: Span;
  /** The child process it writes to, where it starts (`spawn(command, …)`), when the analysis can see it. */
  child?: {
    start: Span;
    /** The start as written, on one line. */
    code: string;
    /** Started by the SSE handler: one child per connection, so per client. */
    perConnection: boolean;
  };
  /** Route parameters of the SSE path (`/:command/sse` → `command`), which may choose the child. */
  routeParams: string[];
  /** One child for every client, in a shape the stdio-bridge transform rewrites: what it changes. */
  relay?: BridgeRelay;
}

/**
 * How a one-child bridge becomes an ordinary server: an SDK `Client` speaks to the child over its stdio (sending
 * the child's one initialize), and a server factory answers initialize with the child's result and forwards every
 * other message through that client. The SSE handler connects a server from the factory instead of the placeholder.
 */
export interface BridgeRelay {
  /** The child process variable (`child`), and the statement that declares it: the client is created after it. */
  child: string;
  declaration: Span;
  /** The placeholder server in the SSE handler's `connect` call (`gateway` in `gateway.connect(transport)`). */
  server: Span;
  /** The `transport.onmessage = …` statement, removed. */
  forward: Span;
  /** Statements that hand the child's output to the SSE transports (`child.stdout.on('data', …)`), removed. */
  output: Span[];
}

export interface EndpointPlan {
  /** Stable across re-analysis: the file of the first region and the endpoint path. */
  id: string;
  framework: FrameworkId;
  /** The endpoint path after migration, as code, and as prose for messages (with the mount prefix). */
  path: { code: string; value?: string; display: string };
  regions: Region[];
  server: ServerSource;
  transport: TransportOptions;
  /** The endpoint is stateless already: a fresh server and a session-less transport per request, POST only. */
  stateless: boolean;
  /** Session machinery the migration removes: stores, id generators, event stores (spans, for the report). */
  sessionSites: Span[];
  /**
   * The endpoint handed every request to one transport made once and connected at start-up (`shared-transport`): the
   * migration deletes the transport's declaration, that connect and its `close()` calls on shutdown, and serves each
   * request with its own.
   */
  startupTransport?: { declaration: Span; connect: Span; closes: Span[] };
  /** The endpoint is a stdio bridge that forwards raw messages to a child process. */
  bridge?: BridgePlan;
  /** `transport.onmessage` wrapped to change every message before the server answers it (`_meta` from the connection). */
  interceptor?: Span;
  /** Something in front of the endpoint already validates Origin. */
  originGuarded: boolean;
  /** Every listener of the server binds loopback: Host is checked too. */
  local: boolean;
  /**
   * GET and DELETE, where no route of the endpoint's app answers them on its path (a POST-only route rewritten in
   * place): the migration registers a 405 for each, so neither falls through to a 404.
   */
  unrouted: HttpMethod[];
  /**
   * A value the endpoint computed from each request and filed by session id (credentials), which its readers now take
   * from the request being served: the migration carries it out with the endpoint, in every file it names.
   */
  credentials?: RequestCredentials;
  /** The plan can be carried out whole; otherwise why not, at the construct that stops it. */
  verdict:
    | { migratable: true }
    | {
        migratable: false;
        reason: string;
        at: Span;
        state?: SessionStateFacts;
        /** Functions the endpoint calls that build its transports (`setupTransportAndSession(id, …)`), kept with it. */
        kept?: Span[];
      };
}

/** Per-session state that stops an endpoint (`setAuthContext(id, auth)`, `sessions.create(id)`): what it is, who reads it. */
export interface SessionStateFacts {
  /** The write it ends in, when the call stores it through functions it calls (`authContextStore.set(transportId, authInfo)`). */
  write?: string;
  /** The store, as written (`authContextStore`, `this.sessions`). */
  store?: string;
  /** The expression that computed the stored value from the request (`validateAuthFromRequest(req, res)`). */
  fromRequest?: string;
  /** The state made for the session (`new ClusterRegistry()`). */
  made?: string;
  /** Lookups of the store by key outside the endpoint (an accessor's callers: `registry.workspaceOf(sessionId)`). */
  /** `request`: what the low-level request handler it sits in reads of its request (`request.params.initializationOptions`). */
  readers: Array<Span & { text: string; in?: string; request?: string }>;
  /** The endpoint's own lookup of the store: a request that does not carry the value gets the stored one. */
  fallback?: Span & { text: string };
  /**
   * The state can live behind an explicit handle instead: every reader is in the write's file, in a low-level
   * `tools/call` handler, and gets back `property` of the stored record (or the record), which `initializer` makes
   * afresh in that file (`new Workspace()`). `readers`: every one of them in `tools/call` (the reason lists a few);
   * `filler`: the one in an `initialize` handler that fills the state without reading its request (it moves to open_session);
   * `closes`: the value has `close()` (a client, a browser), which expiry and the cap call.
   */
  perHandle?: { property: string; initializer: string; closes?: boolean; readers: Span[]; filler?: Span };
  /** Why a low-level `tools/call` handler's state cannot get handles (`updateActivity(id)` uses the whole record). */
  noHandle?: string;
}

/**
 * A session store of request-derived values made request-scoped: beside the store an `AsyncLocalStorage` (the scope)
 * holds the value of the request being served; the endpoint serves each request inside `scope.run(value, …)`, and
 * each lookup by session id reads `scope.getStore()` instead (tests of its key read whether there is a value).
 */
export interface RequestCredentials {
  /** The value as the endpoint computes it, written as it was stored (`authInfo!`): a local of the kept prelude. */
  value: string;
  /** The store's declaration (`const contexts = new Map<string, Auth>()`). */
  store: Span;
  /** The scope's name, free in every file that uses it (`contextsOfRequest`). */
  scope: string;
  /** The stored value's type as the store's file can name it (TypeScript; `Auth`), for `AsyncLocalStorage<Auth>`. */
  valueType?: string;
  /** The scope is exported from the store's file: other files use it. */
  exported: boolean;
  /** How each other file that uses it (the endpoint's, readers') imports it (`./auth/store.js`). */
  imports: Array<{ file: string; module: string }>;
  readers: CredentialReader[];
}

/** A lookup of the store by session id, and what else of its key the rewrite touches. */
export interface CredentialReader {
  /** `contexts.get(sessionId)`, `contexts[id]`: becomes `scope.getStore()`. */
  lookup: Span;
  /** Tests of the key (`if (sessionId)`, `!id`, `id &&`): they test the scope's value instead. */
  keyTests: Span[];
  /** The key's declaration (`const sessionId = extra.sessionId`) when nothing else reads it: removed. */
  unusedKey?: Span;
  /** The key is a parameter nothing else reads: it gets a leading `_`. */
  unusedParameter?: Span;
}

/** Where a new endpoint goes unless told otherwise (`--endpoint`). */
export const DEFAULT_ENDPOINT_PATH = '/mcp';

/** The plan a finding carries, if any. */
export function endpointPlanOf(finding: { data?: Record<string, unknown> }): EndpointPlan | undefined {
  return finding.data?.endpoint as EndpointPlan | undefined;
}

/** `/mcp` under `/admin` is `/admin/mcp`; `/` under `/mcp` is `/mcp`. */
export function joinPath(prefix: string | undefined, path: string): string {
  if (!prefix) return path;
  return path === '/' || path === '' ? prefix : `${prefix}${path.startsWith('/') ? '' : '/'}${path}`;
}
