// Does code validate the Origin header? Reading it counts, unless the value is only echoed back (CORS reflection is
// not validation); the v2 framework apps and the SDK's Origin middleware count too.
import { identifiersNamed, identifiersUnder, nodesOfKind } from './node-index';
import { Node, SyntaxKind, ts, type SourceFile } from 'ts-morph';
import { stringLiterals } from './file-facts';

/** Project-level: does any file check the Origin header or install an Origin-validating layer? */
export function fileValidatesOrigin(sourceFile: SourceFile): boolean {
  // (the v2 framework apps validate Origin without the file ever spelling it)
  for (const declaration of sourceFile.getImportDeclarations()) {
    if (
      declaration.getModuleSpecifierValue() === '@modelcontextprotocol/express' &&
      declaration.getNamedImports().some((n) => n.getName() === 'createMcpExpressApp')
    )
      return true;
    if (/^@modelcontextprotocol\/(?:hono|fastify)$/.test(declaration.getModuleSpecifierValue())) return true;
  }
  if (!/origin/i.test(sourceFile.getFullText())) return false;
  if (ORIGIN_LAYERS.some((name) => identifiersNamed(sourceFile, name).length > 0)) return true;
  // Reading the header counts, unless the value is only echoed back (CORS reflection is not validation).
  return originReads(sourceFile).some((read) => !echoedOnly(read, 0));
}

/** The SDK's Origin-validating middleware and helpers: an identifier spelled like one counts. */
const ORIGIN_LAYERS = ['originValidation', 'localhostOriginValidation', 'originValidationResponse'];

const HEADER_GETTERS = /^(?:get|header|getHeader)$/;
const HEADER_SETTERS = /^(?:setHeader|header|set|append|writeHead|vary)$/;

/** `headers.origin`, `headers['origin']`, `req.get('origin')` / `headers.get('Origin')`, `const { origin } = req.headers`. */
function originReads(file: SourceFile, within?: Node): Node[] {
  const reads: Node[] = [];
  for (const access of nodesOfKind(file, SyntaxKind.PropertyAccessExpression)) {
    if (access.getName() === 'origin' && /headers$/i.test(access.getExpression().getText())) reads.push(access);
  }
  for (const literal of stringLiterals(file, /^origin$/i)) {
    const parent = literal.getParent();
    if (Node.isElementAccessExpression(parent) && parent.getArgumentExpression() === literal) reads.push(parent);
    if (Node.isCallExpression(parent) && parent.getArguments()[0] === literal) {
      const callee = parent.getExpression();
      if (Node.isPropertyAccessExpression(callee) && HEADER_GETTERS.test(callee.getName())) reads.push(parent);
    }
  }
  for (const element of nodesOfKind(file, SyntaxKind.BindingElement)) {
    const key = element.getPropertyNameNode()?.getText() ?? element.getName();
    if (!/^['"]?origin['"]?$/i.test(key)) continue;
    const declaration = element.getParent()?.getParent();
    if (Node.isVariableDeclaration(declaration) && /headers$/i.test(declaration.getInitializer()?.getText() ?? '')) reads.push(element);
  }
  return within ? reads.filter((read) => read.getStart() >= within.getStart() && read.getEnd() <= within.getEnd()) : reads;
}

/** Does the code inside `node` (a handler) read the Origin header for more than echoing it? */
export function readsOrigin(node: Node): boolean {
  if (!/origin/i.test(node.getText())) return false;
  return originReads(node.getSourceFile(), node).some((read) => !echoedOnly(read, 0));
}

/**
 * The value read from the Origin header only flows back into a response header
 * (`res.setHeader('Access-Control-Allow-Origin', req.headers.origin ?? '*')`), directly or through a variable,
 * or is merely tested for presence (`if (origin)`).
 */
function echoedOnly(read: Node, depth: number): boolean {
  if (depth > 3) return false;
  if (Node.isBindingElement(read)) return referencesEchoedOnly(read, depth);
  let node: Node = read;
  let parent = node.getParent();
  while (
    parent &&
    (Node.isParenthesizedExpression(parent) ||
      Node.isAsExpression(parent) ||
      Node.isNonNullExpression(parent) ||
      (Node.isConditionalExpression(parent) && parent.getCondition() !== node) ||
      (Node.isBinaryExpression(parent) && /^(?:\?\?|\|\|)$/.test(parent.getOperatorToken().getText())))
  ) {
    node = parent;
    parent = node.getParent();
  }
  if (!parent) return false;
  if (Node.isIfStatement(parent) && parent.getExpression() === node) return true;
  if (Node.isCallExpression(parent) && parent.getArguments().indexOf(node) > 0) {
    const callee = parent.getExpression();
    return Node.isPropertyAccessExpression(callee) && HEADER_SETTERS.test(callee.getName());
  }
  if (Node.isPropertyAssignment(parent) && parent.getInitializer() === node) {
    return /^['"]?access-control-allow-origin['"]?$/i.test(parent.getNameNode().getText());
  }
  if (Node.isVariableDeclaration(parent) && parent.getInitializer() === node && Node.isIdentifier(parent.getNameNode())) {
    return referencesEchoedOnly(parent, depth);
  }
  return false;
}

function referencesEchoedOnly(declaration: Node, depth: number): boolean {
  const symbol = declaration.getSymbol();
  const nameNode = (declaration as Node & { getNameNode?(): Node }).getNameNode?.();
  if (!symbol || !nameNode) return false;
  const name = nameNode.getText();
  // (only identifiers spelled like the name are looked at: one with the same text has the same escaped text)
  const spelled = new Set([(nameNode.compilerNode as ts.Identifier).escapedText as string]);
  const references = identifiersUnder(declaration.getSourceFile(), spelled).filter(
    (id) => id !== nameNode && id.getText() === name && id.getSymbol() === symbol,
  );
  return references.every((reference) => echoedOnly(reference, depth + 1));
}
