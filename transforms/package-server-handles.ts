/**
 * package-server-handles — rule `session-state` (unsafe: it changes tools' arguments, a contract with clients).
 * A server a package builds per session (`await createConnection(…)` from `@playwright/mcp`, then
 * `server.connect(transport)`) owns what that package opens: a browser, a client. Without sessions each request would
 * get a new one. Here a handle owns it instead: the call becomes `packageSessionServer()`, a server made per request
 * that lists the package's tools with a required `session_handle`, answers `open_session` by opening a package server
 * for a new handle, and forwards every other call to the package server of the handle it is passed (see
 * lib/handle-store.ts). Whole or nothing: otherwise the call gets a marker that says why.
 */
import type { API, ASTPath, FileInfo } from 'jscodeshift';
import { createContext, print, type TransformContext, type TransformOptions } from './lib/context';
import type { AnyNode } from './lib/ast';
import { inlinePlaceholder, placeholder } from './lib/emit';
import { afterImports, ensureNamedImport } from './lib/imports';
import { pathAt } from './lib/locate';
import { addMarker } from './lib/markers';
import { originalText } from './lib/source-edit';
import { PACKAGE_SESSION_NAMES, packageSessionsCode } from './lib/handle-store';
import type { Finding } from '../src/model';
import type { PackageServerPlan } from '../src/analysis/package-servers';

export const id = 'package-server-handles';
export const rules = ['session-state'];
export const parser = 'tsx';

const SDK = '@modelcontextprotocol/sdk';

/** What the server each request gets can stand in for: connecting it to the request's transport, and closing it. */
const FRONT_MEMBERS = new Set(['connect', 'close']);

export function packageServerPlanOf(finding: Finding): PackageServerPlan | undefined {
  return finding.data?.packageServer as PackageServerPlan | undefined;
}

export default function transform(file: FileInfo, api: API, options: TransformOptions = {}): string | undefined {
  const context = createContext(file, api, options, rules);
  const anchors = context.findings.filter((f) => f.ruleId === 'session-state' && packageServerPlanOf(f));
  if (anchors.length === 0) return undefined;
  const refusal = rewrite(context, anchors);
  if (refusal === undefined) return print(context);
  const untouched = createContext(file, api, options, rules);
  let changed = false;
  for (const anchor of anchors) changed = addMarker(untouched, anchor.line, 'session-state', refusal) || changed;
  return changed ? print(untouched) : undefined;
}

/** Rewrites the file, or says why it cannot. */
function rewrite(context: TransformContext, anchors: Finding[]): string | undefined {
  const plans = anchors.map((a) => packageServerPlanOf(a)!);
  const calls = plans.map((plan) => pathAt(context, plan.call, ['CallExpression']));
  const refusal = refusalOf(context, plans, calls);
  if (refusal) return refusal;
  const [plan] = plans;
  const { j } = context;
  const code = packageSessionsCode({
    typescript: context.typescript,
    quote: context.quote,
    factory: plan.factory,
    module: plan.module,
    open: originalText(context, calls[0]!.node as unknown as AnyNode),
    imports: {
      server: ensureNamedImport(context, [`${SDK}/server/index.js`, `${SDK}/server/index`], 'Server'),
      client: ensureNamedImport(context, [`${SDK}/client/index.js`, `${SDK}/client/index`], 'Client'),
      inMemory: ensureNamedImport(context, [`${SDK}/inMemory.js`, `${SDK}/inMemory`], 'InMemoryTransport'),
      listTools: ensureNamedImport(context, [`${SDK}/types.js`, `${SDK}/types`], 'ListToolsRequestSchema'),
      callTool: ensureNamedImport(context, [`${SDK}/types.js`, `${SDK}/types`], 'CallToolRequestSchema'),
      randomUUID: ensureNamedImport(context, ['node:crypto', 'crypto'], 'randomUUID'),
    },
  });
  // `await createConnection(…)` or `createConnection(…)` alike: the server each request gets is made at once.
  for (const call of calls as ASTPath[]) {
    const awaited = (call.parent?.node as AnyNode | undefined)?.type === 'AwaitExpression' ? (call.parent as ASTPath) : call;
    awaited.replace(j.identifier(inlinePlaceholder(context, 'packageSessionServer()')));
  }
  const body = context.root.find(j.Program).get('body').value as AnyNode[];
  body.splice(afterImports(body), 0, placeholder(context, code, 'block'));
  return undefined;
}

function refusalOf(context: TransformContext, plans: PackageServerPlan[], calls: Array<ASTPath | undefined>): string | undefined {
  const [plan] = plans;
  if (calls.some((c) => !c))
    return `\`${plan.factory}()\` was not found where the analysis saw it; move its servers behind handles by hand`;
  const texts = new Set(calls.map((c) => originalText(context, c!.node as unknown as AnyNode)));
  if (texts.size > 1)
    return `\`${plan.factory}()\` is called with different arguments in this file; one handle store per file is written, so move these servers behind handles by hand`;
  const fromRequest = [...new Set(plans.flatMap((p) => p.requestNames))];
  if (fromRequest.length > 0)
    return `\`${plan.factory}()\` takes ${fromRequest.map((n) => `\`${n}\``).join(', ')} from the request; a handle's server is opened in open_session, outside any request, so pass those values to open_session by hand`;
  const other = plans.flatMap((p) => p.uses).find((use) => !FRONT_MEMBERS.has(use));
  if (other)
    return `the server \`${plan.factory}()\` returns is used for more than serving the request (${other === '*' ? 'passed on' : `\`.${other}\``}); move it behind a handle by hand`;
  const taken = PACKAGE_SESSION_NAMES.find((name) => declares(context, name));
  if (taken) return `this file already declares \`${taken}\`, a name the handle store needs; move these servers behind handles by hand`;
  return undefined;
}

function declares(context: TransformContext, name: string): boolean {
  const { j, root } = context;
  return root.find(j.VariableDeclarator, { id: { name } }).size() + root.find(j.FunctionDeclaration, { id: { name } }).size() > 0;
}
