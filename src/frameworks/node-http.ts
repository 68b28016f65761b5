// node:http (and https): a request listener `(req, res)` routes by hand; the transport reads the body stream itself.
import type { FrameworkAdapter } from './adapter';
import { nodeAnswer, paramNames } from './code';

export const nodeHttp: FrameworkAdapter = {
  id: 'node-http',
  modules: /^(?:node:)?https?$/,
  typeNames: /^(?:IncomingMessage|ServerResponse)$/,
  defaultParams: ['req', 'res'],
  access(params) {
    const [req, res] = paramNames(params, this.defaultParams);
    return { flavor: 'node', req, res, handOver: [] };
  },
  answer(params, answer, style) {
    const [, res] = paramNames(params, this.defaultParams);
    return [nodeAnswer(res, answer, style)];
  },
};
