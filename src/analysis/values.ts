// What SDK classes a value can hold: `new X()`, variables initialised or assigned with one, type
// annotations that name one (`Record<string, SSEServerTransport>`), and containers written to with one.
import { descendantsOfKind, identifiersNamed, memberMayBeDeclared } from './node-index';
import { Node, SyntaxKind, type Symbol as TsMorphSymbol } from 'ts-morph';
import { resolveOrigin, type ImportOrigin } from './resolve';
import { unwrapExpression } from './endpoints/spans';

const MAX_DEPTH = 6;

export function valueOrigins(expression: Node, depth = 0, seen = new Set<Node>()): ImportOrigin[] {
  if (depth > MAX_DEPTH || seen.has(expression)) return [];
  seen.add(expression);
  const node = unwrapExpression(expression);
  if (Node.isNewExpression(node)) {
    const origin = resolveOrigin(node.getExpression());
    const fromTypeArgs = node.getTypeArguments().flatMap((arg) => typeOrigins(arg));
    return origin ? [origin, ...fromTypeArgs] : fromTypeArgs;
  }
  if (Node.isConditionalExpression(node)) {
    return [...valueOrigins(node.getWhenTrue(), depth + 1, seen), ...valueOrigins(node.getWhenFalse(), depth + 1, seen)];
  }
  if (Node.isBinaryExpression(node)) {
    const op = node.getOperatorToken().getKind();
    if (op === SyntaxKind.QuestionQuestionToken || op === SyntaxKind.BarBarToken || op === SyntaxKind.EqualsToken) {
      return [...valueOrigins(node.getLeft(), depth + 1, seen), ...valueOrigins(node.getRight(), depth + 1, seen)];
    }
    return [];
  }
  if (Node.isElementAccessExpression(node)) return valueOrigins(node.getExpression(), depth + 1, seen);
  if (Node.isCallExpression(node)) {
    const callee = node.getExpression();
    // transports.get(id), transports.find(...), Object.values(transports)
    if (Node.isPropertyAccessExpression(callee) && /^(?:get|find|at|pop|shift)$/.test(callee.getName())) {
      return valueOrigins(callee.getExpression(), depth + 1, seen);
    }
    return returnOrigins(callee, depth, seen);
  }
  if (Node.isIdentifier(node) || Node.isPropertyAccessExpression(node)) {
    return originsOfBinding(node, depth, seen);
  }
  return [];
}

/**
 * Origins named in a type: `Map<string, A | B>` → A, B; through the project's type aliases and interfaces too
 * (`type SessionTable = Map<string, A>`, `interface Session { transport: A }`, imported or not).
 */
export function typeOrigins(typeNode: Node | undefined, seen = new Set<Node>()): ImportOrigin[] {
  if (!typeNode || seen.has(typeNode)) return [];
  seen.add(typeNode);
  const refs = [typeNode, ...typeNode.getDescendants()].filter(Node.isTypeReference);
  const origins: ImportOrigin[] = [];
  for (const ref of refs) {
    const origin = resolveOrigin(ref.getTypeName());
    if (origin) origins.push(origin);
    for (const declaration of followImport(ref.getTypeName().getSymbol())?.getDeclarations() ?? []) {
      if (Node.isTypeAliasDeclaration(declaration)) origins.push(...typeOrigins(declaration.getTypeNode(), seen));
      // (a record type of the project's own, as an inline `{ transport: T }` is read: its properties' types)
      if (Node.isInterfaceDeclaration(declaration))
        for (const property of declaration.getProperties()) origins.push(...typeOrigins(property.getTypeNode(), seen));
    }
  }
  return origins;
}

function originsOfBinding(node: Node, depth: number, seen: Set<Node>): ImportOrigin[] {
  const nameNode = Node.isPropertyAccessExpression(node) ? node.getNameNode() : node;
  // (a member no project file declares has none of the declarations below)
  if (!memberMayBeDeclared(nameNode)) return [];
  const symbol = followImport(nameNode.getSymbol());
  if (!symbol) return [];
  const origins: ImportOrigin[] = [];
  for (const declaration of symbol.getDeclarations()) {
    // `session.transport` where `interface Session { transport: StreamableHTTPServerTransport }`.
    if (Node.isPropertySignature(declaration)) origins.push(...typeOrigins(declaration.getTypeNode()));
    if (
      Node.isVariableDeclaration(declaration) ||
      Node.isPropertyDeclaration(declaration) ||
      Node.isParameterDeclaration(declaration) ||
      Node.isPropertyAssignment(declaration)
    ) {
      const typeNode = 'getTypeNode' in declaration ? (declaration as { getTypeNode(): Node | undefined }).getTypeNode() : undefined;
      origins.push(...typeOrigins(typeNode));
      const initializer = declaration.getInitializer();
      if (initializer) origins.push(...valueOrigins(initializer, depth + 1, seen));
    }
    if (Node.isVariableDeclaration(declaration) || Node.isPropertyDeclaration(declaration)) {
      origins.push(...originsOfWrites(declaration, symbol.getName(), depth, seen));
    }
    // `import server from './server'` where that file has `export default server` (or `export default new McpServer()`).
    if (Node.isExportAssignment(declaration)) origins.push(...valueOrigins(declaration.getExpression(), depth + 1, seen));
  }
  return origins;
}

/** An imported binding (`import { transports } from './store'`): the symbol it aliases in the project file. */
function followImport(symbol: TsMorphSymbol | undefined): TsMorphSymbol | undefined {
  if (!symbol) return undefined;
  const isImport = symbol.getDeclarations().some((d) => Node.isImportSpecifier(d) || Node.isImportClause(d));
  return (isImport ? symbol.getAliasedSymbol() : undefined) ?? symbol;
}

/** `x = new T()`, `x[k] = t`, `x.set(k, t)`, `x.push(t)` anywhere in the declaring file. */
function originsOfWrites(declaration: Node, name: string, depth: number, seen: Set<Node>): ImportOrigin[] {
  const symbol = declaration.getSymbol();
  const origins: ImportOrigin[] = [];
  const file = declaration.getSourceFile();
  for (const id of identifiersNamed(file, name)) {
    const parent = id.getParent();
    const target = Node.isPropertyAccessExpression(parent) && parent.getNameNode() === id ? parent : id;
    if (target === id && Node.isPropertyAccessExpression(parent) && parent.getExpression() !== id) continue;
    if (id.getSymbol() !== symbol) continue;
    const holder = target.getParent();
    if (!holder) continue;
    if (Node.isBinaryExpression(holder) && holder.getLeft() === target && holder.getOperatorToken().getKind() === SyntaxKind.EqualsToken) {
      origins.push(...valueOrigins(holder.getRight(), depth + 1, seen));
    } else if (Node.isElementAccessExpression(holder) && holder.getExpression() === target) {
      const assignment = holder.getParent();
      if (
        Node.isBinaryExpression(assignment) &&
        assignment.getLeft() === holder &&
        assignment.getOperatorToken().getKind() === SyntaxKind.EqualsToken
      ) {
        origins.push(...valueOrigins(assignment.getRight(), depth + 1, seen));
      }
    } else if (
      Node.isPropertyAccessExpression(holder) &&
      holder.getExpression() === target &&
      /^(?:set|push|unshift)$/.test(holder.getName())
    ) {
      const call = holder.getParent();
      if (Node.isCallExpression(call)) {
        const args = call.getArguments();
        const value = holder.getName() === 'set' ? args[1] : args[0];
        if (value) origins.push(...valueOrigins(value, depth + 1, seen));
      }
    }
  }
  return origins;
}

/** A call to a project function: what its declared return type names, or what it returns. */
function returnOrigins(callee: Node, depth: number, seen: Set<Node>): ImportOrigin[] {
  if (!Node.isIdentifier(callee)) return [];
  const origins: ImportOrigin[] = [];
  for (const declaration of followImport(callee.getSymbol())?.getDeclarations() ?? []) {
    const fn = Node.isVariableDeclaration(declaration) ? declaration.getInitializer() : declaration;
    if (!fn || !(Node.isFunctionDeclaration(fn) || Node.isArrowFunction(fn) || Node.isFunctionExpression(fn))) continue;
    const declared = typeOrigins(fn.getReturnTypeNode());
    if (declared.length > 0) {
      origins.push(...declared);
      continue;
    }
    const body = Node.isArrowFunction(fn) ? fn.getBody() : undefined;
    if (body && !Node.isBlock(body)) origins.push(...valueOrigins(body, depth + 1, seen));
    for (const ret of descendantsOfKind(fn, SyntaxKind.ReturnStatement)) {
      const value = ret.getExpression();
      if (value) origins.push(...valueOrigins(value, depth + 1, seen));
    }
  }
  return origins;
}
