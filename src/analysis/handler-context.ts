// The request context of a handler registered with v2's API, and what it reads that v1's context had and v2 keeps
// elsewhere (`extra.sendNotification` is `ctx.mcpReq.notify`): in JavaScript nothing else reports such a read.
import { Node, SyntaxKind, type CallExpression, type ParameterDeclaration } from 'ts-morph';
import { resolveHandler } from './routes';
import { movedContextField } from './v2-context';

/**
 * The request-context parameter of a handler a registration call is given, on v2's API: `registerTool(name, config,
 * cb)` and `registerPrompt` (the second parameter when the config names its `inputSchema` / `argsSchema`, else the
 * first), `registerResource(name, uri | template, metadata, cb)` (after the URI, and the template's variables), and
 * `setRequestHandler(method, cb)`. Undefined when the call's form does not say which parameter it is.
 */
export function handlerContextParameter(call: CallExpression): ParameterDeclaration | undefined {
  const callee = call.getExpression();
  if (!Node.isPropertyAccessExpression(callee)) return undefined;
  const method = callee.getName();
  const args = call.getArguments();
  const handler = resolveHandler(args[args.length - 1]);
  if (!handler || !(Node.isArrowFunction(handler) || Node.isFunctionExpression(handler) || Node.isFunctionDeclaration(handler)))
    return undefined;
  const index = contextIndex(method, args);
  return index === undefined ? undefined : handler.getParameters()[index];
}

function contextIndex(method: string, args: Node[]): number | undefined {
  if (method === 'setRequestHandler' && args.length === 2) return 1;
  if ((method === 'registerTool' || method === 'registerPrompt') && args.length === 3) {
    const config = args[1];
    if (!Node.isObjectLiteralExpression(config) || config.getProperties().some(Node.isSpreadAssignment)) return undefined;
    return config.getProperty(method === 'registerTool' ? 'inputSchema' : 'argsSchema') ? 1 : 0;
  }
  if (method === 'registerResource' && args.length === 4) {
    const uri = args[1];
    if (Node.isStringLiteral(uri) || Node.isNoSubstitutionTemplateLiteral(uri) || Node.isTemplateExpression(uri)) return 1;
    if (Node.isNewExpression(uri) && uri.getExpression().getText() === 'ResourceTemplate') return 2;
  }
  return undefined;
}

/** Reads of v1 context fields v2 keeps elsewhere, on the handler's context parameter: `extra.authInfo`, `{ signal }`. */
export function movedContextReads(parameter: ParameterDeclaration): Array<{ node: Node; field: string }> {
  const name = parameter.getNameNode();
  if (Node.isObjectBindingPattern(name)) {
    return name.getElements().flatMap((element) => {
      const field = element.getPropertyNameNode()?.getText() ?? element.getName();
      return movedContextField(field) ? [{ node: element, field }] : [];
    });
  }
  if (!Node.isIdentifier(name)) return [];
  const fn = parameter.getParent();
  const body = Node.isArrowFunction(fn) || Node.isFunctionExpression(fn) || Node.isFunctionDeclaration(fn) ? fn.getBody() : undefined;
  if (!body) return [];
  return body.getDescendantsOfKind(SyntaxKind.PropertyAccessExpression).flatMap((access) => {
    const target = access.getExpression();
    const field = access.getName();
    // (the parameter itself, not a name that shadows it: `[1, 2].map((extra) => extra.signal)`)
    const isParameter = Node.isIdentifier(target) && target.getText() === name.getText() && target.getSymbol() === name.getSymbol();
    return isParameter && movedContextField(field) ? [{ node: access, field }] : [];
  });
}
