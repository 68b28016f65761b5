// What a Streamable HTTP transport's constructor options say.
import { Node, type NewExpression } from 'ts-morph';

/**
 * `new StreamableHTTPServerTransport()`, `({ … })` without `sessionIdGenerator`, or with it `undefined`: the transport
 * mints no session id. Options that are not an object literal say nothing, so they are not counted.
 */
export function isSessionless(construction: NewExpression): boolean {
  const [options] = construction.getArguments();
  if (!options) return true;
  if (!Node.isObjectLiteralExpression(options)) return false;
  const generator = options.getProperty('sessionIdGenerator');
  if (!generator) return true;
  const value = Node.isPropertyAssignment(generator) ? generator.getInitializer() : undefined;
  return !!value && /^(?:undefined|void 0)$/.test(value.getText().replace(/\s+/g, ' '));
}
