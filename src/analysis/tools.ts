// Every MCP tool registration form: `server.tool(...)` overloads, `registerTool(name, config, cb)`,
// fastmcp `addTool({...})`, and tool literals returned by a low-level `tools/list` handler.
import { nodesOfKind } from './node-index';
import { Node, SyntaxKind, type CallExpression, type ObjectLiteralExpression, type SourceFile } from 'ts-morph';
import { isFunctionLike, resolveHandler, staticString } from './routes';
import { otherReferencesOf } from './references';
import { mcpModulesOf } from './sdk-modules';

import { ANNOTATION_KEYS } from './tool-annotations';

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
  return Node.isObjectLiteralExpression(node) && isAnnotationsObject(node);
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

/** Methods a server registers tools, prompts, resources and request handlers with. */
const REGISTRATION_METHODS = new Set([
  'tool',
  'registerTool',
  'prompt',
  'registerPrompt',
  'resource',
  'registerResource',
  'setRequestHandler',
]);

/**
 * A module that imports nothing MCP but registers on a server its caller passes in (`export function
 * registerTools(server) { server.tool(…) }`, in JavaScript or with `server: any`): some call of that function, in a
 * file that imports an MCP module, hands it the server. Its registrations are tools like any other.
 */
export function registersOnPassedServer(file: SourceFile): boolean {
  return passedServerCallers(file, 1).length > 0;
}

/** The files that import an MCP module and call one of this module's functions that register on a passed server. */
export function passedServerCallers(file: SourceFile, enough = Infinity): SourceFile[] {
  const callers = new Set<SourceFile>();
  const asked = new Set<Node>();
  for (const call of nodesOfKind(file, SyntaxKind.CallExpression)) {
    const callee = call.getExpression();
    if (!Node.isPropertyAccessExpression(callee) || !REGISTRATION_METHODS.has(callee.getName())) continue;
    const receiver = callee.getExpression();
    const parameter = Node.isIdentifier(receiver) ? receiver.getSymbol()?.getDeclarations().find(Node.isParameterDeclaration) : undefined;
    const name = parameter && functionNameOf(parameter.getParent());
    if (!name || asked.has(name)) continue;
    asked.add(name);
    for (const reference of otherReferencesOf(name)) {
      const caller = callingMcpFile(reference);
      if (caller) callers.add(caller);
    }
    if (callers.size >= enough) break;
  }
  return [...callers];
}

/** The name node of a function declaration, or of the variable a function expression is assigned to. */
function functionNameOf(fn: Node): Node | undefined {
  if (Node.isFunctionDeclaration(fn)) return fn.getNameNode();
  const holder = fn.getParent();
  return (Node.isArrowFunction(fn) || Node.isFunctionExpression(fn)) && Node.isVariableDeclaration(holder)
    ? holder.getNameNode()
    : undefined;
}

/** The file of a call `registerTools(server)` or `tools.registerTools(server)`, when it imports an MCP module. */
function callingMcpFile(reference: Node): SourceFile | undefined {
  const access = reference.getParent();
  const callee = Node.isPropertyAccessExpression(access) && access.getNameNode() === reference ? access : reference;
  const call = callee.getParent();
  if (!Node.isCallExpression(call) || call.getExpression() !== callee) return undefined;
  const file = call.getSourceFile();
  return mcpModulesOf(file).length > 0 ? file : undefined;
}

/**
 * The official codemod moves `.tool()` calls on a receiver it types as an `McpServer`: not in JavaScript, nor on a
 * server declared `any` or `unknown` (`function register(server: any)`).
 */
export function codemodCannotTypeReceiver(call: CallExpression): boolean {
  const callee = call.getExpression();
  if (!Node.isPropertyAccessExpression(callee)) return false;
  if (/\.[cm]?jsx?$/.test(call.getSourceFile().getFilePath())) return true;
  const receiver = callee.getExpression();
  if (!Node.isIdentifier(receiver)) return false;
  return (receiver.getSymbol()?.getDeclarations() ?? []).some((declaration) => {
    const type =
      Node.isParameterDeclaration(declaration) || Node.isVariableDeclaration(declaration) ? declaration.getTypeNode() : undefined;
    return !!type && /^(?:any|unknown)$/.test(type.getText());
  });
}

export function toolRegistrations(file: SourceFile): ToolRegistration[] {
  const tools: ToolRegistration[] = [];
  for (const call of nodesOfKind(file, SyntaxKind.CallExpression)) {
    const callee = call.getExpression();
    if (!Node.isPropertyAccessExpression(callee)) continue;
    const method = callee.getName();
    const args = call.getArguments();
    if (method === 'tool' && args.length >= 2 && !isLocalObject(callee.getExpression())) {
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

/** A variable holding an object literal written here (`const shelf = { tool: … }`): its own `tool` is not a server's. */
function isLocalObject(receiver: Node): boolean {
  if (!Node.isIdentifier(receiver)) return false;
  const declarations = receiver.getSymbol()?.getDeclarations() ?? [];
  return (
    declarations.length > 0 &&
    declarations.every((d) => Node.isVariableDeclaration(d) && Node.isObjectLiteralExpression(withoutWrappers(d.getInitializer())))
  );
}

function isNameArg(node: Node): boolean {
  return (
    Node.isStringLiteral(node) ||
    Node.isNoSubstitutionTemplateLiteral(node) ||
    Node.isIdentifier(node) ||
    Node.isPropertyAccessExpression(node)
  );
}

/**
 * The config object of a registration that takes one (`registerTool(name, config, cb)`, fastmcp's `addTool(config)`,
 * a `tools/list` literal entry), as written; undefined when the call has none.
 */
export function toolConfigArgument(tool: ToolRegistration): Node | undefined {
  if (tool.form === 'list-literal') return tool.node;
  return Node.isCallExpression(tool.node) ? tool.node.getArguments()[tool.form === 'addTool' ? 0 : 1] : undefined;
}

/**
 * For the `server.tool(name, [description], [schema], [annotations], cb)` overloads: the argument holding the
 * annotations (the last object before the callback whose keys are all annotation keys and whose values are not schemas),
 * `undefined` when there is none, `'unknown'` when an argument that may hold them cannot be read.
 */
export function toolAnnotationsArgument(tool: ToolRegistration): { node: Node; object: ObjectLiteralExpression } | undefined | 'unknown' {
  if (tool.form !== 'tool' || !Node.isCallExpression(tool.node)) return undefined;
  const middle = tool.node
    .getArguments()
    .slice(1, tool.callbackIndex)
    .filter((arg) => !Node.isStringLiteral(arg) && !Node.isNoSubstitutionTemplateLiteral(arg) && !Node.isTemplateExpression(arg));
  const last = middle[middle.length - 1];
  if (!last) return undefined;
  const object = resolveObject(last, 0);
  if (object && isAnnotationsObject(object)) return { node: last, object };
  // (name, schema, X, cb): X can only be annotations.
  if (!object && middle.length >= 2) return 'unknown';
  return undefined;
}

/**
 * Every key is an annotation key and no value is a validator (a schema's values are `z.string()`, `{ type: 'string' }`;
 * an annotation's are booleans and strings); a spread counts when it holds such an object or cannot be read.
 */
export function isAnnotationsObject(object: ObjectLiteralExpression): boolean {
  const properties = object.getProperties();
  if (properties.length === 0) return false;
  return properties.every((property) => {
    if (Node.isSpreadAssignment(property)) {
      const spread = resolveObject(property.getExpression(), 1);
      return !spread || isAnnotationsObject(spread);
    }
    if (Node.isShorthandPropertyAssignment(property)) return ANNOTATION_KEYS.has(property.getName());
    if (!Node.isPropertyAssignment(property) || !ANNOTATION_KEYS.has(property.getName())) return false;
    // A schema's values are validators (`z.string()`, `{ type: 'string' }`); an annotation's are booleans and strings.
    const value = withoutWrappers(property.getInitializer());
    return !!value && !Node.isCallExpression(value) && !Node.isObjectLiteralExpression(value) && !Node.isPropertyAccessExpression(value);
  });
}

/** Strip parentheses, `as`, `satisfies` and `!` around an expression. */
export function withoutWrappers(node: Node | undefined): Node | undefined {
  let current = node;
  while (
    current &&
    (Node.isParenthesizedExpression(current) ||
      Node.isAsExpression(current) ||
      Node.isSatisfiesExpression(current) ||
      Node.isNonNullExpression(current))
  ) {
    current = current.getExpression();
  }
  return current;
}

const MAX_OBJECT_DEPTH = 6;

/** An object literal, or a variable (local or imported from a project file) initialised with one. */
export function resolveObject(node: Node, depth: number): ObjectLiteralExpression | undefined {
  const value = withoutWrappers(node);
  if (!value || depth > MAX_OBJECT_DEPTH) return undefined;
  if (Node.isObjectLiteralExpression(value)) return value;
  if (!Node.isIdentifier(value)) return undefined;
  const symbol = value.getSymbol();
  const target = symbol?.isAlias() ? symbol.getAliasedSymbol() : symbol;
  for (const declaration of target?.getDeclarations() ?? []) {
    if (Node.isVariableDeclaration(declaration)) {
      const initializer = declaration.getInitializer();
      if (initializer) return resolveObject(initializer, depth + 1);
    }
  }
  return undefined;
}

/** `server.tool(name, schema, addStop.bind(null, route))`: how many arguments the `.bind` hands the handler first. */
export function boundArguments(tool: ToolRegistration): number {
  if (!Node.isCallExpression(tool.node) || (tool.form !== 'tool' && tool.form !== 'registerTool')) return 0;
  const args = tool.node.getArguments();
  const callback = withoutWrappers(args[tool.form === 'tool' ? (tool.callbackIndex ?? args.length - 1) : 2]);
  if (!Node.isCallExpression(callback)) return 0;
  const callee = callback.getExpression();
  return Node.isPropertyAccessExpression(callee) && callee.getName() === 'bind' ? Math.max(0, callback.getArguments().length - 1) : 0;
}
