// The stages of a scan that need no parser — discover → read, pre-filter and scan imports → select (two-stage, see
// select.ts) — and the check result made from analysed files. `scan` (one project on this thread, for `apply`) and
// `check` (possibly a worker pool) share them. Nothing here loads ts-morph.
//
// Only the candidates' texts are kept while the tree is read; the other files a plan analyses or probes are read
// again once the plans are known (on the bench tree: 159 texts kept and 94 read again, instead of 5,031 kept).
import * as path from 'node:path';
import type { CheckResult, FileProblem, Finding, Suppression } from '../model';
import { discover, type Discovery } from './discover';
import { isReadProblem, readSource, DEFAULT_MAX_FILE_BYTES, type SourceText } from './read-source';
import { isCandidate, mayContainMcpCode } from './prefilter';
import { localSpecifiers } from './import-graph';
import { MENTIONS_ORIGIN, planAnalysis, type SelectableFile } from './select';
import type { FileAnalysis, SourceInput } from './analyze';
import type { PlannedSources } from './analyze-plans';
import { parseErrorFindings } from './parse-errors';
import { manifestFindings } from './manifests';

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
  /** `check` only: worker threads to analyse with (default: one per core but one; 1 analyses on the calling thread). */
  jobs?: number;
}

export interface LoadedSource extends SourceInput {
  source: SourceText;
}

/** A file that passed the pre-filter: what selection needs, and its text when it is a candidate. */
export interface ScannedFile extends SelectableFile {
  absPath: string;
  relPath: string;
  /** The candidates' only. */
  source?: SourceText;
}

export interface ReadTree {
  root: string;
  filesScanned: number;
  /** Discovery and read problems. */
  problems: FileProblem[];
  /** The files that passed the pre-filter, in discovery order. */
  prefiltered: ScannedFile[];
  maxFileBytes: number;
  startedAt: number;
}

/** The files a scan with these options covers (the given paths, or the working directory). */
export function discoverScanned(options: ScanOptions): Discovery {
  return discover({
    paths: options.paths.length > 0 ? options.paths : ['.'],
    cwd: options.cwd,
    gitignore: options.gitignore ?? true,
    include: options.include ?? [],
    exclude: options.exclude ?? [],
  });
}

/** `onCandidate` is told the running count of candidates as they are read (a pool may start warming up). */
export function readTree(options: ScanOptions, onCandidate?: (count: number) => void): ReadTree {
  const startedAt = performance.now();
  const discovery = discoverScanned(options);
  const problems: FileProblem[] = [...discovery.problems];
  const prefiltered: ScannedFile[] = [];
  const maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  let candidates = 0;
  for (const file of discovery.files) {
    const read = readSource(file.absPath, { maxBytes: maxFileBytes });
    if (isReadProblem(read)) {
      problems.push({ file: file.relPath, ...read.problem });
      continue;
    }
    // The cheap text pre-filter: files without any MCP marker are never looked at again.
    if (!mayContainMcpCode(read.text)) continue;
    const candidate = isCandidate(read.text);
    prefiltered.push({
      absPath: file.absPath,
      relPath: file.relPath,
      candidate,
      mentionsOrigin: MENTIONS_ORIGIN.test(read.text),
      specifiers: localSpecifiers(read.text),
      ...(candidate ? { source: read } : {}),
    });
    if (candidate) onCandidate?.((candidates += 1));
  }
  return { root: discovery.root, filesScanned: discovery.files.length, problems, prefiltered, maxFileBytes, startedAt };
}

export interface Planned {
  plans: PlannedSources[];
  /** The files the plans analyse or probe, with their encoding details, in discovery order. */
  loaded: LoadedSource[];
}

/**
 * {@link planAnalysis} with the texts of the files to analyse and probe (a group's other files, `rest`, go by path:
 * see PlannedSources). A file that can no longer be read (it changed since) is left out, with its problem added to
 * `read.problems`.
 */
export function plannedSources(read: ReadTree): Planned {
  const loaded = new Map<number, LoadedSource>();
  const load = (index: number): SourceInput[] => {
    const { absPath, relPath, source: kept } = read.prefiltered[index];
    const source = kept ?? readSource(absPath, { maxBytes: read.maxFileBytes });
    if (isReadProblem(source)) {
      read.problems.push({ file: relPath, ...source.problem });
      return [];
    }
    loaded.set(index, { absPath, relPath, text: source.text, source });
    return [{ absPath, relPath, text: source.text }];
  };
  const plans = planAnalysis(read.prefiltered).map((plan) => ({
    files: plan.files.flatMap(load),
    originProbes: plan.originProbes.flatMap(load),
    rest: plan.rest.map((index) => ({ absPath: read.prefiltered[index].absPath, relPath: read.prefiltered[index].relPath })),
  }));
  return { plans, loaded: [...loaded].sort(([a], [b]) => a - b).map(([, file]) => file) };
}

/** The problems of a scan: discovery and reading, then the files left out of the analysis, then those that do not parse. */
export function scanProblems(read: ReadTree, dropped: readonly FileProblem[], files: readonly FileAnalysis[]): FileProblem[] {
  return [
    ...read.problems,
    ...[...dropped].sort((a, b) => a.file.localeCompare(b.file)),
    ...files.flatMap((file) =>
      file.parseError ? [{ file: file.relPath, kind: 'parse' as const, message: `does not parse: ${file.parseError}` }] : [],
    ),
  ];
}

export interface CollectableScan {
  root: string;
  filesScanned: number;
  filesSkipped: number;
  /** The analysed files, in report order (by relPath). */
  analysis: { files: readonly FileAnalysis[] };
  problems: FileProblem[];
  startedAt: number;
  /** Manifest texts that stand in for the files on disk (apply's migrated manifests), by path relative to the root. */
  manifests?: ReadonlyMap<string, string>;
}

export function collectCheckResult(scanned: CollectableScan): CheckResult {
  const findings: Finding[] = [];
  const suppressions: Suppression[] = [];
  for (const file of scanned.analysis.files) {
    findings.push(...file.findings);
    suppressions.push(...file.suppressions);
  }
  findings.push(...parseErrorFindings(scanned.problems));
  const analysed = scanned.analysis.files.map((file) => path.join(scanned.root, file.relPath));
  const packages = new Map(scanned.analysis.files.map((file) => [path.join(scanned.root, file.relPath), file.packages ?? []]));
  findings.push(...manifestFindings(scanned.root, analysed, scanned.manifests, (absPath) => packages.get(absPath) ?? []));
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
