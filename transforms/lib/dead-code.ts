// After routes are replaced, the session machinery they used (transport maps, lookup helpers, id imports) is dead.
// Remove exactly what the removed code referenced and nothing references any more; never touch exports. A session
// table the removed code filled may stay referenced by code that only reads it (a shutdown loop closing every
// transport): nothing fills it any more, so a loop over it never runs, and goes too.
import type { ASTPath } from 'jscodeshift';
import type { TransformContext } from './context';
import { declaredNames, referencedNames, thisMemberNames, type AnyNode } from './ast';
import { pruneImports } from './imports';
import { placeholderNames } from './emit';

export function removeDeadDeclarations(context: TransformContext, candidates: Set<string>, blocks: AnyNode[][] = []): void {
  const { j } = context;
  const program = context.root.find(j.Program).get('body').value as AnyNode[];
  const generatedUses = placeholderNames(context);
  for (const name of generatedUses) candidates.delete(name);
  // Inner blocks first (a map declared in the function that registered the routes), then the program.
  const prune = () => {
    for (const body of [...blocks, program]) pruneList(context, body, candidates, generatedUses, body === program ? [] : [program]);
  };
  prune();
  // (a helper pruned above may have been what filled a store); what only a removed loop used goes too, in the blocks
  // that held it (`const now = Date.now()` before a reaper loop, its TTL constant)
  const emptied = removeLoopsOverEmptyStores(context, candidates);
  if (emptied.length > 0) {
    blocks.unshift(...emptied);
    prune();
    // (a reaper timer whose callback held only that loop now does nothing; its interval constant goes with it)
    const holders = removeEmptiedTimers(context, emptied, candidates);
    if (holders.length > 0) {
      blocks.unshift(...holders);
      prune();
    }
  }
  for (const name of generatedUses) candidates.delete(name);
  pruneImports(context, candidates);
}

/**
 * Private members of the classes that held rewritten handlers that the removed code used (`members`) and nothing in
 * the class uses any more: stores declared empty that nothing fills now (`private readonly sessions = new Map()`),
 * and helpers only the removed code called (`private createTransport() { … }`, the session transport's factory).
 * What they referenced becomes a candidate, so imports only they used go too; the members a removed helper used
 * are looked at again (a store only that helper filled).
 */
export function removeDeadFields(context: TransformContext, classes: Set<AnyNode[]>, members: Set<string>, candidates: Set<string>): void {
  const { j } = context;
  const generatedUses = placeholderNames(context);
  for (const body of classes) {
    for (let removed = true; removed;) {
      removed = false;
      for (let i = body.length - 1; i >= 0; i--) {
        const member = body[i];
        const key = member.key as AnyNode | undefined;
        if (member.static || member.computed || member.accessibility !== 'private' || (member.decorators as AnyNode[] | undefined)?.length)
          continue;
        if (key?.type !== 'Identifier' || !members.has(key.name as string) || generatedUses.has(key.name as string)) continue;
        const helper = isHelperMember(member);
        if (!helper && (member.type !== 'ClassProperty' || (member.value && !isEmptyStore(member.value as AnyNode)))) continue;
        if (body.some((other) => other !== member && thisMemberNames(j, other).has(key.name as string))) continue;
        for (const name of referencedNames(j, member)) candidates.add(name);
        if (helper) for (const name of thisMemberNames(j, member)) members.add(name);
        body.splice(i, 1);
        removed = true;
      }
    }
  }
}

/** `private createTransport() { … }` or `private createTransport = () => { … }` (not a getter, setter or constructor). */
function isHelperMember(member: AnyNode): boolean {
  if (member.type === 'ClassMethod') return member.kind === 'method';
  const value = member.value as AnyNode | undefined;
  return member.type === 'ClassProperty' && (value?.type === 'ArrowFunctionExpression' || value?.type === 'FunctionExpression');
}

/** `new Map()`, `new Set()`, `{}`, `[]`, or an object of such (`{ sse: {}, streamable: {} }`). */
function isEmptyStore(node: AnyNode): boolean {
  if (node.type === 'ArrayExpression') return (node.elements as AnyNode[]).length === 0;
  if (node.type === 'ObjectExpression')
    return (node.properties as AnyNode[]).every((p) => p.type === 'ObjectProperty' && isEmptyStore(p.value as AnyNode));
  if (node.type === 'TSAsExpression' || node.type === 'TSSatisfiesExpression') return isEmptyStore(node.expression as AnyNode);
  const callee = node.callee as AnyNode | undefined;
  return (
    node.type === 'NewExpression' &&
    callee?.type === 'Identifier' &&
    ['Map', 'Set', 'WeakMap'].includes(callee.name as string) &&
    (node.arguments as AnyNode[]).length === 0
  );
}

/** Remove declarations of `body` whose names are all candidates and referenced nowhere else in it (or `outer`). */
function pruneList(
  context: TransformContext,
  body: AnyNode[],
  candidates: Set<string>,
  generatedUses: Set<string>,
  outer: AnyNode[][],
): void {
  const { j } = context;
  for (let pass = 0; pass < 8; pass++) {
    let removed = false;
    for (let i = body.length - 1; i >= 0; i--) {
      const statement = body[i];
      if (
        statement.type === 'ExportNamedDeclaration' ||
        statement.type === 'ExportDefaultDeclaration' ||
        statement.type === 'ImportDeclaration'
      )
        continue;
      const names = declaredNames(statement);
      if (names.length === 0 || !names.every((n) => candidates.has(n) && !generatedUses.has(n))) continue;
      if (isRequireStatement(statement)) continue;
      // Never delete code this run generated (a route cluster may have been rewritten inside a now-unused function).
      if (
        j(statement as never)
          .find(j.Identifier)
          .some((p) => /^__mcpMigrate(?:Generated|Inline)/.test(p.node.name))
      )
        continue;
      // (a `const`/`let` in a block is only seen in that block: a `now` of another function is another variable)
      const blockScoped = statement.type === 'VariableDeclaration' && statement.kind !== 'var';
      const usedElsewhere =
        body.some((other, k) => k !== i && [...referencedNames(j, other)].some((n) => names.includes(n))) ||
        ((!blockScoped || outer.length === 0) &&
          outer.some((list) =>
            list.some((other) => !containsNode(other, statement) && [...referencedNames(j, other)].some((n) => names.includes(n))),
          ));
      if (usedElsewhere) continue;
      // What the dead declaration referenced may now be dead too.
      for (const name of referencedNames(j, statement)) candidates.add(name);
      body.splice(i, 1);
      removed = true;
    }
    if (!removed) break;
  }
}

function containsNode(outer: AnyNode, inner: AnyNode): boolean {
  return (
    outer === inner ||
    (typeof outer.start === 'number' &&
      typeof inner.start === 'number' &&
      (inner.start as number) >= (outer.start as number) &&
      (inner.end as number) <= (outer.end as number))
  );
}

function isRequireStatement(statement: AnyNode): boolean {
  return (
    statement.type === 'VariableDeclaration' &&
    (statement.declarations as AnyNode[]).every((d) => {
      const init = d.init as AnyNode | null;
      return (
        !!init &&
        init.type === 'CallExpression' &&
        (init.callee as AnyNode).type === 'Identifier' &&
        (init.callee as AnyNode).name === 'require'
      );
    })
  );
}

/** Methods that read a Map, Set, array or object without adding to it. */
const READ_METHODS = new Set(['get', 'has', 'delete', 'clear', 'keys', 'values', 'entries', 'forEach', 'size', 'length']);
const OBJECT_READS = new Set(['keys', 'values', 'entries']);

/**
 * Loops over a candidate store that is declared empty (`{}`, `[]`, `new Map()`, `new Set()`) once in the file and that
 * no remaining code can fill — every use only reads it, deletes from it, or iterates it — are removed; returns the
 * statement lists that held them, innermost first.
 */
function removeLoopsOverEmptyStores(context: TransformContext, candidates: Set<string>): AnyNode[][] {
  const { j } = context;
  const emptied: AnyNode[][] = [];
  for (const name of [...candidates]) {
    if (!declaredEmptyOnce(context, name)) continue;
    const uses = context.root.find(j.Identifier, { name }).filter((p) => !isDeclarationId(p) && !isPropertyName(p));
    if (!uses.every((p) => onlyReads(p))) continue;
    uses.forEach((p) => {
      const loop = loopOver(p);
      if (!loop || !loop.parent) return;
      for (const referenced of referencedNames(j, loop.node)) candidates.add(referenced);
      for (let at = loop.parent as ASTPath | null; at; at = at.parent as ASTPath | null)
        if (at.node.type === 'BlockStatement') emptied.push((at.node as unknown as AnyNode).body as AnyNode[]);
      loop.prune();
    });
  }
  return emptied;
}

/**
 * Timer statements (`setInterval(cb, ms)`, `setTimeout(…).unref()`) whose callback body the loop removal emptied: they
 * go, and what they referenced becomes a candidate. Returns the statement lists that held them.
 */
function removeEmptiedTimers(context: TransformContext, emptied: AnyNode[][], candidates: Set<string>): AnyNode[][] {
  const { j } = context;
  const holders: AnyNode[][] = [];
  context.root.find(j.ExpressionStatement).forEach((path) => {
    const callback = timerCallback(path.node.expression as AnyNode);
    const body = callback?.body as AnyNode | undefined;
    if (body?.type !== 'BlockStatement' || (body.body as AnyNode[]).length > 0 || !emptied.includes(body.body as AnyNode[])) return;
    const holder = path.parent?.node as AnyNode | undefined;
    if (!holder || !Array.isArray(holder.body)) return;
    for (const name of referencedNames(j, path.node)) candidates.add(name);
    holders.push(holder.body as AnyNode[]);
    path.prune();
  });
  return holders;
}

/** The callback of `setInterval(cb, …)` / `setTimeout(cb, …)`, also behind `.unref()`. */
function timerCallback(expression: AnyNode): AnyNode | undefined {
  let call = expression;
  const callee = call.callee as AnyNode | undefined;
  if (call.type === 'CallExpression' && callee?.type === 'MemberExpression' && (callee.property as AnyNode).name === 'unref')
    call = callee.object as AnyNode;
  const timer = call.callee as AnyNode | undefined;
  if (call.type !== 'CallExpression' || timer?.type !== 'Identifier' || !['setInterval', 'setTimeout'].includes(timer.name as string))
    return undefined;
  const callback = (call.arguments as AnyNode[])[0];
  return callback && isFunctionLike(callback) ? callback : undefined;
}

function declaredEmptyOnce(context: TransformContext, name: string): boolean {
  const { j } = context;
  const declarators = context.root.find(j.VariableDeclarator, { id: { type: 'Identifier', name } });
  // (a parameter or catch binding of the same name shadows it somewhere: not followed)
  const others = context.root.find(j.Identifier, { name }).filter((p) => {
    const parent = p.parent?.node as AnyNode;
    return (isFunctionLike(parent) && (parent.params as unknown[]).includes(p.node)) || parent.type === 'CatchClause';
  });
  if (declarators.length !== 1 || others.length > 0) return false;
  const init = declarators.get().node.init as AnyNode | null;
  if (!init) return false;
  if (init.type === 'ObjectExpression') return (init.properties as AnyNode[]).length === 0;
  if (init.type === 'ArrayExpression') return (init.elements as AnyNode[]).length === 0;
  const callee = init.callee as AnyNode | undefined;
  return (
    init.type === 'NewExpression' &&
    callee?.type === 'Identifier' &&
    ['Map', 'Set'].includes(callee.name as string) &&
    (init.arguments as AnyNode[]).length === 0
  );
}

function isFunctionLike(node: AnyNode): boolean {
  return Array.isArray(node.params);
}

function isDeclarationId(path: ASTPath): boolean {
  const parent = path.parent?.node as AnyNode;
  return parent.type === 'VariableDeclarator' && parent.id === path.node;
}

/** `x.name`, `{ name: … }`, `interface { name: … }`: a property called like the store, not the store. */
function isPropertyName(path: ASTPath): boolean {
  const parent = path.parent?.node as AnyNode;
  if ((parent.type === 'MemberExpression' || parent.type === 'OptionalMemberExpression') && parent.property === path.node)
    return !parent.computed;
  if (['ObjectProperty', 'Property', 'ClassProperty', 'ObjectMethod', 'TSPropertySignature'].includes(parent.type))
    return parent.key === path.node && !parent.computed && !parent.shorthand;
  return parent.type === 'TSTypeQuery';
}

/** A use that cannot add to the store: `s[k]` read or deleted, a read method, `k in s`, `Object.keys(s)`, a loop over it. */
function onlyReads(path: ASTPath): boolean {
  const parent = path.parent?.node as AnyNode;
  const grand = path.parent?.parent?.node as AnyNode | undefined;
  if (parent.type === 'ForInStatement' || parent.type === 'ForOfStatement') return parent.right === path.node;
  if (parent.type === 'BinaryExpression') return parent.operator === 'in' && parent.right === path.node;
  if (parent.type === 'CallExpression') return isObjectRead(parent) && (parent.arguments as AnyNode[])[0] === path.node;
  if (parent.type !== 'MemberExpression' || parent.object !== path.node || !grand) return false;
  if (grand.type === 'AssignmentExpression' && grand.left === parent) return false;
  if (grand.type === 'UpdateExpression') return false;
  if (parent.computed) return true;
  const method = (parent.property as AnyNode).name as string;
  return READ_METHODS.has(method);
}

function isObjectRead(call: AnyNode): boolean {
  const callee = call.callee as AnyNode;
  return (
    callee.type === 'MemberExpression' &&
    (callee.object as AnyNode).type === 'Identifier' &&
    (callee.object as AnyNode).name === 'Object' &&
    OBJECT_READS.has((callee.property as AnyNode).name as string)
  );
}

/**
 * The statement that iterates the store the identifier names: `for (… in|of s…)`, `s.forEach(…)`,
 * `Object.values(s).forEach(…)`, and `await Promise.allSettled(Object.values(s).map(…))` (or `Promise.all`).
 */
function loopOver(path: ASTPath): ASTPath | undefined {
  let iterable: ASTPath = path;
  const parent = path.parent?.node as AnyNode;
  if (parent.type === 'CallExpression' && isObjectRead(parent)) iterable = path.parent;
  else if (parent.type === 'MemberExpression' && !parent.computed && path.parent.parent?.node.type === 'CallExpression') {
    const method = (parent.property as AnyNode).name as string;
    if (method === 'forEach') return statementOf(path.parent.parent);
    if (['keys', 'values', 'entries'].includes(method)) iterable = path.parent.parent;
  }
  const holder = iterable.parent?.node as AnyNode;
  if ((holder.type === 'ForInStatement' || holder.type === 'ForOfStatement') && holder.right === iterable.node) return iterable.parent;
  const member = holder;
  if (iterable === path || member.type !== 'MemberExpression' || member.computed || iterable.parent.parent?.node.type !== 'CallExpression')
    return undefined;
  const method = (member.property as AnyNode).name as string;
  if (method === 'forEach') return statementOf(iterable.parent.parent);
  return method === 'map' ? settledStatementOf(iterable.parent.parent) : undefined;
}

/** `Promise.all(call)` or `Promise.allSettled(call)`, awaited or not, as a whole statement: that statement. */
function settledStatementOf(call: ASTPath): ASTPath | undefined {
  const settle = call.parent?.node as AnyNode;
  const callee = settle?.callee as AnyNode | undefined;
  if (
    settle?.type !== 'CallExpression' ||
    (settle.arguments as AnyNode[]).length !== 1 ||
    (settle.arguments as AnyNode[])[0] !== call.node ||
    callee?.type !== 'MemberExpression' ||
    (callee.object as AnyNode).type !== 'Identifier' ||
    (callee.object as AnyNode).name !== 'Promise' ||
    !['all', 'allSettled'].includes((callee.property as AnyNode).name as string)
  )
    return undefined;
  const awaited = call.parent.parent?.node.type === 'AwaitExpression' ? call.parent.parent : call.parent;
  return statementOf(awaited);
}

/** The call when it is a whole expression statement (`s.forEach(…);`, `await …` excluded: its result is used). */
function statementOf(call: ASTPath): ASTPath | undefined {
  const parent = call.parent?.node as AnyNode;
  return parent.type === 'ExpressionStatement' && parent.expression === call.node ? call.parent : undefined;
}
