/**
 * list-capability — a capability handed the list it advertises: `new Server(info, { capabilities: { tools:
 * getAllTools(), prompts: PROMPTS } })`. v1's capability objects were passthrough, so any object went (and was sent
 * in the initialize result); v2's `ServerCapabilities.tools` / `prompts` / `resources` is `{ listChanged?,
 * subscribe? }` only, so TS2322/TS2559. Where the same file's low-level list handler for that capability
 * (`setRequestHandler('tools/list', …)`) reads the same expression, the list is what that handler serves and the
 * capability only says the server has tools: the value becomes `{}` (what the list gave the flags: none). A value the
 * list handler does not read (flags kept in a variable, a list served from elsewhere) is left to the type-check.
 */
import type { API, FileInfo } from 'jscodeshift';
import { createContext, print, type TransformContext, type TransformOptions } from '../lib/context';
import type { AnyNode } from '../lib/ast';
import { originalText } from '../lib/source-edit';
import { handlerRegistrations } from './handler-lib';

export const id = 'list-capability';

/** Each capability whose list a low-level handler serves, and that handler's method. */
const LIST_METHODS = new Map([
  ['tools', 'tools/list'],
  ['prompts', 'prompts/list'],
  ['resources', 'resources/list'],
]);
const SERVER_CLASSES = new Set(['McpServer', 'Server']);

export function mayApply(text: string): boolean {
  return /capabilities/i.test(text) && /\b(?:tools|prompts|resources)\/list\b/.test(text);
}

export default function transform(file: FileInfo, api: API, options: TransformOptions = {}): string | undefined {
  const context = createContext(file, api, { ...options, findings: [] }, []);
  const handlers = handlerRegistrations(context);
  let changed = false;
  for (const capabilities of capabilityObjects(context)) {
    for (const property of capabilities.properties as AnyNode[]) {
      const method = capabilityMethod(property);
      const value = property.value as AnyNode | undefined;
      if (!method || !value || value.type === 'ObjectExpression') continue;
      const listed = handlers.some((h) => h.method === method && h.fn && reads(context, h.fn, originalText(context, value)));
      if (!listed) continue;
      property.value = context.j.objectExpression([]) as unknown as AnyNode;
      changed = true;
    }
  }
  return changed ? print(context) : undefined;
}

/** `capabilities: { … }` in a server's options (`new Server(info, { capabilities })`), and `registerCapabilities({ … })`. */
function capabilityObjects(context: TransformContext): AnyNode[] {
  const { j, root } = context;
  const found: AnyNode[] = [];
  root.find(j.NewExpression).forEach((p) => {
    const callee = p.node.callee as unknown as AnyNode;
    const settings = (p.node.arguments as unknown as AnyNode[])[1];
    if (callee.type !== 'Identifier' || !SERVER_CLASSES.has(callee.name as string) || settings?.type !== 'ObjectExpression') return;
    const capabilities = (settings.properties as AnyNode[]).find((property) => keyName(property) === 'capabilities')?.value as
      AnyNode | undefined;
    if (capabilities?.type === 'ObjectExpression') found.push(capabilities);
  });
  root.find(j.CallExpression).forEach((p) => {
    const callee = p.node.callee as unknown as AnyNode;
    const [argument] = p.node.arguments as unknown as AnyNode[];
    if (
      callee.type === 'MemberExpression' &&
      (callee.property as AnyNode).name === 'registerCapabilities' &&
      argument?.type === 'ObjectExpression'
    )
      found.push(argument);
  });
  return found;
}

function capabilityMethod(property: AnyNode): string | undefined {
  const name = keyName(property);
  return name === undefined ? undefined : LIST_METHODS.get(name);
}

function keyName(property: AnyNode): string | undefined {
  if ((property.type !== 'ObjectProperty' && property.type !== 'Property') || property.computed) return undefined;
  const key = property.key as AnyNode;
  return key.type === 'Identifier' ? (key.name as string) : typeof key.value === 'string' ? key.value : undefined;
}

/** The handler's function contains an expression written as `text` (whitespace aside). */
function reads(context: TransformContext, fn: AnyNode, text: string): boolean {
  const wanted = compact(text);
  return context
    .j(fn as never)
    .find(context.j.Expression)
    .some((p) => compact(originalText(context, p.node as unknown as AnyNode)) === wanted);
}

function compact(text: string): string {
  return text.replace(/\s+/g, '');
}
