// The check pipeline: discover → read and pre-filter → analyze → collect. `apply` reuses the first stages.
import type { CheckResult, FileProblem, Finding, Suppression } from '../model';
import type { Rule } from '../rules/rule';
import { allRules } from '../rules';
import { discover } from './discover';
import { isReadProblem, readSource, DEFAULT_MAX_FILE_BYTES, type SourceText } from './read-source';
import { mayContainMcpCode } from './prefilter';
import { analyzeSources, type Analysis, type SourceInput } from './analyze';
import { UsageError } from './errors';

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
  const analysis = analyzeSources(sources, rules);
  for (const file of analysis.files) {
    if (file.parseError) problems.push({ file: file.relPath, kind: 'parse', message: `does not parse: ${file.parseError}` });
  }
  return { root: discovery.root, filesScanned: discovery.files.length, filesSkipped, sources, analysis, problems, startedAt };
}

export function collectCheckResult(scanned: Scan): CheckResult {
  const findings: Finding[] = [];
  const suppressions: Suppression[] = [];
  for (const file of scanned.analysis.files) {
    findings.push(...file.findings);
    suppressions.push(...file.suppressions);
  }
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
