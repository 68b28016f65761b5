// Spans of ts-morph nodes, and small syntax helpers the endpoint model shares.
import { Node, SyntaxKind, ts, type SourceFile, type Symbol as MorphSymbol } from 'ts-morph';
import type { Span } from './model';
import { referencesOf } from '../references';

/** Maps a project file to the path findings use for it (relative to the scanned root). */
export type RelPathOf = (file: SourceFile) => string;

export function spanOf(node: Node, relPath: RelPathOf): Span {
  const file = node.getSourceFile();
  const start = node.getStart();
  const end = node.getEnd();
  const a = file.getLineAndColumnAtPos(start);
  const b = file.getLineAndColumnAtPos(end);
  return { file: relPath(file), start, end, line: a.line, column: a.column, endLine: b.line, endColumn: b.column };
}

export type FunctionNode = Node & {
  getParameters(): Node[];
  getBody(): Node | undefined;
  isAsync?(): boolean;
};

/** The kinds of {@link FunctionNode}. */
const FUNCTION_KINDS: ReadonlySet<SyntaxKind> = new Set([
  SyntaxKind.ArrowFunction,
  SyntaxKind.FunctionExpression,
  SyntaxKind.FunctionDeclaration,
  SyntaxKind.MethodDeclaration,
]);

/** (one read of the node's kind, not one per guard: both run for most nodes the analysis walks up or through) */
export function isFunctionNode(node: Node | undefined): node is FunctionNode {
  return !!node && FUNCTION_KINDS.has(node.getKind());
}

/** The expressions {@link unwrapExpression} strips: each has `getExpression()`. */
const WRAPPER_KINDS: ReadonlySet<SyntaxKind> = new Set([
  SyntaxKind.ParenthesizedExpression,
  SyntaxKind.AsExpression,
  SyntaxKind.NonNullExpression,
  SyntaxKind.AwaitExpression,
  SyntaxKind.TypeAssertionExpression,
  SyntaxKind.SatisfiesExpression,
]);

/** Strip parentheses, `as`, `!`, `await` and type assertions around an expression. */
export function unwrapExpression(node: Node): Node {
  let current = node;
  while (WRAPPER_KINDS.has(current.getKind())) current = (current as Node & { getExpression(): Node }).getExpression();
  return current;
}

/** The leftmost identifier (or `this`) of `a.b.c`, `a[b].c`, `a.b()`. */
export function rootOf(node: Node): Node {
  let current = unwrapExpression(node);
  for (let i = 0; i < 20; i++) {
    if (Node.isPropertyAccessExpression(current) || Node.isElementAccessExpression(current))
      current = unwrapExpression(current.getExpression());
    else if (Node.isCallExpression(current)) current = unwrapExpression(current.getExpression());
    else break;
  }
  return current;
}

/** The statement that directly sits in a block, case clause or source file and contains the node. */
export function statementOf(node: Node): Node | undefined {
  let current: Node | undefined = node;
  while (current) {
    const parent = current.getParent();
    if (!parent) return undefined;
    if (Node.isBlock(parent) || Node.isSourceFile(parent) || Node.isCaseClause(parent) || Node.isDefaultClause(parent)) return current;
    current = parent;
  }
  return undefined;
}

/** A node's first line, cut at 80 characters, for messages. */
export function firstLine(node: Node): string {
  const line = node.getText().split('\n')[0];
  return line.length > 80 ? `${line.slice(0, 77)}…` : line;
}

/** Does `outer` contain `inner` (or is it)? */
export function contains(outer: Node, inner: Node): boolean {
  return outer.getSourceFile() === inner.getSourceFile() && inner.getStart() >= outer.getStart() && inner.getEnd() <= outer.getEnd();
}

/** The statement always leaves the function (`return`/`throw`, or a block ending in one). */
export function exits(statement: Node): boolean {
  if (Node.isReturnStatement(statement) || Node.isThrowStatement(statement)) return true;
  if (Node.isBlock(statement)) {
    const last = statement.getStatements().at(-1);
    return !!last && exits(last);
  }
  if (Node.isIfStatement(statement)) {
    const otherwise = statement.getElseStatement();
    return !!otherwise && exits(statement.getThenStatement()) && exits(otherwise);
  }
  return false;
}

const indentUnits = new WeakMap<SourceFile, string>();

/** The file's indentation unit: a tab, or the smallest run of leading spaces (2 or 4). */
function indentUnit(file: SourceFile): string {
  let unit = indentUnits.get(file);
  if (unit === undefined) {
    const indents = file.getFullText().match(/^[ \t]+(?=\S)/gm) ?? [];
    const tabs = indents.filter((i) => i.startsWith('\t')).length;
    const spaces = indents.filter((i) => !i.startsWith('\t')).map((i) => i.length);
    unit = tabs > indents.length / 2 ? '\t' : spaces.length > 0 && Math.min(...spaces) >= 4 ? '    ' : '  ';
    indentUnits.set(file, unit);
  }
  return unit;
}

/**
 * A node's code as a template writes it: its own first-line indentation removed from every line, and the file's
 * indentation unit written as two spaces (the writer converts back to the file's unit where the code lands). `text`:
 * the node's code with parts taken out, laid out the same way.
 */
export function templateText(node: Node, text = node.getText()): string {
  const file = node.getSourceFile();
  const lineStart = file.getFullText().lastIndexOf('\n', node.getStart() - 1) + 1;
  const base = /^[ \t]*/.exec(file.getFullText().slice(lineStart))![0];
  const unit = indentUnit(file);
  return text
    .split('\n')
    .map((line, i) => {
      if (i === 0) return line;
      const rest = line.startsWith(base) ? line.slice(base.length) : line.replace(/^[ \t]+/, '');
      const lead = /^[ \t]*/.exec(rest)![0];
      const width = lead.replace(/\t/g, '    ').length;
      const unitWidth = unit === '\t' ? 4 : unit.length;
      // Whole units become template units; a remainder (continuation alignment) is kept as spaces.
      return '  '.repeat(Math.floor(width / unitWidth)) + ' '.repeat(width % unitWidth) + rest.slice(lead.length);
    })
    .join('\n');
}

/** A statement's code as a template writes it (see templateText), with the comments on the lines before it. */
export function templateTextWithComments(statement: Node): string {
  const [first] = statement.getLeadingCommentRanges();
  if (!first) return templateText(statement);
  return templateText(statement, statement.getSourceFile().getFullText().slice(first.getPos(), statement.getEnd()));
}

/** The methods that configure a server (`server.tool(…)`, `server.setRequestHandler(…)`). */
export const SERVER_CONFIG_METHODS =
  /^(?:tool|registerTool|resource|registerResource|prompt|registerPrompt|setRequestHandler|setNotificationHandler|registerCapabilities|addTool|addResource|addPrompt)$/;

/** `base`, or `base2`, `base3`…: the first name no identifier in the files spells. */
export function freeName(base: string, files: SourceFile[]): string {
  const spelled = new Set(files.flatMap((file) => [...identifierNames(file.compilerNode)]));
  if (!spelled.has(base)) return base;
  for (let i = 2; ; i++) if (!spelled.has(`${base}${i}`)) return `${base}${i}`;
}

/**
 * The names the file's identifiers spell, those in JSDoc included: what `getDescendantsOfKind(SyntaxKind.Identifier)`
 * finds, from a walk of the compiler's tree. That ts-morph walk scans every node's tokens and wraps every identifier
 * it passes: on the 10k bench tree its 27 calls were about 9% of the analysis.
 */
function identifierNames(sourceFile: ts.SourceFile): Set<string> {
  const names = new Set<string>();
  const pending: ts.Node[] = [sourceFile];
  while (pending.length > 0) {
    const node = pending.pop()!;
    if (ts.isIdentifier(node)) names.add(node.getText(sourceFile));
    pending.push(...((node as { jsDoc?: ts.JSDoc[] }).jsDoc ?? []));
    ts.forEachChild(node, (child) => {
      pending.push(child);
    });
  }
  return names;
}

/** The identifiers that refer to a declaration's name, across the project (imports included), itself excluded. */
export function referencesTo(nameNode: Node): Node[] {
  if (!Node.isIdentifier(nameNode)) return [];
  try {
    return referencesOf(nameNode).filter((ref) => ref !== nameNode);
  } catch {
    return [];
  }
}

/** What an identifier reads: in `{ serverMode }` the variable, not the property it names. */
export function valueSymbol(id: Node): MorphSymbol | undefined {
  const parent = id.getParent();
  if (Node.isShorthandPropertyAssignment(parent) && parent.getNameNode() === id) return parent.getValueSymbol() ?? id.getSymbol();
  return id.getSymbol();
}

/** Identifiers a node reads that are declared outside it. */
export function freeIdentifiers(node: Node): Node[] {
  const ids = Node.isIdentifier(node) ? [node] : node.getDescendantsOfKind(SyntaxKind.Identifier);
  return ids.filter((id) => {
    const parent = id.getParent();
    if (Node.isPropertyAccessExpression(parent) && parent.getNameNode() === id) return false;
    if ((Node.isPropertyAssignment(parent) || Node.isMethodDeclaration(parent)) && parent.getNameNode() === id) return false;
    const declaration = valueSymbol(id)?.getDeclarations()[0];
    return !!declaration && !contains(node, declaration);
  });
}

/** The name a function is called by: its declaration's, or that of the variable it initialises. */
export function functionNameNode(fn: FunctionNode): Node | undefined {
  if (Node.isFunctionDeclaration(fn)) return fn.getNameNode();
  const holder = fn.getParent();
  return Node.isVariableDeclaration(holder) && (holder.getInitializer() as Node | undefined) === fn ? holder.getNameNode() : undefined;
}

/**
 * Two route receivers are the same app or router: spelled alike and, when they resolve, the same declaration (two
 * fastify plugins in one file each name their instance `app`; their routes are not each other's).
 */
export function sameReceiver(a: Node, b: Node): boolean {
  if (a.getText() !== b.getText()) return false;
  const declaration = declarationOf(a);
  const other = declarationOf(b);
  return !declaration || !other || declaration === other;
}

/** The variable declaration an identifier (or `this.x`) finally refers to, through imports. */
export function declarationOf(expression: Node): Node | undefined {
  const node = unwrapExpression(expression);
  const nameNode = Node.isPropertyAccessExpression(node) ? node.getNameNode() : Node.isIdentifier(node) ? node : undefined;
  let symbol = nameNode?.getSymbol();
  if (!symbol) return undefined;
  if (symbol.getDeclarations().some((d) => Node.isImportSpecifier(d) || Node.isImportClause(d)))
    symbol = symbol.getAliasedSymbol() ?? symbol;
  const declaration = symbol.getDeclarations()[0];
  if (Node.isExportSpecifier(declaration)) return declaration.getLocalTargetDeclarations()[0];
  return declaration;
}
