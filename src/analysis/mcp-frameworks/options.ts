// What the framework adapters read from the option objects their servers are configured with, as written.
import { Node, type ObjectLiteralExpression } from 'ts-morph';

/** Where a node starts, for a transform to find it again (1-based, as findings count). */
export interface Position {
  line: number;
  column: number;
}

export function positionOf(node: Node): Position {
  const { line, column } = node.getSourceFile().getLineAndColumnAtPos(node.getStart());
  return { line, column };
}

/** `key: value` in the object literal (not a shorthand, spread or method). */
export function propertyOf(object: ObjectLiteralExpression, key: string) {
  const property = object.getProperty(key);
  return property && Node.isPropertyAssignment(property) ? property : undefined;
}

/** `key: { … }`: the nested object literal. */
export function objectOf(object: ObjectLiteralExpression, key: string): ObjectLiteralExpression | undefined {
  const init = propertyOf(object, key)?.getInitializer();
  return init && Node.isObjectLiteralExpression(init) ? init : undefined;
}

/** `key: 'text'`: the string's value. */
export function literalOf(object: ObjectLiteralExpression, key: string): string | undefined {
  const init = propertyOf(object, key)?.getInitializer();
  return init && (Node.isStringLiteral(init) || Node.isNoSubstitutionTemplateLiteral(init)) ? init.getLiteralValue() : undefined;
}
