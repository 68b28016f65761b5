// The Origin guards the 2025-11-25 target declares (the v1 SDK has no Origin check), written out exactly as here.
import { quoted as q } from '../../src/frameworks/code';

export const GUARD_NAME = 'rejectForeignOrigin';

/** The module-level names the Node guard declares: the function, and the sets of allowed origins and local hostnames. */
export interface GuardNames {
  guard: string;
  origins: string;
  hostnames: string;
}
export const GUARD_NAMES: GuardNames = { guard: GUARD_NAME, origins: 'mcpAllowedOrigins', hostnames: 'mcpLocalHostnames' };
/** The Web (Request → Response) form of the guard, for hono and fetch handlers. */
export const WEB_GUARD_NAME = 'foreignOriginResponse';

/**
 * The Origin (and, for local servers, Host) check the spec requires. Local origins pass; deployments add theirs to
 * MCP_ALLOWED_ORIGINS. Written out rather than imported: the v1 SDK has no Origin middleware.
 */
export function guardFunction(options: {
  typescript: boolean;
  checkHost: boolean;
  quote: 'single' | 'double';
  types?: { request: string; response: string };
  /** Other names, where the file already uses these for something else. */
  names?: GuardNames;
}): string {
  const s = (t: string) => q(options.quote, t);
  const types = options.typescript;
  const { guard, origins, hostnames } = options.names ?? GUARD_NAMES;
  const lines = [
    `// mcp-migrate: Streamable HTTP servers MUST validate Origin and answer a foreign one with 403 (DNS rebinding).`,
    `// Local origins are allowed; list deployed ones in MCP_ALLOWED_ORIGINS (comma-separated).`,
    `const ${origins} = new Set((process.env.MCP_ALLOWED_ORIGINS ?? ${s('')}).split(${s(',')}).map((origin) => origin.trim()).filter(Boolean));`,
    `const ${hostnames} = new Set([${s('localhost')}, ${s('127.0.0.1')}, ${s('[::1]')}]);`,
    ``,
    ...(types ? [] : jsDoc([`{import(${s('http')}).IncomingMessage} req`, `{import(${s('http')}).ServerResponse} res`], 'boolean')),
    `function ${guard}(req${types ? `: ${options.types?.request ?? 'IncomingMessage'}` : ''}, res${types ? `: ${options.types?.response ?? 'ServerResponse'}` : ''})${types ? ': boolean' : ''} {`,
    `  const origin = req.headers.origin;`,
    `  let allowed = origin === undefined || ${origins}.has(origin);`,
    ...localOriginLines(`${hostnames}.has`, types),
  ];
  if (options.checkHost) {
    lines.push(
      `  // A local server also checks Host, so a rebound DNS name cannot reach it (more names: MCP_ALLOWED_HOSTS).`,
      `  const host = (req.headers.host ?? ${s('')}).replace(/:\\d+$/, ${s('')});`,
      `  if (allowed && !${hostnames}.has(host) && !(process.env.MCP_ALLOWED_HOSTS ?? ${s('')}).split(${s(',')}).includes(host)) allowed = false;`,
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

/**
 * fastmcp's HTTP server (mcp-proxy) checks no Origin and always serves HTTP+SSE at `/sse`. Its `authenticate` hook
 * runs before either endpoint builds a server and passes a thrown `Response` through as the answer: this one answers
 * 410 on the SSE path (naming the endpoint) and 403 on a foreign Origin (and Host, on a local server).
 */
export function fastmcpGuardFunction(options: {
  typescript: boolean;
  checkHost: boolean;
  quote: 'single' | 'double';
  /** The hook's name, and the sets' (each under another name where the file binds it). */
  names: GuardNames;
  ssePath: string;
  endpoint: string;
}): string {
  const s = (t: string) => q(options.quote, t);
  const types = options.typescript;
  const { guard, origins, hostnames } = options.names;
  const json = `{ ${s('Content-Type')}: ${s('application/json')} }`;
  const error = (message: string) => `JSON.stringify({ jsonrpc: ${s('2.0')}, error: { code: -32000, message: ${s(message)} }, id: null })`;
  const lines = [
    `// mcp-migrate: fastmcp runs this hook before it serves a request. Its HTTP server still serves the deprecated`,
    `// HTTP+SSE transport at ${options.ssePath} (fastmcp has no option to turn it off): that path answers 410 here. Streamable HTTP`,
    `// servers MUST validate Origin (DNS rebinding): a foreign one gets 403. Local origins are allowed; list deployed ones`,
    `// in MCP_ALLOWED_ORIGINS (comma-separated).`,
    `const ${origins} = new Set((process.env.MCP_ALLOWED_ORIGINS ?? ${s('')}).split(${s(',')}).map((origin) => origin.trim()).filter(Boolean));`,
    `const ${hostnames} = new Set([${s('localhost')}, ${s('127.0.0.1')}, ${s('[::1]')}]);`,
    ``,
    ...(types ? [] : jsDoc([`{import(${s('http')}).IncomingMessage} req`], 'Promise<Record<string, never>>')),
    `async function ${guard}(req${types ? ': IncomingMessage' : ''})${types ? ': Promise<Record<string, never>>' : ''} {`,
    `  if (new URL(req.url ?? ${s('/')}, ${s('http://localhost')}).pathname === ${s(options.ssePath)}) {`,
    `    throw new Response(${error(`The HTTP+SSE transport is gone: use POST ${options.endpoint} (Streamable HTTP).`)}, { status: 410, headers: ${json} });`,
    `  }`,
    `  const origin = req.headers.origin;`,
    `  let allowed = origin === undefined || ${origins}.has(origin);`,
    ...localOriginLines(`${hostnames}.has`, types),
  ];
  if (options.checkHost) {
    lines.push(
      `  // A local server also checks Host, so a rebound DNS name cannot reach it (more names: MCP_ALLOWED_HOSTS).`,
      `  const host = (req.headers.host ?? ${s('')}).replace(/:\\d+$/, ${s('')});`,
      `  if (allowed && !${hostnames}.has(host) && !(process.env.MCP_ALLOWED_HOSTS ?? ${s('')}).split(${s(',')}).includes(host)) allowed = false;`,
    );
  }
  lines.push(
    `  if (!allowed) throw new Response(${error(options.checkHost ? 'Forbidden: Origin or Host not allowed' : 'Forbidden: Origin not allowed')}, { status: 403, headers: ${json} });`,
    `  return {};`,
    `}`,
  );
  return lines.join('\n');
}

/**
 * In JavaScript the types go in JSDoc, so a project that type-checks its JavaScript (`checkJs`, `// @ts-check`) builds
 * with the guard as it did without it.
 */
function jsDoc(params: string[], returns: string): string[] {
  return ['/**', ...params.map((param) => ` * @param ${param}`), ` * @returns {${returns}}`, ' */'];
}

/** A present Origin is still allowed when its hostname is local (an unparsable one is not). */
function localOriginLines(isLocal: string, types: boolean): string[] {
  return [
    `  if (!allowed) {`,
    `    try {`,
    `      allowed = ${isLocal}(new URL(${types ? 'origin as string' : '/** @type {string} */ (origin)'}).hostname);`,
    `    } catch {`,
    `      allowed = false;`,
    `    }`,
    `  }`,
  ];
}

/**
 * The guard for Web-standard handlers (hono, Workers, Bun, Deno): a 403 Response for a present, foreign Origin (and,
 * on a local server, a foreign Host). No `process.env`: Web runtimes may not have it, so allowed origins are a list.
 */
export function webGuardFunction(options: { typescript: boolean; checkHost: boolean; quote: 'single' | 'double'; name?: string }): string {
  const s = (t: string) => q(options.quote, t);
  const types = options.typescript;
  const lines = [
    `// mcp-migrate: Streamable HTTP servers MUST validate Origin and answer a foreign one with 403 (DNS rebinding).`,
    ...(types ? [] : jsDoc(['{Request} request'], 'Response | undefined')),
    `function ${options.name ?? WEB_GUARD_NAME}(request${types ? ': Request' : ''})${types ? ': Response | undefined' : ''} {`,
    `  // Local origins are allowed; add the origins of deployed browser clients to this list.`,
    `  ${types ? 'const allowedOrigins: string[] = [];' : '/** @type {string[]} */ const allowedOrigins = [];'}`,
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

/**
 * A Web handler (`(request, …rest) => Response`) behind {@link webGuardFunction}: for handlers built by a library that
 * checks no Origin (mcp-handler), wrapped where they are created.
 */
export function webGuardWrapper(options: { typescript: boolean; name: string; guard: string }): string {
  const signature = '(request: Request, ...rest: A) => Response | Promise<Response>';
  return [
    `// mcp-migrate: the handler answers a foreign Origin with 403 before it serves the request.`,
    ...(options.typescript
      ? [`function ${options.name}<A extends unknown[]>(handler: ${signature}) {`]
      : [
          '/**',
          ' * @template {unknown[]} A',
          ` * @param {${signature}} handler`,
          ' * @returns {(request: Request, ...rest: A) => Promise<Response>}',
          ' */',
          `function ${options.name}(handler) {`,
        ]),
    `  return async (request${options.typescript ? ': Request' : ''}, ...rest${options.typescript ? ': A' : ''})${options.typescript ? ': Promise<Response>' : ''} =>`,
    `    ${options.guard}(request) ?? handler(request, ...rest);`,
    `}`,
  ].join('\n');
}

/**
 * The Origin check as a NestJS guard, for modules that mount their own MCP controllers (@rekog/mcp-nest's `guards`):
 * a present Origin that is neither local nor in MCP_ALLOWED_ORIGINS is refused with 403 (ForbiddenException).
 */
export function nestGuardClass(options: {
  name: string;
  quote: 'single' | 'double';
  injectable: string;
  forbidden: string;
  canActivate: string;
  executionContext: string;
}): string {
  const s = (t: string) => q(options.quote, t);
  return [
    `// mcp-migrate: Streamable HTTP servers MUST validate Origin and answer a foreign one with 403 (DNS rebinding).`,
    `// Local origins are allowed; list deployed ones in MCP_ALLOWED_ORIGINS (comma-separated).`,
    `@${options.injectable}()`,
    `class ${options.name} implements ${options.canActivate} {`,
    `  canActivate(context: ${options.executionContext}): boolean {`,
    `    const origin: string | undefined = context.switchToHttp().getRequest().headers.origin;`,
    `    const listed = (process.env.MCP_ALLOWED_ORIGINS ?? ${s('')}).split(${s(',')}).map((entry) => entry.trim());`,
    `    let allowed = origin === undefined || listed.includes(origin);`,
    ...localOriginLines(`[${s('localhost')}, ${s('127.0.0.1')}, ${s('[::1]')}].includes`, true).map((line) => `  ${line}`),
    `    if (!allowed) throw new ${options.forbidden}(${s('Forbidden: Origin not allowed')});`,
    `    return true;`,
    `  }`,
    `}`,
  ].join('\n');
}
