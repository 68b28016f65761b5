// node:http / fetch-style servers route by `if (req.method === 'GET' && url.pathname === '/sse')`. The first MCP
// branch becomes the stateless endpoint (POST handled, other methods 405); the other MCP branches answer 410.
// A fetch handler (one Request parameter) gets the same on the v1 Web-standard transport, answering with Responses.
import type { ASTPath } from 'jscodeshift';
import type { TransformContext } from './context';
import type { Finding } from '../../src/model';
import { containsLocation, isFunctionNode, referencedNames, statementsOf, type AnyNode } from './ast';
import { placeholder } from './emit';
import { ensureNamedImport } from './imports';
import { removeDeadDeclarations } from './dead-code';
import { endpointRoles, PATH_SUBJECT, sourceOf, type EndpointRole } from './routes';
import {
  goneBody,
  goneMessage,
  indent,
  methodNotAllowedBody,
  quoted,
  statelessPostBody,
  webErrorResponse,
  webStatelessPostBody,
} from './templates';
import { WEB_TRANSPORT_MODULES } from './endpoint-writers';
import { factoryCall, serverFactoryOf, type ServerFactory } from './server-factory';

interface Branch {
  path: ASTPath;
  node: AnyNode;
  /** The `subject === 'literal'` comparison inside the test. */
  comparison: AnyNode;
  subject: string;
  literal: string;
  roles: Set<EndpointRole>;
}

export function rewriteBranches(
  context: TransformContext,
  anchors: Finding[],
  modules: string[],
  endpointPath: string,
): true | string | undefined {
  const { j, root } = context;
  const branches: Branch[] = [];
  // Related sites (the POST half of an SSE transport) mark branches as much as the findings themselves.
  const sites = anchors.flatMap((a) => [a, ...(a.related ?? []).filter((r) => r.file === a.file)]);
  root.find(j.IfStatement).forEach((path) => {
    const node = path.node as unknown as AnyNode;
    const consequent = node.consequent as AnyNode;
    if (!sites.some((a) => containsLocation(consequent, a))) return;
    const comparison = pathComparison(j, node.test as AnyNode);
    if (!comparison) return;
    // Keep the innermost branch with a path test for each anchor.
    const nested = branches.findIndex((b) => containsNode(b.node, node));
    if (nested >= 0) branches.splice(nested, 1);
    branches.push({ path, node, ...comparison, roles: endpointRoles(j, [consequent], anchors) });
  });
  if (branches.length === 0) return undefined;
  const fnPath = enclosingFunction(branches[0].path);
  const fn = fnPath?.node as unknown as AnyNode | undefined;
  const params = (fn?.params as AnyNode[] | undefined) ?? [];
  const [reqParam, resParam] = params;
  // A fetch handler (Workers, Bun, Deno) takes the Request alone and returns a Response.
  const web = params.length === 1 && reqParam?.type === 'Identifier';
  if (!fn || reqParam?.type !== 'Identifier' || (!web && resParam?.type !== 'Identifier'))
    return 'the MCP branches are not inside a (req, res) or (request) handler; rewrite them to one stateless POST endpoint by hand';
  if (!fn.async) return 'the request handler is not async; make it async, then route POST to a stateless transport';
  const factory = factoryOf(context, fn, branches);
  if (typeof factory === 'string') return factory;
  if (!factory) return 'no per-request server factory found; build a fresh McpServer per request';
  const req = reqParam.name as string;
  const res = web ? '' : (resParam.name as string);
  const transportClass = web
    ? ensureNamedImport(context, WEB_TRANSPORT_MODULES, 'WebStandardStreamableHTTPServerTransport')
    : ensureNamedImport(context, modules, 'StreamableHTTPServerTransport');
  const streamable = branches.find((b) => b.roles.has('streamable'));
  const endpoint = streamable ? streamable.literal : quoted(context.quote, endpointPath);
  const ordered = streamable ? [streamable, ...branches.filter((b) => b !== streamable)] : branches;
  const deadCandidates = new Set<string>();
  const quote = context.quote;
  ordered.forEach((branch, i) => {
    const consequent = branch.node.consequent as AnyNode;
    for (const name of referencedNames(j, consequent)) deadCandidates.add(name);
    const endsWithReturn = ((consequent.body as AnyNode[] | undefined) ?? []).at(-1)?.type === 'ReturnStatement';
    const ret = endsWithReturn ? '\nreturn;' : '';
    let code: string;
    const names = {
      server: factory.setup.length > 0 && factory.variable ? factory.variable : 'server',
      transport: factory.variable === 'transport' ? 'mcpTransport' : 'transport',
      transportClass,
      factory: factoryCall(factory),
      setup: factory.setup,
      quote,
    };
    if (i === 0 && web) {
      const post = webStatelessPostBody({
        ...names,
        req,
        request: req,
        errorResponse: webErrorResponse(500, -32603, 'Internal server error', quote),
      });
      code = [
        `// mcp-migrate: stateless Streamable HTTP: POST only, a fresh server and transport per request, no sessions.`,
        `if (${req}.method === ${quoted(context.quote, 'POST')}) {`,
        indent(post),
        `}`,
        `// No standalone GET stream and no session to DELETE without sessions.`,
        `return ${webErrorResponse(405, -32000, 'Method not allowed.', quote, true)};`,
      ].join('\n');
      branch.node.test = parseExpression(context, `${branch.subject} === ${endpoint}`);
    } else if (web) {
      code = `// mcp-migrate: the HTTP+SSE transport is gone; this old path answers 410 and names the new endpoint.\nreturn ${webErrorResponse(410, -32000, goneMessage(endpoint.slice(1, -1)), quote)};`;
      branch.node.test = branch.comparison as never;
    } else if (i === 0) {
      const post = statelessPostBody({ ...names, req, res, parsedBody: false });
      code = [
        `// mcp-migrate: stateless Streamable HTTP: POST only, a fresh server and transport per request, no sessions.`,
        `if (${req}.method === ${quoted(context.quote, 'POST')}) {`,
        indent(post),
        `} else {`,
        `  // No standalone GET stream and no session to DELETE without sessions.`,
        indent(methodNotAllowedBody(res, quote)),
        `}${ret}`,
      ].join('\n');
      branch.node.test = parseExpression(context, `${branch.subject} === ${endpoint}`);
    } else {
      code = `// mcp-migrate: the HTTP+SSE transport is gone; this old path answers 410 and names the new endpoint.\n${goneBody(res, endpoint.slice(1, -1), quote)}${ret}`;
      branch.node.test = branch.comparison as never;
    }
    const oldPath = branch.literal;
    branch.node.consequent = j.blockStatement([placeholder(context, code, 'tight') as never]) as never;
    if (i === 0 && !branch.roles.has('streamable') && oldPath !== endpoint) {
      // The old SSE stream path still answers, with 410, when the branch sits in a block we can add to.
      const container = branch.path.parent?.node as AnyNode | undefined;
      const siblings = container && Array.isArray(container.body) ? (container.body as AnyNode[]) : undefined;
      if (siblings) {
        const answer = web
          ? `return ${webErrorResponse(410, -32000, goneMessage(endpoint.slice(1, -1)), quote)};`
          : `${goneBody(res, endpoint.slice(1, -1), quote)}${endsWithReturn ? '\nreturn;' : ''}`;
        const gone = `if (${branch.subject} === ${oldPath}) {\n  // mcp-migrate: the HTTP+SSE transport is gone; this old path answers 410 and names the new endpoint.\n${indent(answer)}\n}`;
        siblings.splice(siblings.indexOf(branch.node) + 1, 0, placeholder(context, gone, 'block'));
      }
    }
  });
  removeUnusedLocal(context, fn, factory.variable);
  removeDeadDeclarations(context, deadCandidates);
  return true;
}

/** `const server = createMcpServer();` at the top of the handler is dead once the branches build their own. */
function removeUnusedLocal(context: TransformContext, fn: AnyNode, local: string | undefined): void {
  if (!local) return;
  const { j } = context;
  const body = (fn.body as AnyNode).body as AnyNode[];
  const index = body.findIndex(
    (s) =>
      s.type === 'VariableDeclaration' &&
      (s.declarations as AnyNode[]).length === 1 &&
      ((s.declarations as AnyNode[])[0].id as AnyNode).name === local,
  );
  if (index < 0) return;
  const stillUsed = body.some((s, i) => i !== index && referencedNames(j, s).has(local));
  if (!stillUsed) body.splice(index, 1);
}

function parseExpression(context: TransformContext, code: string): never {
  return statementsOf(context.j, `${code};`)[0].expression as never;
}

function pathComparison(j: TransformContext['j'], test: AnyNode): { comparison: AnyNode; subject: string; literal: string } | undefined {
  // find() looks below the test only: a bare `url.pathname === '/mcp'` is the test itself.
  const comparisons = [
    ...(test.type === 'BinaryExpression' ? [test] : []),
    ...(j(test as never)
      .find(j.BinaryExpression)
      .nodes() as unknown as AnyNode[]),
  ];
  for (const node of comparisons) {
    if (node.operator !== '===' && node.operator !== '==') continue;
    const [subject, literal] = isStringLiteral(node.right as AnyNode)
      ? [node.left as AnyNode, node.right as AnyNode]
      : [node.right as AnyNode, node.left as AnyNode];
    if (!isStringLiteral(literal)) continue;
    const subjectText = sourceOf(j, subject);
    if (PATH_SUBJECT.test(subjectText)) return { comparison: node, subject: subjectText, literal: sourceOf(j, literal) };
  }
  return undefined;
}

function isStringLiteral(node: AnyNode): boolean {
  return node.type === 'StringLiteral' || (node.type === 'Literal' && typeof node.value === 'string');
}

function containsNode(outer: AnyNode, inner: AnyNode): boolean {
  return (
    !!outer.loc &&
    !!inner.loc &&
    outer !== inner &&
    containsLocation(outer, { line: inner.loc.start.line, column: inner.loc.start.column + 1 })
  );
}

function enclosingFunction(path: ASTPath): ASTPath | undefined {
  let current: ASTPath | null = path.parent;
  while (current && !isFunctionNode(current.node as unknown as AnyNode)) current = current.parent;
  return current ?? undefined;
}

/** From `X.connect(t)` in the branches: `createServer()` directly, or the initializer of a local `X` (with its setup). */
function factoryOf(context: TransformContext, fn: AnyNode, branches: Branch[]): ServerFactory | string | undefined {
  const { j } = context;
  for (const branch of branches) {
    const consequent = branch.node.consequent as AnyNode;
    const factory = serverFactoryOf(context, consequent, fn, new Set());
    if (!factory) continue;
    // Setup written before the branches stays where it is and would still run on every request: a human decides.
    if (
      typeof factory !== 'string' &&
      factory.setup.length > 0 &&
      j(consequent as never)
        .find(j.VariableDeclarator, { id: { name: factory.variable } })
        .size() === 0
    ) {
      return `\`${factory.variable}\` is configured outside the MCP branches; move its construction into a factory first`;
    }
    return factory;
  }
  return undefined;
}
