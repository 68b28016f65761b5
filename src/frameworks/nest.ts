// NestJS (express platform): routes are decorators. `@Controller('prefix')` on a class, `@Get('sse')`, `@Post(…)`,
// `@All(…)` on its methods; a handler that takes the response with `@Res()` writes it itself (Nest then sends
// nothing), and Nest's JSON body parser has read the body (`@Body()`). A new endpoint is a method of the same
// controller, in Nest's idiom: `@Post(path) async mcp(@Res() res, @Body() body) { … }`.
import {
  Node,
  SyntaxKind,
  type CallExpression,
  type ClassDeclaration,
  type ClassExpression,
  type Decorator,
  type SourceFile,
} from 'ts-morph';
import type { Methods } from '../analysis/endpoints/model';
import { resolveOrigin } from '../analysis/resolve';
import { likelyString } from '../analysis/routes';
import { descendantsOfKind, nodesOfKind } from '../analysis/node-index';
import type { FrameworkAdapter, HandlerParams } from './adapter';
import { indent, nodeAnswer } from './code';

const NEST_COMMON = '@nestjs/common';
const ROUTE_DECORATORS: Record<string, Methods> = {
  Get: ['GET'],
  Post: ['POST'],
  Put: ['PUT'],
  Patch: ['PATCH'],
  Delete: ['DELETE'],
  Head: ['HEAD'],
  Options: ['OPTIONS'],
  All: 'any',
};
const METHOD_NAMES = { post: 'mcp', get: 'mcpGet', delete: 'mcpDelete' } as const;

/** A controller method's route: its decorator, methods, path argument and the controller's prefix (`/assistant`). */
export interface NestRoute {
  decorator: CallExpression;
  controller: ClassDeclaration | ClassExpression;
  methods: Methods;
  path?: Node;
  prefix?: string;
}

export function nestRoute(fn: Node): NestRoute | undefined {
  if (!Node.isMethodDeclaration(fn)) return undefined;
  const controller = fn.getParent();
  if (!Node.isClassDeclaration(controller) && !Node.isClassExpression(controller)) return undefined;
  const prefixDecorator = controller.getDecorators().find((d) => nestDecoratorName(d) === 'Controller');
  if (!prefixDecorator) return undefined;
  for (const decorator of fn.getDecorators()) {
    const name = nestDecoratorName(decorator);
    const call = decorator.getCallExpression();
    if (!name || !call || !(name in ROUTE_DECORATORS)) continue;
    return {
      decorator: call,
      controller,
      methods: ROUTE_DECORATORS[name],
      path: call.getArguments()[0],
      prefix: joinPrefixes(globalPrefixOf(fn.getSourceFile()), prefixOf(prefixDecorator)),
    };
  }
  return undefined;
}

/** The routes of every method of the controller a route decorator belongs to. */
export function controllerRoutes(decorator: CallExpression): NestRoute[] {
  const controller = decorator.getFirstAncestor((n) => Node.isClassDeclaration(n) || Node.isClassExpression(n));
  if (!controller || !(Node.isClassDeclaration(controller) || Node.isClassExpression(controller))) return [];
  return controller.getMethods().flatMap((method) => nestRoute(method) ?? []);
}

/** `Get` for `@Get('sse')` when `Get` comes from @nestjs/common (through aliases), else undefined. */
function nestDecoratorName(decorator: Decorator): string | undefined {
  const call = decorator.getCallExpression();
  const origin = call ? resolveOrigin(call.getExpression()) : undefined;
  return origin?.module === NEST_COMMON ? origin.name : undefined;
}

/** `@Controller('assistant')` or `@Controller({ path: 'assistant' })` → `/assistant`. */
function prefixOf(decorator: Decorator): string | undefined {
  let argument = decorator.getCallExpression()?.getArguments()[0];
  if (argument && Node.isObjectLiteralExpression(argument)) {
    const path = argument.getProperty('path');
    argument = path && Node.isPropertyAssignment(path) ? path.getInitializer() : undefined;
  }
  const value = argument ? likelyString(argument) : undefined;
  const trimmed = value?.replace(/^\/+|\/+$/g, '');
  return trimmed ? `/${trimmed}` : undefined;
}

function joinPrefixes(outer: string | undefined, inner: string | undefined): string | undefined {
  return outer || inner ? `${outer ?? ''}${inner ?? ''}` : undefined;
}

/**
 * `app.setGlobalPrefix('api')` at start-up puts every controller's routes under `/api`. The one prefix the project
 * sets (a literal, without `exclude` options), else none: two different ones, or one computed, are not guessed.
 */
function globalPrefixOf(file: SourceFile): string | undefined {
  const project = file.getProject();
  if (globalPrefixes.has(project)) return globalPrefixes.get(project);
  const found = new Set<string | undefined>();
  for (const source of project.getSourceFiles()) {
    if (source.isDeclarationFile() || source.isInNodeModules() || !source.getFullText().includes('setGlobalPrefix')) continue;
    for (const call of nodesOfKind(source, SyntaxKind.CallExpression)) {
      const callee = call.getExpression();
      if (!Node.isPropertyAccessExpression(callee) || callee.getName() !== 'setGlobalPrefix') continue;
      const [argument, options] = call.getArguments();
      const value =
        argument && (Node.isStringLiteral(argument) || Node.isNoSubstitutionTemplateLiteral(argument))
          ? argument.getLiteralValue()
          : undefined;
      found.add(options ? undefined : value);
    }
  }
  const [only] = found;
  const trimmed = found.size === 1 ? only?.replace(/^\/+|\/+$/g, '') : undefined;
  const prefix = trimmed ? `/${trimmed}` : undefined;
  globalPrefixes.set(project, prefix);
  return prefix;
}

const globalPrefixes = new WeakMap<object, string | undefined>();

/** The parameter a Nest decorator injects (`@Res() res` → `res`), if the handler has one. */
function decorated(params: HandlerParams, ...names: string[]): string | undefined {
  const index = (params.decorators ?? []).findIndex((d) => names.includes(d));
  return index >= 0 ? params.names[index] || undefined : undefined;
}

export const nest: FrameworkAdapter = {
  id: 'nest',
  modules: /^@nestjs\/(?:common|core|platform-express)$/,
  defaultParams: ['res'],
  access(params) {
    const res = decorated(params, 'Res', 'Response');
    // A plain method a route hands its request objects to (`this.service.handle(req, res, body)`): Nest's express
    // request and response, by position.
    if (!res && !(params.decorators ?? []).some(Boolean) && params.names[0] && params.names[1]) {
      const [req, response] = params.names;
      return { flavor: 'node', req, res: response, body: `${req}.body`, handOver: [] };
    }
    if (!res) return undefined;
    // Without `@Req()`, express's response knows its request.
    const req = decorated(params, 'Req', 'Request') ?? `${res}.req`;
    return { flavor: 'node', req, res, body: decorated(params, 'Body') ?? `${req}.body`, handOver: [] };
  },
  answer(params, answer, style) {
    return [nodeAnswer(decorated(params, 'Res', 'Response') ?? 'res', answer, style)];
  },
  endpointParams(params) {
    if (decorated(params, 'Body')) return params;
    return {
      names: [...params.names, 'body'],
      types: [...params.types, ': unknown'],
      decorators: [...(params.decorators ?? []), 'Body'],
      written: [...(params.written ?? []), '@Body() body: unknown'],
    };
  },
  route(_receiver, method, path, _middlewares, params, body) {
    const written = params.written ?? [];
    // The 405 methods take the response only.
    const own = method === 'post' ? written : written.filter((_, i) => ['Res', 'Response'].includes(params.decorators?.[i] ?? ''));
    const decorator = method[0].toUpperCase() + method.slice(1);
    // Nest writes paths relative to the controller: 'mcp', not '/mcp'.
    const relative = path.replace(/^(['"`])\/+/, '$1');
    return [`@${decorator}(${relative})`, `async ${METHOD_NAMES[method]}(${own.join(', ')}) {`, ...body.map(indent), `}`];
  },
  routeImports(params) {
    return { module: NEST_COMMON, names: ['Post', 'Get', 'Delete', ...(decorated(params, 'Body') ? ['Body'] : [])] };
  },
};

/**
 * Events a NestJS `@Sse()` handler emits as `{ type: 'endpoint', … }`: the first event of the 2024-11-05 HTTP+SSE
 * handshake, written by hand as an Observable of `MessageEvent`s.
 */
export function nestSseEndpointEvents(file: SourceFile): Node[] {
  const events: Node[] = [];
  for (const method of nodesOfKind(file, SyntaxKind.MethodDeclaration)) {
    if (!method.getDecorators().some((d) => nestDecoratorName(d) === 'Sse')) continue;
    for (const property of descendantsOfKind(method, SyntaxKind.PropertyAssignment)) {
      const value = property.getInitializer();
      if (property.getName() === 'type' && value && likelyString(value) === 'endpoint') events.push(property.getParentOrThrow());
    }
  }
  return events;
}
