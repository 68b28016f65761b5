// One walk per file: every node bucketed by kind, identifiers by name. Rules and helpers ask this index instead of
// re-walking the tree (each ts-morph walk wraps every node it passes), which is most of what `check` costs. The walk
// is of the compiler's tree, and a node is wrapped (given its ts-morph node) only when someone asks for it: most are
// never asked for (the identifiers, above all, are asked for by name).
import {
  ts,
  type Identifier,
  type KindToNodeMappings,
  type Node,
  type SourceFile,
  type Symbol as TsMorphSymbol,
  type SyntaxKind,
  type VariableDeclaration,
} from 'ts-morph';

interface NodeIndex {
  byKind: Map<SyntaxKind, ts.Node[]>;
  identifiers: Map<string, ts.Identifier[]>;
  /** What has been asked for, wrapped. */
  wrappedByKind: Map<SyntaxKind, Node[]>;
  wrappedByName: Map<string, Identifier[]>;
  /** null: any name (see namesOutsideMemberAccess). */
  outsideMemberAccess?: Set<string> | null;
}

const indexes = new WeakMap<SourceFile, NodeIndex>();

function indexOf(file: SourceFile): NodeIndex {
  let index = indexes.get(file);
  if (!index) {
    const sourceFile = file.compilerNode;
    const byKind = new Map<SyntaxKind, ts.Node[]>();
    const identifiers = new Map<string, ts.Identifier[]>();
    // In document order, as `forEachDescendant` visits them: each node before its children.
    const pending: ts.Node[] = [];
    const pushChildren = (node: ts.Node) => {
      const children: ts.Node[] = [];
      ts.forEachChild(node, (child) => {
        children.push(child);
      });
      for (let i = children.length - 1; i >= 0; i--) pending.push(children[i]);
    };
    pushChildren(sourceFile);
    while (pending.length > 0) {
      const node = pending.pop()!;
      let list = byKind.get(node.kind);
      if (!list) byKind.set(node.kind, (list = []));
      list.push(node);
      if (ts.isIdentifier(node)) {
        const name = node.getText(sourceFile);
        let named = identifiers.get(name);
        if (!named) identifiers.set(name, (named = []));
        named.push(node);
      }
      pushChildren(node);
    }
    index = { byKind, identifiers, wrappedByKind: new Map(), wrappedByName: new Map() };
    indexes.set(file, index);
  }
  return index;
}

/** The ts-morph node of a node of the file's compiler tree: the one every other way to it gives. */
export function wrapNode<T extends Node>(file: SourceFile, node: ts.Node): T {
  return wrap<T>(file, node);
}

function wrap<T extends Node>(file: SourceFile, node: ts.Node): T {
  return (file as unknown as { _getNodeFromCompilerNode(node: ts.Node): T })._getNodeFromCompilerNode(node);
}

/** All nodes of a kind in the file, in document order (like `getDescendantsOfKind`, cached). */
export function nodesOfKind<K extends SyntaxKind>(file: SourceFile, kind: K): Array<KindToNodeMappings[K]> {
  const index = indexOf(file);
  let wrapped = index.wrappedByKind.get(kind);
  if (!wrapped) index.wrappedByKind.set(kind, (wrapped = (index.byKind.get(kind) ?? []).map((node) => wrap(file, node))));
  return wrapped as Array<KindToNodeMappings[K]>;
}

/**
 * Kinds never found inside JSDoc: for them the index (a walk of `forEachChild`, which JSDoc is not part of) holds
 * every node `getDescendantsOfKind` finds. (`PropertyAccessExpression` is left out: JSDoc tags such as `@augments` hold
 * expressions.)
 */
const OUTSIDE_JSDOC: ReadonlySet<SyntaxKind> = new Set([
  ts.SyntaxKind.CallExpression,
  ts.SyntaxKind.NewExpression,
  ts.SyntaxKind.BinaryExpression,
  ts.SyntaxKind.ObjectLiteralExpression,
  ts.SyntaxKind.PropertyAssignment,
  ts.SyntaxKind.VariableDeclaration,
  ts.SyntaxKind.ReturnStatement,
  ts.SyntaxKind.IfStatement,
] as number[] as SyntaxKind[]);

/**
 * `node.getDescendantsOfKind(kind)`: the same nodes in the same (document) order, from the file's index when the kind
 * is one of {@link OUTSIDE_JSDOC}: only the nodes asked for are wrapped, not every node ts-morph's walk passes (and
 * the tokens it makes of each).
 */
export function descendantsOfKind<K extends SyntaxKind>(node: Node, kind: K): Array<KindToNodeMappings[K]> {
  if (!OUTSIDE_JSDOC.has(kind)) return node.getDescendantsOfKind(kind);
  const file = node.getSourceFile();
  const list = indexOf(file).byKind.get(kind) ?? [];
  const ancestor = node.compilerNode;
  const found: Array<KindToNodeMappings[K]> = [];
  for (const candidate of list) {
    if (candidate.pos >= ancestor.pos && candidate.end <= ancestor.end && isStrictlyWithin(candidate, ancestor)) {
      found.push(wrap(file, candidate));
    }
  }
  return found;
}

/** `ancestor` is a proper ancestor of `node`. */
function isStrictlyWithin(node: ts.Node, ancestor: ts.Node): boolean {
  for (let parent = node.parent; parent; parent = parent.parent) {
    if (parent === ancestor) return true;
    if (parent.pos < ancestor.pos) return false;
  }
  return false;
}

/**
 * The names the file spells other than as the name of a member access (`m` of `x.m`): its identifiers elsewhere and
 * the values of its string literals. A declaration names itself with one of these (an identifier, a quoted or
 * computed name), and so does an import or export alias, so a member `x.m` of a project value can only be declared
 * in the project when some project file spells `m` so. Undefined — any name — when the file has a computed member
 * name other than a literal (`[KEY]`, `[Symbol.iterator]`, `[E.A]`), whose value may be spelled nowhere.
 */
export function namesOutsideMemberAccess(file: SourceFile): ReadonlySet<string> | undefined {
  const index = indexOf(file);
  if (index.outsideMemberAccess === undefined) {
    const computed = (index.byKind.get(ts.SyntaxKind.ComputedPropertyName as number as SyntaxKind) ?? []) as ts.ComputedPropertyName[];
    if (
      computed.some(
        (name) =>
          !ts.isStringLiteral(name.expression) &&
          !ts.isNoSubstitutionTemplateLiteral(name.expression) &&
          !ts.isNumericLiteral(name.expression),
      )
    ) {
      index.outsideMemberAccess = null;
      return undefined;
    }
    const names = new Set<string>();
    for (const [name, identifiers] of index.identifiers) {
      if (identifiers.some((id) => !(ts.isPropertyAccessExpression(id.parent) && id.parent.name === id))) names.add(name);
    }
    for (const kind of [ts.SyntaxKind.StringLiteral, ts.SyntaxKind.NoSubstitutionTemplateLiteral] as number[] as SyntaxKind[]) {
      for (const literal of index.byKind.get(kind) ?? []) names.add((literal as ts.StringLiteral).text);
    }
    index.outsideMemberAccess = names;
  }
  return index.outsideMemberAccess ?? undefined;
}

/**
 * False when `nameNode` is the member name of `x.m` (an identifier, not `#m`) and no file of the project spells `m`
 * outside a member access ({@link namesOutsideMemberAccess}): the member is then declared nowhere in the project
 * (nor is an alias of a project declaration), and callers that want such a declaration need not ask the type checker,
 * which would type the object the member is read from (`res.status(500).json`, `map.set`, `console.log`).
 */
export function memberMayBeDeclared(nameNode: Node): boolean {
  const compilerNode = nameNode.compilerNode;
  const access = compilerNode.parent;
  if (!ts.isIdentifier(compilerNode) || !access || !ts.isPropertyAccessExpression(access) || access.name !== compilerNode) return true;
  const name = nameNode.getText();
  if (name === 'default') return true;
  const project = nameNode.getProject();
  // (per program: a project whose files change gets a new one)
  const program = project.getProgram().compilerObject;
  let names = programNames.get(program);
  if (names === undefined) {
    names = new Set();
    for (const file of project.getSourceFiles()) {
      const spelled = namesOutsideMemberAccess(file);
      if (!spelled) {
        names = null;
        break;
      }
      for (const spelling of spelled) names.add(spelling);
    }
    programNames.set(program, names);
  }
  return names === null || names.has(name);
}

/** The names of {@link memberMayBeDeclared}, per program; null: any name. */
const programNames = new WeakMap<ts.Program, Set<string> | null>();

/** Identifiers spelled `name` in the file. */
export function identifiersNamed(file: SourceFile, name: string): Identifier[] {
  const index = indexOf(file);
  let wrapped = index.wrappedByName.get(name);
  if (!wrapped) index.wrappedByName.set(name, (wrapped = (index.identifiers.get(name) ?? []).map((id) => wrap<Identifier>(file, id))));
  return wrapped;
}

/** Identifiers inside the node whose name passes the test, in no particular order (the index, not a walk of the node). */
export function identifiersWithin(node: Node, named: (name: string) => boolean): Identifier[] {
  const { pos, end } = node.compilerNode;
  const file = node.getSourceFile();
  const found: Identifier[] = [];
  for (const [name, identifiers] of indexOf(file).identifiers) {
    if (!named(name)) continue;
    for (const id of identifiers) if (id.pos >= pos && id.end <= end) found.push(wrap<Identifier>(file, id));
  }
  return found;
}

/**
 * The identifiers in the node's subtree, those in JSDoc included, in the order `getDescendantsOfKind(SyntaxKind.Identifier)`
 * gives them (each node's JSDoc before its children), from a walk of the compiler's tree: ts-morph's walk for a token
 * kind scans the tokens of every node it passes and wraps them. With `spelled`, only the identifiers it accepts (by
 * their escaped text) are wrapped and given.
 */
export function identifiersUnder(node: Node, spelled?: ReadonlySet<string>): Identifier[] {
  return walkUnder<Identifier>(node, (current) => ts.isIdentifier(current) && (!spelled || spelled.has(current.escapedText as string)));
}

/** The `this` expressions under the node, JSDoc included, in the order `getDescendantsOfKind(SyntaxKind.ThisKeyword)` gives them. */
export function thisUnder(node: Node): Node[] {
  return walkUnder(node, (current) => current.kind === ts.SyntaxKind.ThisKeyword);
}

/** The nodes under `node` that pass the test, wrapped, from a walk of the compiler's tree (each node's JSDoc before its children). */
function walkUnder<T extends Node>(node: Node, wanted: (node: ts.Node) => boolean): T[] {
  const file = node.getSourceFile();
  const found: T[] = [];
  const pending: ts.Node[] = [];
  const pushChildren = (parent: ts.Node) => {
    const children: ts.Node[] = [...((parent as { jsDoc?: ts.JSDoc[] }).jsDoc ?? [])];
    ts.forEachChild(parent, (child) => {
      children.push(child);
    });
    for (let i = children.length - 1; i >= 0; i--) pending.push(children[i]);
  };
  pushChildren(node.compilerNode);
  while (pending.length > 0) {
    const current = pending.pop()!;
    if (wanted(current)) found.push(wrap<T>(file, current));
    pushChildren(current);
  }
  return found;
}

/**
 * The identifiers under the node whose symbol is `symbol` (`getSymbol() === symbol`), in the order of
 * {@link identifiersUnder}. The type checker is asked only about identifiers spelled as the symbol can be named
 * ({@link spellingsOf}): asking it about every identifier of a function was a tenth of what `check` cost.
 */
export function identifiersReferringTo(node: Node, symbol: TsMorphSymbol | undefined): Identifier[] {
  return identifiersUnder(node, symbol && spellingsOf(symbol)).filter((id) => id.getSymbol() === symbol);
}

/** The identifiers under `scope` that refer to the variable, its own name aside; undefined for a destructuring pattern. */
export function usesOfVariable(variable: VariableDeclaration, scope: Node): Identifier[] | undefined {
  const name = variable.getNameNode();
  if (name.getKind() !== ts.SyntaxKind.Identifier) return undefined;
  return identifiersReferringTo(scope, name.getSymbol()).filter((id) => id !== name);
}

/** The identifiers under the node whose symbol is one of `symbols`, in the order of {@link identifiersUnder}. */
export function identifiersReferringToAny(node: Node, symbols: ReadonlySet<TsMorphSymbol>): Identifier[] {
  const spelled = new Set<string>();
  for (const symbol of symbols) {
    const spellings = spellingsOf(symbol);
    if (!spellings) return identifiersUnder(node).filter((id) => symbols.has(id.getSymbol()!));
    for (const spelling of spellings) spelled.add(spelling);
  }
  return identifiersUnder(node, spelled).filter((id) => symbols.has(id.getSymbol()!));
}

/** `id.getSymbol() === symbol`, without asking the type checker when the identifier cannot name the symbol. */
export function refersTo(id: Identifier, symbol: TsMorphSymbol | undefined): boolean {
  const spellings = symbol && spellingsOf(symbol);
  if (spellings && !spellings.has(id.compilerNode.escapedText as string)) return false;
  return id.getSymbol() === symbol;
}

/** `symbols.has(id.getSymbol())`, without asking the type checker when the identifier cannot name any of them. */
export function refersToAny(id: Identifier, symbols: ReadonlySet<TsMorphSymbol | undefined>): boolean {
  if (symbols.size === 0) return false;
  const spelling = id.compilerNode.escapedText as string;
  let unknown = false;
  for (const symbol of symbols) {
    const spellings = symbol && spellingsOf(symbol);
    if (!spellings || spellings.has(spelling)) {
      unknown = true;
      break;
    }
  }
  return unknown && symbols.has(id.getSymbol());
}

/**
 * Every escaped text an identifier whose symbol (`getSymbolAtLocation`) is this one can have: the symbol's name, its
 * declarations' names (the local name of `export default function f`, whose symbol is named `default`), and the
 * names the checker answers with another symbol's: `default` (`import { default as x }` is the default export's
 * symbol), `meta` and `target` (`import.meta`, `new.target`). Undefined — ask about every identifier — for the
 * symbols TypeScript names itself (`__function`, `__object`, `export=`, a module's quoted path) and names that start
 * with two underscores.
 */
function spellingsOf(symbol: TsMorphSymbol): ReadonlySet<string> | undefined {
  const compilerSymbol = symbol.compilerSymbol;
  let spellings = spellingsCache.get(compilerSymbol);
  if (spellings === undefined) {
    const name = compilerSymbol.escapedName as string;
    if (name.startsWith('__') || name.startsWith('"') || name === 'export=') spellings = null;
    else {
      spellings = new Set([name, 'default', 'meta', 'target']);
      for (const declaration of compilerSymbol.declarations ?? []) {
        const declared = ts.getNameOfDeclaration(declaration);
        if (declared && ts.isIdentifier(declared)) spellings.add(declared.escapedText as string);
      }
    }
    spellingsCache.set(compilerSymbol, spellings);
  }
  return spellings ?? undefined;
}

const spellingsCache = new WeakMap<ts.Symbol, Set<string> | null>();
