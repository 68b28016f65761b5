// What a tool handler does to the world, read from its code: the basis for honest `readOnlyHint` /
// `idempotentHint` / `destructiveHint`. A false `readOnlyHint: true` lets a client auto-approve a call that changes
// state, so the analysis is conservative by design: every value is traced to where it comes from (made by this call,
// or state that outlives it: module and closure variables, and whatever is fetched out of them with `get`, `find`,
// an index or destructuring), a write through anything that may be state is a write, and anything it cannot classify
// (a call into code it cannot read that receives state, a method named by a computed key, …) makes the inference
// "unsure": no hint is added and the report says why.
import { Node, SyntaxKind, type CallExpression, type NewExpression, type ParameterDeclaration } from 'ts-morph';
import { descendantsOfKind, memberMayBeDeclared } from './node-index';
import { unwrapExpression } from './endpoints/spans';
import { resolveOrigin } from './resolve';
import { isLoggingMethod } from './logging';

export type EffectKind = 'read' | 'idempotent' | 'destructive' | 'repeating' | 'unknown';

export interface Effect {
  /** `destructive` implies idempotent; a repeating effect that also removes data adds a `destructive` one. */
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
  /** Hints to add, or undefined when the analysis is unsure what the handler changes. */
  hints?: ToolHints;
  /** "read-only: reads `forecasts`, no writes", "not idempotent: appends to `notes`", "retry-unsafe: review: …". */
  evidence: string;
  effects: Effect[];
  /** Why the analysis is unsure (empty when it wrote hints). */
  unsure: string[];
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
/** Calls (and `new Date()`) whose result differs on every call. */
const NEW_EACH_CALL =
  /^(?:Date(?:\.now)?|Math\.random|(?:crypto\.)?(?:randomUUID|randomBytes|randomInt|getRandomValues)|performance\.now|process\.hrtime(?:\.bigint)?|nanoid|uuid(?:v4)?|v4|ulid|cuid2?|createId)$/;
/** Classes whose constructors change nothing they are given (`new Map(entries)` copies). */
const BUILT_IN_CLASSES =
  /^(?:Map|Set|WeakMap|WeakSet|WeakRef|Array|Object|Date|URL|URLSearchParams|RegExp|\w*Error|Promise|TextEncoder|TextDecoder|AbortController|Headers|Request|Response|FormData|Blob|File|ReadableStream|\w*Array|ArrayBuffer|DataView|Intl\.\w+|Buffer)$/;
const PURE_NAMESPACES =
  /^(?:console|JSON|Math|Object|Array|Number|String|Promise|Date|Intl|Reflect|z|crypto|path|url|util|Buffer|performance)$/;
/** Namespace functions that change their first argument. */
const NAMESPACE_WRITES = new Set([
  'Object.assign',
  'Object.defineProperty',
  'Object.defineProperties',
  'Object.setPrototypeOf',
  'Reflect.set',
]);
const NAMESPACE_DELETES = new Set(['Reflect.deleteProperty']);
/** Built-in methods that only read (their result is a primitive, a copy or an element). */
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
/** Methods whose result is a new container of the receiver's elements (`text.split(' ').reverse()` reverses a copy). */
const COPYING_METHODS = new Set([
  'split',
  'map',
  'filter',
  'slice',
  'concat',
  'flat',
  'flatMap',
  'match',
  'matchAll',
  'keys',
  'values',
  'entries',
  'from',
  'toSorted',
  'toReversed',
  'with',
]);
/** Methods whose result is one of the receiver's elements: state when the receiver is state. */
const ELEMENT_METHODS = new Set(['get', 'find', 'findLast', 'at', 'pop', 'shift', 'next']);
/** Methods that return their receiver. */
const SELF_METHODS = new Set(['sort', 'reverse', 'fill', 'set', 'add', 'copyWithin']);
/** Callbacks of these methods receive the receiver's elements (then the index or key, then the receiver). */
const ITERATION_METHODS = new Set([
  'forEach',
  'map',
  'filter',
  'find',
  'findIndex',
  'findLast',
  'findLastIndex',
  'some',
  'every',
  'flatMap',
  'sort',
  'toSorted',
]);
const MUTATING_METHODS = new Set([
  'push',
  'unshift',
  'splice',
  'pop',
  'shift',
  'copyWithin',
  'reverse',
  'sort',
  'fill',
  'set',
  'add',
  'delete',
  'clear',
]);
const FS_READ = /^(?:read|stat|lstat|exists|access|readdir|realpath|open(?:dir)?|createReadStream|watch)/;
const FS_OVERWRITE = /^(?:writeFile|copyFile|truncate|cp|symlink|link|chmod|chown|utimes|createWriteStream)/;
const FS_IDEMPOTENT = /^(?:mkdir|mkdtemp)/;
const FS_DELETE = /^(?:rm|rmdir|unlink)/;
const FS_REPEATING = /^(?:appendFile|rename)/;
const FS_MODULE = /^(?:node:)?fs(?:\/promises)?$/;

const VERB_REPEATING =
  /^(?:create|insert|add|append|post|send|publish|enqueue|push|increment|incr|decrement|decr|charge|pay|transfer|order|submit|spawn|launch|trigger|invoke|emit|notify|log|record|track|book|reserve|generate|mint|allocate)/i;
const VERB_IDEMPOTENT =
  /^(?:update|set|put|upsert|replace|save|write|store|assign|enable|disable|mark|merge|patch|sync|ensure|register|configure)/i;
const VERB_DESTRUCTIVE = /^(?:delete|remove|destroy|drop|clear|purge|unlink|revoke|cancel|close|reset|truncate|evict|expire|archive)/i;
const VERB_READ =
  /^(?:get|find|list|read|fetch|load|query|search|lookup|look|count|describe|check|validate|is|has|can|format|parse|render|compute|calculate|to|resolve|select|peek|show|view|preview|estimate|summari[sz]e|convert|translate|compare|match|sum|avg|min|max|sort|filter|map)/i;

/** Local functions are followed this deep; origin look-ups stop after this many steps (the handler is then "unsure"). */
const MAX_FOLLOW_DEPTH = 4;
const MAX_STEPS = 20_000;

/**
 * Where a value comes from. `FRESH`: made by this call (literals, the tool's arguments, `new`, primitives), and so is
 * everything reachable from it. `SHALLOW`: a new container whose elements may be state (`[...items]`,
 * `Object.values(carts)`, `{ list: session.history }`). `SHARED`: may be state that outlives the call.
 */
const FRESH = 0;
const SHALLOW = 1;
const SHARED = 2;
type Origin = typeof FRESH | typeof SHALLOW | typeof SHARED;

const join = (a: Origin, b: Origin): Origin => (a > b ? a : b);
/** An element or property of a value of this origin. */
const member = (o: Origin): Origin => (o === FRESH ? FRESH : SHARED);
/** A new container holding values of this origin. */
const container = (o: Origin): Origin => (o === FRESH ? FRESH : SHALLOW);

/** A function being read: the tool handler, or a local function it calls, with the origins of its arguments. */
interface Frame {
  fn: Node;
  /** `undefined` for the handler: its parameters (the tool's arguments, the request context) are per call. */
  args?: Origin[];
  depth: number;
  parent?: Frame;
  /** The call site a followed function is read at (its parameters stand for this call's arguments). */
  call?: CallExpression | NewExpression;
}

class StepLimit extends Error {}

/**
 * What the handler does to state. `bound`: how many of its first parameters a `.bind(thisArg, …)` fills with values
 * from where it is registered (state, not the tool's arguments).
 */
export function inferToolEffects(handler: Node, bound = 0): Inference {
  const reader = new HandlerReader();
  try {
    reader.walk({ fn: handler, depth: 0, args: bound > 0 ? Array<Origin>(bound).fill(SHARED) : undefined });
  } catch (error) {
    if (!(error instanceof StepLimit)) throw error;
    reader.effects.push({ kind: 'unknown', what: 'the handler is too large to follow' });
  }
  return summarize(reader.effects, reader.reads);
}

function summarize(effects: Effect[], reads: Set<string>): Inference {
  const ofKind = (kind: EffectKind) => effects.filter((e) => e.kind === kind);
  const list = (items: Effect[]) => [...new Set(items.map((e) => e.what))].slice(0, 3).join('; ');
  const unknown = ofKind('unknown');
  const repeating = ofKind('repeating');
  const destructive = ofKind('destructive');
  const idempotent = ofKind('idempotent');
  if (unknown.length > 0) {
    return { effects, unsure: [...new Set(unknown.map((e) => e.what))], evidence: `retry-unsafe: review: ${list(unknown)}` };
  }
  if (repeating.length > 0) {
    return {
      effects,
      unsure: [],
      hints: { readOnlyHint: false, idempotentHint: false, destructiveHint: destructive.length > 0 },
      evidence: `not idempotent: ${list(repeating)}`,
    };
  }
  if (idempotent.length + destructive.length > 0) {
    return {
      effects,
      unsure: [],
      hints: { readOnlyHint: false, idempotentHint: true, destructiveHint: destructive.length > 0 },
      evidence: `idempotent: ${list([...destructive, ...idempotent])}`,
    };
  }
  const readList = [...reads]
    .slice(0, 3)
    .map((r) => `\`${r}\``)
    .join(', ');
  return { effects, unsure: [], hints: { readOnlyHint: true }, evidence: `read-only: ${readList ? `reads ${readList}, ` : ''}no writes` };
}

function textOf(node: Node): string {
  const text = node.getText().replace(/\s+/g, ' ');
  return text.length > 40 ? `${text.slice(0, 37)}…` : text;
}

/** The declaration an identifier refers to, through imports (the value of a shorthand property, not the property). */
function declarationOf(identifier: Node): Node | undefined {
  const parent = identifier.getParent();
  const symbol =
    parent && Node.isShorthandPropertyAssignment(parent) && parent.getNameNode() === identifier
      ? parent.getValueSymbol()
      : identifier.getSymbol();
  const target = symbol?.isAlias() ? symbol.getAliasedSymbol() : symbol;
  return target?.getDeclarations()[0];
}

function isWithin(node: Node, container: Node): boolean {
  return node === container || node.getAncestors().includes(container);
}

function functionBody(fn: Node): Node | undefined {
  return (fn as Node & { getBody?(): Node | undefined }).getBody?.();
}

/** The function a callee names, when its body is in the project (a declaration, `const f = () => …`, a method). */
function functionDeclaration(nameNode: Node): Node | undefined {
  if (!memberMayBeDeclared(nameNode)) return undefined;
  const declaration = declarationOf(nameNode);
  if (!declaration) return undefined;
  let fn: Node | undefined = declaration;
  if (Node.isVariableDeclaration(declaration) || Node.isPropertyAssignment(declaration)) {
    const init = declaration.getInitializer();
    fn = init ? unwrapExpression(init) : undefined;
  }
  if (
    !fn ||
    !(Node.isFunctionDeclaration(fn) || Node.isMethodDeclaration(fn) || Node.isArrowFunction(fn) || Node.isFunctionExpression(fn))
  ) {
    return undefined;
  }
  return functionBody(fn) ? fn : undefined;
}

function isPrimitiveLiteral(node: Node): boolean {
  return (
    Node.isStringLiteral(node) ||
    Node.isNumericLiteral(node) ||
    Node.isNoSubstitutionTemplateLiteral(node) ||
    Node.isTemplateExpression(node) ||
    Node.isTrueLiteral(node) ||
    Node.isFalseLiteral(node) ||
    Node.isNullLiteral(node) ||
    Node.isBigIntLiteral(node) ||
    Node.isRegularExpressionLiteral(node)
  );
}

/** The value's static type is a primitive (passing it cannot hand a function anything to change). */
function hasPrimitiveType(node: Node): boolean {
  const type = node.getType();
  const primitive = (t: typeof type) =>
    t.isString() ||
    t.isNumber() ||
    t.isBoolean() ||
    t.isStringLiteral() ||
    t.isNumberLiteral() ||
    t.isBooleanLiteral() ||
    t.isTemplateLiteral() ||
    t.isEnumLiteral() ||
    t.isUndefined() ||
    t.isNull() ||
    t.isBigInt() ||
    t.isBigIntLiteral();
  if (type.isUnion() ? type.getUnionTypes().every(primitive) : primitive(type)) return true;
  return type.isAny() && elementTypeIsPrimitive(node);
}

/**
 * `row.tags[0]` with `tags: string[]`, `prices.get(sku)` with `new Map<string, number>()`: the analysis runs without
 * the standard library, so the checker cannot index arrays or read `Map.get`; the declared element type still says.
 */
function elementTypeIsPrimitive(node: Node): boolean {
  const value = unwrapExpression(node);
  const callee = Node.isCallExpression(value) ? value.getExpression() : undefined;
  const collection = Node.isElementAccessExpression(value)
    ? value.getExpression()
    : callee && Node.isPropertyAccessExpression(callee) && callee.getName() === 'get'
      ? callee.getExpression()
      : undefined;
  if (!collection) return false;
  const target = unwrapExpression(collection);
  const declaration = declarationOf(Node.isPropertyAccessExpression(target) ? target.getNameNode() : target);
  const init = declaration && Node.isVariableDeclaration(declaration) ? declaration.getInitializer() : undefined;
  const typeNode =
    (declaration as (Node & { getTypeNode?(): Node | undefined }) | undefined)?.getTypeNode?.() ??
    (init && Node.isNewExpression(init) ? init : undefined);
  const element = !typeNode
    ? undefined
    : Node.isArrayTypeNode(typeNode)
      ? typeNode.getElementTypeNode()
      : Node.isTypeReference(typeNode) || Node.isNewExpression(typeNode)
        ? typeNode.getTypeArguments().at(-1)
        : undefined;
  return !!element && PRIMITIVE_TYPE.test(element.getText());
}

const PRIMITIVE_TYPE = /^(?:string|number|boolean|bigint)$/;

/** `x.push(…)`, `x[k] = …`: the object being changed and, for keyed writes, the key. */
interface Slot {
  object: Node;
  key?: Node | string;
}

class HandlerReader {
  readonly effects: Effect[] = [];
  readonly reads = new Set<string>();
  private readonly walked = new Set<string>();
  private readonly bindingMemo = new Map<Frame, Map<Node, Origin>>();
  private readonly inProgress = new Map<string, Origin>();
  private readonly returnMemo = new Map<string, Origin>();
  private steps = 0;

  walk(frame: Frame): void {
    const key = frameKey(frame);
    if (this.walked.has(key)) return;
    this.walked.add(key);
    frame.fn.forEachDescendant((child) => this.visit(child, frame));
  }

  private tick(): void {
    if (++this.steps > MAX_STEPS) throw new StepLimit();
  }

  private visit(child: Node, frame: Frame): void {
    if (Node.isBinaryExpression(child)) {
      const op = child.getOperatorToken().getText();
      if (/^(?:=|\+=|-=|\*=|\/=|%=|\*\*=|<<=|>>=|>>>=|&=|\|=|\^=|&&=|\|\|=|\?\?=)$/.test(op))
        this.assignment(child.getLeft(), op, child.getRight(), child, frame);
    } else if ((Node.isForOfStatement(child) || Node.isForInStatement(child)) && !Node.isVariableDeclarationList(child.getInitializer())) {
      // `for (last of items)`: the head assigns each element to what it names, as `last = …` would.
      this.assignment(child.getInitializer(), '=', child.getExpression(), child, frame);
    } else if ((Node.isPrefixUnaryExpression(child) || Node.isPostfixUnaryExpression(child)) && isIncrement(child.getOperatorToken())) {
      if (this.stateSlot(child.getOperand(), frame))
        this.effects.push({ kind: 'repeating', what: `\`${textOf(child)}\` builds on the previous value` });
    } else if (Node.isDeleteExpression(child)) {
      const target = unwrapExpression(child.getExpression());
      if (this.stateSlot(target, frame)) this.effects.push({ kind: 'destructive', what: `deletes \`${textOf(target)}\`` });
    } else if (Node.isCallExpression(child)) {
      this.call(child, frame);
    } else if (Node.isNewExpression(child)) {
      this.construction(child, frame);
    } else if (Node.isTaggedTemplateExpression(child)) {
      const sql = sqlEffect(child.getTemplate().getText());
      if (sql) this.effects.push(sql);
    } else if (Node.isIdentifier(child)) {
      this.noteRead(child, frame);
    }
  }

  private unknown(what: string): void {
    this.effects.push({ kind: 'unknown', what });
  }

  private noteRead(identifier: Node, frame: Frame): void {
    const parent = identifier.getParent();
    if (parent && Node.isCallExpression(parent) && parent.getExpression() === identifier) return;
    if (parent && Node.isPropertyAccessExpression(parent) && parent.getNameNode() === identifier) return;
    const declaration = declarationOf(identifier);
    if (declaration && Node.isVariableDeclaration(declaration) && !this.frameOf(declaration, frame)) this.reads.add(identifier.getText());
  }

  /** The innermost function being read that declares this node, if any. */
  private frameOf(declaration: Node, frame: Frame): Frame | undefined {
    for (let current: Frame | undefined = frame; current; current = current.parent) {
      if (isWithin(declaration, current.fn)) return current;
    }
    return undefined;
  }

  // ── writes ─────────────────────────────────────────────────────────────────────────────────────────────────────

  /** The slot a write target changes when that may be state; undefined for locals and values made by this call. */
  private stateSlot(target: Node, frame: Frame): Slot | undefined {
    const node = unwrapExpression(target);
    if (Node.isIdentifier(node)) {
      const declaration = declarationOf(node);
      // Rebinding a local (of the handler or of a function it calls) never shows outside the call.
      if (declaration && this.frameOf(declaration, frame)) return undefined;
      return { object: node };
    }
    if (Node.isPropertyAccessExpression(node) || Node.isElementAccessExpression(node)) {
      const object = node.getExpression();
      if (this.origin(object, frame) !== SHARED) return undefined;
      const key = Node.isPropertyAccessExpression(node) ? node.getName() : node.getArgumentExpression();
      return { object, key };
    }
    if (Node.isThisExpression(node)) return { object: node };
    return undefined;
  }

  private assignment(left: Node, op: string, right: Node, site: Node, frame: Frame): void {
    const target = unwrapExpression(left);
    if (Node.isObjectLiteralExpression(target) || Node.isArrayLiteralExpression(target)) {
      // Destructuring assignment: every target in the pattern is written with a part of the right side.
      for (const part of patternTargets(target)) this.assignment(part, '=', right, site, frame);
      return;
    }
    const slot = this.stateSlot(target, frame);
    if (!slot) return;
    const name = textOf(target);
    if (op === '??=' || op === '||=') return void this.effects.push({ kind: 'idempotent', what: `sets \`${name}\` only when it is unset` });
    if (op === '&&=') return void this.effects.push({ kind: 'destructive', what: `overwrites \`${name}\`` });
    if (op !== '=') return void this.effects.push({ kind: 'repeating', what: `\`${textOf(site)}\` builds on the previous value` });
    if (this.guardedInsert(target, slot, site, frame)) {
      return void this.effects.push({ kind: 'idempotent', what: `creates \`${name}\` when it is missing` });
    }
    const key = Node.isElementAccessExpression(target) ? target.getArgumentExpression() : undefined;
    if (this.changesEachCall(key ? [key, right] : [right], frame)) {
      return void this.effects.push({ kind: 'repeating', what: `\`${textOf(site)}\` writes a new value on every call` });
    }
    if (this.buildsOn(target, [right], frame)) {
      return void this.effects.push({ kind: 'repeating', what: `\`${textOf(site)}\` builds on the previous value` });
    }
    this.effects.push({ kind: 'destructive', what: `overwrites \`${name}\`` });
  }

  /** A mutating built-in method on a receiver that may be state. */
  private mutation(method: string, receiver: Node, call: CallExpression, frame: Frame): void {
    const name = textOf(receiver);
    const args = call.getArguments();
    switch (method) {
      case 'push':
      case 'unshift':
        return void this.effects.push({ kind: 'repeating', what: `appends to \`${name}\` (${method})` });
      case 'pop':
      case 'shift':
      case 'splice':
      case 'copyWithin':
        this.effects.push({ kind: 'repeating', what: `removes from \`${name}\` (${method})` });
        return void this.effects.push({ kind: 'destructive', what: `removes from \`${name}\` (${method})` });
      case 'reverse':
        return void this.effects.push({ kind: 'repeating', what: `reverses \`${name}\` in place (a second call undoes it)` });
      case 'sort':
        return void this.effects.push({ kind: 'idempotent', what: `sorts \`${name}\` in place` });
      case 'fill':
        return void this.effects.push({ kind: 'destructive', what: `overwrites \`${name}\` (fill)` });
      case 'add':
        return void this.effects.push({ kind: 'idempotent', what: `adds to \`${name}\`` });
      case 'delete':
        return void this.effects.push({ kind: 'destructive', what: `deletes from \`${name}\`` });
      case 'clear':
        return void this.effects.push({ kind: 'destructive', what: `clears \`${name}\`` });
      case 'set': {
        const slot: Slot = { object: receiver, key: args[0] };
        if (this.guardedInsert(call, slot, call, frame)) {
          return void this.effects.push({ kind: 'idempotent', what: `creates an entry in \`${name}\` when it is missing` });
        }
        if (this.changesEachCall(args, frame)) {
          return void this.effects.push({ kind: 'repeating', what: `\`${textOf(call)}\` writes a new value on every call` });
        }
        if (this.buildsOn(receiver, args.slice(1), frame)) {
          return void this.effects.push({ kind: 'repeating', what: `\`${textOf(call)}\` builds on the previous value` });
        }
        return void this.effects.push({ kind: 'destructive', what: `overwrites an entry of \`${name}\`` });
      }
    }
  }

  /** The values (through locals) include a clock, a random number or a new id: a second call writes something else. */
  private changesEachCall(values: Node[], frame: Frame): boolean {
    const seen = new Set<Node>();
    const visit = (node: Node): boolean => {
      this.tick();
      const calls = [node, ...node.getDescendants()].filter((n) => Node.isCallExpression(n) || Node.isNewExpression(n));
      if (
        calls.some(
          (c) =>
            NEW_EACH_CALL.test((c as CallExpression).getExpression().getText()) &&
            (Node.isCallExpression(c) || c.getArguments().length === 0),
        )
      ) {
        return true;
      }
      for (const identifier of Node.isIdentifier(node) ? [node] : node.getDescendantsOfKind(SyntaxKind.Identifier)) {
        const declaration = declarationOf(identifier);
        const owner = declaration && this.frameOf(declaration, frame);
        if (!declaration || !owner || seen.has(declaration)) continue;
        seen.add(declaration);
        if (this.bindingSources(declaration, owner).some(visit)) return true;
      }
      return false;
    };
    return values.some(visit);
  }

  /**
   * `x = f(x)`, `stock.set(k, (stock.get(k) ?? 0) + d)`, `s.count = s.count + 1` through any alias: the new value is
   * read from the state being written, so a second call writes something else.
   */
  private buildsOn(target: Node, values: Node[], frame: Frame): boolean {
    const written = this.stateRoots([target], frame);
    if (written.size === 0) return false;
    for (const root of this.stateRoots(values, frame)) if (written.has(root)) return true;
    return false;
  }

  /** The non-local declarations (or `this`) the expressions read, through local variables' values. */
  private stateRoots(expressions: Node[], frame: Frame): Set<Node | string> {
    const roots = new Set<Node | string>();
    const seen = new Set<Node>();
    const visit = (node: Node) => {
      this.tick();
      const identifiers = Node.isIdentifier(node) ? [node] : node.getDescendantsOfKind(SyntaxKind.Identifier);
      if (Node.isThisExpression(node) || node.getFirstDescendantByKind(SyntaxKind.ThisKeyword)) roots.add('this');
      for (const identifier of identifiers) {
        const parent = identifier.getParent();
        if (parent && Node.isPropertyAccessExpression(parent) && parent.getNameNode() === identifier) continue;
        const declaration = declarationOf(identifier);
        if (!declaration) {
          roots.add(identifier.getText());
          continue;
        }
        const owner = this.frameOf(declaration, frame);
        if (!owner) {
          roots.add(declaration);
          continue;
        }
        if (seen.has(declaration)) continue;
        seen.add(declaration);
        // A parameter of a followed function stands for its argument; any local stands for itself as well.
        if (!this.isHandlerParameter(identifier, frame)) roots.add(declaration);
        for (const source of this.bindingSources(declaration, owner)) visit(source);
        const argument = this.argumentFor(declaration, owner);
        if (argument) visit(argument);
      }
    };
    expressions.forEach(visit);
    return roots;
  }

  /** The argument a parameter of a followed function was given at the call site being read. */
  private argumentFor(declaration: Node, frame: Frame): Node | undefined {
    if (!frame.call || !Node.isParameterDeclaration(declaration) || declaration.getParent() !== frame.fn) return undefined;
    const index = (frame.fn as Node & { getParameters(): Node[] }).getParameters().indexOf(declaration);
    return frame.call.getArguments()[index];
  }

  /**
   * A guarded insert: the write runs only when the slot is empty (`if (!cart) { cart = {…}; carts.set(key, cart) }`,
   * `if (!map.has(k)) map.set(k, v)`, `map.has(k) || map.set(k, v)`, an early `return` when it exists). Creating a
   * missing entry is idempotent and adds, never destroys.
   */
  private guardedInsert(target: Node, slot: Slot, site: Node, frame: Frame): boolean {
    const denotes = (expression: Node): boolean => this.denotesSlot(expression, target, slot, frame);
    for (let node: Node = site; node !== frame.fn;) {
      const parent = node.getParent();
      if (!parent) break;
      if (Node.isIfStatement(parent)) {
        if (parent.getThenStatement() === node && absentWhen(parent.getExpression(), denotes, slot)) return true;
        if (parent.getElseStatement() === node && presentWhen(parent.getExpression(), denotes, slot)) return true;
      } else if (Node.isBinaryExpression(parent) && parent.getRight() === node) {
        const op = parent.getOperatorToken().getKind();
        if (op === SyntaxKind.BarBarToken && presentWhen(parent.getLeft(), denotes, slot)) return true;
        if (op === SyntaxKind.QuestionQuestionToken && denotes(parent.getLeft())) return true;
        if (op === SyntaxKind.AmpersandAmpersandToken && absentWhen(parent.getLeft(), denotes, slot)) return true;
      } else if (Node.isBlock(parent) || Node.isSourceFile(parent)) {
        // `if (map.has(k)) return map.get(k);` earlier in the same block.
        const statements = (parent as Node & { getStatements(): Node[] }).getStatements();
        for (const statement of statements.slice(0, statements.indexOf(node))) {
          if (Node.isIfStatement(statement) && !statement.getElseStatement() && alwaysExits(statement.getThenStatement())) {
            if (presentWhen(statement.getExpression(), denotes, slot)) return true;
          }
        }
      }
      node = parent;
    }
    return false;
  }

  /** The expression reads the slot: `map.get(k)`, `map[k]`, `obj.p`, the variable itself, or a local holding one of those. */
  private denotesSlot(expression: Node, target: Node, slot: Slot, frame: Frame): boolean {
    const node = unwrapExpression(expression);
    if (slot.key === undefined) return sameText(node, target);
    if (Node.isCallExpression(node)) {
      const callee = node.getExpression();
      const first = node.getArguments()[0];
      return (
        Node.isPropertyAccessExpression(callee) &&
        callee.getName() === 'get' &&
        sameObject(callee.getExpression(), slot) &&
        !!first &&
        keyIs(first, slot)
      );
    }
    if (Node.isPropertyAccessExpression(node)) return sameObject(node.getExpression(), slot) && keyIs(node.getNameNode(), slot);
    if (Node.isElementAccessExpression(node)) {
      const argument = node.getArgumentExpression();
      return sameObject(node.getExpression(), slot) && !!argument && keyIs(argument, slot);
    }
    if (Node.isIdentifier(node)) {
      const declaration = declarationOf(node);
      if (!declaration || !Node.isVariableDeclaration(declaration) || !this.frameOf(declaration, frame)) return false;
      const init = declaration.getInitializer();
      return !!init && !Node.isIdentifier(unwrapExpression(init)) && this.denotesSlot(init, target, slot, frame);
    }
    return false;
  }

  // ── calls ──────────────────────────────────────────────────────────────────────────────────────────────────────

  private call(call: CallExpression, frame: Frame): void {
    const callee = unwrapExpression(call.getExpression());
    const args = call.getArguments();
    const first = args[0];
    const sql = first && isPrimitiveLiteral(first) ? sqlEffect(first.getText()) : undefined;
    if (sql) return void this.effects.push(sql);
    this.followCallbacks(call, frame);
    if (Node.isIdentifier(callee)) return this.namedCall(callee, call, frame);
    if (Node.isArrowFunction(callee) || Node.isFunctionExpression(callee)) return; // an IIFE: its body is read in place
    if (callee.getKind() === SyntaxKind.ImportKeyword) return; // import('…')
    const key = Node.isElementAccessExpression(callee) ? callee.getArgumentExpression() : undefined;
    const method = Node.isPropertyAccessExpression(callee)
      ? callee.getName()
      : key && (Node.isStringLiteral(key) || Node.isNoSubstitutionTemplateLiteral(key))
        ? key.getLiteralValue()
        : undefined;
    if (!method || !(Node.isPropertyAccessExpression(callee) || Node.isElementAccessExpression(callee))) {
      return this.unknown(`calls \`${textOf(callee)}\`, a function chosen at run time`);
    }
    this.methodCall(method, callee.getExpression(), callee, call, frame);
  }

  private namedCall(callee: Node, call: CallExpression, frame: Frame): void {
    const name = callee.getText();
    const args = call.getArguments();
    if (name === 'fetch') return void this.effects.push(fetchEffect(args[1]));
    if (name === 'eval' || name === 'Function') return this.unknown(`evaluates code (\`${name}\`)`);
    const origin = resolveOrigin(callee);
    if (origin && FS_MODULE.test(origin.module)) return fsEffect(origin.name, this.effects);
    if (PURE_GLOBALS.has(name) || name === 'require' || origin?.module === 'zod') return;
    if (this.isHandlerParameter(callee, frame)) return;
    const fn = functionDeclaration(callee);
    if (fn && !isWithin(fn, frame.fn)) return this.follow(fn, call, frame, name);
    if (fn) return; // a function declared in this one: its body is read in place
    this.opaqueCall(name, `calls \`${name}\``, call, frame);
  }

  private methodCall(method: string, receiver: Node, callee: Node, call: CallExpression, frame: Frame): void {
    const args = call.getArguments();
    const root = rootOf(receiver);
    if (Node.isIdentifier(root) && this.isHandlerParameter(root, frame)) return; // extra.sendNotification(…), args.text.trim()
    if (Node.isIdentifier(root) && root === unwrapExpression(receiver) && PURE_NAMESPACES.test(root.getText())) {
      const qualified = `${root.getText()}.${method}`;
      if (NAMESPACE_WRITES.has(qualified) && args[0]) return this.namespaceWrite(qualified, args[0], args.slice(1), call, frame);
      if (NAMESPACE_DELETES.has(qualified) && args[0] && this.origin(args[0], frame) === SHARED) {
        return void this.effects.push({ kind: 'destructive', what: `deletes from \`${textOf(args[0])}\`` });
      }
      if (qualified === 'Reflect.apply' || qualified === 'Reflect.construct')
        return this.opaqueCall(method, `calls \`${qualified}\``, call, frame);
      return;
    }
    const origin = Node.isIdentifier(root) ? resolveOrigin(root) : undefined;
    if (origin && FS_MODULE.test(origin.module)) return fsEffect(method, this.effects);
    if (
      /^(?:axios|got|ky|superagent|http|https|client|api|request)$/i.test(receiver.getText()) &&
      /^(?:get|head|options|post|put|patch|delete)$/.test(method)
    ) {
      return void this.effects.push(httpMethodEffect(method.toUpperCase(), `${receiver.getText()}.${method}`));
    }
    // (a method of the project is read, whatever its name: `journal.add(line)` may append)
    const fn = Node.isPropertyAccessExpression(callee) ? functionDeclaration(callee.getNameNode()) : undefined;
    if (fn && !isWithin(fn, frame.fn)) return this.follow(fn, call, frame, method);
    if (MUTATING_METHODS.has(method)) {
      if (this.origin(receiver, frame) === SHARED) this.mutation(method, receiver, call, frame);
      return;
    }
    if (PURE_METHODS.has(method) || isLoggingMethod(method, receiver.getText())) return;
    this.opaqueCall(method, `calls \`${textOf(callee)}\``, call, frame, receiver);
  }

  private namespaceWrite(qualified: string, target: Node, sources: Node[], call: CallExpression, frame: Frame): void {
    if (this.origin(target, frame) !== SHARED) return;
    if (qualified === 'Object.assign' && this.buildsOn(target, sources, frame)) {
      return void this.effects.push({ kind: 'repeating', what: `\`${textOf(call)}\` builds on the previous value` });
    }
    this.effects.push({ kind: 'destructive', what: `overwrites \`${textOf(target)}\` (${qualified})` });
  }

  /**
   * A call into code we cannot read: classified by its name, unless it is handed state it could change. A setter of
   * the receiver handed a value built on the receiver's own state (`this.setState({ n: this.state.n + 1 })`) is an
   * update that repeats, not a set.
   */
  private opaqueCall(name: string, what: string, call: CallExpression, frame: Frame, receiver?: Node): void {
    for (const arg of call.getArguments()) {
      const value = Node.isSpreadElement(arg) ? arg.getExpression() : arg;
      if (this.origin(value, frame) === FRESH || hasPrimitiveType(value)) continue;
      return this.unknown(`${what} with \`${textOf(value)}\`, which it may change`);
    }
    const effect = verbEffect(name, what);
    if (effect.kind === 'idempotent' && receiver && this.buildsOn(receiver, call.getArguments(), frame)) {
      return void this.effects.push({ kind: 'repeating', what: `\`${textOf(call)}\` builds on the previous value` });
    }
    this.effects.push(effect);
  }

  /** Read a local function at a call site, its parameters bound to the call's arguments. */
  private follow(fn: Node, call: CallExpression | NewExpression, frame: Frame, name: string): void {
    // Too deep to read: trusted as far as any code we cannot read (its name, unless it is handed state).
    if (frame.depth + 1 > MAX_FOLLOW_DEPTH && Node.isCallExpression(call)) return this.opaqueCall(name, `calls \`${name}\``, call, frame);
    if (frame.depth + 1 > MAX_FOLLOW_DEPTH) return this.unknown(`constructs \`${name}\`, nested too deep to follow`);
    this.walk({ fn, args: this.argumentOrigins(call, frame), depth: frame.depth + 1, parent: frame, call });
  }

  /** `new C(…)`: a project class's constructor is read; a built-in's has no effect; any other may keep what it is given. */
  private construction(expression: NewExpression, frame: Frame): void {
    const callee = unwrapExpression(expression.getExpression());
    const name = callee.getText();
    if (name === 'Function') return this.unknown('builds a function from a string (`new Function`)');
    if (BUILT_IN_CLASSES.test(name)) return;
    const declaration = Node.isIdentifier(callee) ? declarationOf(callee) : undefined;
    if (declaration && Node.isClassDeclaration(declaration) && !declaration.isAmbient()) {
      const constructor = declaration.getConstructors().find((c) => c.getBody());
      if (constructor) return this.follow(constructor, expression, frame, name);
      if (!declaration.getExtends()) return;
    }
    for (const arg of expression.getArguments()) {
      if (this.origin(arg, frame) === FRESH || hasPrimitiveType(arg)) continue;
      return this.unknown(`constructs \`${textOf(callee)}\` with \`${textOf(arg)}\`, which it may change`);
    }
  }

  private argumentOrigins(call: CallExpression | NewExpression, frame: Frame): Origin[] {
    return call.getArguments().map((arg) => (Node.isSpreadElement(arg) ? SHARED : this.origin(arg, frame)));
  }

  /**
   * Functions passed by name (`items.forEach(bump)`, `setTimeout(flush)`): read them too, with the parameters an
   * iteration callback gets. (Inline callbacks are part of the function being read already.)
   */
  private followCallbacks(call: CallExpression, frame: Frame): void {
    for (const arg of call.getArguments()) {
      const value = unwrapExpression(arg);
      if (!Node.isIdentifier(value) && !Node.isPropertyAccessExpression(value)) continue;
      const fn = functionDeclaration(Node.isPropertyAccessExpression(value) ? value.getNameNode() : value);
      if (!fn || isWithin(fn, frame.fn)) continue;
      if (frame.depth + 1 > MAX_FOLLOW_DEPTH) return this.unknown(`passes \`${textOf(value)}\` as a callback, nested too deep to follow`);
      const element = this.callbackElementOrigin(call, frame);
      this.walk({ fn, args: [element, element, SHARED], depth: frame.depth + 1, parent: frame });
    }
  }

  private callbackElementOrigin(call: CallExpression, frame: Frame): Origin {
    const callee = unwrapExpression(call.getExpression());
    if (Node.isPropertyAccessExpression(callee) && iterates(callee.getName())) {
      return member(this.origin(callee.getExpression(), frame));
    }
    return SHARED;
  }

  private isHandlerParameter(identifier: Node, frame: Frame): boolean {
    let root = frame;
    while (root.parent) root = root.parent;
    const declaration = declarationOf(identifier);
    if (!declaration) return false;
    const parameter = Node.isParameterDeclaration(declaration) ? declaration : declaration.getFirstAncestorByKind(SyntaxKind.Parameter);
    if (!parameter || parameter.getParent() !== root.fn) return false;
    // (one a `.bind(…)` fills is what the registration bound, not the tool's arguments or context)
    const index = (root.fn as Node & { getParameters(): Node[] }).getParameters().indexOf(parameter);
    return !root.args || root.args[index] === undefined;
  }

  // ── origins ────────────────────────────────────────────────────────────────────────────────────────────────────

  /** Where the value of an expression comes from. */
  origin(expression: Node, frame: Frame): Origin {
    this.tick();
    const node = unwrapExpression(expression);
    if (isPrimitiveLiteral(node)) return FRESH;
    if (
      Node.isArrowFunction(node) ||
      Node.isFunctionExpression(node) ||
      Node.isClassExpression(node) ||
      Node.isTypeOfExpression(node) ||
      Node.isVoidExpression(node) ||
      Node.isDeleteExpression(node) ||
      Node.isPrefixUnaryExpression(node) ||
      Node.isPostfixUnaryExpression(node)
    ) {
      return FRESH;
    }
    if (Node.isIdentifier(node)) return this.identifierOrigin(node, frame);
    if (Node.isThisExpression(node)) return SHARED;
    if (Node.isPropertyAccessExpression(node) || Node.isElementAccessExpression(node))
      return member(this.origin(node.getExpression(), frame));
    if (Node.isConditionalExpression(node)) return join(this.origin(node.getWhenTrue(), frame), this.origin(node.getWhenFalse(), frame));
    if (Node.isBinaryExpression(node)) return this.binaryOrigin(node, frame);
    if (Node.isObjectLiteralExpression(node)) {
      let result: Origin = FRESH;
      for (const property of node.getProperties()) {
        if (Node.isPropertyAssignment(property)) result = join(result, container(this.origin(property.getInitializerOrThrow(), frame)));
        else if (Node.isShorthandPropertyAssignment(property)) result = join(result, container(this.origin(property.getNameNode(), frame)));
        else if (Node.isSpreadAssignment(property)) result = join(result, container(this.origin(property.getExpression(), frame)));
      }
      return result;
    }
    if (Node.isArrayLiteralExpression(node)) {
      let result: Origin = FRESH;
      for (const element of node.getElements()) {
        const value = Node.isSpreadElement(element) ? element.getExpression() : element;
        result = join(result, container(this.origin(value, frame)));
      }
      return result;
    }
    if (Node.isNewExpression(node)) {
      let result: Origin = FRESH;
      for (const arg of node.getArguments()) result = join(result, container(this.origin(arg, frame)));
      return result;
    }
    if (Node.isCallExpression(node)) return this.callOrigin(node, frame);
    return SHARED;
  }

  private binaryOrigin(node: import('ts-morph').BinaryExpression, frame: Frame): Origin {
    switch (node.getOperatorToken().getKind()) {
      case SyntaxKind.BarBarToken:
      case SyntaxKind.QuestionQuestionToken:
      case SyntaxKind.AmpersandAmpersandToken:
        return join(this.origin(node.getLeft(), frame), this.origin(node.getRight(), frame));
      case SyntaxKind.EqualsToken:
      case SyntaxKind.BarBarEqualsToken:
      case SyntaxKind.QuestionQuestionEqualsToken:
      case SyntaxKind.AmpersandAmpersandEqualsToken:
        return join(this.origin(node.getLeft(), frame), this.origin(node.getRight(), frame));
      case SyntaxKind.CommaToken:
        return this.origin(node.getRight(), frame);
      default:
        return FRESH; // arithmetic, comparison, `in`, `instanceof`: a primitive
    }
  }

  private callOrigin(call: CallExpression, frame: Frame): Origin {
    const callee = unwrapExpression(call.getExpression());
    const args = call.getArguments();
    const argsOrigin = () => args.reduce<Origin>((o, a) => join(o, container(this.origin(a, frame))), FRESH);
    if (Node.isIdentifier(callee)) {
      const name = callee.getText();
      if (name === 'fetch' || PURE_GLOBALS.has(name)) return name === 'Object' || name === 'Array' ? argsOrigin() : FRESH;
      const fn = functionDeclaration(callee);
      if (fn && frame.depth + 1 <= MAX_FOLLOW_DEPTH) return this.returnOrigin(fn, call, frame);
      return SHARED;
    }
    if (!Node.isPropertyAccessExpression(callee)) return SHARED;
    const method = callee.getName();
    const receiver = callee.getExpression();
    const root = unwrapExpression(receiver);
    if (Node.isIdentifier(root) && PURE_NAMESPACES.test(root.getText())) {
      const qualified = `${root.getText()}.${method}`;
      if (qualified === 'Object.assign' || qualified === 'Object.freeze' || qualified === 'Promise.resolve')
        return args[0] ? this.origin(args[0], frame) : FRESH;
      if (/^Promise\.(?:all|allSettled|race|any)$/.test(qualified)) return args[0] ? member(this.origin(args[0], frame)) : FRESH;
      if (/^(?:Object\.(?:values|entries|fromEntries)|Array\.(?:from|of))$/.test(qualified)) return argsOrigin();
      return FRESH; // JSON.parse, Math.max, Object.keys, Date.now, path.join, crypto.randomUUID, z.string …
    }
    const receiverOrigin = () => this.origin(receiver, frame);
    if (method === 'map' || method === 'flatMap') return SHALLOW;
    if (method === 'concat') return join(container(receiverOrigin()), argsOrigin());
    if (COPYING_METHODS.has(method)) return container(receiverOrigin());
    if (ELEMENT_METHODS.has(method)) return member(receiverOrigin());
    if (SELF_METHODS.has(method)) return receiverOrigin();
    if (method === 'reduce' || method === 'reduceRight') {
      const callback = args[0] && unwrapExpression(args[0]);
      const returned =
        callback && (Node.isArrowFunction(callback) || Node.isFunctionExpression(callback))
          ? this.returnedInPlace(callback, frame)
          : SHARED;
      return join(args[1] ? this.origin(args[1], frame) : member(receiverOrigin()), returned);
    }
    if (method === 'then' || method === 'catch' || method === 'finally') return SHARED;
    if (PURE_METHODS.has(method) || MUTATING_METHODS.has(method)) return FRESH; // join, includes, has, json, push (a length) …
    const fn = functionDeclaration(callee.getNameNode());
    if (fn && frame.depth + 1 <= MAX_FOLLOW_DEPTH) return this.returnOrigin(fn, call, frame);
    return SHARED;
  }

  /** The join of what a local function returns, its parameters bound to the call's arguments. */
  private returnOrigin(fn: Node, call: CallExpression, frame: Frame): Origin {
    const callee: Frame = { fn, args: this.argumentOrigins(call, frame), depth: frame.depth + 1, parent: frame };
    const key = frameKey(callee);
    const memo = this.returnMemo.get(key);
    if (memo !== undefined) return memo;
    this.returnMemo.set(key, SHARED); // recursion: assume the worst
    const result = this.returnedInPlace(fn, callee);
    this.returnMemo.set(key, result);
    return result;
  }

  /** The join of the values a function returns, read in the given frame. */
  private returnedInPlace(fn: Node, frame: Frame): Origin {
    const body = functionBody(fn);
    if (!body) return SHARED;
    if (!Node.isBlock(body)) return this.origin(body, frame);
    let result: Origin = FRESH;
    for (const statement of descendantsOfKind(body, SyntaxKind.ReturnStatement)) {
      if (statement.getFirstAncestor((a) => Node.isFunctionLikeDeclaration(a) || Node.isArrowFunction(a)) !== fn) continue;
      const value = statement.getExpression();
      if (value) result = join(result, this.origin(value, frame));
    }
    return result;
  }

  private identifierOrigin(identifier: Node, frame: Frame): Origin {
    if (identifier.getText() === 'undefined') return FRESH;
    const declaration = declarationOf(identifier);
    if (!declaration) return SHARED;
    const owner = this.frameOf(declaration, frame);
    if (!owner) return SHARED; // module or closure state
    return this.bindingOrigin(declaration, owner);
  }

  /**
   * A local binding's origin: the join of its initial value and every value assigned to it in the function (computed
   * to a fixpoint, so `let list = []; list = list.concat(x)` stays fresh while `let c = map.get(k)` is shared).
   */
  private bindingOrigin(declaration: Node, frame: Frame): Origin {
    const memo = this.bindingMemo.get(frame)?.get(declaration);
    if (memo !== undefined) return memo;
    const key = `${frameKey(frame)}#${declaration.getPos()}:${declaration.getSourceFile().getFilePath()}`;
    const provisional = this.inProgress.get(key);
    if (provisional !== undefined) return provisional;
    this.inProgress.set(key, FRESH);
    let result: Origin = FRESH;
    for (;;) {
      result = this.computeBinding(declaration, frame);
      if (result === this.inProgress.get(key)) break;
      this.inProgress.set(key, result);
    }
    this.inProgress.delete(key);
    if (this.inProgress.size === 0) {
      if (!this.bindingMemo.has(frame)) this.bindingMemo.set(frame, new Map());
      this.bindingMemo.get(frame)!.set(declaration, result);
    }
    return result;
  }

  private computeBinding(declaration: Node, frame: Frame): Origin {
    let result = this.initialOrigin(declaration, frame);
    for (const value of this.assignedValues(declaration, frame))
      result = join(result, value === 'pattern' ? SHARED : this.origin(value, frame));
    // A container made here that is handed state (`box.push(map.get(k))`, `holder.entry = rows[0]`) holds state.
    for (const value of this.storedValues(declaration, frame)) result = join(result, container(this.origin(value, frame)));
    return result;
  }

  /** Values put into the object a local binding holds: pushed, set, added, assigned to one of its properties. */
  private storedValues(declaration: Node, frame: Frame): Node[] {
    const values: Node[] = [];
    const name = (declaration as Node & { getName?(): string }).getName?.();
    if (!name) return values;
    const holds = (node: Node) => {
      const root = rootOf(node);
      return Node.isIdentifier(root) && root.getText() === name && declarationOf(root) === declaration;
    };
    for (const node of frame.fn.getDescendants()) {
      if (Node.isCallExpression(node)) {
        const callee = unwrapExpression(node.getExpression());
        if (Node.isPropertyAccessExpression(callee) && MUTATING_METHODS.has(callee.getName()) && holds(callee.getExpression())) {
          values.push(...node.getArguments());
        } else if (callee.getText() === 'Object.assign' && node.getArguments()[0] && holds(node.getArguments()[0])) {
          values.push(...node.getArguments().slice(1));
        }
      } else if (Node.isBinaryExpression(node) && node.getOperatorToken().getKind() === SyntaxKind.EqualsToken) {
        const left = unwrapExpression(node.getLeft());
        if ((Node.isPropertyAccessExpression(left) || Node.isElementAccessExpression(left)) && holds(left)) values.push(node.getRight());
      }
    }
    return values;
  }

  /** The origin a declaration starts with: its initializer, a parameter's argument, a loop's element. */
  private initialOrigin(declaration: Node, frame: Frame): Origin {
    if (Node.isFunctionDeclaration(declaration) || Node.isClassDeclaration(declaration)) return FRESH;
    if (Node.isParameterDeclaration(declaration)) return this.parameterOrigin(declaration, frame);
    if (Node.isBindingElement(declaration)) {
      // `const { history } = sessions.get(id)`: a part of the destructured value.
      const pattern = declaration.getParent();
      const holder = pattern.getParent();
      const whole =
        Node.isBindingElement(holder) || Node.isParameterDeclaration(holder) || Node.isVariableDeclaration(holder)
          ? this.initialOrigin(holder, frame)
          : SHARED;
      const part = declaration.getDotDotDotToken() ? container(whole) : member(whole);
      const fallback = declaration.getInitializer();
      return fallback ? join(part, this.origin(fallback, frame)) : part;
    }
    if (Node.isVariableDeclaration(declaration)) {
      const list = declaration.getParent();
      const statement = list?.getParent();
      if (statement && Node.isForOfStatement(statement)) return member(this.origin(statement.getExpression(), frame));
      if (statement && Node.isForInStatement(statement)) return FRESH;
      if (statement && Node.isCatchClause(statement)) return FRESH;
      const init = declaration.getInitializer();
      return init ? this.origin(init, frame) : FRESH;
    }
    return SHARED;
  }

  /** Parameters: the handler's are per call; a followed function's are its arguments; a callback's are elements. */
  private parameterOrigin(parameter: ParameterDeclaration, frame: Frame): Origin {
    const fn = parameter.getParent();
    const index = (fn as Node as Node & { getParameters(): Node[] }).getParameters().indexOf(parameter);
    const fallback = parameter.getInitializer();
    const withDefault = (o: Origin) => (fallback ? join(o, this.origin(fallback, frame)) : o);
    if (fn === frame.fn) {
      if (!frame.args) return FRESH;
      if (parameter.isRestParameter()) return withDefault(frame.args.slice(index).reduce<Origin>((o, a) => join(o, container(a)), FRESH));
      return withDefault(frame.args[index] ?? FRESH);
    }
    // A function written inside the one being read: an inline callback, or a helper.
    const call = fn.getParent();
    if (!call || !Node.isCallExpression(call) || !call.getArguments().includes(fn as never)) {
      if (call && Node.isNewExpression(call) && call.getExpression().getText() === 'Promise') return FRESH; // resolve, reject
      return SHARED;
    }
    const callee = unwrapExpression(call.getExpression());
    if (!Node.isPropertyAccessExpression(callee)) return SHARED;
    const method = callee.getName();
    const receiver = () => this.origin(callee.getExpression(), frame);
    if (method === 'reduce' || method === 'reduceRight') {
      const init = call.getArguments()[1];
      // The accumulator: the initial value (the first element without one), then whatever the callback returns.
      if (index === 0) return withDefault(join(init ? this.origin(init, frame) : member(receiver()), this.returnedInPlace(fn, frame)));
      return withDefault(index === 3 ? receiver() : member(receiver()));
    }
    if (ITERATION_METHODS.has(method)) return withDefault(index === 2 ? receiver() : member(receiver()));
    return SHARED;
  }

  /** The expressions a local binding's value is computed from (for `buildsOn`): its initializer, loop source, assignments. */
  private bindingSources(declaration: Node, frame: Frame): Node[] {
    const sources: Node[] = [];
    for (let current: Node | undefined = declaration; current;) {
      if (Node.isBindingElement(current)) {
        const fallback = current.getInitializer();
        if (fallback) sources.push(fallback);
        current = current.getParent().getParent();
      } else if (Node.isVariableDeclaration(current)) {
        const statement = current.getParent()?.getParent();
        const init =
          statement && (Node.isForOfStatement(statement) || Node.isForInStatement(statement))
            ? statement.getExpression()
            : current.getInitializer();
        if (init) sources.push(init);
        current = undefined;
      } else if (Node.isParameterDeclaration(current)) {
        const fallback = current.getInitializer();
        if (fallback) sources.push(fallback);
        const fn = current.getParent();
        const call = fn === frame.fn ? undefined : fn.getParent();
        const callee = call && Node.isCallExpression(call) ? unwrapExpression(call.getExpression()) : undefined;
        if (callee && Node.isPropertyAccessExpression(callee) && iterates(callee.getName())) sources.push(callee.getExpression());
        current = undefined;
      } else current = undefined;
    }
    for (const value of this.assignedValues(declaration, frame)) if (value !== 'pattern') sources.push(value);
    return sources;
  }

  /** Values assigned to a local binding anywhere in its function (`'pattern'`: assigned by destructuring). */
  private assignedValues(declaration: Node, frame: Frame): Array<Node | 'pattern'> {
    const values: Array<Node | 'pattern'> = [];
    const name = (declaration as Node & { getName?(): string }).getName?.();
    if (!name) return values;
    for (const binary of descendantsOfKind(frame.fn, SyntaxKind.BinaryExpression)) {
      this.tick();
      const op = binary.getOperatorToken().getKind();
      if (
        op !== SyntaxKind.EqualsToken &&
        op !== SyntaxKind.BarBarEqualsToken &&
        op !== SyntaxKind.QuestionQuestionEqualsToken &&
        op !== SyntaxKind.AmpersandAmpersandEqualsToken
      ) {
        continue;
      }
      const left = unwrapExpression(binary.getLeft());
      if (Node.isIdentifier(left)) {
        if (left.getText() === name && declarationOf(left) === declaration) values.push(binary.getRight());
      } else if (Node.isObjectLiteralExpression(left) || Node.isArrayLiteralExpression(left)) {
        if (patternTargets(left).some((t) => Node.isIdentifier(t) && t.getText() === name && declarationOf(t) === declaration))
          values.push('pattern');
      }
    }
    return values;
  }
}

function isIncrement(operator: SyntaxKind): boolean {
  return operator === SyntaxKind.PlusPlusToken || operator === SyntaxKind.MinusMinusToken;
}

/** A method whose callback receives the receiver's elements. */
function iterates(method: string): boolean {
  return ITERATION_METHODS.has(method) || method === 'reduce' || method === 'reduceRight';
}

function frameKey(frame: Frame): string {
  return `${frame.fn.getSourceFile().getFilePath()}:${frame.fn.getPos()}:${frame.args?.join('') ?? 'handler'}`;
}

/** The outermost object of a member chain (`a` in `a.b[c].d`). */
function rootOf(node: Node): Node {
  let current = unwrapExpression(node);
  while (Node.isPropertyAccessExpression(current) || Node.isElementAccessExpression(current)) {
    current = unwrapExpression(current.getExpression());
  }
  return current;
}

/** The targets a destructuring assignment pattern writes. */
function patternTargets(pattern: Node): Node[] {
  const targets: Node[] = [];
  const add = (node: Node | undefined) => {
    if (!node) return;
    const value = unwrapExpression(node);
    if (Node.isObjectLiteralExpression(value) || Node.isArrayLiteralExpression(value)) targets.push(...patternTargets(value));
    else targets.push(value);
  };
  if (Node.isObjectLiteralExpression(pattern)) {
    for (const property of pattern.getProperties()) {
      if (Node.isPropertyAssignment(property)) {
        const init = property.getInitializer();
        add(init && Node.isBinaryExpression(init) && init.getOperatorToken().getKind() === SyntaxKind.EqualsToken ? init.getLeft() : init);
      } else if (Node.isShorthandPropertyAssignment(property)) add(property.getNameNode());
      else if (Node.isSpreadAssignment(property)) add(property.getExpression());
    }
  } else if (Node.isArrayLiteralExpression(pattern)) {
    for (const element of pattern.getElements()) {
      if (Node.isSpreadElement(element)) add(element.getExpression());
      else if (Node.isBinaryExpression(element) && element.getOperatorToken().getKind() === SyntaxKind.EqualsToken) add(element.getLeft());
      else if (!Node.isOmittedExpression(element)) add(element);
    }
  }
  return targets;
}

/** The condition holds only when the slot is empty: `!x`, `x === undefined`, `x == null`, `!map.has(k)`, `!(k in o)`. */
function absentWhen(condition: Node, denotes: (n: Node) => boolean, slot: Slot): boolean {
  const node = unwrapExpression(condition);
  if (Node.isPrefixUnaryExpression(node) && node.getOperatorToken() === SyntaxKind.ExclamationToken)
    return presentWhen(node.getOperand(), denotes, slot);
  if (Node.isBinaryExpression(node)) {
    const op = node.getOperatorToken().getKind();
    if (op === SyntaxKind.AmpersandAmpersandToken)
      return absentWhen(node.getLeft(), denotes, slot) || absentWhen(node.getRight(), denotes, slot);
    if (op === SyntaxKind.EqualsEqualsEqualsToken || op === SyntaxKind.EqualsEqualsToken) return comparesWithNothing(node, denotes);
  }
  return false;
}

/** The condition holds only when the slot is filled: `x`, `x !== undefined`, `map.has(k)`, `k in o`. */
function presentWhen(condition: Node, denotes: (n: Node) => boolean, slot: Slot): boolean {
  const node = unwrapExpression(condition);
  if (denotes(node)) return true;
  if (Node.isPrefixUnaryExpression(node) && node.getOperatorToken() === SyntaxKind.ExclamationToken)
    return absentWhen(node.getOperand(), denotes, slot);
  if (Node.isCallExpression(node)) {
    const callee = node.getExpression();
    const key = node.getArguments()[0];
    if (
      Node.isPropertyAccessExpression(callee) &&
      callee.getName() === 'has' &&
      key &&
      keyIs(key, slot) &&
      sameObject(callee.getExpression(), slot)
    )
      return true;
  }
  if (Node.isBinaryExpression(node)) {
    const op = node.getOperatorToken().getKind();
    if (op === SyntaxKind.InKeyword) return keyIs(node.getLeft(), slot) && sameObject(node.getRight(), slot);
    if (op === SyntaxKind.AmpersandAmpersandToken)
      return presentWhen(node.getLeft(), denotes, slot) || presentWhen(node.getRight(), denotes, slot);
    if (op === SyntaxKind.ExclamationEqualsEqualsToken || op === SyntaxKind.ExclamationEqualsToken)
      return comparesWithNothing(node, denotes);
  }
  return false;
}

function comparesWithNothing(node: import('ts-morph').BinaryExpression, denotes: (n: Node) => boolean): boolean {
  const nothing = (n: Node) => {
    const value = unwrapExpression(n);
    return (
      Node.isNullLiteral(value) || value.getText() === 'undefined' || value.getText() === "'undefined'" || value.getText() === '"undefined"'
    );
  };
  const operand = (n: Node) => {
    const value = unwrapExpression(n);
    return denotes(Node.isTypeOfExpression(value) ? value.getExpression() : value);
  };
  return (nothing(node.getRight()) && operand(node.getLeft())) || (nothing(node.getLeft()) && operand(node.getRight()));
}

function sameText(a: Node, b: Node): boolean {
  return unwrapExpression(a).getText().replace(/\s+/g, '') === unwrapExpression(b).getText().replace(/\s+/g, '');
}

function sameObject(node: Node, slot: Slot): boolean {
  return sameText(node, slot.object);
}

/** The node names the slot's key: the same expression, or the same property name (`p`, `'p'`, `"p"`). */
function keyIs(node: Node, slot: Slot): boolean {
  const key = slot.key;
  if (key === undefined) return false;
  const name = (n: Node) =>
    Node.isStringLiteral(n) || Node.isNoSubstitutionTemplateLiteral(n)
      ? n.getLiteralValue()
      : Node.isIdentifier(n)
        ? n.getText()
        : undefined;
  if (typeof key === 'string') {
    const parent = node.getParent();
    // A bare identifier is the property name only where it is one (`obj.p`), not a variable holding a key.
    const isName =
      Node.isStringLiteral(node) ||
      Node.isNoSubstitutionTemplateLiteral(node) ||
      (!!parent && Node.isPropertyAccessExpression(parent) && parent.getNameNode() === node);
    return isName && name(node) === key;
  }
  return sameText(node, key);
}

function alwaysExits(statement: Node): boolean {
  if (Node.isReturnStatement(statement) || Node.isThrowStatement(statement) || Node.isContinueStatement(statement)) return true;
  if (Node.isBlock(statement)) {
    const last = statement.getStatements().at(-1);
    return !!last && alwaysExits(last);
  }
  return false;
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
