// The functions that hold a session's state in their hands: tool handlers and low-level request handlers, where a
// handler takes its context, and which of them change a variable.
import { nodesOfKind, identifiersUnder } from '../node-index';
import { Node, SyntaxKind, type SourceFile } from 'ts-morph';
import { resolveHandler, staticString } from '../routes';
import { toolAnnotationsArgument, type ToolRegistration } from '../tools';
import { callChangesVariable, changedAt, isFreshContainer } from '../state-changes';

/** A tool or request handler, with how findings name it (`tool \`add\``, `the \`tools/call\` handler`). */
export interface StateHandler {
  name: string;
  handler?: Node;
}

/** Every tool of the file and every low-level request handler, named for findings. */
export function stateHandlers(tools: readonly ToolRegistration[], sourceFile: SourceFile): StateHandler[] {
  return [
    ...tools.map((t) => ({ name: `tool \`${t.name}\``, handler: t.handler })),
    ...requestHandlers(sourceFile).map(({ method, handler }) => ({ name: `the \`${method}\` handler`, handler })),
  ];
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

/** Low-level `server.setRequestHandler(Schema | 'method', handler)` registrations. */
export function requestHandlers(sourceFile: SourceFile): Array<{ method: string; handler: Node }> {
  const result: Array<{ method: string; handler: Node }> = [];
  for (const call of nodesOfKind(sourceFile, SyntaxKind.CallExpression)) {
    const callee = call.getExpression();
    if (!Node.isPropertyAccessExpression(callee) || callee.getName() !== 'setRequestHandler') continue;
    const [method, handlerArg] = call.getArguments();
    const handler = resolveHandler(handlerArg);
    if (method && handler) result.push({ method: staticString(method) ?? method.getText(), handler });
  }
  return result;
}

/** Description of a tool or request handler that mutates the variable (assigns it, or calls a mutating method on it). */
export function toolMutating(variable: Node, tools: readonly StateHandler[]): string | undefined {
  if (!(Node.isVariableDeclaration(variable) || Node.isParameterDeclaration(variable)) || !Node.isIdentifier(variable.getNameNode()))
    return undefined;
  const symbol = variable.getSymbol();
  const name = variable.getName();
  // A container made here (`{ history: [] }`, `new Map()`) handed to code the analysis cannot read may be changed there.
  const unreadable = Node.isVariableDeclaration(variable) && isFreshContainer(variable.getInitializer());
  for (const tool of tools) {
    if (!tool.handler) continue;
    for (const id of identifiersUnder(tool.handler)) {
      if (id.getText() === name && id.getSymbol() === symbol && changedAt(id, 0, unreadable)) return tool.name;
    }
    // (through a function the tool calls by name: `setUnit(args.unit)`, a local setter of the factory)
    if (tool.handler.getDescendantsOfKind(SyntaxKind.CallExpression).some((call) => callChangesVariable(call, symbol))) return tool.name;
  }
  return undefined;
}
