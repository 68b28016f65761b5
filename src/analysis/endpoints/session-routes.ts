// Session routes: a DELETE route on the endpoint's own path that touches no transport but ends the protocol session
// the `Mcp-Session-Id` header names (an app-level session store: `app.delete('/mcp', (c) => { store.terminate(id) })`).
// Without sessions there is nothing to end, so it belongs to the endpoint and answers 405 with it.
import { Node } from 'ts-morph';
import { routeCalls, staticString } from '../routes';
import { regionAround, type RegionNode } from './regions';
import { isFunctionNode, sameReceiver } from './spans';

/** The session routes beside the endpoint route `endpoint` (the same receiver, same path), not already in `regions`. */
export function sessionRoutesBeside(endpoint: RegionNode, regions: RegionNode[]): RegionNode[] {
  const route = endpoint.arrivals.find((a) => a.kind === 'route');
  if (!route || route.kind !== 'route' || !route.path) return [];
  const pathOf = (node: Node) => staticString(node) ?? node.getText();
  const path = pathOf(route.path);
  const taken = new Set(regions.map((r) => r.fn));
  const found: RegionNode[] = [];
  for (const call of routeCalls(route.call.getSourceFile())) {
    if (!sameReceiver(call.receiver, route.receiver) || !call.path || pathOf(call.path) !== path) continue;
    if (call.methods === 'any' || call.methods.size !== 1 || !call.methods.has('DELETE')) continue;
    const fn = call.handler;
    if (!isFunctionNode(fn) || taken.has(fn) || !endsSession(fn)) continue;
    const body = fn.getBody();
    const region = body && Node.isBlock(body) ? regionAround(body, fn) : undefined;
    if (region?.kind === 'function') found.push(region);
  }
  return found;
}

/** The handler reads the session id the client sends (`c.req.header('mcp-session-id')`). */
function endsSession(fn: Node): boolean {
  return /(['"`])mcp-session-id\1/i.test(fn.getText());
}
