// State made afresh for each server (in a per-session factory) or each request or connection (a route handler, the
// factory handed to `createMcpHandler`) and handed to a function of the project whose tools change it.
import { descendantsOfKind, nodesOfKind } from '../node-index';
import { Node, SyntaxKind, type CallExpression, type SourceFile } from 'ts-morph';
import type { FileFacts } from '../file-facts';
import { toolRegistrations } from '../tools';
import { isFunctionNode, type FunctionNode } from '../endpoints/spans';
import { requestHandlers, toolMutating, type StateHandler } from './handlers';
import { servesPerRequest } from './factories';

/**
 * A value the factory makes afresh (`new Conversation()`, a literal, or a local initialised with one) and hands to a
 * function of the project that registers tools (`registerChatTools(server, new Conversation())`), whose tools change
 * the parameter it arrives in.
 */
export function stateHandedToHelpers(
  factoryBody: Node,
  tools: readonly StateHandler[],
): Array<{ made: Node; helper: string; mutatedIn: string }> {
  const found: Array<{ made: Node; helper: string; mutatedIn: string }> = [];
  for (const call of descendantsOfKind(factoryBody, SyntaxKind.CallExpression)) {
    if (call.getFirstAncestor((a) => a === factoryBody || isFunctionNode(a)) !== factoryBody) continue;
    const helper = calledFunction(call);
    if (!helper) continue;
    const helperTools = tools.filter((t) => !!t.handler && helper.node.containsRange(t.handler.getPos(), t.handler.getEnd()));
    if (helperTools.length === 0) continue;
    call.getArguments().forEach((argument, index) => {
      const parameter = helper.node.getParameters()[index];
      const made = parameter && madeAfresh(argument, factoryBody);
      const mutatedIn = made && toolMutating(parameter, helperTools);
      if (mutatedIn && !found.some((f) => f.made === made)) found.push({ made, helper: helper.name, mutatedIn });
    });
  }
  return found;
}

/**
 * Calls, in a function that serves a request or a connection — an endpoint's request region, a route handler, the
 * factory handed to `createMcpHandler` — but not in a function that builds the server itself (the factory case
 * above), of a project function that registers tools, with a value made afresh there (`buildServer([])`,
 * `createServer(new Session())`, `const basket = []; buildServer(basket)`) that a tool of that function changes.
 */
export function stateHandedPerRequest(
  facts: FileFacts,
  sourceFile: SourceFile,
  localTools: readonly StateHandler[],
): Array<{ made: Node; helper: string; mutatedIn: string }> {
  const found: Array<{ made: Node; helper: string; mutatedIn: string }> = [];
  const factories = new Set(facts.constructions('McpServer').map((c) => c.getFirstAncestor((a) => isFunctionNode(a))));
  for (const call of nodesOfKind(sourceFile, SyntaxKind.CallExpression)) {
    const caller = call.getFirstAncestor((a) => isFunctionNode(a));
    if (!caller || factories.has(caller)) continue;
    const body = caller.getBody();
    if (!body) continue;
    const helper = calledFunction(call);
    if (!helper) continue;
    const helperFile = helper.node.getSourceFile();
    const tools =
      helperFile === sourceFile
        ? localTools
        : [
            ...toolRegistrations(helperFile).map((t) => ({ name: `tool \`${t.name}\``, handler: t.handler })),
            ...requestHandlers(helperFile).map(({ method, handler }) => ({ name: `the \`${method}\` handler`, handler })),
          ];
    const helperTools = tools.filter((t) => !!t.handler && helper.node.containsRange(t.handler.getPos(), t.handler.getEnd()));
    if (helperTools.length === 0 || !servesPerRequest(call, caller, facts)) continue;
    call.getArguments().forEach((argument, index) => {
      const parameter = helper.node.getParameters()[index];
      const made = parameter && (madeAfresh(argument, body) ?? madeInServingFunction(argument, caller, facts));
      const mutatedIn = made && toolMutating(parameter, helperTools);
      if (mutatedIn && !found.some((f) => f.made === made)) found.push({ made, helper: helper.name, mutatedIn });
    });
  }
  return found;
}

/**
 * `const basket = []` in a route handler around `createMcpHandler(() => buildServer(basket))`: made afresh in an
 * enclosing function that itself serves each request (a variable of a function run once is shared, not lost).
 */
function madeInServingFunction(argument: Node, caller: FunctionNode, facts: FileFacts): Node | undefined {
  const declaration = Node.isIdentifier(argument) ? argument.getSymbol()?.getDeclarations()[0] : undefined;
  if (!Node.isVariableDeclaration(declaration)) return undefined;
  const owner = declaration.getFirstAncestor((a) => isFunctionNode(a));
  const body = owner?.getBody();
  if (!owner || !body || !owner.containsRange(caller.getPos(), caller.getEnd())) return undefined;
  return servesPerRequest(declaration, owner, facts) ? madeAfresh(argument, body) : undefined;
}

/** The project function a call runs, when the callee names one (`registerChatTools(…)`). */
function calledFunction(call: CallExpression): { node: FunctionNode; name: string } | undefined {
  const callee = call.getExpression();
  if (!Node.isIdentifier(callee)) return undefined;
  const symbol = callee.getSymbol();
  const declaration = (symbol?.isAlias() ? symbol.getAliasedSymbol() : symbol)?.getDeclarations()[0];
  const fn = Node.isVariableDeclaration(declaration) ? declaration.getInitializer() : declaration;
  if (!isFunctionNode(fn) || fn.getSourceFile().isFromExternalLibrary() || fn.getSourceFile().isDeclarationFile()) return undefined;
  return { node: fn, name: callee.getText() };
}

/** `new X()`, an object or array literal, or a variable of the factory initialised with one (its declaration). */
function madeAfresh(argument: Node, factoryBody: Node): Node | undefined {
  const fresh = (node: Node | undefined) =>
    !!node && (Node.isNewExpression(node) || Node.isObjectLiteralExpression(node) || Node.isArrayLiteralExpression(node));
  if (fresh(argument)) return argument;
  const declaration = Node.isIdentifier(argument) ? argument.getSymbol()?.getDeclarations()[0] : undefined;
  const local = Node.isVariableDeclaration(declaration) && factoryBody.containsRange(declaration.getPos(), declaration.getEnd());
  return local && fresh(declaration.getInitializer()) ? declaration : undefined;
}
