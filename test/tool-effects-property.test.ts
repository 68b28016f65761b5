// Property test for the tool-effects analysis: a seeded generator writes tool handlers whose effects are known by
// construction (reads, writes through aliases, collections, destructuring, helpers and callbacks, compound updates,
// guarded inserts, calls into code that cannot be read), the real analysis reads them, and:
//   - a handler that changes state is never called read-only (a false readOnlyHint lets a client auto-approve it);
//   - a handler that is not idempotent is never called idempotent;
//   - a handler that hands state to code the analysis cannot read gets no hint at all;
//   - and, so the test can fail the other way too, a handler that only reads is read-only, and one whose only writes
//     are idempotent is idempotent.
// The seed is fixed in the suite; PROPERTY_SEED=<n> PROPERTY_COUNT=<n> explore others.
import { describe, expect, it } from 'vitest';
import { Node, SyntaxKind } from 'ts-morph';
import { createProject } from '../src/engine/analyze';
import { inferToolEffects } from '../src/analysis/tool-effects';

const SEED = Number(process.env.PROPERTY_SEED ?? 20260728);
const COUNT = Number(process.env.PROPERTY_COUNT ?? 600);

type Effect = 'read' | 'idempotent' | 'repeating' | 'unsure';

/** A step of a handler body: code and the effect it has on state. */
interface Step {
  code: string;
  effect: Effect;
}

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const MODULE = `
interface Entry { list: string[]; n: number; tags: Set<string>; meta: { v: number } }
const store = new Map<string, Entry>();
const rows: Entry[] = [];
const dict: Record<string, Entry> = {};
const stock = new Map<string, number>();
let counter = 0;
let cache: { v: number } | undefined;
declare function opaque(value: unknown): void;
declare function lookupLabel(id: string): string;
function entryOf(key: string): Entry { return store.get(key)!; }
function firstRow(): Entry { return rows[0]; }
function freshEntry(): Entry { return { list: [], n: 0, tags: new Set(), meta: { v: 0 } }; }
`;

/** Expressions that reach a shared entry (state), each given a local name when it needs a statement. */
const ENTRY_PATHS: Array<(v: string) => { setup: string; entry: string }> = [
  (v) => ({ setup: `const ${v} = store.get(key)!;`, entry: v }),
  (v) => ({ setup: `const ${v} = rows.find((r) => r.n === amount)!;`, entry: v }),
  (v) => ({ setup: `const ${v} = dict[key];`, entry: v }),
  (v) => ({ setup: `const ${v}a = store.get(key)!; const ${v} = ${v}a;`, entry: v }),
  (v) => ({ setup: `const ${v} = entryOf(key);`, entry: v }),
  (v) => ({ setup: `const ${v} = firstRow();`, entry: v }),
  (v) => ({ setup: `const [${v}] = rows;`, entry: v }),
  (v) => ({ setup: `const { [key]: ${v} } = dict;`, entry: v }),
  (v) => ({ setup: `let ${v}; ${v} = rows.at(-1)!;`, entry: v }),
  (v) => ({ setup: `const ${v} = [...rows][0];`, entry: v }),
  (v) => ({ setup: `const ${v} = Object.values(dict)[0];`, entry: v }),
  (v) => ({ setup: `const ${v}box: Entry[] = []; ${v}box.push(store.get(key)!); const ${v} = ${v}box[0];`, entry: v }),
  (v) => ({ setup: `const ${v}holder: { entry?: Entry } = {}; ${v}holder.entry = dict[key]; const ${v} = ${v}holder.entry!;`, entry: v }),
  (v) => ({ setup: `const ${v} = rows.reduce((best, r) => (r.n > best.n ? r : best));`, entry: v }),
  () => ({ setup: '', entry: 'store.get(key)!' }),
  () => ({ setup: '', entry: 'dict[key]' }),
];

/** Operations on an entry E. */
const ENTRY_OPS: Array<{ op: (e: string) => string; effect: Effect }> = [
  { op: (e) => `out.push(${e}.list.join(','));`, effect: 'read' },
  { op: (e) => `out.push(String(${e}.n + 1));`, effect: 'read' },
  { op: (e) => `out.push([...${e}.list].sort().join());`, effect: 'read' },
  { op: (e) => `out.push(${e}.list.slice().reverse().join());`, effect: 'read' },
  { op: (e) => `{ const copy = { ...${e} }; copy.n = 1; out.push(String(copy.n)); }`, effect: 'read' },
  { op: (e) => `{ const clone = structuredClone(${e}); clone.list.push('x'); }`, effect: 'read' },
  { op: (e) => `out.push(lookupLabel(key), ${e}.list[0]);`, effect: 'read' },
  { op: (e) => `${e}.n = amount;`, effect: 'idempotent' },
  { op: (e) => `${e}.list.length = 0;`, effect: 'idempotent' },
  { op: (e) => `${e}.tags.add(label);`, effect: 'idempotent' },
  { op: (e) => `${e}.meta.v = 1;`, effect: 'idempotent' },
  { op: (e) => `${e}.list.sort();`, effect: 'idempotent' },
  { op: (e) => `${e}.tags.delete(label);`, effect: 'idempotent' },
  { op: (e) => `${e}.list.push(label);`, effect: 'repeating' },
  { op: (e) => `${e}.n++;`, effect: 'repeating' },
  { op: (e) => `${e}.n += amount;`, effect: 'repeating' },
  { op: (e) => `${e}.n = ${e}.n + amount;`, effect: 'repeating' },
  { op: (e) => `${e}.list.splice(0, 1);`, effect: 'repeating' },
  { op: (e) => `${e}.list = [...${e}.list, label];`, effect: 'repeating' },
  { op: (e) => `${e}.list.unshift(label);`, effect: 'repeating' },
  { op: (e) => `${e}.meta.v = Date.now();`, effect: 'repeating' },
  { op: (e) => `opaque(${e});`, effect: 'unsure' },
  { op: (e) => `opaque(${e}.list);`, effect: 'unsure' },
  { op: (e) => `(${e} as any)[label]();`, effect: 'unsure' },
];

/** Steps on the collections themselves (and module variables). */
const COLLECTION_STEPS: Step[] = [
  { code: `out.push(String(store.has(key)));`, effect: 'read' },
  { code: `out.push(rows.map((r) => r.n).join());`, effect: 'read' },
  { code: `{ const local: string[] = []; local.push(label); let t = 0; t += amount; out.push(local.join() + t); }`, effect: 'read' },
  { code: `store.set(key, freshEntry());`, effect: 'idempotent' },
  { code: `store.delete(key);`, effect: 'idempotent' },
  { code: `counter = amount;`, effect: 'idempotent' },
  { code: `if (!store.has(key)) store.set(key, freshEntry());`, effect: 'idempotent' },
  { code: `{ let e = store.get(key); if (!e) { e = freshEntry(); store.set(key, e); } out.push(String(e.n)); }`, effect: 'idempotent' },
  { code: `cache ??= { v: amount };`, effect: 'idempotent' },
  { code: `dict[key] = freshEntry();`, effect: 'idempotent' },
  { code: `counter++;`, effect: 'repeating' },
  { code: `rows.push(freshEntry());`, effect: 'repeating' },
  { code: `stock.set(key, (stock.get(key) ?? 0) + amount);`, effect: 'repeating' },
  { code: `{ const before = stock.get(key) ?? 0; stock.set(key, before - amount); }`, effect: 'repeating' },
  { code: `{ let e = store.get(key); if (!e) { e = freshEntry(); store.set(key, e); } e.list.push(label); }`, effect: 'repeating' },
  { code: `store.set(crypto.randomUUID(), freshEntry());`, effect: 'repeating' },
  { code: `opaque(rows);`, effect: 'unsure' },
];

/** How an entry operation is reached: directly, in a branch, in a loop or callback over the collection, or in a helper. */
type Wrap = (
  helperName: string,
  path: (v: string) => { setup: string; entry: string },
  op: (e: string) => string,
  v: string,
) => { body: string; helper?: string };
const WRAPS: Wrap[] = [
  (_, path, op, v) => {
    const { setup, entry } = path(v);
    return { body: `${setup} ${op(entry)}` };
  },
  (_, path, op, v) => {
    const { setup, entry } = path(v);
    return { body: `${setup} if (amount > 0) { ${op(entry)} }` };
  },
  (_, path, op, v) => {
    const { setup, entry } = path(v);
    return { body: `${setup} try { ${op(entry)} } catch { out.push('failed'); }` };
  },
  (_, __, op, v) => ({ body: `for (const ${v} of rows) { ${op(v)} }` }),
  (_, __, op, v) => ({ body: `rows.forEach((${v}) => { ${op(v)} });` }),
  (_, __, op, v) => ({ body: `Object.values(dict).forEach((${v}) => { ${op(v)} });` }),
  (helper, path, op, v) => {
    const { setup, entry } = path(v);
    return {
      body: `${setup} ${helper}(${entry}, key, label, amount);`,
      helper: `function ${helper}(target: Entry, key: string, label: string, amount: number) { const out: string[] = []; ${op('target')} return out; }`,
    };
  },
  (helper, path, op, v) => {
    const { setup, entry } = path(v);
    return { body: `${setup} await Promise.resolve().then(() => { ${op(entry)} });` };
  },
];

interface Case {
  name: string;
  effects: Effect[];
}

function generate(random: () => number, count: number): { source: string; cases: Case[] } {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const helpers: string[] = [];
  const handlers: string[] = [];
  const cases: Case[] = [];
  for (let i = 0; i < count; i++) {
    const steps = 1 + Math.floor(random() * 3);
    const body: string[] = [];
    const effects: Effect[] = [];
    for (let s = 0; s < steps; s++) {
      if (random() < 0.3) {
        const step = pick(COLLECTION_STEPS);
        body.push(step.code);
        effects.push(step.effect);
        continue;
      }
      const op = pick(ENTRY_OPS);
      const wrapped = pick(WRAPS)(`helper_${i}_${s}`, pick(ENTRY_PATHS), op.op, `e${s}`);
      if (wrapped.helper) helpers.push(wrapped.helper);
      body.push(wrapped.body);
      effects.push(op.effect);
    }
    const name = `h_${i}`;
    handlers.push(
      `export const ${name} = async ({ key, label, amount }: { key: string; label: string; amount: number }) => {\n  const out: string[] = [];\n  ${body.join('\n  ')}\n  return { content: [{ type: 'text' as const, text: out.join() }] };\n};`,
    );
    cases.push({ name, effects });
  }
  return { source: `${MODULE}\n${helpers.join('\n')}\n\n${handlers.join('\n\n')}\n`, cases };
}

describe('tool effects: generated handlers with known effects', () => {
  const { source, cases } = generate(mulberry32(SEED), COUNT);
  const file = createProject().createSourceFile('/generated/handlers.ts', source);
  const handlerOf = (name: string) => {
    const initializer = file.getVariableDeclarationOrThrow(name).getInitializerOrThrow();
    if (!Node.isArrowFunction(initializer)) throw new Error(`${name} is not an arrow function`);
    return initializer;
  };
  const results = cases.map((c) => ({ ...c, inference: inferToolEffects(handlerOf(c.name)) }));
  const code = (name: string) => handlerOf(name).getParentOrThrow().getText();

  it(`generates ${COUNT} handlers covering every kind of effect (seed ${SEED})`, () => {
    expect(file.getDescendantsOfKind(SyntaxKind.ArrowFunction).length).toBeGreaterThanOrEqual(COUNT);
    for (const kind of ['read', 'idempotent', 'repeating', 'unsure'] as const) {
      expect(results.filter((r) => r.effects.includes(kind)).length, kind).toBeGreaterThan(COUNT / 10);
    }
  });

  it('never calls a handler that changes state read-only', () => {
    const wrong = results.filter((r) => r.effects.some((e) => e !== 'read') && r.inference.hints?.readOnlyHint === true);
    expect(wrong.map((r) => code(r.name))).toEqual([]);
  });

  it('never calls a handler that is not idempotent idempotent', () => {
    const wrong = results.filter((r) => r.effects.includes('repeating') && r.inference.hints?.idempotentHint === true);
    expect(wrong.map((r) => code(r.name))).toEqual([]);
  });

  it('writes no hint for a handler that hands state to code it cannot read, and says why', () => {
    const unsure = results.filter((r) => r.effects.includes('unsure'));
    expect(unsure.filter((r) => r.inference.hints).map((r) => code(r.name))).toEqual([]);
    for (const r of unsure) expect(r.inference.unsure.length, r.name).toBeGreaterThan(0);
  });

  it('calls handlers that only read read-only, and idempotent writers idempotent', () => {
    const reads = results.filter((r) => r.effects.every((e) => e === 'read'));
    expect(reads.filter((r) => r.inference.hints?.readOnlyHint !== true).map((r) => `${code(r.name)}\n// ${r.inference.evidence}`)).toEqual(
      [],
    );
    const idempotent = results.filter(
      (r) => r.effects.includes('idempotent') && r.effects.every((e) => e === 'read' || e === 'idempotent'),
    );
    expect(
      idempotent
        .filter((r) => r.inference.hints?.readOnlyHint !== false || r.inference.hints?.idempotentHint !== true)
        .map((r) => `${code(r.name)}\n// ${r.inference.evidence}`),
    ).toEqual([]);
  });
});
