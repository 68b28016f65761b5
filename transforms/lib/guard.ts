// The Origin guard functions a migrated file declares once: Node's `rejectForeignOrigin(req, res)` and the Web
// `foreignOriginResponse(request)`. Host is checked too when the server binds loopback.
import type { TransformContext } from './context';
import type { AnyNode } from './ast';
import { placeholder } from './emit';
import { afterImports, ensureNamedImports } from './imports';
import { GUARD_NAME, WEB_GUARD_NAME, guardFunction, webGuardFunction } from './templates';
import { isLocalServer } from './framework';

export function addGuardFunction(context: TransformContext): void {
  const { j, root } = context;
  if (root.find(j.FunctionDeclaration, { id: { name: GUARD_NAME } }).size() > 0) return;
  const body = root.find(j.Program).get('body').value as AnyNode[];
  // The Node types, under other local names when the file already binds these.
  const [request, response] = context.typescript
    ? ensureNamedImports(context, ['node:http', 'http'], ['IncomingMessage', 'ServerResponse'], { typeOnly: true })
    : ['IncomingMessage', 'ServerResponse'];
  const code = guardFunction({ typescript: context.typescript, checkHost: isLocalServer(context), quote: context.quote, types: { request, response } });
  body.splice(afterImports(body), 0, placeholder(context, code, 'block'));
}

export function addWebGuardFunction(context: TransformContext): void {
  const { j, root } = context;
  if (root.find(j.FunctionDeclaration, { id: { name: WEB_GUARD_NAME } }).size() > 0) return;
  const body = root.find(j.Program).get('body').value as AnyNode[];
  const code = webGuardFunction({ typescript: context.typescript, checkHost: isLocalServer(context), quote: context.quote });
  body.splice(afterImports(body), 0, placeholder(context, code, 'block'));
}
