// Finding the jscodeshift (babel) node a plan's span names. Spans carry ts-morph's 1-based line and column, where a
// tab counts as one column; babel, fed by recast, sees leading tabs expanded to the print width. Lines agree;
// columns are mapped through the line's leading whitespace.
import type { ASTPath, Collection } from 'jscodeshift';
import type { Span } from '../../src/analysis/endpoints/model';
import type { TransformContext } from './context';
import type { AnyNode } from './ast';

/** The babel (0-based) column of a ts-morph (1-based) column on a line. */
export function babelColumn(context: TransformContext, line: number, column: number): number {
  const text = context.file.source.split('\n')[line - 1] ?? '';
  const lead = /^[ \t]*/.exec(text)![0];
  if (!lead.includes('\t')) return column - 1;
  const expanded = lead.replace(/\t/g, ' '.repeat(context.tabWidth)).length;
  return column - 1 + (column - 1 >= lead.length ? expanded - lead.length : 0);
}

/** The node starts where a plan's position (ts-morph's 1-based line and column) says. */
export function startsAtPosition(context: TransformContext, node: AnyNode, position: { line: number; column: number }): boolean {
  return node.loc?.start.line === position.line && node.loc.start.column === babelColumn(context, position.line, position.column);
}

function startsAt(context: TransformContext, node: AnyNode, span: Span): boolean {
  const loc = node.loc;
  if (!loc || loc.start.line !== span.line || loc.end.line !== span.endLine) return false;
  return (
    loc.start.column === babelColumn(context, span.line, span.column) &&
    loc.end.column === babelColumn(context, span.endLine, span.endColumn)
  );
}

/** The path of the node of one of `types` that spans exactly `span`. */
export function pathAt(context: TransformContext, span: Span, types: string[]): ASTPath | undefined {
  const { j, root } = context;
  for (const type of types) {
    const found = (root.find((j as unknown as Record<string, never>)[type]) as Collection).filter((p: ASTPath) =>
      startsAt(context, p.node as unknown as AnyNode, span),
    );
    if (found.size() > 0) return found.paths()[0];
  }
  // Babel gives `export function f` its location on the export; the function's body still has its own.
  return undefined;
}

export function nodeAt(context: TransformContext, span: Span, types: string[]): AnyNode | undefined {
  return pathAt(context, span, types)?.node as unknown as AnyNode | undefined;
}

export const FUNCTION_TYPES = ['ArrowFunctionExpression', 'FunctionExpression', 'FunctionDeclaration', 'ClassMethod', 'ObjectMethod'];

/**
 * The function a span names. ts-morph starts a function at its modifiers (`export async function f`), babel at
 * `async function`: match the end exactly and the start on or after the span's start.
 */
export function functionAt(context: TransformContext, span: Span): ASTPath | undefined {
  const { j, root } = context;
  const endColumn = babelColumn(context, span.endLine, span.endColumn);
  const found = root.find(j.Function).filter((p) => {
    const node = p.node as unknown as AnyNode;
    // (babel leaves an exported function declaration without a location of its own; its body has one)
    const loc = node.loc ?? (node.body as AnyNode | undefined)?.loc;
    return !!loc && loc.end.line === span.endLine && loc.end.column === endColumn && (!node.loc || loc.start.line >= span.line);
  });
  return found.size() > 0 ? (found.paths()[found.size() - 1] as unknown as ASTPath) : undefined;
}
