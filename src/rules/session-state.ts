import { Node, SyntaxKind } from 'ts-morph';
import type { Rule } from './rule';
import { routeContextsOf } from '../analysis/routes';
import { enclosingFunction } from './shared';

const CONTEXT_PARAM = /^(?:extra|ctx|context|requestExtra|handlerExtra)$/;
const MUTATORS = /^(?:push|pop|shift|unshift|splice|set|delete|add|clear|sort|reverse|fill)$/;

export const sessionState: Rule = {
  meta: {
    id: 'session-state',
    title: 'Tool behaviour that depends on per-session state',
    severity: 'warning',
    fix: 'manual',
    doc:
      'Without protocol sessions every request may reach a fresh server, so state keyed by `extra.sessionId`, state captured ' +
      'in a per-session server factory, or an AsyncLocalStorage context entered per session silently resets. Revision ' +
      '2026-07-28 replaces hidden session state with explicit handles: a `create_*`/`open_*` tool returns an unguessable ' +
      'handle that later calls pass as an ordinary argument (§ "Stateful Tools", SEP-2567).',
    hint: 'Mint a handle in an `open_*` tool and pass it as a tool argument; keep the state in a store keyed by handle with a bounded lifetime.',
    sources: ['spec 2026-07-28 server/tools.mdx § Stateful Tools', 'spec 2026-07-28 changelog.mdx § Major changes 1 (SEP-2567)'],
  },
  check({ sourceFile, facts, report }) {
    if (!facts.importsMcp) return;
    const handlers = new Set(facts.tools.map((t) => t.handler).filter((h): h is Node => !!h));
    for (const access of sourceFile.getDescendantsOfKind(SyntaxKind.PropertyAccessExpression)) {
      if (access.getName() !== 'sessionId') continue;
      const object = access.getExpression();
      if (!Node.isIdentifier(object)) continue;
      const declaration = object.getSymbol()?.getDeclarations()[0];
      if (!declaration || !Node.isParameterDeclaration(declaration)) continue;
      const fn = declaration.getParent();
      const typed = /RequestHandlerExtra|ServerContext/.test(declaration.getTypeNode()?.getText() ?? '');
      if (!handlers.has(fn) && !typed && !CONTEXT_PARAM.test(object.getText())) continue;
      if (facts.holds(object, 'StreamableHTTPServerTransport') || facts.holds(object, 'SSEServerTransport')) continue;
      report(access, `Session state: the tool reads \`${access.getText()}\`, which is undefined once sessions are gone.`);
    }
    for (const construction of facts.constructions('McpServer')) {
      const factory = enclosingFunction(construction);
      if (!factory) continue;
      const body = (factory as Node & { getBody?(): Node | undefined }).getBody?.();
      if (!body || !Node.isBlock(body)) continue;
      for (const statement of body.getStatements()) {
        if (!Node.isVariableStatement(statement)) continue;
        for (const variable of statement.getDeclarations()) {
          const mutatedIn = toolMutating(variable, facts.tools.map((t) => ({ name: t.name, handler: t.handler })));
          if (mutatedIn) {
            report(variable, `Session state: \`${variable.getName()}\` lives in the per-session server factory and tool \`${mutatedIn}\` changes it; a fresh server per request loses it.`);
          }
        }
      }
    }
    for (const call of sourceFile.getDescendantsOfKind(SyntaxKind.CallExpression)) {
      const callee = call.getExpression();
      if (!Node.isPropertyAccessExpression(callee) || callee.getName() !== 'run') continue;
      const storage = callee.getExpression();
      const declaration = storage.getSymbol()?.getDeclarations()[0];
      const init = declaration && Node.isVariableDeclaration(declaration) ? declaration.getInitializer() : undefined;
      if (!init || !/^new\s+AsyncLocalStorage\b/.test(init.getText())) continue;
      if (routeContextsOf(call).length === 0) continue;
      report(call, 'Session state: an AsyncLocalStorage context is entered per request/session and read by tools.');
    }
  },
};

/** Name of a tool whose handler mutates the variable (assigns it, or calls a mutating method on it). */
function toolMutating(variable: Node, tools: Array<{ name: string; handler?: Node }>): string | undefined {
  if (!Node.isVariableDeclaration(variable) || !Node.isIdentifier(variable.getNameNode())) return undefined;
  const symbol = variable.getSymbol();
  const name = variable.getName();
  for (const tool of tools) {
    if (!tool.handler) continue;
    for (const id of tool.handler.getDescendantsOfKind(SyntaxKind.Identifier)) {
      if (id.getText() !== name || id.getSymbol() !== symbol) continue;
      const parent = id.getParent();
      if (Node.isBinaryExpression(parent) && parent.getLeft() === id && /=$/.test(parent.getOperatorToken().getText())) return tool.name;
      if ((Node.isPrefixUnaryExpression(parent) || Node.isPostfixUnaryExpression(parent)) && /\+\+|--/.test(parent.getText())) return tool.name;
      if (Node.isPropertyAccessExpression(parent) && parent.getExpression() === id) {
        const grand = parent.getParent();
        if (Node.isCallExpression(grand) && grand.getExpression() === parent && MUTATORS.test(parent.getName())) return tool.name;
        if (Node.isBinaryExpression(grand) && grand.getLeft() === parent && /=$/.test(grand.getOperatorToken().getText())) return tool.name;
      }
      if (Node.isElementAccessExpression(parent) && parent.getExpression() === id) {
        const grand = parent.getParent();
        if (Node.isBinaryExpression(grand) && grand.getLeft() === parent && /=$/.test(grand.getOperatorToken().getText())) return tool.name;
      }
    }
  }
  return undefined;
}
