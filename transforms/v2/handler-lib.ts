// Low-level request handlers after the codemod: `x.setRequestHandler('<method>', handler)` calls (the codemod turned
// the v1 request schema into the method string), the function that actually handles the request inside a wrapper
// (`withTelemetry(async (request) => …)`, `log('tools', monitor(async () => …))`), and the objects it returns.
import type { TransformContext } from '../lib/context';
import { isFunctionNode, type AnyNode } from '../lib/ast';

export interface HandlerRegistration {
  method: string;
  /** The handler argument as written. */
  handler: AnyNode;
  /** The function literal that handles the request: the argument itself, or the innermost one a wrapper call is given. */
  fn?: AnyNode;
}

export function handlerRegistrations(context: TransformContext): HandlerRegistration[] {
  const { j, root } = context;
  const found: HandlerRegistration[] = [];
  root.find(j.CallExpression).forEach((p) => {
    const callee = p.node.callee as unknown as AnyNode;
    const [method, handler] = p.node.arguments as unknown as AnyNode[];
    if (callee.type !== 'MemberExpression' || (callee.property as AnyNode).name !== 'setRequestHandler') return;
    if (!method || !handler || (method.type !== 'StringLiteral' && method.type !== 'Literal') || typeof method.value !== 'string') return;
    found.push({ method: method.value, handler, fn: innermostFunction(handler) });
  });
  return found;
}

/** The function literal itself, or the last function literal among a wrapper call's arguments (depth first). */
function innermostFunction(node: AnyNode): AnyNode | undefined {
  if (isFunctionNode(node)) return node;
  if (node.type !== 'CallExpression') return undefined;
  for (const argument of [...(node.arguments as AnyNode[])].reverse()) {
    const fn = innermostFunction(argument);
    if (fn) return fn;
  }
  return undefined;
}

/** The object literals a function returns: its expression body, or its own `return { … }` statements. */
export function returnedObjects(context: TransformContext, fn: AnyNode): AnyNode[] {
  const { j } = context;
  const body = fn.body as AnyNode;
  if (body.type === 'ObjectExpression') return [body];
  if (body.type !== 'BlockStatement') return [];
  return j(body as never)
    .find(j.ReturnStatement)
    .filter((p) => {
      for (let up = p.parent; up; up = up.parent) {
        if (up.node === (body as unknown)) return true;
        if (isFunctionNode(up.node as AnyNode)) return false;
      }
      return false;
    })
    .nodes()
    .map((r) => r.argument as unknown as AnyNode)
    .filter((argument) => argument?.type === 'ObjectExpression');
}
