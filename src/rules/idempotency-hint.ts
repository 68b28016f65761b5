import { Node, type ObjectLiteralExpression } from 'ts-morph';
import type { Rule } from './rule';
import { ANNOTATION_KEYS, type ToolRegistration } from '../analysis/tools';
import { inferToolEffects } from '../analysis/tool-effects';

export const idempotencyHint: Rule = {
  meta: {
    id: 'idempotency-hint',
    title: 'A tool registered without readOnlyHint / idempotentHint annotations',
    severity: 'info',
    fix: 'auto',
    doc:
      'Without sessions or `Last-Event-ID`, a dropped connection loses the in-flight request and the client re-issues it with ' +
      'a new id, so a tool handler may run twice. `readOnlyHint` (no side effects) and `idempotentHint` (repeating has no ' +
      'further effect) tell clients which tools are safe to retry; both default to false. Tools should carry honest hints. ' +
      '`apply` adds the hints it can infer from the handler (reads only, set-by-key writes, appends, deletes); a handler with ' +
      'an effect it cannot classify, or annotations kept outside the registration, is left for review.',
    hint: 'Add `annotations: { readOnlyHint, idempotentHint }` that describe what the handler really does.',
    sources: ['spec 2026-07-28 schema.ts ToolAnnotations', 'spec 2026-07-28 changelog.mdx § Major changes 9'],
  },
  check({ facts, report }) {
    for (const tool of facts.tools) {
      const hints = toolHints(tool);
      // `undefined`: the annotations come from somewhere we cannot read (a call, an unresolved import): stay silent.
      if (!hints || hints.has('readOnlyHint') || hints.has('idempotentHint')) continue;
      const site =
        tool.form === 'list-literal'
          ? tool.node
          : Node.isCallExpression(tool.node)
            ? (tool.node.getArguments()[0] ?? tool.node)
            : tool.node;
      const inference = tool.handler ? inferToolEffects(tool.handler) : undefined;
      const evidence = inference?.evidence ?? 'retry-unsafe: review: the handler is not visible at this tool literal';
      const message = `Tool \`${tool.name}\` has no readOnlyHint/idempotentHint: clients cannot tell whether re-issuing a dropped call is safe (${evidence}).`;
      if (inference?.hints && hintsCanBeWrittenInline(tool)) report(site, message, { fix: 'auto', data: { hints: inference.hints } });
      else report(site, message, { fix: 'manual' });
    }
  },
};

/**
 * The idempotency-hints transform edits literals only: the config object, its `annotations` literal, or a new
 * `{ … }` argument before a `.tool()` callback. Annotations kept in a constant, a config held in a variable, or a
 * `.tool()` argument that looks like annotations but is not the one before the callback make the fix manual.
 */
function hintsCanBeWrittenInline(tool: ToolRegistration): boolean {
  if (tool.form === 'tool') {
    if (!Node.isCallExpression(tool.node)) return false;
    const annotations = toolAnnotationsArgument(tool);
    if (annotations === 'unknown') return false;
    if (annotations && !Node.isObjectLiteralExpression(unwrap(annotations.node))) return false;
    const middle = tool.node.getArguments().slice(1, tool.callbackIndex);
    return middle.every((arg) => {
      if (arg === annotations?.node) return true;
      const value = unwrap(arg);
      if (Node.isStringLiteral(value) || Node.isNoSubstitutionTemplateLiteral(value) || Node.isTemplateExpression(value)) return true;
      // A schema literal, even one with only annotation-named keys (`{ title: z.string() }`): the transform tells
      // them apart by their values (validators, not literals) and adds the annotations after it.
      if (Node.isObjectLiteralExpression(value)) return true;
      return !!annotations; // a schema constant is fine once the annotations are identified
    });
  }
  const config =
    tool.form === 'list-literal'
      ? tool.node
      : Node.isCallExpression(tool.node)
        ? tool.node.getArguments()[tool.form === 'addTool' ? 0 : 1]
        : undefined;
  if (!config || !Node.isObjectLiteralExpression(config)) return false;
  const property = config.getProperty('annotations');
  if (!property) return !config.getProperties().some(Node.isSpreadAssignment);
  return Node.isPropertyAssignment(property) && Node.isObjectLiteralExpression(unwrap(property.getInitializer()));
}

const MAX_DEPTH = 6;

/**
 * The annotation keys written for a tool, read through `const` objects, spreads and config variables
 * (`annotations: READ_ONLY`, `{ ...SAFE, title }`, `registerTool(name, config, cb)`); `undefined` when they cannot be read.
 */
export function toolHints(tool: ToolRegistration): Set<string> | undefined {
  if (tool.form === 'tool') {
    const annotations = toolAnnotationsArgument(tool);
    if (annotations === 'unknown') return undefined;
    return annotations ? objectKeys(annotations.object, 0) : new Set();
  }
  const config =
    tool.form === 'list-literal'
      ? tool.node
      : Node.isCallExpression(tool.node)
        ? tool.node.getArguments()[tool.form === 'addTool' ? 0 : 1]
        : undefined;
  if (!config) return new Set(); // registerTool(name) with no config
  const object = resolveObject(config, 0);
  if (!object) return undefined;
  const property = object.getProperty('annotations');
  if (!property) return object.getProperties().some(Node.isSpreadAssignment) ? undefined : new Set();
  const value = Node.isPropertyAssignment(property)
    ? property.getInitializer()
    : Node.isShorthandPropertyAssignment(property)
      ? property.getNameNode()
      : undefined;
  const annotations = value && resolveObject(value, 0);
  return annotations ? objectKeys(annotations, 0) : undefined;
}

/**
 * For the `server.tool(name, [description], [schema], [annotations], cb)` overloads: the argument holding the
 * annotations (the last object before the callback whose keys are all annotation keys and whose values are not schemas),
 * `undefined` when there is none, `'unknown'` when an argument that may hold them cannot be read.
 */
export function toolAnnotationsArgument(tool: ToolRegistration): { node: Node; object: ObjectLiteralExpression } | undefined | 'unknown' {
  if (tool.form !== 'tool' || !Node.isCallExpression(tool.node)) return undefined;
  const middle = tool.node
    .getArguments()
    .slice(1, tool.callbackIndex)
    .filter((arg) => !Node.isStringLiteral(arg) && !Node.isNoSubstitutionTemplateLiteral(arg) && !Node.isTemplateExpression(arg));
  const last = middle[middle.length - 1];
  if (!last) return undefined;
  const object = resolveObject(last, 0);
  if (object && isAnnotationsObject(object)) return { node: last, object };
  // (name, schema, X, cb): X can only be annotations.
  if (!object && middle.length >= 2) return 'unknown';
  return undefined;
}

function isAnnotationsObject(object: ObjectLiteralExpression): boolean {
  const properties = object.getProperties();
  if (properties.length === 0) return false;
  return properties.every((property) => {
    if (Node.isSpreadAssignment(property)) {
      const spread = resolveObject(property.getExpression(), 1);
      return !spread || isAnnotationsObject(spread);
    }
    if (Node.isShorthandPropertyAssignment(property)) return ANNOTATION_KEYS.has(property.getName());
    if (!Node.isPropertyAssignment(property) || !ANNOTATION_KEYS.has(property.getName())) return false;
    // A schema's values are validators (`z.string()`, `{ type: 'string' }`); an annotation's are booleans and strings.
    const value = unwrap(property.getInitializer());
    return !!value && !Node.isCallExpression(value) && !Node.isObjectLiteralExpression(value) && !Node.isPropertyAccessExpression(value);
  });
}

/** Keys of an object literal, following spreads; `undefined` when a spread cannot be read. */
function objectKeys(object: ObjectLiteralExpression, depth: number): Set<string> | undefined {
  const keys = new Set<string>();
  for (const property of object.getProperties()) {
    if (Node.isSpreadAssignment(property)) {
      const spread = depth < MAX_DEPTH ? resolveObject(property.getExpression(), depth + 1) : undefined;
      const inner = spread && objectKeys(spread, depth + 1);
      if (!inner) return undefined;
      for (const key of inner) keys.add(key);
    } else if (Node.isPropertyAssignment(property) || Node.isShorthandPropertyAssignment(property)) {
      keys.add(property.getName());
    }
  }
  return keys;
}

function unwrap(node: Node | undefined): Node | undefined {
  let current = node;
  while (
    current &&
    (Node.isParenthesizedExpression(current) ||
      Node.isAsExpression(current) ||
      Node.isSatisfiesExpression(current) ||
      Node.isNonNullExpression(current))
  ) {
    current = current.getExpression();
  }
  return current;
}

/** An object literal, or a variable (local or imported from a project file) initialised with one. */
function resolveObject(node: Node, depth: number): ObjectLiteralExpression | undefined {
  const value = unwrap(node);
  if (!value || depth > MAX_DEPTH) return undefined;
  if (Node.isObjectLiteralExpression(value)) return value;
  if (!Node.isIdentifier(value)) return undefined;
  const symbol = value.getSymbol();
  const target = symbol?.isAlias() ? symbol.getAliasedSymbol() : symbol;
  for (const declaration of target?.getDeclarations() ?? []) {
    if (Node.isVariableDeclaration(declaration)) {
      const initializer = declaration.getInitializer();
      if (initializer) return resolveObject(initializer, depth + 1);
    }
  }
  return undefined;
}
