// Every MCP tool registration form: `server.tool(...)` overloads, `registerTool(name, config, cb)`,
// fastmcp `addTool({...})`, and tool literals returned by a low-level `tools/list` handler.
import { nodesOfKind } from './node-index';
import { Node, SyntaxKind, type ObjectLiteralExpression, type SourceFile } from 'ts-morph';
import { isFunctionLike, resolveHandler, staticString } from './routes';

export const ANNOTATION_KEYS = new Set(['title', 'readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint']);

export interface ToolRegistration {
  form: 'tool' | 'registerTool' | 'addTool' | 'list-literal';
  /** The registration call, or the tool object literal for `list-literal`. */
  node: Node;
  name: string;
  /** The handler function, when there is one to read. */
  handler?: Node;
  /** The annotations object literal as written, if any. */
  annotations?: ObjectLiteralExpression;
  /** The config object (registerTool / addTool / list literal) where `annotations` would go. */
  config?: ObjectLiteralExpression;
  /** Index of the callback argument for `.tool()` (annotations go just before it). */
  callbackIndex?: number;
}

export function isAnnotationsLiteral(node: Node): node is ObjectLiteralExpression {
  if (!Node.isObjectLiteralExpression(node)) return false;
  const props = node.getProperties();
  // An annotation's values are booleans and strings; a schema's are validators (`{ title: z.string() }`).
  return (
    props.length > 0 &&
    props.every((p) => {
      if (Node.isShorthandPropertyAssignment(p)) return ANNOTATION_KEYS.has(p.getName());
      if (!Node.isPropertyAssignment(p) || !ANNOTATION_KEYS.has(p.getName())) return false;
      const value = p.getInitializer();
      return !!value && !Node.isCallExpression(value) && !Node.isObjectLiteralExpression(value) && !Node.isPropertyAccessExpression(value);
    })
  );
}

function propertyInitializer(object: ObjectLiteralExpression, key: string): Node | undefined {
  const prop = object.getProperty(key);
  if (!prop) return undefined;
  if (Node.isPropertyAssignment(prop)) return prop.getInitializer();
  if (Node.isMethodDeclaration(prop)) return prop;
  if (Node.isShorthandPropertyAssignment(prop)) return prop.getNameNode();
  return undefined;
}

function nameOf(node: Node | undefined): string {
  return staticString(node) ?? node?.getText() ?? '<anonymous>';
}

export function toolRegistrations(file: SourceFile): ToolRegistration[] {
  const tools: ToolRegistration[] = [];
  for (const call of nodesOfKind(file, SyntaxKind.CallExpression)) {
    const callee = call.getExpression();
    if (!Node.isPropertyAccessExpression(callee)) continue;
    const method = callee.getName();
    const args = call.getArguments();
    if (method === 'tool' && args.length >= 2) {
      const callbackIndex = args.length - 1;
      if (!isFunctionLike(resolveHandler(args[callbackIndex])) || !isNameArg(args[0])) continue;
      const middle = args.slice(1, callbackIndex);
      const annotations = middle.find(isAnnotationsLiteral);
      tools.push({
        form: 'tool',
        node: call,
        name: nameOf(args[0]),
        handler: resolveHandler(args[callbackIndex]),
        annotations,
        callbackIndex,
      });
    } else if (method === 'registerTool' && args.length >= 2 && isNameArg(args[0])) {
      const config = Node.isObjectLiteralExpression(args[1]) ? args[1] : undefined;
      const annotationsNode = config ? propertyInitializer(config, 'annotations') : undefined;
      tools.push({
        form: 'registerTool',
        node: call,
        name: nameOf(args[0]),
        handler: resolveHandler(args[2]),
        config,
        annotations: annotationsNode && Node.isObjectLiteralExpression(annotationsNode) ? annotationsNode : undefined,
      });
    } else if (method === 'addTool' && args.length === 1 && Node.isObjectLiteralExpression(args[0])) {
      const config = args[0];
      if (!config.getProperty('name') || !config.getProperty('execute')) continue;
      const annotationsNode = propertyInitializer(config, 'annotations');
      tools.push({
        form: 'addTool',
        node: call,
        name: nameOf(propertyInitializer(config, 'name')),
        handler: resolveHandler(propertyInitializer(config, 'execute')),
        config,
        annotations: annotationsNode && Node.isObjectLiteralExpression(annotationsNode) ? annotationsNode : undefined,
      });
    }
  }
  for (const literal of nodesOfKind(file, SyntaxKind.ObjectLiteralExpression)) {
    if (!literal.getProperty('name') || !literal.getProperty('inputSchema')) continue;
    const annotationsNode = propertyInitializer(literal, 'annotations');
    tools.push({
      form: 'list-literal',
      node: literal,
      name: nameOf(propertyInitializer(literal, 'name')),
      config: literal,
      annotations: annotationsNode && Node.isObjectLiteralExpression(annotationsNode) ? annotationsNode : undefined,
    });
  }
  return tools;
}

function isNameArg(node: Node): boolean {
  return (
    Node.isStringLiteral(node) ||
    Node.isNoSubstitutionTemplateLiteral(node) ||
    Node.isIdentifier(node) ||
    Node.isPropertyAccessExpression(node)
  );
}
