// fastmcp (punkpeye): a `FastMCP` server's `start(…)` call decides its transport. 1.x served HTTP+SSE with
// `transportType: 'sse'`; 2.x and later serve `httpStream`, with a session per client unless `httpStream.stateless`
// is true (fastmcp 4.20 `dist/FastMCP.d.ts`). The plan says what the call serves and what the stateless call keeps.
import { Node, SyntaxKind, type CallExpression } from 'ts-morph';
import type { FileFacts } from '../file-facts';
import { LOOPBACK } from '../binds';
import { literalOf, objectOf, positionOf, propertyOf, type Position } from './options';

export interface FastmcpStartPlan {
  /** `sse`: the 1.x HTTP+SSE transport; `session-stream`: `httpStream` without `stateless: true`. */
  form: 'sse' | 'session-stream';
  /**
   * The `httpStream` options the stateless call keeps, each property as written (`port: port`, `host: "0.0.0.0"`,
   * `cors: true`), without `stateless`; from the `sse` options for the 1.x form (its `endpoint` named the SSE path).
   */
  httpStream: string[];
  /**
   * Where fastmcp's HTTP server still serves HTTP+SSE after the change: mcp-proxy's default `/sse` (fastmcp passes no
   * `sseEndpoint`), whatever the 1.x `sse.endpoint` was. The guard closes it.
   */
  ssePath: string;
  /** The Streamable HTTP endpoint (`/mcp` unless `httpStream.endpoint` names another), for messages. */
  endpoint: string;
  /** The host is a loopback literal: the guard also checks Host. */
  local: boolean;
  /** The server's construction in this file (`new FastMCP({…})`), and how it authenticates requests today. */
  server?: Position & { authenticate: 'none' | 'property' | 'other' };
}

const MCP_PROXY_SSE_PATH = '/sse';
const DEFAULT_ENDPOINT = '/mcp';

/** The plan for `server.start({…})` when `server` is a FastMCP server that serves HTTP with sessions or SSE. */
export function fastmcpStartPlan(call: CallExpression, facts: FileFacts): FastmcpStartPlan | undefined {
  const callee = call.getExpression();
  const [options] = call.getArguments();
  if (!Node.isPropertyAccessExpression(callee) || callee.getName() !== 'start') return undefined;
  if (!options || !Node.isObjectLiteralExpression(options)) return undefined;
  const transportType = literalOf(options, 'transportType');
  if (transportType !== 'sse' && transportType !== 'httpStream') return undefined;
  if (transportType === 'httpStream' && !facts.holds(callee.getExpression(), 'FastMCP')) return undefined;
  if (transportType === 'sse' && !facts.holds(callee.getExpression(), 'FastMCP') && !facts.importsMcp) return undefined;
  const nested = objectOf(options, transportType);
  if (transportType === 'httpStream' && nested && propertyOf(nested, 'stateless')?.getInitializer()?.getText() === 'true') return undefined;
  const kept = nested
    ? nested.getProperties().filter((p) => !(transportType === 'sse' && nameOf(p) === 'endpoint') && nameOf(p) !== 'stateless')
    : [];
  const host = nested ? literalOf(nested, 'host') : undefined;
  return {
    form: transportType === 'sse' ? 'sse' : 'session-stream',
    httpStream: kept.map((p) => p.getText()),
    ssePath: MCP_PROXY_SSE_PATH,
    endpoint: (transportType === 'httpStream' && nested && literalOf(nested, 'endpoint')) || DEFAULT_ENDPOINT,
    local: host !== undefined && LOOPBACK.has(host),
    server: serverConstruction(callee.getExpression(), facts),
  };
}

/** `new FastMCP({…})` that the receiver was initialised with, in this file. */
function serverConstruction(receiver: Node, facts: FileFacts): FastmcpStartPlan['server'] {
  if (!Node.isIdentifier(receiver)) return undefined;
  const declaration = receiver.getSymbol()?.getDeclarations()[0];
  const init = declaration && Node.isVariableDeclaration(declaration) ? declaration.getInitializer() : undefined;
  if (!init || !Node.isNewExpression(init) || !facts.is(init.getExpression(), 'FastMCP')) return undefined;
  if (init.getSourceFile() !== facts.sourceFile) return undefined;
  const [config] = init.getArguments();
  if (!config || !Node.isObjectLiteralExpression(config)) return undefined;
  // (an `oauth` option configures fastmcp's own `authenticate`, which one written here would replace)
  const authenticate = config.getProperty('authenticate');
  const opaque = !!config.getProperty('oauth') || config.getProperties().some((p) => p.getKind() === SyntaxKind.SpreadAssignment);
  return {
    ...positionOf(config),
    authenticate: opaque || (authenticate && !Node.isPropertyAssignment(authenticate)) ? 'other' : authenticate ? 'property' : 'none',
  };
}

function nameOf(property: Node): string | undefined {
  return Node.isPropertyAssignment(property) || Node.isShorthandPropertyAssignment(property) ? property.getName() : undefined;
}
