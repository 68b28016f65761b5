// Servers a package builds (`await createConnection(…)` from `@playwright/mcp`) that the project serves per connection,
// and what moving each behind a handle needs to know (the plan package-server-handles reads from the finding).
import { Node, SyntaxKind, ts, type CallExpression, type Identifier, type SourceFile, type VariableDeclaration } from 'ts-morph';
import { identifiersReferringTo, nodesOfKind } from './node-index';
import { connectCalls } from './endpoints/sites';
import { resolveOrigin } from './resolve';
import { isMcpModule } from './sdk-modules';
import { handlerFactoryResults } from './handler-factories';
import { spanOf, unwrapExpression } from './endpoints/spans';
import type { FileFacts } from './file-facts';
import type { Span } from './endpoints/model';

/** What the session-state rule puts on a package server's finding (`data.packageServer`). */
export interface PackageServerPlan {
  factory: string;
  module: string;
  call: Span;
  /** Names the call's arguments take from the function around it. */
  requestNames: string[];
  /** Members the code uses on the variable that holds the server (`*`: any other use). */
  uses: string[];
}

/**
 * `const server = await createConnection(…)` from another package (not the MCP SDK, not the project), then
 * `server.connect(transport)` per connection, or the server a `createMcpHandler` factory returns (what a migration to
 * 2026-07-28 writes): the package's factory decides what each server owns.
 */
export function packageServerFactories(facts: FileFacts, sourceFile: SourceFile): PackageServerCall[] {
  const found: PackageServerCall[] = [];
  const served = [...connectCalls(facts, sourceFile).map((c) => c.server), ...handlerFactoryResults(sourceFile).map((r) => r.result)];
  for (const server of served) {
    let init: Node | undefined = unwrapAwait(server);
    let variable: VariableDeclaration | undefined;
    if (Node.isIdentifier(init)) {
      const declaration = init.getSymbol()?.getDeclarations()[0];
      variable = declaration && Node.isVariableDeclaration(declaration) ? declaration : undefined;
      init = unwrapAwait(variable?.getInitializer());
    }
    if (!init || !Node.isCallExpression(init) || found.some((f) => f.call === init)) continue;
    const origin = resolveOrigin(init.getExpression());
    // A package name (`@playwright/mcp`), not a project file (relative or resolved to a path, or through a path
    // alias no package name can start with: `@/lib/server`, `~/lib/server`, `#lib/server`) or a `node:` builtin.
    if (!origin || /^(?:[./]|[@~]\/|#)|:/.test(origin.module) || isMcpModule(origin.module)) continue;
    found.push({ call: init, factory: origin.name, module: origin.module, variable });
  }
  return found;
}

export interface PackageServerCall {
  call: CallExpression;
  factory: string;
  module: string;
  /** The variable that holds the server (`const server = await createConnection(…)`), if any. */
  variable?: VariableDeclaration;
}

/**
 * What `--unsafe` needs to give each handle its own package server: the call, the names its arguments take from
 * the function around it (a handle's server is opened outside any request), and what the code does with the server
 * besides (each member used on its variable; `*` for any other use).
 */
export function packageServerPlan(found: PackageServerCall, relPath: string): PackageServerPlan {
  const argumentNames = found.call.getArguments().flatMap((a) => [a, ...a.getDescendantsOfKind(SyntaxKind.Identifier)]);
  const requestNames = [...new Set(argumentNames.filter((n) => Node.isIdentifier(n) && declaredInFunction(n)).map((n) => n.getText()))];
  const uses = new Set<string>();
  const symbol = found.variable?.getNameNode().getSymbol();
  const scope = found.variable?.getFirstAncestor((a) => Node.isBlock(a) || Node.isSourceFile(a));
  for (const identifier of scope ? identifiersReferringTo(scope, symbol) : []) {
    if (identifier === found.variable?.getNameNode()) continue;
    const parent = identifier.getParent();
    uses.add(Node.isPropertyAccessExpression(parent) && parent.getExpression() === identifier ? parent.getName() : '*');
  }
  return {
    factory: found.factory,
    module: found.module,
    call: spanOf(found.call, () => relPath),
    requestNames,
    uses: [...uses].sort(),
  };
}

/** A value the identifier reads is declared inside a function (not at module level, not a property's name). */
function declaredInFunction(identifier: Identifier): boolean {
  const parent = identifier.getParent();
  if ((Node.isPropertyAssignment(parent) || Node.isPropertyAccessExpression(parent)) && parent.getNameNode() === identifier) return false;
  const symbol = Node.isShorthandPropertyAssignment(parent)
    ? identifier.getProject().getTypeChecker().compilerObject.getShorthandAssignmentValueSymbol(parent.compilerNode)
    : identifier.getSymbol()?.compilerSymbol;
  return (symbol?.getDeclarations() ?? []).some((d) => ts.findAncestor(d, (a) => ts.isFunctionLike(a)) !== undefined);
}

function unwrapAwait(node: Node | undefined): Node | undefined {
  return node && unwrapExpression(node);
}
