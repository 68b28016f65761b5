// The functions that hold a session's state in their hands: tool handlers and low-level request handlers, where a
// handler takes its context, and which of them change a variable.
import { descendantsOfKind, nodesOfKind, identifiersUnder } from '../node-index';
import { Node, SyntaxKind, type Identifier, type SourceFile } from 'ts-morph';
import { resolveHandler, staticString } from '../routes';
import { toolAnnotationsArgument, type ToolRegistration } from '../tools';
import type { FileFacts } from '../file-facts';
import { callChangesVariable, changedAt, isFreshContainer } from '../state-changes';

/** A tool or request handler, with how findings name it (`tool \`add\``, `the \`tools/call\` handler`). */
export interface StateHandler {
  name: string;
  handler?: Node;
}

/**
 * Every tool of the file, every low-level request handler, and the other callbacks a session's requests and
 * notifications run (prompts, resources, `setNotificationHandler`), named for findings: what any of them changes
 * in a per-session factory lives as long as the session.
 */
export function stateHandlers(tools: readonly ToolRegistration[], sourceFile: SourceFile, facts: FileFacts): StateHandler[] {
  return [
    ...tools.map((t) => ({ name: `tool \`${t.name}\``, handler: t.handler })),
    ...madeHandlers(tools, sourceFile),
    ...requestHandlers(sourceFile).map(({ method, handler }) => ({ name: `the \`${method}\` handler`, handler })),
    ...promptAndResourceHandlers(sourceFile, facts),
    ...requestHandlers(sourceFile, 'setNotificationHandler').map(({ method, handler }) => ({ name: `the \`${method}\` handler`, handler })),
  ];
}

/**
 * `server.tool(name, schema, makeHandler(name, store))`: a tool whose handler a call makes, which the analysis cannot
 * see into; the call stands for the handler, so what it is handed (`store`) and changes counts as what the tool changes.
 */
function madeHandlers(tools: readonly ToolRegistration[], sourceFile: SourceFile): StateHandler[] {
  const found: StateHandler[] = [];
  for (const call of nodesOfKind(sourceFile, SyntaxKind.CallExpression)) {
    const callee = call.getExpression();
    const form = Node.isPropertyAccessExpression(callee) ? callee.getName() : '';
    if (form !== 'tool' && form !== 'registerTool') continue;
    const args = call.getArguments();
    const callback = args[form === 'tool' ? args.length - 1 : 2];
    if (args.length < 2 || !callback || !Node.isCallExpression(callback)) continue;
    // (a handler read through `.bind(null, state)` still gets its state from the call that binds it)
    const binds = /\.bind$/.test(callback.getExpression().getText()) && callback.getArguments().length > 1;
    if (!binds && tools.some((t) => t.node === call && t.handler)) continue;
    found.push({ name: `tool \`${staticString(args[0]) ?? args[0].getText()}\``, handler: callback });
  }
  return found;
}

const PROMPT_OR_RESOURCE = /^(?:prompt|registerPrompt|resource|registerResource)$/;

/** `server.prompt(name, …, cb)`, `registerPrompt(name, config, cb)`, `server.resource(name, uri, …, cb)`, `registerResource(…)`. */
function promptAndResourceHandlers(sourceFile: SourceFile, facts: FileFacts): StateHandler[] {
  const found: StateHandler[] = [];
  for (const call of nodesOfKind(sourceFile, SyntaxKind.CallExpression)) {
    const callee = call.getExpression();
    const args = call.getArguments();
    if (!Node.isPropertyAccessExpression(callee) || !PROMPT_OR_RESOURCE.test(callee.getName()) || args.length < 2) continue;
    const handler = resolveHandler(args[args.length - 1]);
    const name = staticString(args[0]);
    // (an MCP server's, or one registered the way servers register them: not `inquirer.prompt(questions)`)
    if (!handler || (!facts.holds(callee.getExpression(), 'McpServer') && name === undefined)) continue;
    const kind = /prompt/i.test(callee.getName()) ? 'prompt' : 'resource';
    found.push({ name: `${kind} \`${name ?? args[0].getText()}\``, handler });
  }
  return found;
}

/**
 * Handlers and the index of their context parameter: `server.tool` / `registerTool` callbacks take it first when the
 * tool has no input schema and second otherwise; fastmcp `execute(args, context)` and `setRequestHandler(schema,
 * (request, extra) => …)` take it second.
 */
export function contextParameters(
  tools: readonly ToolRegistration[],
  sourceFile: SourceFile,
): Array<{ handler: Node; contextIndex: number }> {
  const result: Array<{ handler: Node; contextIndex: number }> = [];
  for (const tool of tools) {
    if (!tool.handler) continue;
    if (tool.form === 'addTool') result.push({ handler: tool.handler, contextIndex: 1 });
    else if (tool.form === 'registerTool')
      result.push({ handler: tool.handler, contextIndex: tool.config?.getProperty('inputSchema') ? 1 : 0 });
    else if (tool.form === 'tool' && Node.isCallExpression(tool.node)) {
      const annotations = toolAnnotationsArgument(tool);
      const middle = tool.node.getArguments().slice(1, tool.callbackIndex);
      const hasSchema = middle.some(
        (arg) =>
          !Node.isStringLiteral(arg) &&
          !Node.isNoSubstitutionTemplateLiteral(arg) &&
          (annotations === 'unknown' || arg !== annotations?.node),
      );
      result.push({ handler: tool.handler, contextIndex: hasSchema ? 1 : 0 });
    }
  }
  for (const { handler } of requestHandlers(sourceFile)) result.push({ handler, contextIndex: 1 });
  return result;
}

/** Low-level `server.setRequestHandler(Schema | 'method', handler)` registrations (or `setNotificationHandler`'s). */
export function requestHandlers(
  sourceFile: SourceFile,
  registration: 'setRequestHandler' | 'setNotificationHandler' = 'setRequestHandler',
): Array<{ method: string; handler: Node }> {
  const result: Array<{ method: string; handler: Node }> = [];
  for (const call of nodesOfKind(sourceFile, SyntaxKind.CallExpression)) {
    const callee = call.getExpression();
    if (!Node.isPropertyAccessExpression(callee) || callee.getName() !== registration) continue;
    const [method, handlerArg] = call.getArguments();
    const handler = resolveHandler(handlerArg);
    if (method && handler) result.push({ method: staticString(method) ?? method.getText(), handler });
  }
  return result;
}

/** Description of a tool or request handler that mutates the variable (assigns it, or calls a mutating method on it). */
export function toolMutating(variable: Node, tools: readonly StateHandler[]): string | undefined {
  if (!(Node.isVariableDeclaration(variable) || Node.isParameterDeclaration(variable))) return undefined;
  const name = variable.getNameNode();
  if (!Node.isIdentifier(name)) return undefined;
  // A container made here (`{ history: [] }`, `new Map()`) handed to code the analysis cannot read may be changed there.
  const unreadable = Node.isVariableDeclaration(variable) && isFreshContainer(variable.getInitializer());
  return handlerChanging(name, unreadable, tools);
}

/** The first handler that changes what the binding `name` declares holds, directly or through a function it calls. */
export function handlerChanging(name: Identifier, unreadable: boolean, tools: readonly StateHandler[]): string | undefined {
  const symbol = name.getSymbol();
  const text = name.getText();
  for (const tool of tools) {
    if (!tool.handler) continue;
    for (const id of identifiersUnder(tool.handler)) {
      if (id.getText() === text && id.getSymbol() === symbol && changedAt(id, 0, unreadable)) return tool.name;
    }
    // (through a function the tool calls by name: `setUnit(args.unit)`, a local setter of the factory)
    if (descendantsOfKind(tool.handler, SyntaxKind.CallExpression).some((call) => callChangesVariable(call, symbol))) return tool.name;
  }
  return undefined;
}

/** The names a destructuring pattern declares (`{ board, meta: { count } }`, `[items]`), nested patterns included. */
export function patternNames(pattern: Node): Identifier[] {
  if (!Node.isObjectBindingPattern(pattern) && !Node.isArrayBindingPattern(pattern)) return [];
  return pattern.getElements().flatMap((element) => {
    if (!Node.isBindingElement(element)) return [];
    const name = element.getNameNode();
    return Node.isIdentifier(name) ? [name] : patternNames(name);
  });
}
