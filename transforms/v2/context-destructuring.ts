/**
 * context-destructuring — a handler that destructures v1's request context in its signature
 * (`async (args, { sendNotification, signal }) => …`): v2 moved those fields (`ctx.mcpReq.notify`,
 * `ctx.mcpReq.signal`, …), so the parameter no longer matches the handler's type (TS2769 on `registerTool`). The
 * codemod renames `extra.x` accesses but leaves a destructured context with a "Manual refactoring required" marker —
 * or, in a method it does not see as a handler, with `RequestHandlerExtra<…>` renamed to `ServerContext` and the v1
 * fields left in the pattern (`execute(args, { authInfo }: ServerContext)`: TS2339). Where every field has a v2 place (the codemod's own map), the pattern is rewritten to take each field from there
 * under the same local name (`{ mcpReq: { notify: sendNotification, signal } }`), a type literal written for the v1
 * fields goes (the handler's context type applies), and so does the marker; the body is left as written. A pattern
 * with another field (`requestInfo`, whose v2 counterpart is a different object), a computed key or a rest element
 * keeps its marker for the type-check.
 */
import type { API, FileInfo } from 'jscodeshift';
import { createContext, print, type TransformContext, type TransformOptions } from '../lib/context';
import { isFunctionNode, type AnyNode } from '../lib/ast';
import { inlinePlaceholder } from '../lib/emit';
import { originalText } from '../lib/source-edit';
import { movesAField, v2Pattern, v2TypeNames } from './lib';

export const id = 'context-destructuring';

const MARKER = 'Destructuring of context parameter in signature: "';

export function mayApply(text: string): boolean {
  return text.includes(MARKER) || text.includes('ServerContext');
}

export default function transform(file: FileInfo, api: API, options: TransformOptions = {}): string | undefined {
  const context = createContext(file, api, { ...options, findings: [] }, []);
  const { j, root } = context;
  const contextTypes = v2TypeNames(context, 'ServerContext');
  let changed = false;
  root.find(j.Node).forEach((p) => {
    const fn = p.node as unknown as AnyNode;
    const params = fn.params as AnyNode[] | undefined;
    const param = params?.[params.length - 1];
    if (!isFunctionNode(fn) || param?.type !== 'ObjectPattern') return;
    // (the codemod marks the parameter; printed before the function, the comment may sit on either)
    const quoted = `${MARKER}${patternText(context, param)}"`;
    const holder = [param, fn].find((node) => (node.comments as AnyNode[] | undefined)?.some((c) => String(c.value).includes(quoted)));
    if (!holder && !(typedAsV2Context(param, contextTypes) && movesAField(param))) return;
    const pattern = v2Pattern(context, param);
    if (!pattern) return;
    params![params!.length - 1] = j.identifier(inlinePlaceholder(context, pattern)) as unknown as AnyNode;
    if (holder) holder.comments = (holder.comments as AnyNode[]).filter((c) => !String(c.value).includes(quoted));
    changed = true;
  });
  return changed ? print(context) : undefined;
}

function typedAsV2Context(pattern: AnyNode, contextTypes: Set<string>): boolean {
  const type = (pattern.typeAnnotation as AnyNode | undefined)?.typeAnnotation as AnyNode | undefined;
  return type?.type === 'TSTypeReference' && contextTypes.has((type.typeName as AnyNode).name as string);
}

/** The pattern as the codemod quotes it: without its type annotation. */
function patternText(context: TransformContext, pattern: AnyNode): string {
  const text = originalText(context, pattern);
  const annotation = pattern.typeAnnotation as AnyNode | undefined;
  return annotation ? text.slice(0, (annotation.start as number) - (pattern.start as number)).trimEnd() : text;
}
