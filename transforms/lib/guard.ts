// The Origin guard (and Host, for a server that binds loopback) in front of a migrated endpoint. On 2026-07-28 it is
// the SDK's own: `originValidation` / `localhostHostValidation` from @modelcontextprotocol/node for Node-style
// handlers, `originValidationResponse` / `hostHeaderValidationResponse` from @modelcontextprotocol/server for Web
// ones. The v1 SDK has no Origin check, so on 2025-11-25 the file declares `rejectForeignOrigin(req, res)` or
// `foreignOriginResponse(request)` once.
import type { TransformContext } from './context';
import type { AnyNode } from './ast';
import { placeholder } from './emit';
import { afterImports, ensureNamedImport, ensureNamedImports } from './imports';
import { uniqueName } from './markers';
import { GUARD_NAME, GUARD_NAMES, WEB_GUARD_NAME, guardFunction, webGuardFunction, type GuardNames } from './guard-templates';
import type { RequestAccess } from '../../src/frameworks';

export interface GuardContext {
  context: TransformContext;
  v2: boolean;
  /** The server binds loopback: Host is checked too. */
  local: boolean;
  /** Guards declared in this run, so each file declares them once. */
  declared: Map<string, string>;
}

/** The statements that reject a foreign Origin (and Host) before the handler goes on. */
export function guardStatements(guard: GuardContext, access: RequestAccess): string[] {
  if (access.flavor === 'web') {
    const forbidden = uniqueName(guard.context, 'forbidden');
    return [`const ${forbidden} = ${webCheck(guard, access.request)};`, `if (${forbidden}) return ${forbidden};`];
  }
  const rejected = nodeCheck(guard, access.req, access.res);
  if (access.handOver.length === 0) return [`if (${rejected}) return;`];
  return [`if (${rejected}) {`, ...access.handOver.map((l) => `  ${l}`), `  return;`, `}`];
}

/** An expression that is true when the guard answered the request (403). */
function nodeCheck(guard: GuardContext, req: string, res: string): string {
  if (!guard.v2) {
    const name = declare(guard, GUARD_NAME, (name) =>
      guardFunction({
        typescript: guard.context.typescript,
        checkHost: guard.local,
        quote: guard.context.quote,
        types: nodeTypes(guard.context),
        names: freeGuardNames(guard.context, name),
      }),
    );
    return `${name}(${req}, ${res})`;
  }
  const origin = declare(guard, 'mcpOriginGuard', (name) => {
    const originValidation = ensureNamedImport(guard.context, ['@modelcontextprotocol/node'], 'originValidation');
    const localhostAllowedOrigins = ensureNamedImport(guard.context, ['@modelcontextprotocol/server'], 'localhostAllowedOrigins');
    return [
      `// mcp-migrate: Streamable HTTP servers MUST validate Origin (DNS rebinding): localhost origins pass; add the hostnames of your web clients.`,
      `const ${name} = ${originValidation}(${localhostAllowedOrigins}());`,
    ].join('\n');
  });
  if (!guard.local) return `!${origin}(${req}, ${res})`;
  const host = declare(guard, 'mcpHostGuard', (name) => {
    const localhostHostValidation = ensureNamedImport(guard.context, ['@modelcontextprotocol/node'], 'localhostHostValidation');
    return [
      `// mcp-migrate: a local server also checks Host, so a rebound DNS name cannot reach it.`,
      `const ${name} = ${localhostHostValidation}();`,
    ].join('\n');
  });
  return `!${host}(${req}, ${res}) || !${origin}(${req}, ${res})`;
}

/** An expression that is a 403 Response for a foreign Origin (or Host), else undefined. */
function webCheck(guard: GuardContext, request: string): string {
  if (!guard.v2) {
    const name = declare(guard, WEB_GUARD_NAME, (name) =>
      webGuardFunction({ typescript: guard.context.typescript, checkHost: guard.local, quote: guard.context.quote, name }),
    );
    return `${name}(${request})`;
  }
  const server = ['@modelcontextprotocol/server'];
  const origins = declare(guard, 'mcpAllowedOrigins', (name) => {
    const localhostAllowedOrigins = ensureNamedImport(guard.context, server, 'localhostAllowedOrigins');
    return [
      `// mcp-migrate: Streamable HTTP servers MUST validate Origin (DNS rebinding): localhost origins pass; add the hostnames of your web clients.`,
      `const ${name} = ${localhostAllowedOrigins}();`,
    ].join('\n');
  });
  const originCheck = `${ensureNamedImport(guard.context, server, 'originValidationResponse')}(${request}, ${origins})`;
  if (!guard.local) return originCheck;
  const hostnames = declare(guard, 'mcpAllowedHostnames', (name) => {
    const localhostAllowedHostnames = ensureNamedImport(guard.context, server, 'localhostAllowedHostnames');
    return [
      `// mcp-migrate: a local server also checks Host, so a rebound DNS name cannot reach it.`,
      `const ${name} = ${localhostAllowedHostnames}();`,
    ].join('\n');
  });
  return `${ensureNamedImport(guard.context, server, 'hostHeaderValidationResponse')}(${request}, ${hostnames}) ?? ${originCheck}`;
}

/** Declare a module-level guard once (after the imports) and return its name. */
function declare(guard: GuardContext, base: string, code: (name: string) => string): string {
  const known = guard.declared.get(base);
  if (known) return known;
  const { j, root } = guard.context;
  const existing =
    base === GUARD_NAME || base === WEB_GUARD_NAME
      ? writtenBefore(guard.context, base, ORIGIN_CHECK)
      : root.find(j.FunctionDeclaration, { id: { name: base } }).size() > 0 ||
        root.find(j.VariableDeclarator, { id: { name: base } }).size() > 0;
  const name = existing ? base : uniqueName(guard.context, base);
  guard.declared.set(base, name);
  if (existing) return name;
  const text = code(name); // (may add imports: the insertion point comes after)
  const body = root.find(j.Program).get('body').value as AnyNode[];
  body.splice(afterImports(body), 0, placeholder(guard.context, text, 'block'));
  return name;
}

/** What every guard function mcp-migrate writes does: read the request's Origin. */
export const ORIGIN_CHECK = /\borigin\b/i;

/**
 * A function of this name is one a previous run wrote only if its text has the sign of it: the file may use the name
 * for something else (then the caller writes its own under another name).
 */
export function writtenBefore(context: TransformContext, name: string, sign: RegExp): boolean {
  const { j, root } = context;
  return (
    root
      .find(j.FunctionDeclaration, { id: { name } })
      .filter((p) => sign.test(j(p).toSource()))
      .size() > 0
  );
}

/** The Node guard's module-level names (the function's chosen), each under another name where the file binds it. */
export function freeGuardNames(context: TransformContext, guard: string): GuardNames {
  return {
    guard,
    origins: uniqueName(context, GUARD_NAMES.origins),
    hostnames: uniqueName(context, GUARD_NAMES.hostnames),
  };
}

/** The Node types of the v1 guard's parameters, under other local names when the file already binds these. */
function nodeTypes(context: TransformContext): { request: string; response: string } {
  if (!context.typescript) return { request: 'IncomingMessage', response: 'ServerResponse' };
  const [request, response] = ensureNamedImports(context, ['node:http', 'http'], ['IncomingMessage', 'ServerResponse'], { typeOnly: true });
  return { request, response };
}

/** A server this file binds to loopback (when the engine does not know for the project): it also checks Host. */
export function isLocalServer(context: TransformContext): boolean {
  return (
    context.options.localServer ?? /(?:\.listen\([^)]*|\bhost(?:name)?\s*:\s*)['"](?:127\.0\.0\.1|localhost)['"]/.test(context.file.source)
  );
}
