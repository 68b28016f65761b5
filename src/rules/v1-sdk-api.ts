import { Node, SyntaxKind, type CallExpression, type SourceFile } from 'ts-morph';
import type { Rule } from './rule';
import type { FileFacts } from '../analysis/file-facts';
import { nodesOfKind } from '../analysis/node-index';
import { isFunctionLike, resolveHandler } from '../analysis/routes';
import { isV1SdkModule, isV2ServerModule, mcpModulesOf } from '../analysis/sdk-modules';
import { codemodCannotTypeReceiver, passedServerCallers } from '../analysis/tools';
import { handlerContextParameter, movedContextReads } from '../analysis/handler-context';
import { movedContextField, SERVER_NAME, V2_REGISTRATION_FORMS } from '../analysis/v2-context';

/** A call the rule reads: a v1 registration, or a v2 one whose handler may read v1's context. */
const REGISTRATIONS = /\.(?:tool|prompt|resource|registerTool|registerPrompt|registerResource|setRequestHandler)\s*\(/;

export const v1SdkApi: Rule = {
  meta: {
    id: 'v1-sdk-api',
    title: "v1's `.tool()`, `.prompt()`, `.resource()` or request-context fields on a server that runs on the v2 packages",
    severity: 'error',
    fix: 'auto',
    doc:
      "v2's `McpServer` (`@modelcontextprotocol/server`) registers with `registerTool`, `registerPrompt` and " +
      "`registerResource` only: v1's `.tool()`, `.prompt()` and `.resource()` are gone. TypeScript reports such a call; " +
      'JavaScript, or a server declared `any`, does not, and the server throws `server.tool is not a function` when it is ' +
      'built, that is on its first request once it is served statelessly. The official v1→v2 codemod moves these calls only ' +
      'on a receiver it types as an `McpServer`, so a JavaScript project, or one moved by hand, can be left with them. The rule ' +
      'reads a file as running on v2 when it imports a v2 server package and not the v1 SDK, or, for a module that imports ' +
      'nothing MCP, when every file that hands it its server does. On 2026-07-28 `apply` moves each such call in JavaScript ' +
      'whose arguments show their role, also in a project already on v2; the others keep an `sdk-v2-surface` marker. In ' +
      "JavaScript the rule also reports a handler registered with v2's API that reads a context field v2 keeps elsewhere " +
      '(`extra.sendNotification` is `ctx.mcpReq.notify`, `extra.authInfo` is `ctx.http?.authInfo`): undefined there, so a ' +
      'call throws and a credential is silently missing; `apply` moves those reads too.',
    hint: 'Register with `registerTool`, `registerPrompt` or `registerResource` and a config object.',
    sources: ['typescript-sdk docs/migration/upgrade-to-v2.md', 'typescript-sdk packages/server/src/server/mcp.ts'],
  },
  check({ sourceFile, facts, report }) {
    // (asked first: which files hand a module its server costs the checker)
    if (!REGISTRATIONS.test(sourceFile.getFullText()) || !runsOnV2(sourceFile)) return;
    // (`apply` moves the calls and the reads in JavaScript, the v2 fix-ups; TypeScript is the codemod's, and tsc reports them)
    const javaScript = /\.[cm]?jsx?$/.test(sourceFile.getFilePath());
    if (javaScript)
      for (const { node, field } of v1ContextReads(sourceFile)) {
        report(
          node,
          `\`${field}\` is v1's request context: v2 keeps it at \`${movedContextField(field)}\`, and here it is undefined${CALLED.has(field) ? ' (calling it throws)' : ''}.`,
          { hint: `Read \`${movedContextField(field)}\` instead.` },
        );
      }
    for (const { call, method } of v1Registrations(sourceFile, facts)) {
      report(
        call,
        `\`.${method}(…)\` is v1's API: v2's McpServer has no \`${method}\`, and the server throws when it is built. Register it with \`${V2_REGISTRATION_FORMS[method]}\`.`,
        { fix: javaScript ? 'auto' : 'manual' },
      );
    }
  },
};

/** Context fields that are functions in v1: calling the undefined v2 read throws. */
const CALLED = new Set(['sendNotification', 'sendRequest', 'closeSSEStream', 'closeStandaloneSSEStream']);

/** Reads of moved context fields in the handlers the file registers with v2's API. */
function v1ContextReads(file: SourceFile): Array<{ node: Node; field: string }> {
  return nodesOfKind(file, SyntaxKind.CallExpression).flatMap((call) => {
    const parameter = handlerContextParameter(call);
    return parameter ? movedContextReads(parameter) : [];
  });
}

/** The file imports a v2 server package and not the v1 SDK; or it imports nothing MCP, and every file handing it its server does. */
function runsOnV2(file: SourceFile): boolean {
  const modules = mcpModulesOf(file);
  if (modules.length > 0) return importsV2Only(modules);
  const callers = passedServerCallers(file);
  return callers.length > 0 && callers.every((caller) => importsV2Only(mcpModulesOf(caller)));
}

function importsV2Only(modules: string[]): boolean {
  return modules.some(isV2ServerModule) && !modules.some(isV1SdkModule);
}

/** `server.tool(name, …, cb)`, `.prompt(…)` and `.resource(name, uri, …, cb)` on an `McpServer`, or on a server the analysis cannot type. */
function v1Registrations(file: SourceFile, facts: FileFacts): Array<{ call: CallExpression; method: string }> {
  return nodesOfKind(file, SyntaxKind.CallExpression).flatMap((call) => {
    const callee = call.getExpression();
    if (!Node.isPropertyAccessExpression(callee) || !Object.hasOwn(V2_REGISTRATION_FORMS, callee.getName())) return [];
    const method = callee.getName();
    const args = call.getArguments();
    if (args.length < (method === 'resource' ? 3 : 2) || !isFunctionLike(resolveHandler(args[args.length - 1]))) return [];
    const receiver = callee.getExpression();
    const name = Node.isPropertyAccessExpression(receiver) ? receiver.getName() : Node.isIdentifier(receiver) ? receiver.getText() : '';
    const isServer = facts.holds(receiver, 'McpServer') || (codemodCannotTypeReceiver(call) && SERVER_NAME.test(name));
    return isServer ? [{ call, method }] : [];
  });
}
