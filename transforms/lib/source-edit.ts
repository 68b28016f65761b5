// Edits made on the original source text of a node, for places where recast would re-lay-out what it reprints
// (object literals, argument lists): the result is spliced back through an inline placeholder.
import type { TransformContext } from './context';
import type { AnyNode } from './ast';

export function originalText(context: TransformContext, node: AnyNode): string {
  return context.parsed.slice(node.start as number, node.end as number);
}

/**
 * The object's own source with more properties, laid out as the object is: on one line, or each on a new line
 * indented like the last property (adding the comma the last property needs).
 */
export function appendProperty(context: TransformContext, object: AnyNode, added: string | string[]): string {
  const text = originalText(context, object);
  const properties = object.properties as AnyNode[];
  const closing = text.lastIndexOf('}');
  const list = typeof added === 'string' ? [added] : added;
  if (properties.length === 0) return `{ ${list.join(', ')} }`;
  const last = properties[properties.length - 1];
  const lastEnd = (last.end as number) - (object.start as number);
  const between = text.slice(lastEnd, closing);
  const hasComma = between.includes(',');
  if (!text.includes('\n')) {
    return `${text.slice(0, lastEnd)}, ${list.join(', ')}${hasComma ? ',' : ''}${text.slice(lastEnd).replace(/^,/, '')}`;
  }
  // (cut with the file's own indentation: a tab-indented file's parser sees its tabs as spaces)
  const start = object.start as number;
  const cut = (from: number, to: number) => sourceText(context, start + from, start + to);
  const indentation = lineIndentation(context, last.start as number);
  const property = list.join(`,\n${indentation}`);
  // Keep the author's trailing-comma style: a comma after the new property only if the old last one had one.
  const tail = cut(lastEnd, closing);
  const afterComma = hasComma ? tail.slice(tail.indexOf(',') + 1) : tail;
  return `${cut(0, lastEnd)},\n${indentation}${property}${hasComma ? ',' : ''}${afterComma}${cut(closing, text.length)}`;
}

/**
 * The file's own text for a parsed range: like `originalText`, but every line after the first keeps the indentation
 * the file has (recast hands the parser leading tabs expanded to spaces; the file's tabs stay tabs).
 */
export function sourceText(context: TransformContext, start: number, end: number): string {
  const text = context.parsed.slice(start, end);
  if (context.parsed === context.file.source) return text;
  const firstLine = context.parsed.slice(0, start).split('\n').length - 1;
  const sourceLines = context.file.source.split('\n');
  return text
    .split('\n')
    .map((line, index) => (index === 0 ? line : line.replace(/^[ \t]*/, /^[ \t]*/.exec(sourceLines[firstLine + index] ?? '')![0])))
    .join('\n');
}

/** The leading whitespace of the file's line holding this parsed offset. */
export function lineIndentation(context: TransformContext, offset: number): string {
  const line = context.parsed.slice(0, offset).split('\n').length - 1;
  return /^[ \t]*/.exec(context.file.source.split('\n')[line] ?? '')![0];
}

/**
 * The object's own source without some of its properties, everything else as written: each removed property goes
 * with the comma and space before it (after it, at the start), so `{ a, b: 1, c }` without b is `{ a, c }`.
 */
export function withoutProperties(context: TransformContext, object: AnyNode, removed: AnyNode[]): string {
  const text = originalText(context, object);
  const base = object.start as number;
  const properties = object.properties as AnyNode[];
  const cuts: Array<[number, number]> = [];
  properties.forEach((property, index) => {
    if (!removed.includes(property)) return;
    const previous = properties[index - 1];
    const keptBefore = properties.slice(0, index).some((p) => !removed.includes(p));
    const nextKept = properties.slice(index + 1).find((p) => !removed.includes(p));
    if (keptBefore) cuts.push([(previous.end as number) - base, (property.end as number) - base]);
    else if (nextKept) cuts.push([(property.start as number) - base, (properties[index + 1].start as number) - base]);
    else cuts.push([(property.start as number) - base, (property.end as number) - base]);
  });
  let out = text;
  for (const [start, end] of cuts.sort((a, b) => b[0] - a[0])) out = out.slice(0, start) + out.slice(end);
  return out.replace(/\{\s*\}$/, '{}');
}
