/**
 * origin-guard — rule `origin-validation`.
 * Adds a `rejectForeignOrigin(req, res)` check (403 on a present, non-allowed Origin; Host too for a local server)
 * as the first statement of every handler on the MCP endpoint, and the small guard function itself.
 */
import type { API, FileInfo } from 'jscodeshift';
import { createContext, print, type TransformContext, type TransformOptions } from './lib/context';
import { containsLocation, isFunctionNode, referencedNames, type AnyNode } from './lib/ast';
import { placeholder } from './lib/emit';
import { asRouteStatement, functionsByName, statementLists } from './lib/routes';
import { afterImports, ensureNamedImports } from './lib/imports';
import { GUARD_NAME, guardCall, guardFunction } from './lib/templates';
import { addMarker } from './hoist-server-factory';

export const id = 'origin-guard';
export const rules = ['origin-validation'];
export const parser = 'tsx';

export default function transform(file: FileInfo, api: API, options: TransformOptions = {}): string | undefined {
  const context = createContext(file, api, options, rules);
  const anchors = context.findings.filter((f) => f.fix === 'auto');
  if (anchors.length === 0) return undefined;
  const handlers = new Set<AnyNode>();
  const branches: Array<{ block: AnyNode; fn: AnyNode }> = [];
  const unplaced: number[] = [];
  for (const anchor of anchors) {
    const found = handlersForAnchor(context, anchor);
    if (found.length > 0) found.forEach((h) => handlers.add(h));
    else {
      const branch = branchForAnchor(context, anchor);
      if (branch) branches.push(branch);
      else unplaced.push(anchor.line);
    }
  }
  let changed = false;
  for (const handler of handlers) changed = insertGuard(context, handler, (handler.body as AnyNode)) || changed;
  for (const { block, fn } of branches) changed = insertGuard(context, fn, block) || changed;
  if (changed) addGuardFunction(context);
  for (const line of unplaced) {
    changed = addMarker(context, line, 'origin-validation', 'reject requests whose Origin header is present and not allowed with 403 before they reach the transport') || changed;
  }
  return changed ? print(context) : undefined;
}

/** The route whose registration contains the anchor, plus sibling routes on the same receiver and path. */
function handlersForAnchor(context: TransformContext, anchor: { line: number; column: number }): AnyNode[] {
  const { j } = context;
  const functions = functionsByName(context);
  for (const body of statementLists(context)) {
    const routes = body.map((s, i) => asRouteStatement(j, s, i)).filter((r): r is NonNullable<typeof r> => !!r);
    const hit = routes.find((r) => containsLocation(r.statement, anchor));
    if (!hit) continue;
    const siblings = routes.filter((r) => r.receiverText === hit.receiverText && r.pathText === hit.pathText);
    return siblings.flatMap((r) => r.registrations.map((g) => (g.handler.type === 'Identifier' ? functions.get(g.handler.name as string) : g.handler)))
      .filter((h): h is AnyNode => !!h && isFunctionNode(h) && (h.body as AnyNode).type === 'BlockStatement');
  }
  return [];
}

/** node:http style: the `if` block around the anchor, inside a function taking (req, res). */
function branchForAnchor(context: TransformContext, anchor: { line: number; column: number }): { block: AnyNode; fn: AnyNode } | undefined {
  const { j, root } = context;
  const ifs = root.find(j.IfStatement).filter((p) => containsLocation(p.node.consequent as unknown as AnyNode, anchor) && p.node.consequent.type === 'BlockStatement');
  const innermost = ifs.paths().at(-1);
  if (!innermost) return undefined;
  let current = innermost.parent;
  while (current && !isFunctionNode(current.node as unknown as AnyNode)) current = current.parent;
  if (!current) return undefined;
  return { block: innermost.node.consequent as unknown as AnyNode, fn: current.node as unknown as AnyNode };
}

function insertGuard(context: TransformContext, fn: AnyNode, block: AnyNode): boolean {
  const [req, res] = fn.params as AnyNode[];
  if (req?.type !== 'Identifier' || res?.type !== 'Identifier') return false;
  const statements = block.body as AnyNode[];
  const first = statements[0];
  if (first && context.j(first as never).toSource().includes(`${GUARD_NAME}(`)) return false;
  // `(_req, res)`: the request is used now, so drop the "unused" underscore when the plain name is free.
  const plain = (req.name as string).replace(/^_+/, '');
  if (plain && plain !== req.name && !referencedNames(context.j, fn.body).has(plain) && !(fn.params as AnyNode[]).some((p) => p.name === plain)) {
    req.name = plain;
  }
  statements.unshift(placeholder(context, guardCall(req.name as string, res.name as string), 'tight'));
  return true;
}

function addGuardFunction(context: TransformContext): void {
  const { j, root } = context;
  if (root.find(j.FunctionDeclaration, { id: { name: GUARD_NAME } }).size() > 0) return;
  const body = root.find(j.Program).get('body').value as AnyNode[];
  const checkHost = context.options.localServer ?? /\.listen\([^)]*['"](?:127\.0\.0\.1|localhost)['"]/.test(context.file.source);
  // The Node types, under other local names when the file already binds these.
  const [request, response] = context.typescript
    ? ensureNamedImports(context, ['node:http', 'http'], ['IncomingMessage', 'ServerResponse'], { typeOnly: true })
    : ['IncomingMessage', 'ServerResponse'];
  body.splice(afterImports(body), 0, placeholder(context, guardFunction({ typescript: context.typescript, checkHost, quote: context.quote, types: { request, response } }), 'block'));
}
