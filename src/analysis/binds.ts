// Where a server listens: `app.listen(port[, host])`, `fastify.listen({ port, host })`, `serve({ fetch, hostname })`
// (@hono/node-server, Deno) and `Bun.serve({ fetch, hostname })`. The host is the static string when there is one.
import { Node, SyntaxKind, type CallExpression, type SourceFile } from 'ts-morph';
import { nodesOfKind } from './node-index';
import { staticString } from './routes';

export const ALL_INTERFACES = new Set(['0.0.0.0', '::', '[::]', '']);
export const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

export interface BindSite {
  call: CallExpression;
  /** What is called, for messages: `listen`, `serve`, `Bun.serve`. */
  callee: string;
  /** undefined: no host given (all interfaces); null: a host we cannot read statically. */
  host: string | null | undefined;
}

export function bindSites(sourceFile: SourceFile): BindSite[] {
  const sites: BindSite[] = [];
  for (const call of nodesOfKind(sourceFile, SyntaxKind.CallExpression)) {
    const callee = call.getExpression();
    const args = call.getArguments();
    if (Node.isPropertyAccessExpression(callee) && callee.getName() === 'listen') {
      const [first, second] = args;
      if (!first) continue;
      if (Node.isObjectLiteralExpression(first)) {
        // fastify.listen({ port, host })
        if (!first.getProperty('port')) continue;
        sites.push({ call, callee: 'listen', host: propertyHost(first.getProperty('host')) });
        continue;
      }
      if (!looksLikePort(first)) continue;
      sites.push({ call, callee: 'listen', host: !second || isFunction(second) ? undefined : (staticString(second) ?? null) });
    } else if (['Bun.serve', 'Deno.serve', 'serve'].includes(callee.getText())) {
      const [options] = args;
      if (!options || !Node.isObjectLiteralExpression(options) || !options.getProperty('fetch')) continue;
      sites.push({ call, callee: callee.getText(), host: propertyHost(options.getProperty('hostname')) });
    }
  }
  return sites;
}

function propertyHost(property: Node | undefined): string | null | undefined {
  if (!property) return undefined;
  return Node.isPropertyAssignment(property) ? (staticString(property.getInitializer()) ?? null) : null;
}

function isFunction(node: Node): boolean {
  return Node.isArrowFunction(node) || Node.isFunctionExpression(node);
}

function looksLikePort(node: Node): boolean {
  if (Node.isNumericLiteral(node)) return true;
  // A constant string is a port only when it is numeric: '/run/app.sock' and 'tools-changed' are not.
  const value = staticString(node);
  if (value !== undefined) return /^\d+$/.test(value);
  const text = node.getText();
  return /port/i.test(text) || Node.isIdentifier(node) || /^Number\(|^parseInt\(/.test(text);
}
