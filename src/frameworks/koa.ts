// koa (@koa/router, koa-router): handlers take a Context; `ctx.respond = false` hands `ctx.res` to the transport.
// Answers assign `ctx.status` and `ctx.body`. There is no createMcpKoaApp: koa keeps its app and the Origin guard.
import type { FrameworkAdapter } from './adapter';
import { indent, jsonRpcError, parameterList, paramNames, quoted } from './code';

export const koa: FrameworkAdapter = {
  id: 'koa',
  modules: /^(?:koa|@koa\/router|koa-router)$/,
  readsLike(fn, params) {
    const [ctx, next] = params;
    if (!ctx || (params.length > 1 && next !== 'next')) return false;
    const body = fn.getBody()?.getText() ?? '';
    const uses = (member: string) => new RegExp(`\\b${ctx.replace(/\$/g, '\\$')}\\.${member}`).test(body);
    return uses('(?:respond|body|status)\\s*=[^=]') || uses('request\\b') || (uses('req\\b(?!\\.)') && uses('res\\b'));
  },
  defaultParams: ['ctx'],
  access(params) {
    const [ctx] = paramNames(params, this.defaultParams);
    return { flavor: 'node', req: `${ctx}.req`, res: `${ctx}.res`, handOver: [`${ctx}.respond = false;`] };
  },
  answer(params, answer, style) {
    const [ctx] = paramNames(params, this.defaultParams);
    const s = (t: string) => quoted(style.quote, t);
    return [
      `${ctx}.status = ${answer.status};`,
      ...(answer.allowPost ? [`${ctx}.set(${s('Allow')}, ${s('POST')});`] : []),
      `${ctx}.body = ${jsonRpcError(answer.code, answer.message, style.quote)};`,
    ];
  },
  route(receiver, method, path, middlewares, params, body) {
    const before = middlewares.map((m) => `${m}, `).join('');
    return [`${receiver}.${method}(${path}, ${before}async (${parameterList(params)}) => {`, ...body.map(indent), `});`];
  },
};
