/**
 * idempotency-hints — rule `idempotency-hint`.
 * Adds the annotations the detector inferred from each handler (`readOnlyHint`, `idempotentHint`, `destructiveHint`)
 * to tools that have none, in every registration form; hints the author wrote are never touched. A dropped
 * request is re-issued without sessions, so clients need to know which tools are safe to retry.
 */
import type { API, FileInfo } from 'jscodeshift';
import { createContext, print, type TransformOptions } from './lib/context';
import { containsLocation, isFunctionNode, type AnyNode } from './lib/ast';
import { inlinePlaceholder } from './lib/emit';
import { appendProperty, originalText } from './lib/source-edit';
import type { ToolHints } from '../src/analysis/tool-effects';

export const id = 'idempotency-hints';
export const rules = ['idempotency-hint'];
export const parser = 'tsx';

const ANNOTATION_KEYS = new Set(['title', 'readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint']);

export default function transform(file: FileInfo, api: API, options: TransformOptions = {}): string | undefined {
  const context = createContext(file, api, options, rules);
  const anchors = context.findings.filter((f) => f.fix === 'auto' && f.data && (f.data as { hints?: ToolHints }).hints);
  if (anchors.length === 0) return undefined;
  const { j, root } = context;
  let changed = false;
  for (const anchor of anchors) {
    const hints = (anchor.data as { hints: ToolHints }).hints;
    const text = hintText(hints);
    const call = root
      .find(j.CallExpression)
      .filter((p) => {
        const first = (p.node.arguments as unknown as AnyNode[])[0];
        return !!first && containsLocation(first, anchor);
      })
      .nodes()[0] as unknown as AnyNode | undefined;
    if (call) {
      changed = annotateCall(context, call, text) || changed;
      continue;
    }
    const literal = root
      .find(j.ObjectExpression)
      .filter((p) => !!p.node.loc && p.node.loc.start.line === anchor.line && p.node.loc.start.column === anchor.column - 1)
      .nodes()[0] as unknown as AnyNode | undefined;
    if (literal) changed = addAnnotationsProperty(context, literal, text) || changed;
  }
  return changed ? print(context) : undefined;
}

function hintText(hints: ToolHints): string {
  const parts = [`readOnlyHint: ${hints.readOnlyHint}`];
  if (hints.idempotentHint !== undefined) parts.push(`idempotentHint: ${hints.idempotentHint}`);
  if (hints.destructiveHint !== undefined) parts.push(`destructiveHint: ${hints.destructiveHint}`);
  return parts.join(', ');
}

function isAnnotationsObject(node: AnyNode | undefined): boolean {
  if (!node || node.type !== 'ObjectExpression') return false;
  const props = node.properties as AnyNode[];
  // An annotation's values are literals; a schema's are validators (`{ title: z.string() }` is a schema).
  return (
    props.length > 0 &&
    props.every(
      (p) =>
        (p.type === 'ObjectProperty' || p.type === 'Property') &&
        ANNOTATION_KEYS.has(((p.key as AnyNode).name ?? (p.key as AnyNode).value) as string) &&
        /Literal$/.test((p.value as AnyNode).type),
    )
  );
}

function propertyNamed(object: AnyNode, key: string): AnyNode | undefined {
  return (object.properties as AnyNode[]).find(
    (p) => ((p.key as AnyNode | undefined)?.name ?? (p.key as AnyNode | undefined)?.value) === key,
  );
}

function annotateCall(context: ReturnType<typeof createContext>, call: AnyNode, hints: string): boolean {
  const callee = call.callee as AnyNode;
  const method = callee.type === 'MemberExpression' ? ((callee.property as AnyNode).name as string) : undefined;
  const args = call.arguments as AnyNode[];
  if (method === 'tool') {
    const callbackIndex = args.length - 1;
    const callback = args[callbackIndex];
    if (!isFunctionNode(callback) && callback.type !== 'Identifier') return false;
    const existing = args.slice(1, callbackIndex).find(isAnnotationsObject);
    if (existing) return replaceWith(context, args, args.indexOf(existing), appendProperty(context, existing, hints));
    // A new argument just before the callback, laid out like the arguments around it.
    const source = context.parsed;
    const lineStart = source.lastIndexOf('\n', (callback.start as number) - 1) + 1;
    const before = source.slice(lineStart, callback.start as number);
    const separator = /^\s*$/.test(before) ? `,\n${before}` : ', ';
    return replaceWith(context, args, callbackIndex, `{ ${hints} }${separator}${originalText(context, callback)}`);
  }
  if (method === 'registerTool' || method === 'addTool') {
    const index = method === 'registerTool' ? 1 : 0;
    const config = args[index];
    if (!config || config.type !== 'ObjectExpression') return false;
    return addAnnotationsProperty(context, config, hints, (text) => replaceWith(context, args, index, text));
  }
  return false;
}

function addAnnotationsProperty(
  context: ReturnType<typeof createContext>,
  config: AnyNode,
  hints: string,
  replace?: (text: string) => boolean,
): boolean {
  const annotations = propertyNamed(config, 'annotations');
  if (annotations) {
    const value = annotations.value as AnyNode;
    if (value?.type !== 'ObjectExpression') return false;
    annotations.value = context.j.identifier(inlinePlaceholder(context, appendProperty(context, value, hints))) as never;
    return true;
  }
  const text = appendProperty(context, config, `annotations: { ${hints} }`);
  if (replace) return replace(text);
  // A tool literal in a list: swap the node itself.
  config.type = 'Identifier';
  config.name = inlinePlaceholder(context, text);
  return true;
}

function replaceWith(context: ReturnType<typeof createContext>, list: AnyNode[], index: number, text: string): boolean {
  list[index] = context.j.identifier(inlinePlaceholder(context, text)) as unknown as AnyNode;
  return true;
}
