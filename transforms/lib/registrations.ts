// A server its callers configured (`const { server, start } = createApp(); server.tool(…)`) is built per request by
// a factory inside the function that handed it out: the function takes the callers' registrations as a callback
// (src/analysis/endpoints/returned-server.ts), and each caller passes the statements that configured the server.
import type { ASTPath } from 'jscodeshift';
import type { RegistrationSite, ServerRegistrations } from '../../src/analysis/endpoints/model';
import type { TransformContext } from './context';
import type { AnyNode } from './ast';
import { inlinePlaceholder } from './emit';
import { functionAt, nodeAt, pathAt } from './locate';

/** `createApp(options)` → `createApp(options, register: (server: McpServer) => void)`. */
export function takeRegistrations(context: TransformContext, registrations: ServerRegistrations): void {
  const builder = functionAt(context, registrations.builder)?.node as unknown as AnyNode | undefined;
  const params = builder?.params as AnyNode[] | undefined;
  if (!params) throw new Error(`the function that hands out the server was not found`);
  const typed = context.typescript && registrations.type ? `: (server: ${registrations.type}) => void` : '';
  const fallback = registrations.required ? '' : ' = () => {}';
  params.push(context.j.identifier(inlinePlaceholder(context, `${registrations.parameter}${typed}${fallback}`)) as never);
}

/** `const { server, start } = createApp(o); server.tool(…);` → `const { start } = createApp(o, (server) => { server.tool(…); });` */
export function passRegistrations(context: TransformContext, registrations: ServerRegistrations, site: RegistrationSite): void {
  const { j } = context;
  const call = nodeAt(context, site.call, ['CallExpression']);
  const statements = site.setup.map((span) => pathAt(context, span, ['ExpressionStatement']));
  if (!call || statements.some((s) => !s)) throw new Error(`the registrations at ${site.call.file}:${site.call.line} were not found`);
  for (const reference of site.references) {
    const path = pathAt(context, reference, ['MemberExpression', 'Identifier']);
    if (!path) throw new Error(`the server read at ${reference.file}:${reference.line} was not found`);
    path.replace(j.identifier(site.parameter) as never);
  }
  const moved = statements.map((path) => {
    const list = (path!.parent.node as AnyNode).body as AnyNode[];
    list.splice(list.indexOf(path!.node as unknown as AnyNode), 1);
    return path!.node;
  });
  const args = call.arguments as AnyNode[];
  while (args.length < registrations.index) args.push(j.identifier('undefined') as never);
  const parameter = j.identifier(inlinePlaceholder(context, `(${site.parameter})`));
  args.push(j.arrowFunctionExpression([parameter], j.blockStatement(moved as never)) as never);
  if (site.binding) removeBinding(context, pathAt(context, site.binding, ['ObjectProperty', 'Property']));
}

/** `{ server, start }` → `{ start }`, the other bindings as written. */
function removeBinding(context: TransformContext, path: ASTPath | undefined): void {
  const pattern = path?.parent;
  const properties = (pattern?.node as AnyNode | undefined)?.properties as AnyNode[] | undefined;
  if (!path || !pattern || !properties) throw new Error('the binding of the server was not found');
  const kept = properties.filter((p) => p !== (path.node as unknown as AnyNode)).map((p) => context.j(p as never).toSource());
  pattern.replace(context.j.identifier(inlinePlaceholder(context, `{ ${kept.join(', ')} }`)) as never);
}
