// express (app, express.Router): handlers take Node's (req, res); express.json() parsed the body into req.body.
import type { FrameworkAdapter } from './adapter';
import { indent, nodeAnswer, parameterList, paramNames } from './code';

export const express: FrameworkAdapter = {
  id: 'express',
  modules: /^(?:express|@modelcontextprotocol\/express|@modelcontextprotocol\/sdk\/server\/express(?:\.js)?)$/,
  typeNames: /^(?:Express|Application|Router|Request|Response|RequestHandler)$/,
  defaultParams: ['req', 'res'],
  access(params) {
    const [req, res] = paramNames(params, this.defaultParams);
    return { flavor: 'node', req, res, body: `${req}.body`, handOver: [] };
  },
  answer(params, answer, style) {
    const [, res] = paramNames(params, this.defaultParams);
    return [nodeAnswer(res, answer, style)];
  },
  route(receiver, method, path, middlewares, params, body) {
    const before = middlewares.map((m) => `${m}, `).join('');
    return [`${receiver}.${method}(${path}, ${before}async (${parameterList(params)}) => {`, ...body.map(indent), `});`];
  },
  appFactory: {
    module: '@modelcontextprotocol/express',
    name: 'createMcpExpressApp',
    replaces: [
      { module: 'express', name: 'default' },
      { module: 'express', name: '*' },
    ],
  },
};
