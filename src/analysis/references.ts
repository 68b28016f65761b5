// Find-references, asked once per node. The type checker's find-references is most of what the endpoint model costs
// (about 360 calls on the bench tree, 108 of them about a node already asked about). An analysis project is never
// changed once its files are created (a re-analysis builds a new one), so a node's references stay what they were;
// the cache is keyed on the node and goes with its project.
import { Node as NodeGuards, ts, type Node, type ReferenceFindableNode, type SourceFile } from 'ts-morph';
import { wrapNode } from './node-index';

const cache = new WeakMap<Node, Node[]>();

/** `node.findReferencesAsNodes()`, cached: the same array for the same node (callers must not change it). */
export function referencesOf(node: Node & ReferenceFindableNode): readonly Node[] {
  let references = cache.get(node);
  if (!references) {
    references = PROGRAM_REFERENCES ? findReferencesAsNodes(nodeForReferences(node)) : node.findReferencesAsNodes();
    cache.set(node, references);
  }
  return references;
}

/** The other places an identifier's name is used (its references but itself); none when the checker cannot say. */
export function otherReferencesOf(nameNode: Node): readonly Node[] {
  if (!NodeGuards.isIdentifier(nameNode) && !NodeGuards.isPrivateIdentifier(nameNode)) return [];
  try {
    return referencesOf(nameNode as Node & ReferenceFindableNode).filter((reference) => reference !== nameNode);
  } catch {
    return [];
  }
}

/** The node ts-morph's `findReferencesAsNodes` asks about for `node`: a declaration's name, or its `default` keyword. */
function nodeForReferences(node: Node): Node {
  if (NodeGuards.isIdentifier(node) || NodeGuards.isStringLiteral(node)) return node;
  const name = node.getNodeProperty('name' as never) as Node | undefined;
  if (name) return name;
  if (NodeGuards.isExportable(node)) return node.getDefaultKeyword() ?? node;
  return node;
}

/**
 * What ts-morph's `findReferencesAsNodes` returns for `node`, found with the project's own program. ts-morph asks its
 * language service, which builds a second program and type checker beside the project's (the one `getSymbol` uses)
 * and describes every referenced symbol for display (its type or signature as text) only to read whether it is an
 * import alias: on the 10k bench tree that was about 60% of what find-references cost. The steps are TypeScript's
 * `findReferencedSymbols`; the nodes and which of them are left out are ts-morph's.
 */
function findReferencesAsNodes(node: Node): Node[] {
  const project = node.getProject();
  const program = project.getProgram().compilerObject;
  const sourceFile = program.getSourceFile(node.getSourceFile().getFilePath());
  if (!sourceFile) return [];
  const position = node.getStart();
  const touching = typescript.getTouchingPropertyName(sourceFile, position);
  const { Core } = typescript.FindAllReferences;
  const options = { use: REFERENCES };
  const referenced = Core.getReferencedSymbolsForNode(position, touching, program, program.getSourceFiles(), NOT_CANCELLED, options) ?? [];
  const checker = program.getTypeChecker();
  const adjusted = Core.getAdjustedNode(touching, options);
  const asked = isDefinitionForReference(adjusted) ? checker.getSymbolAtLocation(adjusted) : undefined;
  const nodes: Node[] = [];
  for (const { definition, references } of referenced) {
    // (TypeScript leaves out references without a definition)
    if (!definition) continue;
    const alias = definition.type === SYMBOL_DEFINITION && isAliasDefinition(definition.symbol, touching, checker);
    references.forEach((entry, index) => {
      const isDefinition = !!asked && entry.kind !== SPAN_ENTRY && typescript.FindAllReferences.isDeclarationOfSymbol(entry.node!, asked);
      // ts-morph leaves out the first reference when it is the definition itself, unless that is an import alias.
      if (!alias && isDefinition && index === 0) return;
      const { fileName, textSpan } = typescript.FindAllReferences.toReferenceEntry(entry);
      nodes.push(nodeAt(project.getSourceFileOrThrow(fileName), textSpan));
    });
  }
  return nodes;
}

/** TypeScript's `isDefinitionForReference` (not exported). */
function isDefinitionForReference(node: ts.Node): boolean {
  return (
    node.kind === ts.SyntaxKind.DefaultKeyword ||
    !!typescript.getDeclarationFromName(node) ||
    typescript.isLiteralComputedPropertyDeclarationName(node) ||
    (node.kind === ts.SyntaxKind.ConstructorKeyword && ts.isConstructorDeclaration(node.parent))
  );
}

/**
 * The definition's kind is `alias`, as the language service describes it. Only a symbol with the Alias flag can be
 * one; for those (imports, rarely asked about) the description is made as the language service makes it.
 */
function isAliasDefinition(symbol: ts.Symbol, node: ts.Node, checker: ts.TypeChecker): boolean {
  const flags = symbol.flags | ((symbol as { exportSymbol?: ts.Symbol }).exportSymbol?.flags ?? 0);
  if (!(flags & ts.SymbolFlags.Alias)) return false;
  const meaning = typescript.FindAllReferences.Core.getIntersectingMeaningFromDeclarations(node, symbol);
  const enclosing = symbol.declarations?.[0] ?? node;
  const { symbolKind } = typescript.SymbolDisplay.getSymbolDisplayPartsDocumentationAndSymbolKind(
    checker,
    symbol,
    enclosing.getSourceFile(),
    enclosing,
    enclosing,
    meaning,
  );
  return symbolKind === ts.ScriptElementKind.alias;
}

/**
 * The node of a reference's text span, as ts-morph's `ReferenceEntry.getNode` finds it: down from
 * the file through the children at its start, the first that starts there with a width equal to the span's end (so,
 * but at the very start of a file, the innermost node at that position). Walked on the compiler's tree, through the
 * children ts-morph's `getChildAtPos` goes through (`getChildren`; the comment nodes ts-morph adds among them never
 * hold a reference), and only the node found is wrapped: wrapping each level on the way was a quarter of what
 * find-references cost.
 */
function nodeAt(file: SourceFile, textSpan: ts.TextSpan): Node {
  const sourceFile = file.compilerNode;
  const start = textSpan.start;
  const end = textSpan.start + textSpan.length;
  let best: ts.Node = sourceFile;
  let found: ts.Node | undefined;
  for (let next: ts.Node | undefined = sourceFile; next; next = childAtPos(next, start, sourceFile)) {
    if (!found) best = next;
    const nextStart = next.getStart(sourceFile);
    if (nextStart === start && next.end - nextStart === end) best = found = next;
    else if (found) break;
  }
  return wrapNode(file, best);
}

/** ts-morph's `getChildAtPos`, on the compiler's tree. */
function childAtPos(node: ts.Node, pos: number, sourceFile: ts.SourceFile): ts.Node | undefined {
  if (pos < node.pos || pos >= node.end) return undefined;
  for (const child of node.getChildren(sourceFile)) if (pos >= child.pos && pos < child.end) return child;
  return undefined;
}

// TypeScript's find-references internals: ts-morph bundles the whole compiler, but its typings declare only the
// public API.
const REFERENCES = 1; // FindAllReferences.FindReferencesUse.References
const SYMBOL_DEFINITION = 0; // FindAllReferences.DefinitionKind.Symbol
const SPAN_ENTRY = 0; // FindAllReferences.EntryKind.Span
const NOT_CANCELLED = { isCancellationRequested: () => false, throwIfCancellationRequested: () => undefined };

/** A reference: a node, or (kind {@link SPAN_ENTRY}) a span of a file. */
type Entry = { kind: number; node?: ts.Node };
interface SymbolAndEntries {
  definition?: { type: number; symbol: ts.Symbol };
  references: Entry[];
}

/**
 * The internals {@link findReferencesAsNodes} calls are all there (ts-morph is pinned to the version they were read
 * in, 28.0.0 with TypeScript 6.0.2; another copy may lack them): else ts-morph's own find-references, slower, is used.
 */
export const PROGRAM_REFERENCES = (() => {
  const internals = ts as unknown as Record<string, Record<string, Record<string, unknown> | unknown> | undefined>;
  const fars = internals.FindAllReferences as Record<string, unknown> | undefined;
  const core = fars?.Core as Record<string, unknown> | undefined;
  const display = internals.SymbolDisplay as Record<string, unknown> | undefined;
  return [
    internals.getTouchingPropertyName,
    internals.getDeclarationFromName,
    internals.isLiteralComputedPropertyDeclarationName,
    core?.getReferencedSymbolsForNode,
    core?.getAdjustedNode,
    core?.getIntersectingMeaningFromDeclarations,
    fars?.isDeclarationOfSymbol,
    fars?.toReferenceEntry,
    display?.getSymbolDisplayPartsDocumentationAndSymbolKind,
  ].every((internal) => typeof internal === 'function');
})();

const typescript = ts as unknown as {
  getTouchingPropertyName(sourceFile: ts.SourceFile, position: number): ts.Node;
  getDeclarationFromName(name: ts.Node): ts.Declaration | undefined;
  isLiteralComputedPropertyDeclarationName(node: ts.Node): boolean;
  FindAllReferences: {
    Core: {
      getReferencedSymbolsForNode(
        position: number,
        node: ts.Node,
        program: ts.Program,
        sourceFiles: readonly ts.SourceFile[],
        cancellationToken: typeof NOT_CANCELLED,
        options: { use: number },
      ): SymbolAndEntries[] | undefined;
      getAdjustedNode(node: ts.Node, options: { use: number }): ts.Node;
      getIntersectingMeaningFromDeclarations(node: ts.Node, symbol: ts.Symbol): number;
    };
    isDeclarationOfSymbol(node: ts.Node, target: ts.Symbol): boolean;
    toReferenceEntry(entry: Entry): ts.ReferenceEntry;
  };
  SymbolDisplay: {
    getSymbolDisplayPartsDocumentationAndSymbolKind(
      checker: ts.TypeChecker,
      symbol: ts.Symbol,
      sourceFile: ts.SourceFile,
      enclosingDeclaration: ts.Node,
      location: ts.Node,
      meaning: number,
    ): { symbolKind: ts.ScriptElementKind };
  };
};
