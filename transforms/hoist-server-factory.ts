/**
 * hoist-server-factory — rule `shared-server-instance`.
 * A module-level server connected to every transport becomes `function createMcpServer() { … return server; }`
 * (its registrations move in with it) and each function that connects it builds its own: `const server =
 * createMcpServer();`. Stateless serving needs a fresh server per request (v1: "Already connected to a transport").
 */
import type { API, ASTPath, FileInfo } from 'jscodeshift';
import { createContext, print, type TransformContext, type TransformOptions } from './lib/context';
import { containsLocation, isFunctionNode, referencedNames, rootIdentifier, statementsOf, type AnyNode } from './lib/ast';
import { markerComment } from '../src/engine/markers';
import { placeholder } from './lib/emit';

export const id = 'hoist-server-factory';
export const rules = ['shared-server-instance'];
export const parser = 'tsx';

export default function transform(file: FileInfo, api: API, options: TransformOptions = {}): string | undefined {
  const context = createContext(file, api, options, rules);
  if (context.findings.length === 0) return undefined;
  const { j, root } = context;
  const body = root.find(j.Program).get('body').value as AnyNode[];
  let changed = false;
  const handled = new Set<string>();
  for (const finding of context.findings) {
    const declarationLocation = finding.related?.find((r) => r.file === finding.file);
    if (!declarationLocation) continue;
    const index = body.findIndex((s) => s.type === 'VariableDeclaration' && containsLocation(s, declarationLocation));
    if (index < 0) {
      changed =
        addMarker(context, finding.line, 'shared-server-instance', 'build this server in a factory and create one per request') || changed;
      continue;
    }
    const declaration = body[index];
    const declarators = declaration.declarations as AnyNode[];
    const name =
      declarators.length === 1 && (declarators[0].id as AnyNode).type === 'Identifier'
        ? ((declarators[0].id as AnyNode).name as string)
        : undefined;
    if (!name || handled.has(name)) continue;
    handled.add(name);
    const result = hoist(context, body, index, name);
    if (result !== true) {
      changed = addMarker(context, finding.line, 'shared-server-instance', result) || changed;
    } else {
      changed = true;
    }
  }
  return changed ? print(context) : undefined;
}

/** Move the declaration and the top-level statements that configure it into a factory. */
function hoist(context: TransformContext, body: AnyNode[], index: number, name: string): true | string {
  const { j } = context;
  const owned: number[] = [index];
  for (let i = index + 1; i < body.length; i++) {
    const statement = body[i];
    if (statement.type === 'ExpressionStatement' && rootIdentifier(statement.expression as AnyNode) === name) owned.push(i);
  }
  // Every other use must be a function that connects the server per connection or request.
  const connectingFunctions: ASTPath[] = [];
  let blocker: string | undefined;
  body.forEach((statement, i) => {
    if (owned.includes(i) || !referencedNames(j, statement).has(name)) return;
    j(statement as never)
      .find(j.Identifier, { name })
      .forEach((path) => {
        if (blocker) return;
        const parent = path.parent?.node as AnyNode;
        if (
          (parent.type === 'MemberExpression' || parent.type === 'OptionalMemberExpression') &&
          parent.property === path.node &&
          !parent.computed
        )
          return;
        if ((parent.type === 'ObjectProperty' || parent.type === 'Property') && parent.key === path.node && !parent.shorthand) return;
        const fn = nearestFunction(path);
        if (!fn || !connects(j, fn.node as unknown as AnyNode, name)) {
          blocker = `\`${name}\` is also used outside the functions that connect it; move that use into createMcpServer() or drop it, then build one server per request`;
          return;
        }
        if (!connectingFunctions.includes(fn)) connectingFunctions.push(fn);
      });
  });
  if (blocker) return blocker;
  if (statementExported(body[index])) return `\`${name}\` is exported; export a factory instead and build one server per request`;
  const factory = uniqueName(context, 'createMcpServer');
  const moved = owned.map((i) => body[i]);
  const [factoryDeclaration] = statementsOf(j, `function ${factory}() {\n  return ${name};\n}`);
  const fnBody = (factoryDeclaration.body as AnyNode).body as AnyNode[];
  fnBody.unshift(...moved);
  (factoryDeclaration as AnyNode).comments = [
    ...(((body[index] as AnyNode).comments as AnyNode[] | undefined) ?? []),
    ...((statementsOf(
      j,
      `// mcp-migrate: a fresh server per request (stateless Streamable HTTP); it was shared by every connection.\nx;`,
    )[0].comments as AnyNode[]) ?? []),
  ];
  (body[index] as AnyNode).comments = null;
  for (const i of [...owned].reverse()) body.splice(i, 1);
  body.splice(index, 0, factoryDeclaration);
  for (const fn of connectingFunctions) {
    const fnNode = fn.node as unknown as AnyNode;
    if ((fnNode.body as AnyNode).type !== 'BlockStatement') {
      fnNode.body = j.blockStatement([j.returnStatement(fnNode.body as never)]) as never;
    }
    ((fnNode.body as AnyNode).body as AnyNode[]).unshift(placeholder(context, `const ${name} = ${factory}();`, 'tight'));
  }
  return true;
}

function nearestFunction(path: ASTPath): ASTPath | undefined {
  let current: ASTPath | null = path.parent;
  while (current) {
    if (isFunctionNode(current.node as unknown as AnyNode)) return current;
    current = current.parent;
  }
  return undefined;
}

function connects(j: TransformContext['j'], fn: AnyNode, name: string): boolean {
  return (
    j(fn as never)
      .find(j.CallExpression, { callee: { object: { name }, property: { name: 'connect' } } })
      .size() > 0
  );
}

function statementExported(statement: AnyNode): boolean {
  return statement.type === 'ExportNamedDeclaration';
}

export function uniqueName(context: TransformContext, base: string): string {
  const taken = referencedNames(context.j, context.root.find(context.j.Program).get().node);
  if (!taken.has(base)) return base;
  for (let i = 2; ; i++) if (!taken.has(`${base}${i}`)) return `${base}${i}`;
}

/** Put a marker comment above the statement on `line` (once). Returns whether anything changed. */
export function addMarker(context: TransformContext, line: number, ruleId: string, message: string): boolean {
  const { j } = context;
  const text = markerComment(ruleId, message);
  let changed = false;
  context.root
    .find(j.Statement)
    .filter(
      (p) =>
        !!p.node.loc &&
        p.node.loc.start.line <= line &&
        p.node.loc.end.line >= line &&
        ['Program', 'BlockStatement'].includes((p.parent?.node as AnyNode)?.type),
    )
    .at(-1)
    .forEach((p) => {
      const node = p.node as unknown as AnyNode;
      const comments = (node.comments as AnyNode[] | undefined) ?? [];
      // One marker per rule per statement, whichever transform wrote it: a re-run adds nothing.
      if (comments.some((c) => String(c.value).trim().startsWith(`mcp-migrate: ${ruleId}:`))) return;
      node.comments = [...comments, j.commentBlock(text.slice(2, -2), true, false) as unknown as AnyNode];
      changed = true;
    });
  return changed;
}
