// Which HTTP framework serves a route: the code we write differs per framework. express and node:http take
// (req, res); fastify hands Node's objects over as `request.raw` / `reply.raw`; hono passes a Context whose
// `c.req.raw` is a Web Request and expects a Response back; koa hands over `ctx.req` / `ctx.res` once
// `ctx.respond = false`.
import type { JSCodeshift } from 'jscodeshift';
import { isFunctionNode, rootIdentifier, type AnyNode } from './ast';
import { functionsByName, sourceOf } from './routes';
import type { TransformContext } from './context';

export type HttpFramework = 'express' | 'fastify' | 'hono' | 'koa' | 'unknown';

const MODULE_FRAMEWORKS: Array<[RegExp, HttpFramework]> = [
  [/^(?:express|@modelcontextprotocol\/express|@modelcontextprotocol\/sdk\/server\/express(?:\.js)?)$/, 'express'],
  [/^(?:fastify|@modelcontextprotocol\/fastify)$/, 'fastify'],
  [/^(?:hono|hono\/.*|@modelcontextprotocol\/hono)$/, 'hono'],
  [/^(?:koa|@koa\/router|koa-router)$/, 'koa'],
];

const TYPE_FRAMEWORKS: Array<[RegExp, HttpFramework]> = [
  [/^(?:Express|Application|Router|Request|Response)$/, 'express'],
  [/^Fastify(?:Instance|Request|Reply)$/, 'fastify'],
  [/^(?:Hono|Context)$/, 'hono'],
];

/** The framework of a route registration: from how its receiver was made, else from the handler's shape. */
export function routeFramework(context: TransformContext, receiver: AnyNode, handler: AnyNode | undefined): HttpFramework {
  const name = rootIdentifier(receiver);
  const resolved = handler?.type === 'Identifier' ? functionsByName(context).get(handler.name as string) : handler;
  return (name && receiverFramework(context, name)) || handlerFramework(context, resolved);
}

/** `const app = new Hono()`, `const fastify = Fastify()`, `const app = express()` or a typed parameter. */
function receiverFramework(context: TransformContext, name: string): HttpFramework | undefined {
  const { j, root } = context;
  const declarator = root.find(j.VariableDeclarator, { id: { name } }).nodes()[0] as unknown as AnyNode | undefined;
  let init = declarator?.init as AnyNode | undefined;
  if (init?.type === 'AwaitExpression') init = init.argument as AnyNode;
  if (init && (init.type === 'CallExpression' || init.type === 'NewExpression')) {
    const callee = rootIdentifier(init.callee as AnyNode);
    const origin = callee ? importSource(context, callee) : undefined;
    const framework = origin ? MODULE_FRAMEWORKS.find(([pattern]) => pattern.test(origin))?.[1] : undefined;
    if (framework) return framework;
  }
  const typeName =
    parameterTypeName(context, name) ?? typeNameOf((declarator?.id as AnyNode | undefined)?.typeAnnotation as AnyNode | undefined);
  return typeName ? typeFramework(context, typeName) : undefined;
}

/** A type's framework: from the module it is imported from (`Context` is hono's or koa's), else from its name. */
function typeFramework(context: TransformContext, typeName: string): HttpFramework | undefined {
  const segments = typeName.split('.');
  const origin = importSource(context, segments[0]);
  const byModule = origin ? MODULE_FRAMEWORKS.find(([pattern]) => pattern.test(origin))?.[1] : undefined;
  return byModule ?? TYPE_FRAMEWORKS.find(([pattern]) => pattern.test(segments.at(-1)!))?.[1];
}

/** The module a local name is imported or required from. */
export function importSource(context: TransformContext, local: string): string | undefined {
  return importOrigin(context, local)?.module;
}

/** Where a local name comes from: module and exported name (`default`, `*` for a namespace or whole `require`). */
export function importOrigin(context: TransformContext, local: string): { module: string; name: string } | undefined {
  const { j, root } = context;
  for (const declaration of root.find(j.ImportDeclaration).nodes() as unknown as AnyNode[]) {
    const specifier = ((declaration.specifiers as AnyNode[]) ?? []).find((s) => (s.local as AnyNode | undefined)?.name === local);
    if (!specifier) continue;
    const name =
      specifier.type === 'ImportDefaultSpecifier'
        ? 'default'
        : specifier.type === 'ImportNamespaceSpecifier'
          ? '*'
          : ((specifier.imported as AnyNode).name as string);
    return { module: (declaration.source as AnyNode).value as string, name };
  }
  for (const declarator of root.find(j.VariableDeclarator).nodes() as unknown as AnyNode[]) {
    const init = declarator.init as AnyNode | null;
    if (!init || init.type !== 'CallExpression' || (init.callee as AnyNode).name !== 'require') continue;
    const source = (init.arguments as AnyNode[])[0];
    if (!source || typeof source.value !== 'string') continue;
    const id = declarator.id as AnyNode;
    if (id.type === 'Identifier' && id.name === local) return { module: source.value, name: '*' };
    const property =
      id.type === 'ObjectPattern'
        ? ((id.properties as AnyNode[]) ?? []).find(
            (p) => ((p.value as AnyNode | undefined)?.name ?? (p.key as AnyNode | undefined)?.name) === local,
          )
        : undefined;
    if (property) return { module: source.value, name: (property.key as AnyNode).name as string };
  }
  return undefined;
}

function parameterTypeName(context: TransformContext, name: string): string | undefined {
  const { j, root } = context;
  for (const param of root.find(j.Identifier, { name }).nodes() as unknown as AnyNode[]) {
    const type = typeNameOf(param.typeAnnotation as AnyNode | undefined);
    if (type) return type;
  }
  return undefined;
}

function typeNameOf(annotation: AnyNode | undefined): string | undefined {
  const type = annotation?.typeAnnotation as AnyNode | undefined;
  if (type?.type !== 'TSTypeReference') return undefined;
  const typeName = type.typeName as AnyNode;
  if (typeName.type === 'Identifier') return typeName.name as string;
  // `Koa.Context`: the qualified name as written.
  const parts: string[] = [];
  for (let part: AnyNode | undefined = typeName; part; part = part.left as AnyNode | undefined) {
    parts.unshift(((part.type === 'Identifier' ? part : part.right) as AnyNode | undefined)?.name as string);
    if (part.type === 'Identifier') break;
  }
  return parts.join('.');
}

/** No receiver evidence: read the handler. `(c) => … c.req.raw` is hono, `(request, reply) => … reply.raw` fastify. */
function handlerFramework(context: TransformContext, handler: AnyNode | undefined): HttpFramework {
  const { j } = context;
  // A handler we cannot see: express-style (req, res) is by far the most common, and what we assumed before.
  if (!handler || !isFunctionNode(handler)) return 'express';
  const params = ((handler.params as AnyNode[]) ?? []).filter((p) => p.type === 'Identifier').map((p) => p.name as string);
  for (const param of (handler.params as AnyNode[]) ?? []) {
    const typeName = typeNameOf(param.typeAnnotation as AnyNode | undefined);
    const framework = typeName ? typeFramework(context, typeName) : undefined;
    if (framework) return framework;
  }
  const body = sourceOf(j, handler.body as AnyNode);
  const uses = (param: string | undefined, member: string) =>
    !!param && new RegExp(`\\b${param.replace(/\$/g, '\\$')}\\.${member}`).test(body);
  const [first, second] = params;
  // koa assigns (`ctx.body =`, `ctx.status =`, `ctx.respond = false`) and reads `ctx.request`; hono calls (`c.json()`,
  // `c.body()`) and reads the Web request through `c.req.raw`, `c.req.json()`, `c.req.header()`.
  if (
    (params.length === 1 || second === 'next') &&
    (uses(first, '(?:respond|body|status)\\s*=[^=]') ||
      uses(first, 'request\\b') ||
      (uses(first, 'req\\b(?!\\.)') && uses(first, 'res\\b')))
  )
    return 'koa';
  if (
    params.length === 1 &&
    (uses(first, 'req\\.(?:raw|json|header|param|query|text)\\b') || uses(first, '(?:json|text|body|html|get)\\('))
  )
    return 'hono';
  if (uses(first, 'raw\\b') || uses(second, 'raw\\b') || uses(second, 'hijack\\(') || uses(second, 'code\\(')) return 'fastify';
  return params.length >= 2 ? 'express' : 'unknown';
}

/** A server this file binds to loopback: it can also require a localhost Host header. */
export function isLocalServer(context: TransformContext): boolean {
  return (
    context.options.localServer ?? /(?:\.listen\([^)]*|\bhost(?:name)?\s*:\s*)['"](?:127\.0\.0\.1|localhost)['"]/.test(context.file.source)
  );
}
