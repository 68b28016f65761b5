// fastify: handlers take (request, reply); Node's objects are `request.raw` / `reply.raw`, and `reply.hijack()` tells
// fastify that the transport writes the response itself. Answers go through `reply.code().send()`.
import type { FrameworkAdapter } from './adapter';
import { indent, jsonRpcError, parameterList, paramNames, quoted } from './code';

export const fastify: FrameworkAdapter = {
  id: 'fastify',
  modules: /^(?:fastify|@modelcontextprotocol\/fastify)$/,
  typeNames: /^Fastify(?:Instance|Request|Reply)$/,
  readsLike(fn, params) {
    const [request, reply] = params;
    const body = fn.getBody()?.getText() ?? '';
    const uses = (name: string | undefined, member: string) =>
      !!name && new RegExp(`\\b${name.replace(/\$/g, '\\$')}\\.${member}`).test(body);
    return uses(request, 'raw\\b') || uses(reply, 'raw\\b') || uses(reply, 'hijack\\(') || uses(reply, 'code\\(');
  },
  defaultParams: ['request', 'reply'],
  access(params) {
    const [request, reply] = paramNames(params, this.defaultParams);
    return { flavor: 'node', req: `${request}.raw`, res: `${reply}.raw`, body: `${request}.body`, handOver: [`${reply}.hijack();`] };
  },
  answer(params, answer, style) {
    const [, reply] = paramNames(params, this.defaultParams);
    const allow = answer.allowPost ? `.header(${quoted(style.quote, 'Allow')}, ${quoted(style.quote, 'POST')})` : '';
    return [`return ${reply}.code(${answer.status})${allow}.send(${jsonRpcError(answer.code, answer.message, style.quote)});`];
  },
  route(receiver, method, path, middlewares, params, body) {
    const before = middlewares.map((m) => `${m}, `).join('');
    return [`${receiver}.${method}(${path}, ${before}async (${parameterList(params)}) => {`, ...body.map(indent), `});`];
  },
  appFactory: {
    module: '@modelcontextprotocol/fastify',
    name: 'createMcpFastifyApp',
    replaces: [
      { module: 'fastify', name: 'default' },
      { module: 'fastify', name: '*' },
      { module: 'fastify', name: 'fastify' },
    ],
  },
};
