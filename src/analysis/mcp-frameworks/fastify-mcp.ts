// fastify-mcp (haroldadmin): plugins a Fastify app registers. `streamableHttp` serves Streamable HTTP at
// `mcpEndpoint`, with a session per client when `stateful: true` (a `sessions` store then holds the transports), and
// statelessly otherwise: a fresh `createServer()` per POST, GET and DELETE answer 405 (3.0.0 `dist/streamable-http.js`).
// `fastifyMCPSSE` serves the HTTP+SSE transport, with one `server` shared by every connection. Neither checks Origin.
// The plan says which plugin a `register` call mounts, and what the stateless options keep.
import { Node, type CallExpression } from 'ts-morph';
import type { FileFacts } from '../file-facts';
import { positionOf, propertyOf, type Position } from './options';

export interface FastifyMcpPlan {
  /** `sse`: the `fastifyMCPSSE` plugin; `session-stream`: `streamableHttp` with `stateful: true`; `stateless`. */
  form: 'sse' | 'session-stream' | 'stateless';
  /** The options object of the `register` call, when it is a literal. */
  options?: Position;
}

/** The plan for `app.register(plugin, options)` when the plugin is fastify-mcp's. */
export function fastifyMcpPlan(call: CallExpression, facts: FileFacts): FastifyMcpPlan | undefined {
  const callee = call.getExpression();
  if (!Node.isPropertyAccessExpression(callee) || callee.getName() !== 'register') return undefined;
  const [plugin, options] = call.getArguments();
  if (!plugin) return undefined;
  const origin = facts.origin(plugin);
  if (origin?.module !== 'fastify-mcp') return undefined;
  const literal = options && Node.isObjectLiteralExpression(options) ? options : undefined;
  if (origin.name === 'fastifyMCPSSE') return { form: 'sse', ...(literal ? { options: positionOf(literal) } : {}) };
  if (origin.name !== 'streamableHttp') return undefined;
  const stateful = literal ? propertyOf(literal, 'stateful')?.getInitializer()?.getText() : undefined;
  if (stateful === 'false') return { form: 'stateless', options: positionOf(literal!) };
  // (only a literal `stateful: true` is rewritten: a computed one says something the author chose at run time)
  return stateful === 'true' ? { form: 'session-stream', options: positionOf(literal!) } : { form: 'session-stream' };
}
