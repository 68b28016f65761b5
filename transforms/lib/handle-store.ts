// The module-level store that replaces session state: handles minted by `open_session`, a sliding lifetime and a
// size cap. Written out in the migrated file so the server owns (and can tune) it.
import { quoted } from '../../src/frameworks/code';

export const HANDLE_ARG = 'session_handle';
export const OPEN_TOOL = 'open_session';

export interface StoreVariable {
  name: string;
  /** Type annotation text (TypeScript), if the factory variable had one. */
  type?: string;
  initializer: string;
  /** It owns a resource (it has `close()`): expiry and the cap close it. */
  closes?: boolean;
}

export function handleStoreCode(options: {
  typescript: boolean;
  variables: StoreVariable[];
  quote: 'single' | 'double';
  randomUUID: string;
}): string {
  const q = (t: string) => quoted(options.quote, t);
  const ts = options.typescript;
  const lines = [
    `// mcp-migrate: session state becomes an explicit handle (spec 2026-07-28 server/tools.mdx "Stateful Tools").`,
    `// \`${OPEN_TOOL}\` mints a random UUID; stateful tools take it as \`${HANDLE_ARG}\`. A handle lives 1 hour after its`,
    `// last use and at most 10,000 are kept (the oldest goes first): tune both for your deployment.`,
    `const SESSION_HANDLE_TTL_MS = 60 * 60 * 1000;`,
    `const SESSION_HANDLE_LIMIT = 10_000;`,
    ``,
    `/** What a session used to keep in its own server instance, now kept per handle. */`,
    `function newSessionState() {`,
    `  return {${options.variables.length ? ' ' : ''}${options.variables.map((v) => `${v.name}: ${ts && v.type ? `${/^(?:\[\]|\{\}|'[^']*'|"[^"]*"|\d+|true|false|null|new [\w.]+(?:<[^()]*>)?\(\))$/.test(v.initializer) ? v.initializer : `(${v.initializer})`} as ${v.type}` : v.initializer}`).join(', ')}${options.variables.length ? ' ' : ''}};`,
    `}`,
  ];
  if (ts) lines.push(`type SessionHandleState = ReturnType<typeof newSessionState>;`);
  const owned = options.variables.filter((v) => v.closes);
  lines.push(`const sessionHandles = new Map${ts ? '<string, { state: SessionHandleState; expires: number }>' : ''}();`, ``);
  if (owned.length > 0) {
    lines.push(
      `/** A handle owns what its session made: expiry and the cap close it. */`,
      `function closeSessionState(state${ts ? ': SessionHandleState' : ''})${ts ? ': void' : ''} {`,
      `  for (const resource of [${owned.map((v) => `state.${v.name}`).join(', ')}]) {`,
      `    Promise.resolve()`,
      `      .then(() => resource.close())`,
      `      .catch((error${ts ? ': unknown' : ''}) => console.error(${q('Closing an expired session handle failed:')}, error));`,
      `  }`,
      `}`,
      ``,
      `function openSessionHandle()${ts ? ': string' : ''} {`,
      `  const now = Date.now();`,
      `  for (const [handle, entry] of sessionHandles) {`,
      `    if (entry.expires > now) continue;`,
      `    sessionHandles.delete(handle);`,
      `    closeSessionState(entry.state);`,
      `  }`,
      `  for (const [handle, entry] of sessionHandles) {`,
      `    if (sessionHandles.size < SESSION_HANDLE_LIMIT) break;`,
      `    sessionHandles.delete(handle);`,
      `    closeSessionState(entry.state);`,
      `  }`,
    );
  } else {
    lines.push(
      `function openSessionHandle()${ts ? ': string' : ''} {`,
      `  const now = Date.now();`,
      `  for (const [handle, entry] of sessionHandles) if (entry.expires <= now) sessionHandles.delete(handle);`,
      `  while (sessionHandles.size >= SESSION_HANDLE_LIMIT) sessionHandles.delete(sessionHandles.keys().next().value${ts ? ' as string' : ''});`,
    );
  }
  lines.push(
    `  const handle = ${options.randomUUID}();`,
    `  sessionHandles.set(handle, { state: newSessionState(), expires: now + SESSION_HANDLE_TTL_MS });`,
    `  return handle;`,
    `}`,
    ``,
    `function sessionHandleState(handle${ts ? ': string' : ''})${ts ? ': SessionHandleState | undefined' : ''} {`,
    `  const entry = sessionHandles.get(handle);`,
    `  if (!entry || entry.expires <= Date.now()) {`,
    `    sessionHandles.delete(handle);`,
    ...(owned.length > 0 ? [`    if (entry) closeSessionState(entry.state);`] : []),
    `    return undefined;`,
    `  }`,
    `  entry.expires = Date.now() + SESSION_HANDLE_TTL_MS;`,
    `  return entry.state;`,
    `}`,
    ``,
    `function unknownSessionHandle() {`,
    `  return { isError: true, content: [{ type: ${q('text')}${ts ? ' as const' : ''}, text: ${q(`Unknown or expired ${HANDLE_ARG}: call ${OPEN_TOOL} to get a new one.`)} }] };`,
    `}`,
  );
  return lines.join('\n');
}

export function openToolCode(options: {
  server: string;
  form: 'registerTool' | 'tool';
  tools: string[];
  quote: 'single' | 'double';
}): string {
  const q = (t: string) => (options.quote === 'double' ? `"${t.replace(/"/g, '\\"')}"` : `'${t.replace(/'/g, "\\'")}'`);
  const description = q(openToolDescription(`the tools that keep state between calls (${options.tools.join(', ')})`));
  const callback = `async () => ({ content: [{ type: ${q('text')}, text: openSessionHandle() }] })`;
  if (options.form === 'registerTool') {
    return [
      `${options.server}.registerTool(`,
      `  ${q(OPEN_TOOL)},`,
      `  {`,
      `    description: ${description},`,
      `    annotations: ${OPEN_TOOL_ANNOTATIONS},`,
      `  },`,
      `  ${callback},`,
      `);`,
    ].join('\n');
  }
  return `${options.server}.tool(${q(OPEN_TOOL)}, ${description}, ${OPEN_TOOL_ANNOTATIONS}, ${callback});`;
}

const OPEN_TOOL_ANNOTATIONS = `{ readOnlyHint: false, idempotentHint: false, destructiveHint: false }`;

function openToolDescription(tools: string): string {
  return `Start a session and get a handle for ${tools}. Pass it to them as ${HANDLE_ARG}. A handle expires 1 hour after its last use.`;
}

/**
 * For a low-level server (`setRequestHandler(ListToolsRequestSchema, …)`): `withSessionHandle(tools)` lists the
 * open_session tool first and gives every listed tool a required `session_handle` argument, whatever builds the list.
 */
export function listedToolsCode(options: { typescript: boolean; quote: 'single' | 'double' }): string {
  const q = (t: string) => quoted(options.quote, t);
  const ts = options.typescript;
  return [
    `/** The tools as listed, after ${OPEN_TOOL}, each with the required \`${HANDLE_ARG}\` argument. */`,
    ts
      ? `function withSessionHandle<T extends { inputSchema: { type: string; properties?: object; required?: readonly string[] } }>(tools: readonly T[]) {`
      : `function withSessionHandle(tools) {`,
    `  const open = {`,
    `    name: ${q(OPEN_TOOL)},`,
    `    description: ${q(openToolDescription('every other tool of this server'))},`,
    `    inputSchema: { type: ${q('object')}${ts ? ' as const' : ''}, properties: {} },`,
    `    annotations: ${OPEN_TOOL_ANNOTATIONS},`,
    `  };`,
    `  const handle = { type: ${q('string')}, description: ${q(`Handle returned by ${OPEN_TOOL}`)} };`,
    `  return [`,
    `    open,`,
    `    ...tools.map((tool) => ({`,
    `      ...tool,`,
    `      inputSchema: {`,
    `        ...tool.inputSchema,`,
    `        properties: { ...tool.inputSchema.properties, ${HANDLE_ARG}: handle },`,
    `        required: [...(tool.inputSchema.required ?? []), ${q(HANDLE_ARG)}],`,
    `      },`,
    `    })),`,
    `  ];`,
    `}`,
  ].join('\n');
}

/**
 * The first lines of a low-level `tools/call` handler: open_session mints a handle; any other tool takes the state of
 * the handle it passes (the handle leaves the arguments the tools see), and an unknown one is a tool error. `fill`:
 * code that filled a new session's state (it ran in `initialize`), which now fills a new handle's, reading it as `local`.
 */
export function dispatchGuardLines(options: {
  request: string;
  state: string;
  quote: 'single' | 'double';
  fill?: { local: string; property: string; lines: string[]; typescript: boolean };
}): string[] {
  const q = (t: string) => quoted(options.quote, t);
  const { request, state, fill } = options;
  const open = fill
    ? [
        `if (${request}.params.name === ${q(OPEN_TOOL)}) {`,
        `  const openedHandle = openSessionHandle();`,
        `  const ${fill.local} = sessionHandleState(openedHandle)${fill.typescript ? '!' : ''}.${fill.property};`,
        ...fill.lines.map((line) => (line ? `  ${line}` : line)),
        `  return { content: [{ type: ${q('text')}, text: openedHandle }] };`,
        `}`,
      ]
    : [`if (${request}.params.name === ${q(OPEN_TOOL)}) return { content: [{ type: ${q('text')}, text: openSessionHandle() }] };`];
  return [
    ...open,
    `const { ${HANDLE_ARG}: sessionHandle, ...toolArguments } = ${request}.params.arguments ?? {};`,
    `${request}.params.arguments = toolArguments;`,
    `const ${state} = typeof sessionHandle === ${q('string')} ? sessionHandleState(sessionHandle) : undefined;`,
    `if (!${state}) return unknownSessionHandle();`,
  ];
}

/** Names the package-session store declares at module level. */
export const PACKAGE_SESSION_NAMES = [
  'PACKAGE_SESSION_TTL_MS',
  'PACKAGE_SESSION_LIMIT',
  'PACKAGE_CALL_TIMEOUT_MS',
  'packageSessions',
  'packageCatalog',
  'openPackageServer',
  'closePackageSession',
  'openPackageSession',
  'packageSessionOf',
  'packageSessionServer',
  'withSessionHandle',
];

/**
 * For a server a package builds per session (`createConnection()` from `@playwright/mcp`): each handle owns one,
 * reached through an in-memory client; `packageSessionServer()` is the server each request gets, which lists the
 * package's tools (from one instance kept for listing only) with the handle argument and forwards each call to the
 * server of the handle it is passed.
 */
export function packageSessionsCode(options: {
  typescript: boolean;
  quote: 'single' | 'double';
  factory: string;
  module: string;
  /** The package factory's call as written (`createConnection({ … })`). */
  open: string;
  imports: { server: string; client: string; inMemory: string; listTools: string; callTool: string; randomUUID: string };
}): string {
  const q = (t: string) => quoted(options.quote, t);
  const ts = options.typescript;
  const { server, client, inMemory, listTools, callTool, randomUUID } = options.imports;
  const type = (t: string) => (ts ? `: ${t}` : '');
  const entryType = `{ client: ${client}; server: { close(): unknown }; expires: number }`;
  return [
    `// mcp-migrate: each session had its own server from \`${options.factory}()\` (\`${options.module}\`), with what it owns.`,
    `// Without sessions a handle owns one: \`${OPEN_TOOL}\` opens it, every tool of the package takes the handle as`,
    `// \`${HANDLE_ARG}\`, and the server each request gets forwards the call to the handle's server through an in-memory`,
    `// client (tools only). A handle lives 1 hour after its last use and at most 100 are kept (the oldest goes first);`,
    `// closing one closes its server: tune both for your deployment.`,
    `const PACKAGE_SESSION_TTL_MS = 60 * 60 * 1000;`,
    `const PACKAGE_SESSION_LIMIT = 100;`,
    `// The package's server set no deadline on its tools: an hour, rather than the client's default minute.`,
    `const PACKAGE_CALL_TIMEOUT_MS = 60 * 60 * 1000;`,
    `const packageSessions = new Map${ts ? `<string, ${entryType}>` : ''}();`,
    `// One package server, opened on the first tools/list and used for listing only.`,
    `let packageCatalog${ts ? `: Promise<${entryType}> | undefined` : ''};`,
    ``,
    `async function openPackageServer()${type(`Promise<${entryType}>`)} {`,
    `  const server = await ${options.open};`,
    `  const [clientSide, serverSide] = ${inMemory}.createLinkedPair();`,
    `  await server.connect(serverSide);`,
    `  const client = new ${client}({ name: ${q('mcp-migrate-session')}, version: ${q('1.0.0')} });`,
    `  await client.connect(clientSide);`,
    `  return { client, server, expires: Date.now() + PACKAGE_SESSION_TTL_MS };`,
    `}`,
    ``,
    `function closePackageSession(entry${type(entryType)})${type('void')} {`,
    `  Promise.resolve()`,
    `    .then(() => entry.client.close())`,
    `    .then(() => entry.server.close())`,
    `    .catch((error${type('unknown')}) => console.error(${q('Closing an expired session handle failed:')}, error));`,
    `}`,
    ``,
    `async function openPackageSession()${type('Promise<string>')} {`,
    `  const now = Date.now();`,
    `  for (const [handle, entry] of packageSessions) {`,
    `    if (entry.expires > now && packageSessions.size < PACKAGE_SESSION_LIMIT) continue;`,
    `    packageSessions.delete(handle);`,
    `    closePackageSession(entry);`,
    `  }`,
    `  const handle = ${randomUUID}();`,
    `  packageSessions.set(handle, await openPackageServer());`,
    `  return handle;`,
    `}`,
    ``,
    `function packageSessionOf(handle${type('unknown')})${type(`${entryType} | undefined`)} {`,
    `  const entry = typeof handle === ${q('string')} ? packageSessions.get(handle) : undefined;`,
    `  if (!entry) return undefined;`,
    `  if (entry.expires <= Date.now()) {`,
    `    packageSessions.delete(handle${ts ? ' as string' : ''});`,
    `    closePackageSession(entry);`,
    `    return undefined;`,
    `  }`,
    `  entry.expires = Date.now() + PACKAGE_SESSION_TTL_MS;`,
    `  return entry;`,
    `}`,
    ``,
    listedToolsCode({ typescript: ts, quote: options.quote }),
    ``,
    `/** The server each request gets: the package's tools, each forwarded to the server of the handle it is passed. */`,
    `function packageSessionServer()${type(server)} {`,
    `  const front = new ${server}({ name: ${q(options.module)}, version: ${q('1.0.0')} }, { capabilities: { tools: {} } });`,
    `  front.setRequestHandler(${listTools}, async () => {`,
    `    packageCatalog ??= openPackageServer().catch((error) => {`,
    `      packageCatalog = undefined;`,
    `      throw error;`,
    `    });`,
    `    const { tools } = await (await packageCatalog).client.listTools();`,
    `    return { tools: withSessionHandle(tools) };`,
    `  });`,
    `  front.setRequestHandler(${callTool}, async (request) => {`,
    `    if (request.params.name === ${q(OPEN_TOOL)}) return { content: [{ type: ${q('text')}${ts ? ' as const' : ''}, text: await openPackageSession() }] };`,
    `    const { ${HANDLE_ARG}: handle, ...toolArguments } = request.params.arguments ?? {};`,
    `    const session = packageSessionOf(handle);`,
    `    if (!session) {`,
    `      const text = ${q(`Unknown or expired ${HANDLE_ARG}: call ${OPEN_TOOL} to get a new one.`)};`,
    `      return { isError: true, content: [{ type: ${q('text')}${ts ? ' as const' : ''}, text }] };`,
    `    }`,
    `    const call = { name: request.params.name, arguments: toolArguments };`,
    `    return session.client.callTool(call, undefined, { timeout: PACKAGE_CALL_TIMEOUT_MS });`,
    `  });`,
    `  return front;`,
    `}`,
  ].join('\n');
}
