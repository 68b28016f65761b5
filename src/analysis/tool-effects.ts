// What a tool handler does to the world, read from its code: the basis for honest `readOnlyHint` /
// `idempotentHint` / `destructiveHint`. Conservative by design: anything we cannot classify makes the whole
// inference "unknown" and no hint is added (the report says why).
import { Node } from 'ts-morph';
import { resolveOrigin } from './resolve';

export type EffectKind = 'read' | 'idempotent' | 'destructive' | 'repeating' | 'unknown';

export interface Effect {
  kind: EffectKind;
  /** Short human text: "sets `cache[key]`", "appends to `notes`". */
  what: string;
}

export interface ToolHints {
  readOnlyHint: boolean;
  idempotentHint?: boolean;
  destructiveHint?: boolean;
}

export interface Inference {
  /** Hints to add, or undefined when the handler's effect is unknown. */
  hints?: ToolHints;
  /** "read-only: reads `forecasts`, no writes", "not idempotent: appends to `notes`", "retry-unsafe: review: …". */
  evidence: string;
  effects: Effect[];
}

const PURE_GLOBALS = new Set([
  'String',
  'Number',
  'Boolean',
  'BigInt',
  'Symbol',
  'parseInt',
  'parseFloat',
  'isNaN',
  'isFinite',
  'encodeURIComponent',
  'decodeURIComponent',
  'encodeURI',
  'decodeURI',
  'structuredClone',
  'randomUUID',
  'setTimeout',
  'clearTimeout',
  'Array',
  'Object',
]);
const PURE_NAMESPACES =
  /^(?:console|JSON|Math|Object|Array|Number|String|Promise|Date|Intl|Reflect|z|crypto|path|url|util|Buffer|performance)$/;
const PURE_METHODS = new Set([
  'map',
  'filter',
  'reduce',
  'reduceRight',
  'find',
  'findIndex',
  'findLast',
  'findLastIndex',
  'some',
  'every',
  'includes',
  'indexOf',
  'lastIndexOf',
  'join',
  'slice',
  'concat',
  'flat',
  'flatMap',
  'at',
  'entries',
  'keys',
  'values',
  'forEach',
  'toSorted',
  'toReversed',
  'with',
  'trim',
  'trimStart',
  'trimEnd',
  'split',
  'toLowerCase',
  'toUpperCase',
  'replace',
  'replaceAll',
  'startsWith',
  'endsWith',
  'padStart',
  'padEnd',
  'repeat',
  'substring',
  'substr',
  'charAt',
  'charCodeAt',
  'codePointAt',
  'localeCompare',
  'match',
  'matchAll',
  'normalize',
  'toString',
  'toFixed',
  'toPrecision',
  'toISOString',
  'toJSON',
  'valueOf',
  'getTime',
  'get',
  'has',
  'then',
  'catch',
  'finally',
  'describe',
  'optional',
  'default',
  'parse',
  'safeParse',
  'test',
  'exec',
  'json',
  'text',
  'arrayBuffer',
  'blob',
  'toLocaleString',
  'toLocaleDateString',
  'toLocaleTimeString',
  'getFullYear',
  'getMonth',
  'getDate',
  'getHours',
  'getMinutes',
  'getSeconds',
  'getDay',
  'digest',
  'isArray',
  'from',
  'of',
]);
const MUTATING_REPEATING = new Set(['push', 'unshift', 'splice', 'pop', 'shift', 'copyWithin']);
const MUTATING_IDEMPOTENT = new Set(['set', 'add', 'sort', 'reverse', 'fill']);
const MUTATING_DESTRUCTIVE = new Set(['delete', 'clear']);
const FS_READ = /^(?:read|stat|lstat|exists|access|readdir|realpath|open(?:dir)?|createReadStream|watch)/;
const FS_OVERWRITE = /^(?:writeFile|copyFile|truncate|cp|symlink|link|chmod|chown|utimes|createWriteStream)/;
const FS_IDEMPOTENT = /^(?:mkdir|mkdtemp)/;
const FS_DELETE = /^(?:rm|rmdir|unlink)/;
const FS_REPEATING = /^(?:appendFile|rename)/;

const VERB_REPEATING =
  /^(?:create|insert|add|append|post|send|publish|enqueue|push|increment|incr|decrement|decr|charge|pay|transfer|order|submit|spawn|launch|trigger|invoke|emit|notify|log|record|track|book|reserve|generate|mint|allocate)/i;
const VERB_IDEMPOTENT =
  /^(?:update|set|put|upsert|replace|save|write|store|assign|enable|disable|mark|merge|patch|sync|ensure|register|configure)/i;
const VERB_DESTRUCTIVE = /^(?:delete|remove|destroy|drop|clear|purge|unlink|revoke|cancel|close|reset|truncate|evict|expire|archive)/i;
const VERB_READ =
  /^(?:get|find|list|read|fetch|load|query|search|lookup|look|count|describe|check|validate|is|has|can|format|parse|render|compute|calculate|to|resolve|select|peek|show|view|preview|estimate|summari[sz]e|convert|translate|compare|match|sum|avg|min|max|sort|filter|map)/i;

export function inferToolEffects(handler: Node): Inference {
  const effects: Effect[] = [];
  const reads = new Set<string>();
  collect(handler, handler, effects, reads, 0, new Set());
  const unknown = effects.filter((e) => e.kind === 'unknown');
  const repeating = effects.filter((e) => e.kind === 'repeating');
  const destructive = effects.filter((e) => e.kind === 'destructive');
  const idempotent = effects.filter((e) => e.kind === 'idempotent');
  const list = (items: Effect[]) => [...new Set(items.map((e) => e.what))].slice(0, 3).join('; ');
  if (unknown.length > 0) return { effects, evidence: `retry-unsafe: review: ${list(unknown)}` };
  if (repeating.length > 0) {
    return {
      effects,
      hints: { readOnlyHint: false, idempotentHint: false, destructiveHint: destructive.length > 0 },
      evidence: `not idempotent: ${list(repeating)}`,
    };
  }
  if (idempotent.length + destructive.length > 0) {
    return {
      effects,
      hints: { readOnlyHint: false, idempotentHint: true, destructiveHint: destructive.length > 0 },
      evidence: `idempotent: ${list([...destructive, ...idempotent])}`,
    };
  }
  const readList = [...reads]
    .slice(0, 3)
    .map((r) => `\`${r}\``)
    .join(', ');
  return { effects, hints: { readOnlyHint: true }, evidence: `read-only: ${readList ? `reads ${readList}, ` : ''}no writes` };
}

function isWithin(node: Node, container: Node): boolean {
  return node === container || node.getAncestors().includes(container);
}

/** Declared inside the handler (a local), and bound to a fresh value no one else can see. */
function freshLocal(identifier: Node, handler: Node): boolean {
  if (!Node.isIdentifier(identifier)) return false;
  const declaration = identifier.getSymbol()?.getDeclarations()[0];
  if (!declaration || !isWithin(declaration, handler)) return false;
  if (Node.isParameterDeclaration(declaration) || Node.isBindingElement(declaration)) return true;
  if (!Node.isVariableDeclaration(declaration)) return true;
  const init = declaration.getInitializer();
  if (!init) return true;
  return (
    Node.isArrayLiteralExpression(init) ||
    Node.isObjectLiteralExpression(init) ||
    Node.isNewExpression(init) ||
    Node.isStringLiteral(init) ||
    Node.isNumericLiteral(init) ||
    Node.isTemplateExpression(init) ||
    Node.isNoSubstitutionTemplateLiteral(init) ||
    (Node.isCallExpression(init) &&
      Node.isPropertyAccessExpression(init.getExpression()) &&
      PURE_METHODS.has((init.getExpression() as import('ts-morph').PropertyAccessExpression).getName()))
  );
}

function rootOf(node: Node): Node {
  let current = node;
  while (
    Node.isPropertyAccessExpression(current) ||
    Node.isElementAccessExpression(current) ||
    Node.isNonNullExpression(current) ||
    Node.isParenthesizedExpression(current)
  ) {
    current = current.getExpression();
  }
  return current;
}

function isContextParam(identifier: Node, handler: Node): boolean {
  const declaration = identifier.getSymbol()?.getDeclarations()[0];
  if (!declaration || !Node.isParameterDeclaration(declaration)) return false;
  const fn = declaration.getParent();
  return fn === handler && (fn as Node & { getParameters(): Node[] }).getParameters().indexOf(declaration) > 0;
}

function textOf(node: Node): string {
  const text = node.getText().replace(/\s+/g, ' ');
  return text.length > 40 ? `${text.slice(0, 37)}…` : text;
}

function collect(node: Node, handler: Node, effects: Effect[], reads: Set<string>, depth: number, visited: Set<Node>): void {
  if (visited.has(node)) return;
  visited.add(node);
  node.forEachDescendant((child) => {
    if (Node.isBinaryExpression(child)) {
      const op = child.getOperatorToken().getText();
      if (!/^(?:=|\+=|-=|\*=|\/=|%=|\*\*=|<<=|>>=|>>>=|&=|\|=|\^=|&&=|\|\|=|\?\?=)$/.test(op)) return;
      writeEffect(child.getLeft(), op === '=' && !child.getRight().getText().includes(child.getLeft().getText()), child, handler, effects);
    } else if ((Node.isPrefixUnaryExpression(child) || Node.isPostfixUnaryExpression(child)) && /\+\+|--/.test(child.getText())) {
      writeEffect(child.getOperand(), false, child, handler, effects);
    } else if (Node.isDeleteExpression(child)) {
      const target = child.getExpression();
      if (!freshLocal(rootOf(target), handler)) effects.push({ kind: 'destructive', what: `deletes \`${textOf(target)}\`` });
    } else if (Node.isCallExpression(child)) {
      callEffect(child, handler, effects, depth, visited, reads);
    } else if (Node.isTaggedTemplateExpression(child)) {
      const sql = sqlEffect(child.getTemplate().getText());
      if (sql) effects.push(sql);
    } else if (Node.isIdentifier(child)) {
      const declaration = child.getSymbol()?.getDeclarations()[0];
      if (
        declaration &&
        Node.isVariableDeclaration(declaration) &&
        !isWithin(declaration, handler) &&
        !Node.isCallExpression(child.getParent())
      ) {
        reads.add(child.getText());
      }
    }
  });
}

function writeEffect(target: Node, plainSet: boolean, site: Node, handler: Node, effects: Effect[]): void {
  const root = rootOf(target);
  if (Node.isIdentifier(root) && freshLocal(root, handler)) {
    // Rebinding or filling a local: invisible outside this call.
    return;
  }
  // `rest -= amount` on a handler's own `let rest = value`: rebinding a local never shows outside, whatever it held.
  const declaration = Node.isIdentifier(target) ? target.getSymbol()?.getDeclarations()[0] : undefined;
  if (
    declaration &&
    isWithin(declaration, handler) &&
    (Node.isVariableDeclaration(declaration) || Node.isParameterDeclaration(declaration))
  )
    return;
  if (Node.isThisExpression(root) || Node.isIdentifier(root)) {
    effects.push(
      plainSet
        ? { kind: 'idempotent', what: `sets \`${textOf(target)}\`` }
        : { kind: 'repeating', what: `\`${textOf(site)}\` builds on the previous value` },
    );
  }
}

/** Methods whose result is a new array (`text.split(' ').reverse()` reverses a copy, not `text`). */
const COPYING_METHODS = new Set([
  'split',
  'map',
  'filter',
  'slice',
  'concat',
  'flat',
  'flatMap',
  'match',
  'keys',
  'values',
  'entries',
  'from',
  'toSorted',
  'toReversed',
]);

function returnsCopy(receiver: Node): boolean {
  if (!Node.isCallExpression(receiver)) return false;
  const callee = receiver.getExpression();
  return Node.isPropertyAccessExpression(callee) && COPYING_METHODS.has(callee.getName());
}

function callEffect(
  call: import('ts-morph').CallExpression,
  handler: Node,
  effects: Effect[],
  depth: number,
  visited: Set<Node>,
  reads: Set<string>,
): void {
  const callee = call.getExpression();
  const args = call.getArguments();
  const firstText =
    args[0] && (Node.isStringLiteral(args[0]) || Node.isNoSubstitutionTemplateLiteral(args[0]) || Node.isTemplateExpression(args[0]))
      ? args[0].getText()
      : undefined;
  const sql = firstText ? sqlEffect(firstText) : undefined;
  if (sql) {
    effects.push(sql);
    return;
  }
  if (Node.isIdentifier(callee)) {
    const name = callee.getText();
    if (name === 'fetch') return void effects.push(fetchEffect(args[1]));
    const origin = resolveOrigin(callee);
    if (origin && /^(?:node:)?fs(?:\/promises)?$/.test(origin.module)) return void fsEffect(origin.name, effects);
    if (PURE_GLOBALS.has(name) || (origin && origin.module === 'zod')) return;
    const local = localFunction(callee);
    if (local && depth < 3) return void collect(local, local, effects, reads, depth + 1, visited);
    if (isContextParam(callee, handler)) return;
    return void effects.push(verbEffect(name, `calls \`${name}\``));
  }
  if (!Node.isPropertyAccessExpression(callee)) return;
  const method = callee.getName();
  const receiver = callee.getExpression();
  const root = rootOf(receiver);
  if (Node.isIdentifier(root) && isContextParam(root, handler)) return; // extra.sendNotification(...), ctx.mcpReq.*
  if (Node.isIdentifier(root) && PURE_NAMESPACES.test(root.getText()) && root === receiver) {
    if (root.getText() === 'Object' && method === 'assign') return void writeEffect(args[0] ?? root, true, call, handler, effects);
    return;
  }
  const origin = Node.isIdentifier(root) ? resolveOrigin(root) : undefined;
  if (origin && /^(?:node:)?fs(?:\/promises)?$/.test(origin.module)) return void fsEffect(method, effects);
  if (
    /^(?:axios|got|ky|superagent|http|https|client|api|request)$/i.test(receiver.getText()) &&
    /^(?:get|head|options|post|put|patch|delete)$/.test(method)
  ) {
    return void effects.push(httpMethodEffect(method.toUpperCase(), `${receiver.getText()}.${method}`));
  }
  // A literal, a spread copy or a constructor result is a fresh value; mutating it touches nothing shared.
  const freshReceiver =
    (Node.isIdentifier(root) && freshLocal(root, handler)) ||
    Node.isArrayLiteralExpression(root) ||
    Node.isObjectLiteralExpression(root) ||
    Node.isNewExpression(root) ||
    Node.isStringLiteral(root) ||
    Node.isTemplateExpression(root) ||
    returnsCopy(receiver);
  if (MUTATING_REPEATING.has(method)) {
    if (!freshReceiver) effects.push({ kind: 'repeating', what: `appends to \`${textOf(receiver)}\` (${method})` });
    return;
  }
  if (MUTATING_IDEMPOTENT.has(method)) {
    if (freshReceiver) return;
    const selfReferencing = args.some((a) => a.getText().includes(receiver.getText()));
    effects.push(
      selfReferencing
        ? { kind: 'repeating', what: `\`${textOf(call)}\` builds on the previous value` }
        : { kind: 'idempotent', what: `${method}s \`${textOf(receiver)}\` by key` },
    );
    return;
  }
  if (MUTATING_DESTRUCTIVE.has(method)) {
    if (!freshReceiver)
      effects.push({ kind: 'destructive', what: `${method === 'clear' ? 'clears' : 'deletes from'} \`${textOf(receiver)}\`` });
    return;
  }
  if (PURE_METHODS.has(method)) return;
  if (freshReceiver) return;
  const local = localFunction(callee.getNameNode());
  if (local && depth < 3) return void collect(local, local, effects, reads, depth + 1, visited);
  effects.push(verbEffect(method, `calls \`${textOf(callee)}\``));
}

function localFunction(nameNode: Node): Node | undefined {
  for (const declaration of nameNode.getSymbol()?.getDeclarations() ?? []) {
    if (Node.isFunctionDeclaration(declaration) || Node.isMethodDeclaration(declaration)) return declaration;
    if (Node.isVariableDeclaration(declaration)) {
      const init = declaration.getInitializer();
      if (init && (Node.isArrowFunction(init) || Node.isFunctionExpression(init))) return init;
    }
  }
  return undefined;
}

function verbEffect(name: string, what: string): Effect {
  if (VERB_DESTRUCTIVE.test(name)) return { kind: 'destructive', what: `${what} (deletes, by its name)` };
  if (VERB_REPEATING.test(name)) return { kind: 'repeating', what: `${what} (creates, by its name)` };
  if (VERB_IDEMPOTENT.test(name)) return { kind: 'idempotent', what: `${what} (sets, by its name)` };
  if (VERB_READ.test(name)) return { kind: 'read', what };
  return { kind: 'unknown', what: `${what}, whose effect is unknown` };
}

function fsEffect(name: string, effects: Effect[]): void {
  if (FS_READ.test(name)) return;
  if (FS_OVERWRITE.test(name)) effects.push({ kind: 'destructive', what: `overwrites a file (${name})` });
  else if (FS_IDEMPOTENT.test(name)) effects.push({ kind: 'idempotent', what: `creates a directory (${name})` });
  else if (FS_DELETE.test(name)) effects.push({ kind: 'destructive', what: `deletes a file (${name})` });
  else if (FS_REPEATING.test(name)) effects.push({ kind: 'repeating', what: `${name} changes a file each time` });
  else effects.push({ kind: 'unknown', what: `calls fs.${name}, whose effect is unknown` });
}

function fetchEffect(options: Node | undefined): Effect {
  if (!options) return { kind: 'read', what: 'GET request' };
  if (!Node.isObjectLiteralExpression(options)) return { kind: 'unknown', what: 'fetch with options we cannot read' };
  const method = options.getProperty('method');
  if (!method) return { kind: 'read', what: 'GET request' };
  const value = Node.isPropertyAssignment(method) ? method.getInitializer() : undefined;
  if (!value || !(Node.isStringLiteral(value) || Node.isNoSubstitutionTemplateLiteral(value)))
    return { kind: 'unknown', what: 'fetch with a computed method' };
  return httpMethodEffect(value.getLiteralValue().toUpperCase(), 'fetch');
}

function httpMethodEffect(method: string, what: string): Effect {
  if (method === 'GET' || method === 'HEAD' || method === 'OPTIONS') return { kind: 'read', what: `${method} request` };
  if (method === 'PUT') return { kind: 'idempotent', what: `${what} PUT request` };
  if (method === 'DELETE') return { kind: 'destructive', what: `${what} DELETE request` };
  return { kind: 'repeating', what: `${what} ${method} request` };
}

function sqlEffect(text: string): Effect | undefined {
  const sql = text.replace(/^[`'"]|[`'"]$/g, '').trim();
  if (/^(?:select|with|show|explain|pragma\s+\w+\s*;?$)\b/i.test(sql)) return { kind: 'read', what: 'SQL SELECT' };
  if (/^insert\b/i.test(sql)) {
    return /\bon\s+conflict\b|\bon\s+duplicate\s+key\b/i.test(sql)
      ? { kind: 'idempotent', what: 'SQL upsert' }
      : { kind: 'repeating', what: 'SQL INSERT' };
  }
  if (/^(?:replace|merge|upsert)\b/i.test(sql)) return { kind: 'idempotent', what: 'SQL upsert' };
  if (/^update\b/i.test(sql)) {
    return /\bset\b[^;]*?\b(\w+)\s*=\s*\1\s*[-+*/]/i.test(sql)
      ? { kind: 'repeating', what: 'SQL UPDATE that increments' }
      : { kind: 'idempotent', what: 'SQL UPDATE' };
  }
  if (/^(?:delete|truncate|drop)\b/i.test(sql)) return { kind: 'destructive', what: 'SQL DELETE' };
  if (/^create\b[^;]*\bif\s+not\s+exists\b/i.test(sql)) return { kind: 'idempotent', what: 'SQL CREATE IF NOT EXISTS' };
  if (/^(?:create|alter)\b/i.test(sql)) return { kind: 'repeating', what: 'SQL DDL' };
  return undefined;
}
