// The parsing side of a scan (loaded only when there are candidates, on the main thread or in a pool worker): settle
// each group's plan (probe the Origin checks left out), then analyse the chosen files (each import group in a project
// of its own), leaving out the files that are too deep or break the analysis.
import { ts } from 'ts-morph';
import type { FileProblem } from '../model';
import type { Rule } from '../rules/rule';
import { fileValidatesOrigin } from '../analysis/origin';
import { analyzeSources, createProject, createSourceFile, syntaxDepth, syntaxError, type Analysis, type SourceInput } from './analyze';
import { isReadProblem, readSource, type SourceText } from './read-source';

/**
 * An {@link AnalysisPlan} with the files' texts: what a worker receives. The files of `rest` are needed only when an
 * Origin probe of the group validates Origin (rarely), so they travel as paths and are read then.
 */
export interface PlannedSources {
  files: SourceInput[];
  originProbes: SourceInput[];
  rest: Array<Omit<SourceInput, 'text'>>;
}

export interface Guarded {
  /** What was analysed (without the files left out for depth or failure). */
  sources: SourceInput[];
  /** The files of `rest` that were read (their groups' probes validate Origin), with their encoding details. */
  restRead: Array<SourceInput & { source: SourceText }>;
  analysis: Analysis;
  dropped: FileProblem[];
}

/**
 * The planned files of every group, or the whole group where a file left out validates Origin. A file of `rest` that
 * can no longer be read (it changed since) is left out with its problem.
 */
function sourcesToAnalyze(plans: readonly PlannedSources[], maxFileBytes: number): Pick<Guarded, 'sources' | 'restRead' | 'dropped'> {
  const probes = plans.flatMap((plan) => plan.originProbes);
  const validating = new Set(probes.length > 0 ? originValidatorsAlone(probes) : []);
  const restRead: Guarded['restRead'] = [];
  const dropped: FileProblem[] = [];
  const sources = plans.flatMap((plan) => {
    if (!plan.originProbes.some((probe) => validating.has(probe))) return plan.files;
    const rest = plan.rest.flatMap(({ absPath, relPath }) => {
      const source = readSource(absPath, { maxBytes: maxFileBytes });
      if (isReadProblem(source)) {
        dropped.push({ file: relPath, ...source.problem });
        return [];
      }
      restRead.push({ absPath, relPath, text: source.text, source });
      return [{ absPath, relPath, text: source.text }];
    });
    return [...plan.files, ...plan.originProbes, ...rest];
  });
  return { sources, restRead, dropped };
}

/**
 * The probes that validate Origin, each judged on its own as the analysis would judge it (a file that does not parse
 * or is too deep never counts). One that cannot be judged counts, so that its group meets the failure in the analysis.
 */
function originValidatorsAlone(probes: SourceInput[]): SourceInput[] {
  const project = createProject(probes);
  return probes.filter((probe) => {
    try {
      const sourceFile = createSourceFile(project, probe.absPath, probe.text);
      if (syntaxError(sourceFile) || syntaxDepth(sourceFile.compilerNode) > MAX_SYNTAX_DEPTH) return false;
      return fileValidatesOrigin(sourceFile);
    } catch {
      return true;
    }
  });
}

export function analyzePlans(plans: readonly PlannedSources[], rules: readonly Rule[], maxFileBytes: number): Guarded {
  const { sources, restRead, dropped } = sourcesToAnalyze(plans, maxFileBytes);
  const guarded = analyzeWithinLimits(sources, rules);
  return { ...guarded, restRead, dropped: [...dropped, ...guarded.dropped] };
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
export function analyzeWithinLimits(sources: SourceInput[], rules: readonly Rule[]): Omit<Guarded, 'restRead'> {
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
    const depth = analysis.shape(file.relPath)?.depth;
    if (depth === undefined || file.parseError) continue;
    if (depth > MAX_SYNTAX_DEPTH) problems.push(tooDeepProblem(file.relPath, depth));
  }
  return problems;
}

function deepFilesByParsing(sources: SourceInput[]): FileProblem[] {
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

function filesFailingAnalysis(sources: SourceInput[], rules: readonly Rule[]): FileProblem[] {
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
