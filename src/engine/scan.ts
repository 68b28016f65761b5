// The check pipeline: discover → read and pre-filter → analyze → collect. `apply` reuses the first stages.
import { ts } from 'ts-morph';
import type { CheckResult, FileProblem, Finding, Suppression } from '../model';
import type { Rule } from '../rules/rule';
import { allRules } from '../rules';
import { discover } from './discover';
import { isReadProblem, readSource, DEFAULT_MAX_FILE_BYTES, type SourceText } from './read-source';
import { mayContainMcpCode } from './prefilter';
import { analyzeSources, type Analysis, type SourceInput } from './analyze';
import { UsageError } from './errors';
import { parseErrorFindings } from './parse-errors';

export interface ScanOptions {
  paths: string[];
  cwd: string;
  gitignore?: boolean;
  include?: string[];
  exclude?: string[];
  /** Only these rule ids (default: all). */
  rules?: string[];
  skipRules?: string[];
  maxFileBytes?: number;
}

export interface LoadedSource extends SourceInput {
  source: SourceText;
}

export interface Scan {
  root: string;
  filesScanned: number;
  filesSkipped: number;
  sources: LoadedSource[];
  analysis: Analysis;
  problems: FileProblem[];
  startedAt: number;
}

export function selectRules(only: string[] = [], skip: string[] = []): Rule[] {
  const known = new Set(allRules.map((r) => r.meta.id));
  for (const id of [...only, ...skip]) {
    if (!known.has(id)) throw new UsageError(`unknown rule id: ${id} (see \`mcp-migrate rules\`)`);
  }
  return allRules.filter((r) => (only.length === 0 || only.includes(r.meta.id)) && !skip.includes(r.meta.id));
}

export function scan(options: ScanOptions): Scan {
  const startedAt = performance.now();
  const rules = selectRules(options.rules, options.skipRules);
  const discovery = discover({
    paths: options.paths.length > 0 ? options.paths : ['.'],
    cwd: options.cwd,
    gitignore: options.gitignore ?? true,
    include: options.include ?? [],
    exclude: options.exclude ?? [],
  });
  const problems: FileProblem[] = [...discovery.problems];
  const sources: LoadedSource[] = [];
  let filesSkipped = discovery.problems.length;
  for (const file of discovery.files) {
    const read = readSource(file.absPath, { maxBytes: options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES });
    if (isReadProblem(read)) {
      problems.push({ file: file.relPath, ...read.problem });
      filesSkipped += 1;
      continue;
    }
    // The cheap text pre-filter: files without any MCP marker are never parsed.
    if (!mayContainMcpCode(read.text)) continue;
    sources.push({ absPath: file.absPath, relPath: file.relPath, text: read.text, source: read });
  }
  const guarded = analyzeWithinLimits(sources, rules);
  problems.push(...guarded.dropped);
  filesSkipped += guarded.dropped.length;
  const analysis = guarded.analysis;
  for (const file of analysis.files) {
    if (file.parseError) problems.push({ file: file.relPath, kind: 'parse', message: `does not parse: ${file.parseError}` });
  }
  return {
    root: discovery.root,
    filesScanned: discovery.files.length,
    filesSkipped,
    sources: guarded.sources,
    analysis,
    problems,
    startedAt,
  };
}

/**
 * Documented limit: a file whose syntax tree is deeper than this many levels is skipped with a `parse` problem
 * ("too deeply nested"). The parser, the rules and the transforms (recast) all recurse over the tree; on Node's default
 * stack recast overflows from about 330 levels of nested arrays or calls, TypeScript's parser from about 900, and where
 * it happens depends on how warm the JIT is. The limit makes the outcome the same on every run. Real code stays far
 * below it (the deepest file among this repository's ~4,300 dependency sources is a bundle at 219; 99.9% are under 75).
 */
export const MAX_SYNTAX_DEPTH = 256;

const STACK_MESSAGE = 'too deeply nested: the parser or a rule ran out of stack; skipped';

function isStackOverflow(error: unknown): boolean {
  return error instanceof RangeError && /call stack/i.test(error.message);
}

/** Depth of the deepest node (the source file is level 0), walked with an explicit stack: no recursion here. */
export function syntaxDepth(root: ts.Node): number {
  let max = 0;
  const nodes: ts.Node[] = [root];
  const depths: number[] = [0];
  while (nodes.length > 0) {
    const node = nodes.pop()!;
    const depth = depths.pop()!;
    if (depth > max) max = depth;
    ts.forEachChild(node, (child) => {
      nodes.push(child);
      depths.push(depth + 1);
    });
  }
  return max;
}

interface Guarded {
  sources: LoadedSource[];
  analysis: Analysis;
  dropped: FileProblem[];
}

function tooDeepProblem(file: string, depth: number): FileProblem {
  return { file, kind: 'parse', message: `too deeply nested: ${depth} levels, over the limit of ${MAX_SYNTAX_DEPTH}; skipped` };
}

/**
 * `analyzeSources` for the files within {@link MAX_SYNTAX_DEPTH}; a file over the limit, or one that breaks the
 * analysis, costs only that file: it is reported as a `parse` problem, left out of `check` and `apply`, and the others
 * are analysed without it. Depths are measured on the trees the analysis parsed (no second parse in the normal case).
 * When the analysis throws (a deep file overflowed the stack of the parser, the binder or a rule), each file is parsed
 * on its own to find the deep ones; if none is, each file is analysed on its own to find the one a rule fails on.
 */
function analyzeWithinLimits(sources: LoadedSource[], rules: readonly Rule[]): Guarded {
  const dropped: FileProblem[] = [];
  let kept = sources;
  for (;;) {
    let analysis: Analysis | undefined;
    let failure: unknown;
    try {
      analysis = analyzeSources(kept, rules);
    } catch (error) {
      failure = error;
    }
    let culprits = analysis ? deepFilesIn(analysis) : deepFilesByParsing(kept);
    if (culprits.length === 0) {
      if (analysis) return { sources: kept, analysis, dropped };
      culprits = filesFailingAnalysis(kept, rules);
      // No single file is to blame (the failure needs several files together): that is an internal error.
      if (culprits.length === 0) throw failure;
    }
    dropped.push(...culprits);
    const out = new Set(culprits.map((c) => c.file));
    kept = kept.filter((source) => !out.has(source.relPath));
  }
}

function deepFilesIn(analysis: Analysis): FileProblem[] {
  const problems: FileProblem[] = [];
  for (const file of analysis.files) {
    const sourceFile = analysis.sourceFile(file.relPath);
    if (!sourceFile || file.parseError) continue;
    const depth = syntaxDepth(sourceFile.compilerNode);
    if (depth > MAX_SYNTAX_DEPTH) problems.push(tooDeepProblem(file.relPath, depth));
  }
  return problems;
}

function deepFilesByParsing(sources: LoadedSource[]): FileProblem[] {
  const problems: FileProblem[] = [];
  for (const source of sources) {
    try {
      const depth = syntaxDepth(ts.createSourceFile(source.absPath, source.text, ts.ScriptTarget.ES2022, false));
      if (depth > MAX_SYNTAX_DEPTH) problems.push(tooDeepProblem(source.relPath, depth));
    } catch (error) {
      if (!isStackOverflow(error)) throw error;
      problems.push({ file: source.relPath, kind: 'parse', message: STACK_MESSAGE });
    }
  }
  return problems;
}

function filesFailingAnalysis(sources: LoadedSource[], rules: readonly Rule[]): FileProblem[] {
  const problems: FileProblem[] = [];
  for (const source of sources) {
    try {
      analyzeSources([source], rules);
    } catch (error) {
      const message = isStackOverflow(error)
        ? STACK_MESSAGE
        : `could not be analysed (${(error as Error)?.name ?? 'Error'}: ${(error as Error)?.message ?? String(error)}); skipped — please report this`;
      problems.push({ file: source.relPath, kind: 'parse', message });
    }
  }
  return problems;
}

export function collectCheckResult(scanned: Scan): CheckResult {
  const findings: Finding[] = [];
  const suppressions: Suppression[] = [];
  for (const file of scanned.analysis.files) {
    findings.push(...file.findings);
    suppressions.push(...file.suppressions);
  }
  findings.push(...parseErrorFindings(scanned.problems));
  const findingsByRule: Record<string, number> = {};
  for (const finding of findings) findingsByRule[finding.ruleId] = (findingsByRule[finding.ruleId] ?? 0) + 1;
  return {
    root: scanned.root,
    findings,
    suppressions,
    problems: scanned.problems,
    summary: {
      filesScanned: scanned.filesScanned,
      filesParsed: scanned.analysis.files.filter((f) => !f.parseError).length,
      filesWithFindings: new Set(findings.map((f) => f.file)).size,
      findingsByRule,
      durationMs: Math.round(performance.now() - scanned.startedAt),
      filesSkipped: scanned.filesSkipped,
    },
  };
}

export function check(options: ScanOptions): CheckResult {
  return collectCheckResult(scan(options));
}
