/**
 * handler-context-reads — a handler registered on a server the codemod cannot type (plain JavaScript, an untyped or
 * `any` server) still reads v1's request context: `extra.sendNotification(…)`, `async (args, { signal }) => …`. The
 * codemod moves those fields (`ctx.mcpReq.notify`, `ctx.mcpReq.signal`, the codemod's own map) only in handlers it
 * types, and nothing fails to compile: in v2 the field is undefined, and the tool answers `extra.sendNotification is
 * not a function` on every call. Here the handler is found by where it is registered, whatever its receiver:
 * `registerTool(name, config, cb)` (the context is cb's second parameter with an `inputSchema`, else its first),
 * `registerPrompt` (`argsSchema` likewise), `registerResource(name, uri | template, metadata, cb)` and
 * `setRequestHandler(method, cb)`. Reads of a moved field on a context parameter take it from its v2 place; a
 * destructured context binds the same names from there. A file that still imports the v1 SDK is left alone.
 */
import type { API, ASTPath, FileInfo } from 'jscodeshift';
import { createContext, print, type TransformContext, type TransformOptions } from '../lib/context';
import { isFunctionNode, type AnyNode } from '../lib/ast';
import { inlinePlaceholder } from '../lib/emit';
import { isWritten, movesAField, onV2Packages, v2Pattern } from './lib';
import { V2_CONTEXT_PLACES } from '../../src/analysis/v2-context';

export const id = 'handler-context-reads';

const REGISTRATIONS = /\.(?:registerTool|registerPrompt|registerResource|setRequestHandler)\s*\(/;
const MOVED_FIELDS = Object.keys(V2_CONTEXT_PLACES).filter((field) => V2_CONTEXT_PLACES[field][0] !== undefined);

export function mayApply(text: string): boolean {
  return REGISTRATIONS.test(text) && MOVED_FIELDS.some((field) => text.includes(field));
}

export default function transform(file: FileInfo, api: API, options: TransformOptions = {}): string | undefined {
  const context = createContext(file, api, { ...options, findings: [] }, []);
  const { j, root } = context;
  if (!onV2Packages(context)) return undefined;
  let changed = false;
  root.find(j.CallExpression).forEach((p) => {
    const handler = registeredHandler(p.node as unknown as AnyNode);
    if (!handler) return;
    const params = handler.fn.params as AnyNode[];
    const param = params[handler.contextIndex];
    if (params.length !== handler.contextIndex + 1 || !param) return;
    if (param.type === 'Identifier') changed = movedReads(context, handler.fn, param.name as string) || changed;
    else if (param.type === 'ObjectPattern' && movesAField(param)) {
      const pattern = v2Pattern(context, param);
      if (!pattern) return;
      params[handler.contextIndex] = j.identifier(inlinePlaceholder(context, pattern)) as unknown as AnyNode;
      changed = true;
    }
  });
  return changed ? print(context) : undefined;
}

/** The handler a registration call is given, and which of its parameters is the request context. */
function registeredHandler(call: AnyNode): { fn: AnyNode; contextIndex: number } | undefined {
  const callee = call.callee as AnyNode;
  if (callee.type !== 'MemberExpression' && callee.type !== 'OptionalMemberExpression') return undefined;
  const method = (callee.property as AnyNode).name as string | undefined;
  const args = call.arguments as AnyNode[];
  const fn = args[args.length - 1];
  if (!fn || !isFunctionNode(fn)) return undefined;
  if (method === 'setRequestHandler' && args.length === 2) return { fn, contextIndex: 1 };
  if ((method === 'registerTool' || method === 'registerPrompt') && args.length === 3) {
    const takesArguments = schemaPresence(args[1], method === 'registerTool' ? 'inputSchema' : 'argsSchema');
    return takesArguments === undefined ? undefined : { fn, contextIndex: takesArguments ? 1 : 0 };
  }
  if (method === 'registerResource' && args.length === 4) {
    const uri = args[1];
    if (uri.type === 'StringLiteral' || uri.type === 'Literal' || uri.type === 'TemplateLiteral') return { fn, contextIndex: 1 };
    if (uri.type === 'NewExpression' && ((uri.callee as AnyNode).name as string) === 'ResourceTemplate') return { fn, contextIndex: 2 };
  }
  return undefined;
}

/** Whether the config object literal names the schema (undefined: not a literal, or a spread may). */
function schemaPresence(config: AnyNode, key: string): boolean | undefined {
  if (config.type !== 'ObjectExpression') return undefined;
  let present = false;
  for (const property of config.properties as AnyNode[]) {
    if (property.type === 'SpreadElement' || property.type === 'SpreadProperty') return undefined;
    const name = (property.key as AnyNode | undefined)?.name ?? (property.key as AnyNode | undefined)?.value;
    if (name === key) present = true;
  }
  return present;
}

/** `ctx.sendNotification` → `ctx.mcpReq.notify` in the handler, where `ctx` is still its parameter. */
function movedReads(context: TransformContext, fn: AnyNode, name: string): boolean {
  const { j } = context;
  let changed = false;
  j(fn.body as never)
    .find(j.Node)
    .forEach((p) => {
      const node = p.node as unknown as AnyNode;
      if ((node.type !== 'MemberExpression' && node.type !== 'OptionalMemberExpression') || node.computed) return;
      const object = node.object as AnyNode;
      const field = (node.property as AnyNode).name as string;
      const place = Object.hasOwn(V2_CONTEXT_PLACES, field) ? V2_CONTEXT_PLACES[field] : undefined;
      if (object.type !== 'Identifier' || object.name !== name || !place?.[0] || isWritten(p) || shadowed(p, fn, name)) return;
      const [group, moved] = place;
      node.property = j.identifier(inlinePlaceholder(context, group === 'http' ? `http?.${moved}` : `${group}.${moved}`));
      changed = true;
    });
  return changed;
}

/** A function between the read and the handler declares the name again (its own `extra`). */
function shadowed(p: ASTPath<unknown>, handler: AnyNode, name: string): boolean {
  for (let up = p.parent; up && up.node !== (handler as unknown); up = up.parent) {
    const node = up.node as AnyNode;
    if (isFunctionNode(node) && (node.params as AnyNode[]).some((param) => declares(param, name))) return true;
  }
  return false;
}

function declares(param: AnyNode, name: string): boolean {
  if (param.type === 'Identifier') return param.name === name;
  if (param.type === 'AssignmentPattern') return declares(param.left as AnyNode, name);
  if (param.type === 'RestElement') return declares(param.argument as AnyNode, name);
  if (param.type === 'ObjectPattern')
    return (param.properties as AnyNode[]).some((property) => declares((property.value ?? property.argument) as AnyNode, name));
  if (param.type === 'ArrayPattern') return (param.elements as AnyNode[]).some((element) => !!element && declares(element, name));
  return false;
}
