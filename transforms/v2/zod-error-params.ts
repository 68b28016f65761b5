/**
 * zod-error-params — zod 4 (needed by the v2 SDK) dropped the `required_error` and `invalid_type_error` parameters of
 * its schema factories (`error TS2769: No overload matches this call … 'required_error' does not exist`); one `error`
 * parameter replaces them. `z.string({ required_error: A, invalid_type_error: B })` becomes
 * `z.string({ error: (issue) => (issue.code === 'invalid_type' ? (issue.input === undefined ? A : B) : undefined) })`:
 * the same messages for the same issues, and zod's own for the rest (`undefined`), as before. A parameter object that
 * already has `error` or `errorMap` is left for a human.
 */
import type { API, FileInfo } from 'jscodeshift';
import { createContext, print, type TransformContext, type TransformOptions } from '../lib/context';
import type { AnyNode } from '../lib/ast';
import { inlinePlaceholder } from '../lib/emit';
import { originalText, withoutProperties } from '../lib/source-edit';
import { zodNamespaces } from './lib';
import { quoted } from '../../src/frameworks/code';

export const id = 'zod-error-params';

const DROPPED = ['required_error', 'invalid_type_error'];

export function mayApply(text: string): boolean {
  return /\b(?:required_error|invalid_type_error)\b/.test(text) && /['"]zod(?:\/v4)?['"]/.test(text);
}

export default function transform(file: FileInfo, api: API, options: TransformOptions = {}): string | undefined {
  const context = createContext(file, api, { ...options, findings: [] }, []);
  const { j, root } = context;
  const namespaces = zodNamespaces(context);
  if (namespaces.size === 0) return undefined;
  let changed = false;
  root.find(j.CallExpression).forEach((p) => {
    if (!fromNamespace(p.node.callee as unknown as AnyNode, namespaces)) return;
    const args = p.node.arguments as unknown as AnyNode[];
    args.forEach((argument, index) => {
      const rewritten = argument.type === 'ObjectExpression' ? withErrorParameter(context, argument) : undefined;
      if (!rewritten) return;
      (p.node.arguments as unknown[])[index] = j.identifier(inlinePlaceholder(context, rewritten));
      changed = true;
    });
  });
  return changed ? print(context) : undefined;
}

/** `z.string`, `z.coerce.number`: a member chain that starts at a zod namespace, with no call in between. */
function fromNamespace(callee: AnyNode, namespaces: Set<string>): boolean {
  if (callee.type !== 'MemberExpression' || callee.computed) return false;
  const object = callee.object as AnyNode;
  return object.type === 'Identifier' ? namespaces.has(object.name as string) : fromNamespace(object, namespaces);
}

/** A string or template literal, or a concatenation of them. */
function isText(node: AnyNode): boolean {
  if (node.type === 'StringLiteral' || node.type === 'TemplateLiteral' || (node.type === 'Literal' && typeof node.value === 'string'))
    return true;
  return node.type === 'BinaryExpression' && node.operator === '+' && isText(node.left as AnyNode) && isText(node.right as AnyNode);
}

/** The parameter object's text with its dropped parameters folded into one `error` function, or undefined. */
function withErrorParameter(context: TransformContext, object: AnyNode): string | undefined {
  const properties = object.properties as AnyNode[];
  const keyOf = (p: AnyNode) =>
    (p.type === 'ObjectProperty' || p.type === 'Property') && !p.computed
      ? ((p.key as AnyNode).name ?? (p.key as AnyNode).value)
      : undefined;
  const dropped = properties.filter((p) => DROPPED.includes(keyOf(p) as string));
  if (dropped.length === 0 || properties.some((p) => ['error', 'errorMap'].includes(keyOf(p) as string) || p.type.includes('Spread')))
    return undefined;
  // (a message is text: `z.object({ required_error: z.string() })` is a shape with a field of that name)
  if (dropped.some((p) => p.shorthand || p.method || !isText(p.value as AnyNode))) return undefined;
  const message = (key: string) => {
    const property = dropped.find((p) => keyOf(p) === key);
    return property ? originalText(context, property.value as AnyNode) : 'undefined';
  };
  const [required, invalid] = [message('required_error'), message('invalid_type_error')];
  const chosen = required === invalid ? required : `(issue.input === undefined ? ${required} : ${invalid})`;
  const error = `error: (issue) => (issue.code === ${quoted(context.quote, 'invalid_type')} ? ${chosen} : undefined)`;
  const [first, ...rest] = dropped;
  const text = withoutProperties(context, object, rest);
  return text.replace(originalText(context, first), error);
}
