// mcp-framework (QuantGeekDev): `new MCPServer({ transport: { type, options } })` decides the transport and
// `server.start()` serves it. `sse` is the deprecated HTTP+SSE transport; `http-stream` keeps a session per client in
// every release (0.2.22 `dist/transports/http/server.js` mints an id on each initialize and reads no `session`
// option). The stateless way the package offers is `MCPServer.handleRequest(request)`: "a fresh transport and SDK
// server per request" (0.2.22 `dist/core/MCPServer.d.ts`). The plan says what the listener that replaces `start()`
// serves.
import { Node, type NewExpression, type ObjectLiteralExpression } from 'ts-morph';
import type { FileFacts } from '../file-facts';
import { LOOPBACK } from '../binds';
import { literalOf, objectOf, positionOf, propertyOf, type Position } from './options';
import { referencesOf } from '../references';

export interface McpFrameworkPlan {
  /** `sse`: HTTP+SSE; `session-stream`: the `http-stream` transport (sessions). */
  form: 'sse' | 'session-stream';
  /** The `MCPServer` class as this file names it (the listener's parameter type). */
  serverClass: string;
  /** The server's configuration object (`{ name, transport }`), where the `transport` property is removed. */
  config: Position;
  /** The `start()` call the listener replaces. */
  start: Position;
  /** Port as written in the transport options (code), or the framework's default 8080. */
  port: string;
  /** Host as written (code); absent: the framework's default, 127.0.0.1. */
  host?: string;
  /** The Streamable HTTP endpoint path (`http-stream` options' `endpoint`, else `/mcp`). */
  endpoint: string;
  /** The old HTTP+SSE paths (`endpoint`, `messageEndpoint` of the `sse` options or their defaults): they answer 410. */
  gone: string[];
  /** The transport's `auth` as written: it moves to the server's own `auth`, which `handleRequest` reads. */
  auth?: string;
  /** The host is loopback: the guard also checks Host. */
  local: boolean;
}

const DEFAULT_PORT = '8080';
const DEFAULT_ENDPOINT = '/mcp';

/** The plan for `new MCPServer({ transport: { type: 'sse' | 'http-stream' } })` started in this file. */
export function mcpFrameworkPlan(construction: NewExpression, facts: FileFacts): McpFrameworkPlan | undefined {
  if (!facts.is(construction.getExpression(), 'MCPServerFramework')) return undefined;
  const [config] = construction.getArguments();
  if (!config || !Node.isObjectLiteralExpression(config)) return undefined;
  const transport = objectOf(config, 'transport');
  const type = transport ? literalOf(transport, 'type') : undefined;
  if (!transport || (type !== 'sse' && type !== 'http-stream')) return undefined;
  const options = objectOf(transport, 'options');
  const start = startCall(construction);
  if (!start) return undefined;
  const written = (key: string) => (options ? valueText(options, key) : undefined);
  const host = options ? literalOf(options, 'host') : undefined;
  const gone =
    type === 'sse'
      ? [(options && literalOf(options, 'endpoint')) || '/sse', (options && literalOf(options, 'messageEndpoint')) || '/messages']
      : [];
  const auth = propertyOf(transport, 'auth') ?? (options ? propertyOf(options, 'auth') : undefined);
  return {
    form: type === 'sse' ? 'sse' : 'session-stream',
    serverClass: construction.getExpression().getText(),
    config: positionOf(config),
    start: positionOf(start),
    port: written('port') ?? DEFAULT_PORT,
    host: written('host'),
    endpoint: (type === 'http-stream' && options && literalOf(options, 'endpoint')) || DEFAULT_ENDPOINT,
    gone,
    auth: auth?.getInitializer()?.getText(),
    local: host === undefined ? written('host') === undefined : LOOPBACK.has(host),
  };
}

/** The value of `key` as code: `key: value`, or the name of a shorthand `key`. */
function valueText(object: ObjectLiteralExpression, key: string): string | undefined {
  const property = object.getProperty(key);
  if (property && Node.isShorthandPropertyAssignment(property)) return property.getName();
  return propertyOf(object, key)?.getInitializer()?.getText();
}

/** `server.start()` on the variable the construction initialises, in the same file. */
function startCall(construction: NewExpression): Node | undefined {
  const declaration = construction.getParent();
  if (!declaration || !Node.isVariableDeclaration(declaration)) return undefined;
  return referencesOf(declaration)
    .filter((ref) => ref.getSourceFile() === construction.getSourceFile())
    .map((ref) => ref.getParent())
    .find((access) => Node.isPropertyAccessExpression(access) && access.getName() === 'start' && Node.isCallExpression(access.getParent()))
    ?.getParent();
}
