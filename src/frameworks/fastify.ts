// fastify: handlers take (request, reply); Node's objects are `request.raw` / `reply.raw`, and `reply.hijack()` tells
// fastify that the transport writes the response itself. Answers go through `reply.code().send()`.
import { Node, SyntaxKind } from 'ts-morph';
import type { FrameworkAdapter } from './adapter';
import { indent, jsonRpcError, parameterList, paramNames, quoted } from './code';
import { likelyString } from '../analysis/routes';
import { nodesOfKind } from '../analysis/node-index';
import { declarationOf } from '../analysis/endpoints/spans';

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
  mountPrefix(receiver) {
    const plugin = pluginOf(receiver);
    if (!plugin) return undefined;
    for (const file of receiver.getProject().getSourceFiles())
      for (const call of nodesOfKind(file, SyntaxKind.CallExpression)) {
        const callee = call.getExpression();
        const [registered, options] = call.getArguments();
        if (!Node.isPropertyAccessExpression(callee) || callee.getName() !== 'register' || !registered) continue;
        if (registered !== plugin.fn && !(plugin.declaration && declarationOf(registered) === plugin.declaration)) continue;
        const prefix = Node.isObjectLiteralExpression(options) ? options.getProperty('prefix') : undefined;
        const value = Node.isPropertyAssignment(prefix) ? likelyString(prefix.getInitializerOrThrow()) : undefined;
        if (value && value !== '/') return value.replace(/\/$/, '');
      }
    return undefined;
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

/** The plugin function whose first parameter `receiver` is (`async function routes(app) {…}`), and its declaration. */
function pluginOf(receiver: Node): { fn: Node; declaration?: Node } | undefined {
  const parameter = receiver.getSymbol()?.getDeclarations()[0];
  const fn = parameter?.getParent();
  if (!Node.isParameterDeclaration(parameter) || !fn || !('getParameters' in fn)) return undefined;
  if ((fn as Node & { getParameters(): Node[] }).getParameters()[0] !== parameter) return undefined;
  if (Node.isFunctionDeclaration(fn)) return { fn, declaration: fn };
  const holder = fn.getParent();
  return { fn, declaration: Node.isVariableDeclaration(holder) ? holder : undefined };
}
