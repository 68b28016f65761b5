// A shared server built in a function that hands it out inside an object (`return { server, start }`), and
// configured by the callers (`const { server, start } = createApp(); server.tool(…); start();`) before the function's
// own transport code connects it. Every way the returned server can travel is followed — object properties, locals,
// destructuring, returns and the calls of the functions that return it —, and it may only end in statements that
// configure it right after the call that returned it (they become a registration callback the factory runs on every
// server it builds) or in uses one kept instance serves (`close()`). Anything else stops the hoist, named.
import { Node, SyntaxKind, type CallExpression, type VariableDeclaration } from 'ts-morph';
import type { RegistrationSite, ServerRegistrations } from './model';
import {
  contains,
  firstLine,
  freeName,
  functionNameNode,
  isFunctionNode,
  referencesTo,
  spanOf,
  statementOf,
  type FunctionNode,
  type RelPathOf,
} from './spans';

/** How deep the flow of the returned server is followed (wrappers, locals, returns, calls). */
const MAX_DEPTH = 16;

export interface ReturnedServer {
  registrations: ServerRegistrations;
  /** The uses of the server this accounts for (the wrappers that return it). */
  handled: Node[];
}

/**
 * The registrations of a server declared in a function body and handed out in an object; `undefined` when it is not
 * handed out so; the reason when its flow cannot be followed or ends where a factory cannot reach it.
 * `keepsOnly` says whether a use works with one instance the factory made (`server.close()`); `isSetup` whether a
 * statement only configures the server an expression reads.
 */
export function returnedServerOf(
  declaration: VariableDeclaration,
  elsewhere: Node[],
  keepsOnly: (use: Node) => boolean,
  isSetup: (statement: Node, server: Node) => boolean,
  relPath: RelPathOf,
): ReturnedServer | string | undefined {
  const builder = declaration.getVariableStatement()?.getParent()?.getParent();
  if (!isFunctionNode(builder)) return undefined;
  const wrappers = elsewhere.filter((use) => contains(builder, use) && inObjectLiteral(use));
  if (wrappers.length === 0) return undefined;
  const name = declaration.getName();
  const todo = `; register everything on it in one callback that \`${builderName(builder) ?? 'its function'}\` runs on each server it builds, then build one server per request`;
  const flow: Flow = { builder, calls: new Set(), ends: new Set(), seen: new Set() };
  for (const wrapper of wrappers) {
    const stopped = follow(wrapper, [], 0, flow);
    if (stopped) return `\`${name}\` is handed out by \`${builderName(builder) ?? 'its function'}\` and ${stopped}${todo}`;
  }
  const sites = new Map<CallExpression, { statements: Set<Node>; references: Node[]; binding?: Node }>();
  for (const end of flow.ends) {
    if (keepsOnly(end)) continue;
    const statement = statementOf(end);
    const call =
      statement && Node.isExpressionStatement(statement) && isSetup(statement, end) ? callReturning(end, statement, flow) : undefined;
    if (!call)
      return `\`${name}\` is handed out by \`${builderName(builder) ?? 'its function'}\` and used in \`${firstLine(statement ?? end)}\`, which does not only configure it right after the call that returned it${todo}`;
    const site = sites.get(call) ?? { statements: new Set<Node>(), references: [] };
    site.statements.add(statement!);
    site.references.push(end);
    sites.set(call, site);
  }
  if (sites.size === 0) return undefined;
  const type = parameterType(declaration);
  if (type === null)
    return `\`${name}\` is handed out by \`${builderName(builder) ?? 'its function'}\`, and its type cannot be written in the callback that replaces the caller's registrations`;
  const parameters = builder.getParameters();
  if (parameters.some((p) => Node.isParameterDeclaration(p) && p.isRestParameter()))
    return `\`${builderName(builder) ?? 'the function that hands out the server'}\` takes a rest parameter: a registration callback cannot follow it`;
  const written: RegistrationSite[] = [];
  for (const [call, site] of sites) {
    const made = registrationSite(call, site, relPath);
    if (typeof made === 'string')
      return `\`${name}\` is configured by the caller of \`${builderName(builder) ?? 'its function'}\`, but ${made}`;
    written.push(made);
  }
  return {
    registrations: {
      builder: spanOf(builder, relPath),
      parameter: freeName('register', [builder.getSourceFile()]),
      index: parameters.length,
      ...(type ? { type } : {}),
      // (a required parameter cannot follow an optional one)
      required:
        [...flow.calls].every((call) => sites.has(call)) &&
        !parameters.some((p) => Node.isParameterDeclaration(p) && (p.isOptional() || p.hasInitializer())),
      sites: written.sort((a, b) => a.call.file.localeCompare(b.call.file) || a.call.start - b.call.start),
    },
    handled: [...wrappers, ...flow.ends],
  };
}

interface Flow {
  builder: FunctionNode;
  /** The calls of the builder the server comes out of. */
  calls: Set<CallExpression>;
  /** Expressions that evaluate to the server itself. */
  ends: Set<Node>;
  /** Places followed already, with the path the server sits at. */
  seen: Set<string>;
}

function inObjectLiteral(use: Node): boolean {
  const parent = use.getParent();
  return Node.isShorthandPropertyAssignment(parent) || (Node.isPropertyAssignment(parent) && parent.getInitializer() === use);
}

/**
 * Follows the value of `node`, in which the server sits at `path` (`['server']`: the value is `{ server, … }`), and
 * collects the expressions that evaluate to the server; returns why it cannot be followed.
 */
function follow(node: Node, path: string[], depth: number, flow: Flow): string | undefined {
  if (depth > MAX_DEPTH) return 'travels too far to be followed';
  // (references of a destructured binding lead back to the property it came from: each place is followed once)
  const key = `${path.join('.')}@${node.getSourceFile().getFilePath()}:${node.getStart()}`;
  if (flow.seen.has(key)) return undefined;
  flow.seen.add(key);
  let value = node;
  let parent = value.getParent();
  while (
    Node.isParenthesizedExpression(parent) ||
    Node.isAsExpression(parent) ||
    Node.isNonNullExpression(parent) ||
    Node.isSatisfiesExpression(parent)
  ) {
    value = parent;
    parent = value.getParent();
  }
  if (Node.isShorthandPropertyAssignment(parent) || (Node.isPropertyAssignment(parent) && parent.getInitializer() === value))
    return follow(parent.getParentOrThrow(), [parent.getName(), ...path], depth + 1, flow);
  if (path.length === 0) {
    flow.ends.add(value);
    return undefined;
  }
  if (Node.isPropertyAccessExpression(parent) && parent.getExpression() === value)
    return parent.getName() === path[0] ? follow(parent, path.slice(1), depth + 1, flow) : undefined;
  if (Node.isVariableDeclaration(parent) && parent.getInitializer() === value) return followDeclaration(parent, path, depth, flow);
  if (Node.isReturnStatement(parent)) {
    const fn = parent.getFirstAncestor((a) => isFunctionNode(a));
    return fn ? followCalls(fn as FunctionNode, path, depth, flow) : 'is returned outside a function';
  }
  if (Node.isArrowFunction(parent) && parent.getBody() === value) return followCalls(parent, path, depth, flow);
  if (Node.isExpressionStatement(parent)) return undefined;
  return `is handed on in \`${firstLine(statementOf(value) ?? value)}\``;
}

/** `const instance = { server }` (its references), `const { server, start } = createApp()` (the binding's). */
function followDeclaration(declaration: VariableDeclaration, path: string[], depth: number, flow: Flow): string | undefined {
  const name = declaration.getNameNode();
  if (Node.isIdentifier(name)) return followAll(valueReferences(name), path, depth, flow);
  if (!Node.isObjectBindingPattern(name)) return `is destructured in \`${firstLine(declaration)}\``;
  for (const element of name.getElements()) {
    if (element.getDotDotDotToken()) return `is gathered by \`...${element.getName()}\` in \`${firstLine(declaration)}\``;
    const property = element.getPropertyNameNode()?.getText() ?? element.getName();
    if (property !== path[0]) continue;
    const binding = element.getNameNode();
    if (!Node.isIdentifier(binding)) return `is destructured further in \`${firstLine(declaration)}\``;
    const stopped = followAll(valueReferences(binding), path.slice(1), depth, flow);
    if (stopped) return stopped;
  }
  return undefined;
}

function followAll(references: Node[], path: string[], depth: number, flow: Flow): string | undefined {
  for (const reference of references) {
    const stopped = follow(reference, path, depth + 1, flow);
    if (stopped) return stopped;
  }
  return undefined;
}

/** The value a function returns: at each of its calls, wherever the function itself is passed (returned in a wrapper). */
function followCalls(fn: FunctionNode, path: string[], depth: number, flow: Flow): string | undefined {
  const nameNode = functionNameNode(fn);
  if (!nameNode) return 'is returned by a function without a name';
  const functionFlow: Flow = { ...flow, ends: new Set() };
  for (const reference of valueReferences(nameNode)) {
    const parent = reference.getParent();
    if (Node.isCallExpression(parent) && parent.getExpression() === reference) {
      functionFlow.ends.add(reference);
      continue;
    }
    if (Node.isImportSpecifier(parent) || Node.isExportSpecifier(parent)) continue;
    const stopped = follow(reference, [], depth + 1, functionFlow);
    if (stopped) return stopped;
  }
  for (const end of functionFlow.ends) {
    const call = end.getParent();
    if (!Node.isCallExpression(call) || call.getExpression() !== end)
      return `the function \`${nameNode.getText()}\` that returns it is handed on in \`${firstLine(statementOf(end) ?? end)}\``;
    if ((fn as Node) === flow.builder) flow.calls.add(call);
    const stopped = follow(call, path, depth + 1, flow);
    if (stopped) return stopped;
  }
  return undefined;
}

/** The references that read the value (not a property signature of a type that names it). */
function valueReferences(nameNode: Node): Node[] {
  return referencesTo(nameNode).filter((r) => !Node.isPropertySignature(r.getParent()) && !r.getFirstAncestor((a) => Node.isTypeNode(a)));
}

function builderName(builder: FunctionNode): string | undefined {
  return functionNameNode(builder)?.getText();
}

/**
 * The call of the builder a configuring statement's server came out of: the statement reads a local that a
 * declaration before it, in the same statement list, took from that call.
 */
function callReturning(end: Node, statement: Node, flow: Flow): CallExpression | undefined {
  let root = end;
  while (Node.isPropertyAccessExpression(root)) root = root.getExpression();
  if (!Node.isIdentifier(root)) return undefined;
  const declared = root.getSymbol()?.getDeclarations()[0];
  const holder = declared && statementOf(declared);
  if (!holder || holder.getParent() !== statement.getParent() || holder.getEnd() > statement.getStart()) return undefined;
  return [...flow.calls].find((call) => contains(holder, call));
}

/** `McpServer` for `new McpServer(…)` or a written annotation; `undefined` in JavaScript; `null` when it has none. */
function parameterType(declaration: VariableDeclaration): string | undefined | null {
  if (!/\.[cm]?tsx?$/.test(declaration.getSourceFile().getFilePath())) return undefined;
  const annotation = declaration.getTypeNode()?.getText();
  if (annotation) return annotation;
  const init = declaration.getInitializer();
  const made = init && Node.isNewExpression(init) ? init.getExpression() : undefined;
  return made && (Node.isIdentifier(made) || Node.isPropertyAccessExpression(made)) ? made.getText() : null;
}

/** The site's statements move into a callback passed to the call; what they use must exist when it first runs. */
function registrationSite(
  call: CallExpression,
  site: { statements: Set<Node>; references: Node[] },
  relPath: RelPathOf,
): RegistrationSite | string {
  const statements = [...site.statements].sort((a, b) => a.getStart() - b.getStart());
  const callStatement = statementOf(call)!;
  for (const statement of statements)
    for (const id of statement.getDescendantsOfKind(SyntaxKind.Identifier)) {
      const declared = id.getSymbol()?.getDeclarations()[0];
      const holder = declared && Node.isVariableDeclaration(declared) ? statementOf(declared) : undefined;
      if (
        holder &&
        holder.getSourceFile() === call.getSourceFile() &&
        holder.getStart() > callStatement.getStart() &&
        !contains(statement, holder)
      )
        return `\`${firstLine(statement)}\` uses \`${id.getText()}\`, declared after the call`;
    }
  const identifiers = new Set(site.references.map((r) => (Node.isIdentifier(r) ? r.getText() : '')));
  const single = identifiers.size === 1 ? [...identifiers][0] : '';
  const parameter = single || freeName('server', [call.getSourceFile()]);
  return {
    call: spanOf(call, relPath),
    arguments: call.getArguments().length,
    parameter,
    setup: statements.map((s) => spanOf(s, relPath)),
    references: site.references.filter((r) => r.getText() !== parameter).map((r) => spanOf(r, relPath)),
    ...(single ? bindingOf(site.references[0], site.references, relPath) : {}),
  };
}

/** `server` in `const { server, start } = …`, when the site's statements are all that read it. */
function bindingOf(reference: Node, references: Node[], relPath: RelPathOf): { binding?: ReturnType<typeof spanOf> } {
  const declared = reference.getSymbol()?.getDeclarations()[0];
  if (!declared || !Node.isBindingElement(declared)) return {};
  const pattern = declared.getParent();
  if (!Node.isObjectBindingPattern(pattern) || pattern.getElements().length < 2) return {};
  const reads = valueReferences(declared.getNameNode()).filter(
    (r) => r.getSourceFile() === declared.getSourceFile() && !Node.isBindingElement(r.getParent()),
  );
  return reads.every((r) => references.includes(r)) ? { binding: spanOf(declared, relPath) } : {};
}
