// Small syntactic helpers shared by several rules.
import { nodesOfKind } from '../analysis/node-index';
import { Node, SyntaxKind, type SourceFile } from 'ts-morph';
import type { FileFacts } from '../analysis/file-facts';
import type { SdkSymbol } from '../analysis/sdk-modules';

export function isUndefinedExpression(node: Node): boolean {
  const text = node.getText().replace(/\s+/g, ' ');
  return text === 'undefined' || text === 'void 0';
}

/** `key: value`, `key` shorthand and `key() {}` members of object literals, by name. */
export function propertyAssignmentsNamed(file: SourceFile, name: string): Node[] {
  const result: Node[] = [];
  for (const object of nodesOfKind(file, SyntaxKind.ObjectLiteralExpression)) {
    const prop = object.getProperty(name);
    if (prop) result.push(prop);
  }
  return result;
}

/** `store[key] = transport`, `store.set(key, transport)`, `store.push(transport)` with an SDK transport value. */
export function transportStores(facts: FileFacts, kinds: SdkSymbol[]): Node[] {
  const stores: Node[] = [];
  const isTransport = (value: Node) => kinds.some((kind) => facts.holds(value, kind));
  for (const binary of nodesOfKind(facts.sourceFile, SyntaxKind.BinaryExpression)) {
    if (binary.getOperatorToken().getKind() !== SyntaxKind.EqualsToken) continue;
    const left = binary.getLeft();
    if (Node.isElementAccessExpression(left) && isTransport(binary.getRight())) stores.push(binary);
  }
  for (const call of nodesOfKind(facts.sourceFile, SyntaxKind.CallExpression)) {
    const callee = call.getExpression();
    if (!Node.isPropertyAccessExpression(callee)) continue;
    const args = call.getArguments();
    if (callee.getName() === 'set' && args.length === 2 && isTransport(args[1])) stores.push(call);
    if (callee.getName() === 'push' && args.length === 1 && isTransport(args[0])) stores.push(call);
  }
  return stores;
}

/** The innermost function containing the node. */
export function enclosingFunction(node: Node): Node | undefined {
  return node.getFirstAncestor(
    (a) => Node.isArrowFunction(a) || Node.isFunctionExpression(a) || Node.isFunctionDeclaration(a) || Node.isMethodDeclaration(a),
  );
}

/**
 * A header name in a list of header names that CORS or telemetry options take (`allowedHeaders: ['Mcp-Session-Id']`,
 * `exposeHeaders`, `captureRequestHeaders`, `const DEFAULT_ALLOWED_HEADERS = [...]`): naming the header there neither
 * reads nor writes it.
 */
export function inHeaderNameList(literal: Node): boolean {
  const parent = literal.getParent();
  let holder = parent && Node.isArrayLiteralExpression(parent) ? parent.getParent() : parent;
  while (holder && (Node.isAsExpression(holder) || Node.isSatisfiesExpression(holder))) holder = holder.getParent();
  const name = holder && (Node.isPropertyAssignment(holder) || Node.isVariableDeclaration(holder)) ? holder.getName() : '';
  return HEADER_NAME_LIST.test(name.replace(/_/g, ''));
}

const HEADER_NAME_LIST = /(?:allow(?:ed)?|exposed?|capture(?:d|Request|Response)?)Headers$/i;
