// One Streamable HTTP transport made once and handed every request: `const transport = new
// StreamableHTTPServerTransport(…)` at module level (or in a start-up function), connected to the server once, and a
// request listener that calls `transport.handleRequest(req, res)` (or is `transport.handleRequest.bind(transport)`).
// A stateless transport serves one request: since SDK 1.26 it throws "Stateless transport cannot be reused across
// requests" on the second, so every request after the first fails. A stateful one serves one client: its first
// `initialize` opens the only session, and every other client's is refused ("Server already initialized").
import { Node, type NewExpression } from 'ts-morph';
import type { FileFacts } from './file-facts';
import { otherReferencesOf } from './references';
import { requestFunctionOf } from './endpoints/regions';
import { contains } from './endpoints/spans';
import { isSessionless } from './transport-options';

export interface SharedTransport {
  construction: NewExpression;
  /** The variable that holds it. */
  name: string;
  /** No `sessionIdGenerator` (or `undefined`): a single-use transport. */
  stateless: boolean;
  /** Where a request handler uses it (`transport.handleRequest`), first one first. */
  uses: Node[];
}

export function sharedTransportsOf(facts: FileFacts): SharedTransport[] {
  const shared: SharedTransport[] = [];
  for (const construction of facts.constructions('StreamableHTTPServerTransport')) {
    const declaration = construction.getParent();
    if (!Node.isVariableDeclaration(declaration) || declaration.getInitializer() !== construction) continue;
    const nameNode = declaration.getNameNode();
    if (!Node.isIdentifier(nameNode)) continue;
    const uses = otherReferencesOf(nameNode).filter((reference) => servesRequests(reference, construction));
    if (uses.length === 0) continue;
    shared.push({ construction, name: nameNode.getText(), stateless: isSessionless(construction), uses });
  }
  return shared;
}

/**
 * `transport.handleRequest(req, …)` in a function that receives the request but did not make the transport (it was
 * made before, outside it), or `transport.handleRequest` handed on as a value
 * (`createServer(transport.handleRequest.bind(transport))`): either way the one transport gets every request.
 */
function servesRequests(reference: Node, construction: Node): boolean {
  const access = reference.getParent();
  if (!Node.isPropertyAccessExpression(access) || access.getExpression() !== reference || access.getName() !== 'handleRequest')
    return false;
  const call = access.getParent();
  if (!Node.isCallExpression(call) || call.getExpression() !== access) return true;
  const [request] = call.getArguments();
  const handler = request ? requestFunctionOf(request) : undefined;
  return !!handler && !contains(handler, construction);
}
