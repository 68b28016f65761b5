// The code mcp-migrate writes, in one place. Bodies use only Node's `res.writeHead(...).end(...)`, so the same text
// works in express, express.Router and node:http handlers. Comments say why, for the human reviewing the diff.

export const STREAMABLE_MODULE = '@modelcontextprotocol/sdk/server/streamableHttp.js';
export const GUARD_NAME = 'rejectForeignOrigin';
/** The Web (Request → Response) form of the guard, for hono and fetch handlers. */
export const WEB_GUARD_NAME = 'foreignOriginResponse';

/** A string literal in the file's quote style. */
export function quoted(quote: 'single' | 'double', text: string): string {
  return quote === 'double' ? `"${text}"` : `'${text}'`;
}
const q = quoted;

/** Templates are written with two-space indents; the placeholder expansion converts to the file's unit. */
export function indent(code: string): string {
  return code
    .split('\n')
    .map((line) => (line.length > 0 ? `  ${line}` : line))
    .join('\n');
}

export interface HandlerNames {
  req: string;
  res: string;
  server: string;
  transport: string;
  transportClass: string;
  /** Expression that builds a fresh server, e.g. `createMcpServer()`. */
  factory: string;
  /** Statements that configure the fresh server (they name it `server`). */
  setup?: string[];
  quote: 'single' | 'double';
  /** Pass `req.body` (express parsed it) or let the transport read the stream (node:http). */
  parsedBody: boolean;
  /** The parsed body's expression when it is not `req.body` (fastify: `request.body` next to `request.raw`). */
  body?: string;
}

/** The statements of a stateless POST handler: fresh server + transport per request, both closed with the response. */
export function statelessPostBody(n: HandlerNames): string {
  const s = (t: string) => q(n.quote, t);
  return [
    `const ${n.server} = ${n.factory};`,
    ...(n.setup ?? []),
    `const ${n.transport} = new ${n.transportClass}({ sessionIdGenerator: undefined });`,
    `${n.res}.on(${s('close')}, () => {`,
    `  void ${n.transport}.close();`,
    `  void ${n.server}.close();`,
    `});`,
    `try {`,
    `  await ${n.server}.connect(${n.transport});`,
    `  await ${n.transport}.handleRequest(${n.req}, ${n.res}${n.parsedBody ? `, ${n.body ?? `${n.req}.body`}` : ''});`,
    `} catch (error) {`,
    `  console.error(${s('MCP request failed:')}, error);`,
    `  if (!${n.res}.headersSent) {`,
    `    ${n.res}.writeHead(500, { ${s('Content-Type')}: ${s('application/json')} }).end(JSON.stringify({ jsonrpc: ${s('2.0')}, error: { code: -32603, message: ${s('Internal server error')} }, id: null }));`,
    `  }`,
    `}`,
  ].join('\n');
}

/** The stateless POST handler on a Web-standard framework (hono): the transport takes the Request, returns the Response. */
export function webStatelessPostBody(
  n: Omit<HandlerNames, 'res' | 'parsedBody' | 'body'> & { request: string; errorResponse: string },
): string {
  const s = (t: string) => q(n.quote, t);
  return [
    `const ${n.server} = ${n.factory};`,
    ...(n.setup ?? []),
    `const ${n.transport} = new ${n.transportClass}({ sessionIdGenerator: undefined });`,
    `try {`,
    `  await ${n.server}.connect(${n.transport});`,
    `  return await ${n.transport}.handleRequest(${n.request});`,
    `} catch (error) {`,
    `  console.error(${s('MCP request failed:')}, error);`,
    `  return ${n.errorResponse};`,
    `}`,
  ].join('\n');
}

/** A JSON-RPC error object literal, as code. */
export function jsonRpcError(code: number, message: string, quote: 'single' | 'double'): string {
  const s = (t: string) => q(quote, t);
  return `{ jsonrpc: ${s('2.0')}, error: { code: ${code}, message: ${s(message)} }, id: null }`;
}

/** `new Response(JSON.stringify({ jsonrpc, error }), { status, headers })`: a JSON-RPC error as a Web Response. */
export function webErrorResponse(status: number, code: number, message: string, quote: 'single' | 'double', allowPost = false): string {
  const s = (t: string) => q(quote, t);
  const headers = `${allowPost ? `Allow: ${s('POST')}, ` : ''}${s('Content-Type')}: ${s('application/json')}`;
  return `new Response(JSON.stringify(${jsonRpcError(code, message, quote)}), { status: ${status}, headers: { ${headers} } })`;
}

/** The message of the 410 answer on an old HTTP+SSE path. */
export function goneMessage(endpointDescription: string): string {
  return `The HTTP+SSE transport was removed; use Streamable HTTP: POST ${endpointDescription.replace(/'/g, '')}`;
}

export function methodNotAllowedBody(res: string, quote: 'single' | 'double'): string {
  const s = (t: string) => q(quote, t);
  return `${res}.writeHead(405, { Allow: ${s('POST')}, ${s('Content-Type')}: ${s('application/json')} }).end(JSON.stringify({ jsonrpc: ${s('2.0')}, error: { code: -32000, message: ${s('Method not allowed.')} }, id: null }));`;
}

/** Old HTTP+SSE paths answer 410 Gone and name the new endpoint, so a stale client config fails loudly. */
export function goneBody(res: string, endpointDescription: string, quote: 'single' | 'double'): string {
  const s = (t: string) => q(quote, t);
  const message = goneMessage(endpointDescription);
  return `${res}.writeHead(410, { ${s('Content-Type')}: ${s('application/json')} }).end(JSON.stringify({ jsonrpc: ${s('2.0')}, error: { code: -32000, message: ${s(message)} }, id: null }));`;
}

export function guardCall(req: string, res: string): string {
  return `if (${GUARD_NAME}(${req}, ${res})) return;`;
}

/**
 * The Origin (and, for local servers, Host) check the spec requires. Local origins pass; deployments add theirs to
 * MCP_ALLOWED_ORIGINS. Written out rather than imported: the v1 SDK has no Origin middleware.
 */
export function guardFunction(options: {
  typescript: boolean;
  checkHost: boolean;
  quote: 'single' | 'double';
  types?: { request: string; response: string };
}): string {
  const s = (t: string) => q(options.quote, t);
  const types = options.typescript;
  const lines = [
    `// mcp-migrate: Streamable HTTP servers MUST validate Origin and answer a foreign one with 403 (DNS rebinding).`,
    `// Local origins are allowed; list deployed ones in MCP_ALLOWED_ORIGINS (comma-separated).`,
    `const mcpAllowedOrigins = new Set((process.env.MCP_ALLOWED_ORIGINS ?? ${s('')}).split(${s(',')}).map((origin) => origin.trim()).filter(Boolean));`,
    `const mcpLocalHostnames = new Set([${s('localhost')}, ${s('127.0.0.1')}, ${s('[::1]')}]);`,
    ``,
    `function ${GUARD_NAME}(req${types ? `: ${options.types?.request ?? 'IncomingMessage'}` : ''}, res${types ? `: ${options.types?.response ?? 'ServerResponse'}` : ''})${types ? ': boolean' : ''} {`,
    `  const origin = req.headers.origin;`,
    `  let allowed = origin === undefined || mcpAllowedOrigins.has(origin);`,
    ...localOriginLines('mcpLocalHostnames.has', types),
  ];
  if (options.checkHost) {
    lines.push(
      `  // A local server also checks Host, so a rebound DNS name cannot reach it (more names: MCP_ALLOWED_HOSTS).`,
      `  const host = (req.headers.host ?? ${s('')}).replace(/:\\d+$/, ${s('')});`,
      `  if (allowed && !mcpLocalHostnames.has(host) && !(process.env.MCP_ALLOWED_HOSTS ?? ${s('')}).split(${s(',')}).includes(host)) allowed = false;`,
    );
  }
  lines.push(
    `  if (allowed) return false;`,
    `  res.writeHead(403, { ${s('Content-Type')}: ${s('application/json')} }).end(JSON.stringify({ jsonrpc: ${s('2.0')}, error: { code: -32000, message: ${s(options.checkHost ? 'Forbidden: Origin or Host not allowed' : 'Forbidden: Origin not allowed')} }, id: null }));`,
    `  return true;`,
    `}`,
  );
  return lines.join('\n');
}

/** A present Origin is still allowed when its hostname is local (an unparsable one is not). */
function localOriginLines(isLocal: string, types: boolean): string[] {
  return [
    `  if (!allowed) {`,
    `    try {`,
    `      allowed = ${isLocal}(new URL(origin${types ? ' as string' : ''}).hostname);`,
    `    } catch {`,
    `      allowed = false;`,
    `    }`,
    `  }`,
  ];
}

/** `const forbidden = foreignOriginResponse(request); if (forbidden) return forbidden;` */
export function webGuardCall(request: string, local: string): string {
  return `const ${local} = ${WEB_GUARD_NAME}(${request});\nif (${local}) return ${local};`;
}

/**
 * The guard for Web-standard handlers (hono, Workers, Bun, Deno): a 403 Response for a present, foreign Origin (and,
 * on a local server, a foreign Host). No `process.env`: Web runtimes may not have it, so allowed origins are a list.
 */
export function webGuardFunction(options: { typescript: boolean; checkHost: boolean; quote: 'single' | 'double' }): string {
  const s = (t: string) => q(options.quote, t);
  const types = options.typescript;
  const lines = [
    `// mcp-migrate: Streamable HTTP servers MUST validate Origin and answer a foreign one with 403 (DNS rebinding).`,
    `function ${WEB_GUARD_NAME}(request${types ? ': Request' : ''})${types ? ': Response | undefined' : ''} {`,
    `  // Local origins are allowed; add the origins of deployed browser clients to this list.`,
    `  const allowedOrigins${types ? ': string[]' : ''} = [];`,
    `  const localHostnames = [${s('localhost')}, ${s('127.0.0.1')}, ${s('[::1]')}];`,
    `  const origin = request.headers.get(${s('origin')});`,
    `  let allowed = origin === null || allowedOrigins.includes(origin);`,
    ...localOriginLines('localHostnames.includes', types),
  ];
  if (options.checkHost) {
    lines.push(
      `  // A local server also checks Host, so a rebound DNS name cannot reach it.`,
      `  if (allowed && !localHostnames.includes((request.headers.get(${s('host')}) ?? ${s('')}).replace(/:\\d+$/, ${s('')}))) allowed = false;`,
    );
  }
  lines.push(
    `  if (allowed) return undefined;`,
    `  const error = { jsonrpc: ${s('2.0')}, error: { code: -32000, message: ${s(options.checkHost ? 'Forbidden: Origin or Host not allowed' : 'Forbidden: Origin not allowed')} }, id: null };`,
    `  return new Response(JSON.stringify(error), { status: 403, headers: { ${s('Content-Type')}: ${s('application/json')} } });`,
    `}`,
  );
  return lines.join('\n');
}
