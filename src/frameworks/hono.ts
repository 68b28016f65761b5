// hono: handlers take a Context `c`; the Web Request is `c.req.raw` and a handler returns a Response.
import type { FrameworkAdapter } from './adapter';
import { indent, jsonRpcError, parameterList, paramNames, quoted } from './code';

export const hono: FrameworkAdapter = {
  id: 'hono',
  modules: /^(?:hono|hono\/.*|@modelcontextprotocol\/hono)$/,
  typeNames: /^(?:Hono|Context)$/,
  // (@hono/mcp 0.2: `new StreamableHTTPTransport(options?)`, `handleRequest(c)` returns the Response)
  transports: [{ module: '@hono/mcp', name: 'StreamableHTTPTransport' }],
  readsLike(fn, params) {
    const [c] = params;
    if (!c || params.length > 2) return false;
    const body = fn.getBody()?.getText() ?? '';
    const uses = (member: string) => new RegExp(`\\b${c.replace(/\$/g, '\\$')}\\.${member}`).test(body);
    return uses('req\\.(?:raw|json|header|param|query|text)\\b') || uses('(?:json|text|body|html)\\(');
  },
  defaultParams: ['c'],
  access(params) {
    const [c] = paramNames(params, this.defaultParams);
    return { flavor: 'web', request: `${c}.req.raw` };
  },
  answer(params, answer, style) {
    const [c] = paramNames(params, this.defaultParams);
    const headers = answer.allowPost ? `, { Allow: ${quoted(style.quote, 'POST')} }` : '';
    return [`return ${c}.json(${jsonRpcError(answer.code, answer.message, style.quote)}, ${answer.status}${headers});`];
  },
  route(receiver, method, path, middlewares, params, body) {
    const before = middlewares.map((m) => `${m}, `).join('');
    return [`${receiver}.${method}(${path}, ${before}async (${parameterList(params)}) => {`, ...body.map(indent), `});`];
  },
  appFactory: {
    module: '@modelcontextprotocol/hono',
    name: 'createMcpHonoApp',
    replaces: [{ module: 'hono', name: 'Hono' }],
  },
};
