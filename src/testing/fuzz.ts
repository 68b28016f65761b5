// Seeded fuzzing of the migration (issue 6). Mutants are made from the fixture servers' source files by a small set of
// text and syntax mutations (delete, duplicate or swap lines; rename identifiers; change string literals and route
// paths; insert comments; wrap statements in blocks), and each mutant server is migrated in memory. For every mutant:
//
// - crash: an exception escaped `migrateSources` (or its analysis). A reported problem is not a crash.
// - broken output: a file the migration changed does not parse (the engine's own check must make this impossible),
//   or has an early error babel reports (a redeclared name…) that its input did not have: Node would not load it.
// - idempotence: a second `migrateSources` on the output changes something.
// - leftover: the output still has a finding with `fix: 'auto'` for a transport rule, in a file without a
//   `/* mcp-migrate: … */` marker and without a reported problem, while the mutant itself parses.
//
// Everything is a pure function of (seed, mutant index, fixture contents): `mutant(corpus, seed, index)` rebuilds any
// mutant, so a failure is reproduced with `npm run fuzz -- --seed S --start I --count 1 --show`.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ts } from 'ts-morph';
import { migrateSources, type Migration, type Target } from '../engine/apply';
import { createProject, syntaxError, type SourceInput } from '../engine/analyze';
import { discover } from '../engine/discover';
import { MARKER_PATTERN } from '../engine/markers';
import { mayContainMcpCode } from '../engine/prefilter';
import { isReadProblem, readSource } from '../engine/read-source';
import jscodeshift from 'jscodeshift';
import { parserFor } from '../../transforms/lib/context';

/** Transport rules whose `auto` findings must all be gone after a migration. */
export const TRANSPORT_RULES: ReadonlySet<string> = new Set([
  'legacy-sse-transport',
  'session-id',
  'get-stream',
  'delete-session',
  'last-event-id',
  'shared-server-instance',
  'origin-validation',
]);

// --- the PRNG -----------------------------------------------------------------------------------------------------

/** mulberry32: a 32-bit seeded PRNG; `next()` is uniform in [0, 1). */
export class Random {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(maxExclusive: number): number {
    return Math.floor(this.next() * maxExclusive);
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
}

/** The seed of mutant `index` of run `seed` (splitmix32-style mixing, so neighbouring indexes are unrelated). */
export function mutantSeed(seed: number, index: number): number {
  let z = (Math.imul(seed >>> 0, 0x9e3779b1) + Math.imul(index + 1, 0x85ebca77)) >>> 0;
  z = Math.imul(z ^ (z >>> 16), 0x21f0aaad) >>> 0;
  z = Math.imul(z ^ (z >>> 15), 0x735a2d97) >>> 0;
  return (z ^ (z >>> 15)) >>> 0;
}

// --- the corpus ---------------------------------------------------------------------------------------------------

export interface CorpusServer {
  name: string;
  dir: string;
  /** Every source file of the server (relative to its directory), MCP or not. */
  files: SourceInput[];
  /** relPaths of the files that pass the MCP prefilter: the ones mutated. */
  targets: string[];
}

export interface Corpus {
  servers: CorpusServer[];
}

/** The fixture servers in `fixturesDir` (each directory with a fixture.json), read like `scan` reads them. */
export function loadCorpus(fixturesDir: string, only: string[] = []): Corpus {
  const servers: CorpusServer[] = [];
  for (const name of fs.readdirSync(fixturesDir).sort()) {
    const dir = path.resolve(fixturesDir, name);
    if (!fs.existsSync(path.join(dir, 'fixture.json'))) continue;
    if (only.length > 0 && !only.includes(name)) continue;
    const discovery = discover({ paths: [dir], cwd: dir, gitignore: false, include: [], exclude: [] });
    const files: SourceInput[] = [];
    for (const file of discovery.files) {
      const read = readSource(file.absPath);
      if (isReadProblem(read)) continue;
      files.push({ absPath: file.absPath, relPath: file.relPath, text: read.text });
    }
    const targets = files.filter((f) => mayContainMcpCode(f.text)).map((f) => f.relPath);
    if (targets.length > 0) servers.push({ name, dir, files, targets });
  }
  return { servers };
}

// --- tokens and mutations -----------------------------------------------------------------------------------------

interface Token {
  kind: ts.SyntaxKind;
  start: number;
  end: number;
  text: string;
}

function tokens(text: string): Token[] {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, true, ts.LanguageVariant.Standard, text);
  const result: Token[] = [];
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    result.push({ kind, start: scanner.getTokenStart(), end: scanner.getTokenEnd(), text: scanner.getTokenText() });
  }
  return result;
}

function splice(text: string, start: number, end: number, replacement: string): string {
  return text.slice(0, start) + replacement + text.slice(end);
}

function quoted(quote: string, content: string): string {
  return quote + content.replace(/\\/g, '\\\\').split(quote).join(`\\${quote}`) + quote;
}

const MCP_STRINGS = [
  'mcp-session-id',
  'Mcp-Session-Id',
  'last-event-id',
  'text/event-stream',
  'POST',
  'GET',
  'DELETE',
  '127.0.0.1',
  '0.0.0.0',
  'origin',
  '@modelcontextprotocol/sdk/server/sse.js',
  '@modelcontextprotocol/sdk/server/streamableHttp.js',
  '@modelcontextprotocol/sdk/server/mcp.js',
];
const ROUTES = ['/mcp', '/sse', '/messages', '/', '/mcp/sse', '/api/mcp', '/sse/:id', '*', '/mcp/'];
const COMMENTS = [
  '// fuzz',
  '/* fuzz */',
  '// TODO: move off SSE',
  '/** @deprecated */',
  '// mcp-migrate-ignore-next-line origin-validation -- fuzz',
  '// @ts-ignore',
  '/* sessionIdGenerator: () => randomUUID() */',
  '// app.get("/sse", handler)',
  '/* mcp-session-id */',
];
/** Names the transforms' generated code declares or imports: renaming into them tests the transforms' name hygiene. */
const GENERATED_NAMES = [
  'rejectForeignOrigin',
  'mcpAllowedOrigins',
  'mcpLocalHostnames',
  'createMcpServer',
  'IncomingMessage',
  'ServerResponse',
  'StreamableHTTPServerTransport',
  'server',
  'transport',
  'error',
];
const WRAPPERS: Array<[string, string]> = [
  ['{', '}'],
  ["if (process.env.FUZZ !== 'off') {", '}'],
  ['try {', '} finally {\n}'],
  ['for (const _fuzz of [0]) {', '}'],
  ['(() => {', '})();'],
];

type Mutator = (text: string, rng: Random, absPath: string) => { text: string; note: string } | undefined;

function lines(text: string): string[] {
  return text.split('\n');
}

const mutators: Record<string, Mutator> = {
  'delete-line': (text, rng) => {
    const all = lines(text);
    const candidates = all.map((l, i) => [l, i] as const).filter(([l]) => l.trim() !== '');
    if (candidates.length === 0) return undefined;
    const [line, index] = rng.pick(candidates);
    all.splice(index, 1);
    return { text: all.join('\n'), note: `delete line ${index + 1}: ${line.trim().slice(0, 60)}` };
  },
  'duplicate-line': (text, rng) => {
    const all = lines(text);
    const index = rng.int(all.length);
    all.splice(index, 0, all[index]);
    return { text: all.join('\n'), note: `duplicate line ${index + 1}: ${all[index].trim().slice(0, 60)}` };
  },
  'swap-lines': (text, rng) => {
    const all = lines(text);
    if (all.length < 2) return undefined;
    const index = rng.int(all.length - 1);
    const other = rng.chance(0.7) ? index + 1 : rng.int(all.length);
    [all[index], all[other]] = [all[other], all[index]];
    return { text: all.join('\n'), note: `swap lines ${index + 1} and ${other + 1}` };
  },
  'rename-identifier': (text, rng) => {
    const ids = tokens(text).filter((t) => t.kind === ts.SyntaxKind.Identifier);
    if (ids.length === 0) return undefined;
    const chosen = rng.pick(ids);
    const names = [...new Set(ids.map((t) => t.text))];
    const roll = rng.next();
    // A collision with another name of the file, or with a name the migration's generated code declares.
    const replacement =
      roll < 0.2 && names.length > 1
        ? rng.pick(names.filter((n) => n !== chosen.text))
        : roll < 0.35
          ? rng.pick(GENERATED_NAMES)
          : `${chosen.text}Fz${rng.int(100)}`;
    const all = rng.chance(0.7);
    const targets = all ? ids.filter((t) => t.text === chosen.text) : [chosen];
    let out = text;
    for (const target of [...targets].sort((a, b) => b.start - a.start)) out = splice(out, target.start, target.end, replacement);
    return { text: out, note: `rename ${all ? 'every' : 'one'} ${chosen.text} -> ${replacement}` };
  },
  'change-string': (text, rng) => {
    const strings = tokens(text).filter(
      (t) => t.kind === ts.SyntaxKind.StringLiteral || t.kind === ts.SyntaxKind.NoSubstitutionTemplateLiteral,
    );
    if (strings.length === 0) return undefined;
    const chosen = rng.pick(strings);
    const quote = chosen.text[0];
    const content = chosen.text.slice(1, -1);
    const choices = ['', 'fuzz', `${content}-x`, content.toUpperCase(), rng.pick(MCP_STRINGS)];
    const value = rng.pick(choices);
    return {
      text: splice(text, chosen.start, chosen.end, quoted(quote, value)),
      note: `string ${chosen.text.slice(0, 50)} -> ${quoted(quote, value)}`,
    };
  },
  'change-route': (text, rng) => {
    const routes = tokens(text).filter(
      (t) =>
        (t.kind === ts.SyntaxKind.StringLiteral || t.kind === ts.SyntaxKind.NoSubstitutionTemplateLiteral) &&
        t.text.slice(1).startsWith('/'),
    );
    if (routes.length === 0) return mutators['change-string'](text, rng, '');
    const chosen = rng.pick(routes);
    const quote = chosen.text[0];
    const content = chosen.text.slice(1, -1);
    const value = rng.pick([...ROUTES, `${content}/extra`, content.replace(/^\//, '/v2/')]);
    return { text: splice(text, chosen.start, chosen.end, quoted(quote, value)), note: `route ${chosen.text} -> ${quoted(quote, value)}` };
  },
  'insert-comment': (text, rng) => {
    const comment = rng.pick(COMMENTS);
    const mode = rng.int(3);
    if (mode === 0) {
      const all = lines(text);
      const index = rng.int(all.length + 1);
      const indent = (all[index] ?? '').match(/^\s*/)![0];
      all.splice(index, 0, indent + comment);
      return { text: all.join('\n'), note: `comment line before line ${index + 1}: ${comment}` };
    }
    if (mode === 1) {
      const all = lines(text);
      const index = rng.int(all.length);
      all[index] = `${all[index]} ${comment}`;
      return { text: all.join('\n'), note: `trailing comment on line ${index + 1}: ${comment}` };
    }
    const toks = tokens(text);
    if (toks.length === 0) return undefined;
    const token = rng.pick(toks);
    const block = comment.startsWith('//') ? `/*${comment.slice(2)} */` : comment;
    return {
      text: splice(text, token.start, token.start, `${block} `),
      note: `block comment before token ${token.text.slice(0, 30)}: ${block}`,
    };
  },
  'wrap-in-block': (text, rng, absPath) => {
    const sourceFile = ts.createSourceFile(absPath, text, ts.ScriptTarget.Latest, true);
    const runs: Array<readonly ts.Statement[]> = [];
    const visit = (node: ts.Node): void => {
      if (ts.isSourceFile(node) || ts.isBlock(node) || ts.isModuleBlock(node) || ts.isCaseClause(node) || ts.isDefaultClause(node)) {
        const statements = node.statements.filter(
          (s) => !ts.isImportDeclaration(s) && !ts.isExportDeclaration(s) && !ts.isFunctionDeclaration(s),
        );
        if (statements.length > 0) runs.push(statements);
      }
      ts.forEachChild(node, visit);
    };
    visit(sourceFile);
    if (runs.length === 0) return undefined;
    const run = rng.pick(runs);
    const first = rng.int(run.length);
    const last = Math.min(run.length - 1, first + rng.int(3));
    const start = run[first].getStart(sourceFile);
    const end = run[last].getEnd();
    const [open, close] = rng.pick(WRAPPERS);
    const lineStart = text.lastIndexOf('\n', start - 1) + 1;
    const indent = text.slice(lineStart, start).match(/^\s*$/) ? text.slice(lineStart, start) : '';
    const body = text.slice(start, end);
    const wrapped = `${open}\n${indent}  ${body.split('\n').join(`\n  `)}\n${indent}${close}`;
    return {
      text: splice(text, start, end, wrapped),
      note: `wrap lines ${sourceFile.getLineAndCharacterOfPosition(start).line + 1}-${sourceFile.getLineAndCharacterOfPosition(end).line + 1} in ${open} … ${close.replace(/\n/g, ' ')}`,
    };
  },
};

export const MUTATORS: readonly string[] = Object.keys(mutators);

export interface Mutant {
  /** `<seed>:<index>` */
  id: string;
  seed: number;
  index: number;
  server: string;
  /** relPath of the mutated file inside the server. */
  file: string;
  /** What was done, in order. */
  operations: string[];
  original: string;
  text: string;
  /** The server's files with the mutated one replaced. */
  sources: SourceInput[];
}

/** Rebuilds mutant `index` of run `seed` (pure). */
export function mutant(corpus: Corpus, seed: number, index: number): Mutant {
  const rng = new Random(mutantSeed(seed, index));
  // Servers in turn: a run of at least as many mutants as servers mutates every one of them.
  const server = corpus.servers[index % corpus.servers.length];
  const file = rng.pick(server.targets);
  const source = server.files.find((f) => f.relPath === file)!;
  let text = source.text;
  const operations: string[] = [];
  const count = rng.chance(0.6) ? 1 : rng.chance(0.75) ? 2 : 3;
  for (let attempt = 0; operations.length < count && attempt < count * 4; attempt++) {
    const name = rng.pick(MUTATORS);
    const result = mutators[name](text, rng, source.absPath);
    if (!result) continue;
    text = result.text;
    operations.push(`${name}: ${result.note}`);
  }
  return {
    id: `${seed}:${index}`,
    seed,
    index,
    server: server.name,
    file,
    operations,
    original: source.text,
    text,
    sources: server.files.map((f) => (f.relPath === file ? { ...f, text } : f)),
  };
}

// --- checking one mutant ------------------------------------------------------------------------------------------

export type FailureKind = 'crash' | 'broken-output' | 'idempotence' | 'leftover';

export interface Failure {
  id: string;
  kind: FailureKind;
  server: string;
  file: string;
  operations: string[];
  detail: string;
}

export interface MutantResult {
  id: string;
  /** The mutated file still parses. */
  parses: boolean;
  /** The migration changed at least one file. */
  changed: boolean;
  /** Problems the migration reported (by kind): allowed, but counted. */
  problems: Array<{ file: string; kind: string; message: string }>;
  failures: Failure[];
  ms: number;
}

function parses(absPath: string, text: string): string | undefined {
  return syntaxError(createProject().createSourceFile(absPath, text, { overwrite: true }));
}

function describeError(error: unknown): string {
  const e = error as Error;
  const frame =
    e?.stack
      ?.split('\n')
      .find((l) => /^\s+at /.test(l))
      ?.trim() ?? '';
  return `${e?.name ?? 'Error'}: ${e?.message ?? String(error)} ${frame}`.trim();
}

/** The inputs `apply` would migrate: the files that pass the prefilter. */
export function candidates(sources: SourceInput[]): SourceInput[] {
  return sources.filter((s) => mayContainMcpCode(s.text));
}

export function checkMutant(m: Mutant, target?: Target): MutantResult {
  const started = performance.now();
  const failures: Failure[] = [];
  const fail = (kind: FailureKind, detail: string, file = m.file) =>
    failures.push({ id: m.id, kind, server: m.server, file, operations: m.operations, detail });
  const mutantAbs = m.sources.find((s) => s.relPath === m.file)!.absPath;
  const mutantParses = parses(mutantAbs, m.text) === undefined;
  const inputs = candidates(m.sources);
  const result = (changed: boolean, problems: MutantResult['problems']): MutantResult => ({
    id: m.id,
    parses: mutantParses,
    changed,
    problems,
    failures,
    ms: Math.round(performance.now() - started),
  });

  let first: Migration;
  try {
    first = migrateSources(inputs, { endpoint: '/mcp', target });
  } catch (error) {
    fail('crash', `migrateSources threw: ${describeError(error)}`);
    return result(false, []);
  }
  const problems = first.problems.map((p) => ({ file: p.file, kind: p.kind, message: p.message }));
  const problemFiles = new Set(first.problems.map((p) => p.file));
  let changed = false;
  for (const input of inputs) {
    const output = first.outputs.get(input.relPath);
    if (output === undefined) {
      fail('crash', `no output for ${input.relPath}`, input.relPath);
      continue;
    }
    if (output === input.text) continue;
    changed = true;
    const broken = parses(input.absPath, output);
    if (broken) fail('broken-output', `output does not parse: ${broken}`, input.relPath);
    // The TypeScript parser accepts early errors (a redeclared import, \`await\` outside async) that Node refuses to
    // load; babel (the transforms' parser) reports them. An output with one, from an input without, is broken too.
    else {
      const early = babelError({ ...input, text: output });
      if (early && !babelError(input)) fail('broken-output', `output has an early error: ${early}`, input.relPath);
    }
  }

  let second: Migration;
  try {
    second = migrateSources(
      inputs.map((s) => ({ ...s, text: first.outputs.get(s.relPath) ?? s.text })),
      { endpoint: '/mcp', target },
    );
  } catch (error) {
    fail('crash', `second migrateSources threw: ${describeError(error)}`);
    return result(changed, problems);
  }
  for (const input of inputs) {
    const once = first.outputs.get(input.relPath);
    const twice = second.outputs.get(input.relPath);
    if (once !== twice) {
      const at = firstDifference(once ?? '', twice ?? '');
      fail(
        'idempotence',
        `a second migration changes the file (first difference at line ${at.line}: ${JSON.stringify(at.before)} -> ${JSON.stringify(at.after)}; second-run transforms: ${[...(second.transformIds.get(input.relPath) ?? [])].join(', ')})`,
        input.relPath,
      );
    }
  }

  if (mutantParses) {
    for (const file of first.analysis.files) {
      if (problemFiles.has(file.relPath)) continue;
      const output = first.outputs.get(file.relPath) ?? '';
      if (new RegExp(MARKER_PATTERN.source).test(output)) continue;
      const left = file.findings.filter((f) => f.fix === 'auto' && TRANSPORT_RULES.has(f.ruleId));
      if (left.length > 0) fail('leftover', left.map((f) => `${f.ruleId} at ${f.line}:${f.column}`).join(', '), file.relPath);
    }
  }
  return result(changed, problems);
}

function firstDifference(a: string, b: string): { line: number; before: string; after: string } {
  const x = a.split('\n');
  const y = b.split('\n');
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    if (x[i] !== y[i]) return { line: i + 1, before: (x[i] ?? '<end>').slice(0, 80), after: (y[i] ?? '<end>').slice(0, 80) };
  }
  return { line: 0, before: '', after: '' };
}

// --- a run --------------------------------------------------------------------------------------------------------

export interface FuzzSummary {
  seed: number;
  mutants: number;
  /** Mutants whose mutated file no longer parses (leftovers are not checked for them). */
  unparsable: number;
  /** Mutants the migration changed. */
  changed: number;
  crashes: number;
  brokenOutputs: number;
  idempotenceFailures: number;
  leftovers: number;
  /** Problems the migration reported, by kind (e.g. `invalid-output`: a transform's output was rejected). */
  problems: Record<string, number>;
  ms: number;
  failures: Failure[];
  /**
   * Mutants whose migration reported an `invalid-output` problem, or a `transform` problem on a file the transforms'
   * parser (babel) accepts: not failures (the file is reported and left unchanged), but likely transform bugs.
   */
  rejected: Array<{ id: string; server: string; file: string; operations: string[]; problems: string[] }>;
}

export interface FuzzOptions {
  seed: number;
  count: number;
  /** First mutant index (default 0). */
  start?: number;
  /** Migration target (default: the engine's default, as `apply`). */
  target?: Target;
  /** Only indexes with `index % shard.of === shard.index`. */
  shard?: { index: number; of: number };
  onResult?(mutant: Mutant, result: MutantResult): void;
}

export function runFuzz(corpus: Corpus, options: FuzzOptions): FuzzSummary {
  const started = performance.now();
  const summary: FuzzSummary = {
    seed: options.seed,
    mutants: 0,
    unparsable: 0,
    changed: 0,
    crashes: 0,
    brokenOutputs: 0,
    idempotenceFailures: 0,
    leftovers: 0,
    problems: {},
    ms: 0,
    failures: [],
    rejected: [],
  };
  const start = options.start ?? 0;
  for (let index = start; index < start + options.count; index++) {
    if (options.shard && index % options.shard.of !== options.shard.index) continue;
    const m = mutant(corpus, options.seed, index);
    const result = checkMutant(m, options.target);
    options.onResult?.(m, result);
    addResult(summary, m, result);
  }
  summary.ms = Math.round(performance.now() - started);
  return summary;
}

function babelError(source: SourceInput): string | undefined {
  try {
    jscodeshift.withParser(parserFor(source.absPath))(source.text);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

function babelParses(source: SourceInput | undefined): boolean {
  return !source || babelError(source) === undefined;
}

function addResult(summary: FuzzSummary, m: Mutant, result: MutantResult): void {
  summary.mutants += 1;
  if (!result.parses) summary.unparsable += 1;
  if (result.changed) summary.changed += 1;
  for (const problem of result.problems) summary.problems[problem.kind] = (summary.problems[problem.kind] ?? 0) + 1;
  // A transform problem on a file babel cannot parse either (an early error such as a redeclaration, which the
  // TypeScript parser accepts) is the mutant's fault; any other is worth a look.
  const serious = result.problems.filter(
    (p) => p.kind === 'invalid-output' || (p.kind === 'transform' && babelParses(m.sources.find((s) => s.relPath === p.file))),
  );
  if (serious.length > 0)
    summary.rejected.push({
      id: m.id,
      server: m.server,
      file: m.file,
      operations: m.operations,
      problems: serious.map((p) => `${p.file}: ${p.kind}: ${p.message}`),
    });
  const kinds = new Set(result.failures.map((f) => f.kind));
  if (kinds.has('crash')) summary.crashes += 1;
  if (kinds.has('broken-output')) summary.brokenOutputs += 1;
  if (kinds.has('idempotence')) summary.idempotenceFailures += 1;
  if (kinds.has('leftover')) summary.leftovers += 1;
  summary.failures.push(...result.failures);
}

/** Sums shard summaries of one run (same seed). */
export function mergeSummaries(parts: FuzzSummary[]): FuzzSummary {
  const merged: FuzzSummary = {
    ...parts[0],
    problems: {},
    failures: [],
    rejected: [],
    mutants: 0,
    unparsable: 0,
    changed: 0,
    crashes: 0,
    brokenOutputs: 0,
    idempotenceFailures: 0,
    leftovers: 0,
    ms: 0,
  };
  for (const part of parts) {
    for (const key of ['mutants', 'unparsable', 'changed', 'crashes', 'brokenOutputs', 'idempotenceFailures', 'leftovers'] as const)
      merged[key] += part[key];
    merged.ms = Math.max(merged.ms, part.ms);
    for (const [kind, n] of Object.entries(part.problems)) merged.problems[kind] = (merged.problems[kind] ?? 0) + n;
    merged.failures.push(...part.failures);
    merged.rejected.push(...part.rejected);
  }
  const byIndex = (id: string) => Number(id.split(':')[1]);
  merged.failures.sort((a, b) => byIndex(a.id) - byIndex(b.id) || a.kind.localeCompare(b.kind));
  merged.rejected.sort((a, b) => byIndex(a.id) - byIndex(b.id));
  return merged;
}

export function formatSummary(summary: FuzzSummary): string {
  const problems =
    Object.entries(summary.problems)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ') || 'none';
  const out = [
    `fuzz seed ${summary.seed}: ${summary.mutants} mutants (${summary.unparsable} do not parse, ${summary.changed} migrated) in ${(summary.ms / 1000).toFixed(1)}s`,
    `  crashes: ${summary.crashes}`,
    `  broken outputs: ${summary.brokenOutputs}`,
    `  idempotence failures: ${summary.idempotenceFailures}`,
    `  leftovers: ${summary.leftovers}`,
    `  reported problems: ${problems}`,
  ];
  for (const failure of summary.failures) {
    out.push(`  ${failure.kind} ${failure.id} ${failure.server}/${failure.file}: ${failure.detail}`);
    for (const op of failure.operations) out.push(`      ${op}`);
  }
  for (const rejected of summary.rejected) {
    out.push(`  transform problem ${rejected.id} ${rejected.server}/${rejected.file}: ${rejected.problems.join('; ')}`);
    for (const op of rejected.operations) out.push(`      ${op}`);
  }
  return `${out.join('\n')}\n`;
}
