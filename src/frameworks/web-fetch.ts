// Web fetch handlers (Workers, Bun, Deno, Next.js route handlers): a Request in, a Response back.
import type { FrameworkAdapter } from './adapter';
import { paramNames, webResponse } from './code';

export const webFetch: FrameworkAdapter = {
  id: 'web-fetch',
  modules: /^$/,
  typeNames: /^(?:Request|NextRequest)$/,
  defaultParams: ['request'],
  access(params) {
    const [request] = paramNames(params, this.defaultParams);
    return { flavor: 'web', request };
  },
  answer(_params, answer, style) {
    return [`return ${webResponse(answer, style)};`];
  },
};
