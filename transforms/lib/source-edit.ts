// Edits made on the original source text of a node, for places where recast would re-lay-out what it reprints
// (object literals, argument lists): the result is spliced back through an inline placeholder.
import type { TransformContext } from './context';
import type { AnyNode } from './ast';

export function originalText(context: TransformContext, node: AnyNode): string {
  return context.parsed.slice(node.start as number, node.end as number);
}

/**
 * The object's own source with one more property, laid out as the object is: on one line, or on a new line
 * indented like the last property (adding the comma the last property needs).
 */
export function appendProperty(context: TransformContext, object: AnyNode, property: string): string {
  const text = originalText(context, object);
  const properties = object.properties as AnyNode[];
  const closing = text.lastIndexOf('}');
  if (properties.length === 0) return `{ ${property} }`;
  const last = properties[properties.length - 1];
  const lastEnd = (last.end as number) - (object.start as number);
  const between = text.slice(lastEnd, closing);
  const hasComma = between.includes(',');
  if (!text.includes('\n')) {
    return `${text.slice(0, lastEnd)}, ${property}${hasComma ? ',' : ''}${text.slice(lastEnd).replace(/^,/, '')}`;
  }
  const source = context.parsed;
  const lastStart = last.start as number;
  const indentation = source.slice(source.lastIndexOf('\n', lastStart - 1) + 1, lastStart);
  // Keep the author's trailing-comma style: a comma after the new property only if the old last one had one.
  const tail = hasComma ? between.slice(between.indexOf(',') + 1) : between;
  return `${text.slice(0, lastEnd)},\n${indentation}${property}${hasComma ? ',' : ''}${tail}${text.slice(closing)}`;
}
