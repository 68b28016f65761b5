// The apply pipeline: scan → run each transform on the files that have its findings (re-analysing between
// transforms so positions are current) → verify that every output parses → report what changed, what is left
// for a human, and which endpoint now serves MCP → write atomically (unless --dry-run).
import * as path from 'node:path';
import jscodeshift from 'jscodeshift';
import { createTwoFilesPatch } from 'diff';
import { SyntaxKind, Node } from 'ts-morph';
import type { ApplyResult, FileChange, FileProblem, Finding, ManualItem, ServedEndpoint } from '../model';
import { transforms as allTransforms, type TransformModule } from '../../transforms';
import { parserFor } from '../../transforms/lib/context';
import { scan, collectCheckResult, type ScanOptions, type LoadedSource } from './scan';
import { analyzeSources, createProject, syntaxError, type Analysis } from './analyze';
import { allRules } from '../rules';
import { writeSourceText } from './read-source';
import { dirtyFiles, writeFileAtomic } from './write';
import { UsageError } from './errors';
import { routeContextsOf } from '../analysis/routes';
import { FileFacts } from '../analysis/file-facts';

export const TARGETS = ['2025-11-25', '2026-07-28'] as const;
export type Target = (typeof TARGETS)[number];

export interface ApplyOptions extends ScanOptions {
  dryRun?: boolean;
  unsafe?: boolean;
  allowDirty?: boolean;
  target?: Target;
  /** Endpoint path for servers that had only the legacy HTTP+SSE transport. */
  endpoint?: string;
}

interface WorkingFile {
  loaded: LoadedSource;
  /** Rule ids found in the file before any transform ran. */
  foundRules: Set<string>;
  original: string;
  text: string;
  transformIds: Set<string>;
  failed?: FileProblem;
}

export function apply(options: ApplyOptions): ApplyResult {
  const target = options.target ?? '2025-11-25';
  if (target !== '2025-11-25') throw new UsageError(`--target ${target} is not supported yet; use --target 2025-11-25`);
  const scanned = scan(options);
  const files = new Map<string, WorkingFile>();
  for (const loaded of scanned.sources) {
    // Transforms work on LF text; the writer restores CRLF (files with mixed endings are left as they are).
    const text = loaded.source.eol === '\r\n' && !loaded.source.mixedEol ? loaded.text.replace(/\r\n/g, '\n') : loaded.text;
    const found = scanned.analysis.files.find((f) => f.relPath === loaded.relPath)?.findings ?? [];
    files.set(loaded.relPath, { loaded, foundRules: new Set(found.map((f) => f.ruleId)), original: text, text, transformIds: new Set() });
  }
  const enabled = allTransforms.filter((t) => t.level === 'auto' || options.unsafe);
  const problems: FileProblem[] = [...scanned.problems];
  let analysis: Analysis;
  for (const transform of enabled) {
    analysis = reanalyze(files);
    for (const fileAnalysis of analysis.files) {
      const working = files.get(fileAnalysis.relPath)!;
      if (working.failed || fileAnalysis.parseError) continue;
      const findings = fileAnalysis.findings.filter((f) => transform.rules.includes(f.ruleId));
      if (findings.length === 0) continue;
      runTransform(transform, working, findings, options, problems);
    }
  }
  analysis = reanalyze(files);
  const after = collectCheckResult({ ...scanned, analysis, problems });
  const changes: FileChange[] = [];
  for (const working of files.values()) {
    if (working.failed || working.text === working.original) continue;
    const relPath = working.loaded.relPath;
    changes.push({ file: relPath, ruleIds: rulesOf(working.transformIds).filter((id) => working.foundRules.has(id)), diff: createTwoFilesPatch(`a/${relPath}`, `b/${relPath}`, working.original, working.text, '', '', { context: 3 }) });
  }
  changes.sort((a, b) => a.file.localeCompare(b.file));
  if (!options.dryRun) writeChanges(files, changes, options, problems);
  const written = new Set(changes.map((c) => c.file));
  return {
    ...after,
    problems,
    dryRun: options.dryRun ?? false,
    target,
    changes: changes.filter((c) => written.has(c.file)),
    manual: manualItems(after.findings),
    endpoints: servedEndpoints(analysis, new Set(changes.map((c) => c.file))),
  };
}

function reanalyze(files: Map<string, WorkingFile>): Analysis {
  const sources = [...files.values()].map((w) => ({ absPath: w.loaded.absPath, relPath: w.loaded.relPath, text: w.text }));
  return analyzeSources(sources, allRules);
}

function runTransform(transform: TransformModule, working: WorkingFile, findings: Finding[], options: ApplyOptions, problems: FileProblem[]): void {
  const filePath = working.loaded.absPath;
  const j = jscodeshift.withParser(parserFor(filePath));
  const api = { j, jscodeshift: j, stats: () => undefined, report: () => undefined };
  let output: string | undefined | null;
  try {
    output = transform.run({ path: filePath, source: working.text }, api, { findings, endpoint: options.endpoint });
  } catch (error) {
    working.failed = { file: working.loaded.relPath, kind: 'transform', message: `${transform.id} failed: ${(error as Error).message}; file left unchanged` };
    problems.push(working.failed);
    return;
  }
  if (output == null || output === working.text) return;
  const check = createProject().createSourceFile(filePath, output, { overwrite: true });
  const broken = syntaxError(check);
  if (broken) {
    working.failed = { file: working.loaded.relPath, kind: 'invalid-output', message: `${transform.id} produced code that does not parse (${broken}); file left unchanged` };
    problems.push(working.failed);
    return;
  }
  working.text = output;
  working.transformIds.add(transform.id);
}

function rulesOf(transformIds: Set<string>): string[] {
  return allTransforms.filter((t) => transformIds.has(t.id)).flatMap((t) => t.rules);
}

function writeChanges(files: Map<string, WorkingFile>, changes: FileChange[], options: ApplyOptions, problems: FileProblem[]): void {
  const targets = changes.map((c) => files.get(c.file)!);
  if (!options.allowDirty) {
    const dirty = new Set(dirtyFiles(path.dirname(targets[0]?.loaded.absPath ?? '.'), targets.map((t) => t.loaded.absPath)));
    if (dirty.size > 0) {
      for (const working of targets) {
        if (!dirty.has(working.loaded.absPath)) continue;
        problems.push({ file: working.loaded.relPath, kind: 'dirty', message: 'has uncommitted changes; commit or stash them, or pass --allow-dirty (nothing was written)' });
      }
      changes.length = 0;
      return;
    }
  }
  for (let i = changes.length - 1; i >= 0; i--) {
    const working = files.get(changes[i].file)!;
    try {
      writeFileAtomic(working.loaded.absPath, writeSourceText(working.text, working.loaded.source));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      problems.push({ file: working.loaded.relPath, kind: 'write', message: `could not be written (${code ?? (error as Error).message}); left unchanged` });
      changes.splice(i, 1);
    }
  }
}

function manualItems(findings: Finding[]): ManualItem[] {
  return findings
    .filter((f) => f.severity !== 'info')
    .map((f) => ({ file: f.file, line: f.line, ruleId: f.ruleId, message: f.hint ? `${f.message} ${f.hint}` : f.message }));
}

/** The POST routes that now reach a Streamable HTTP transport, in the changed files. */
function servedEndpoints(analysis: Analysis, changed: Set<string>): ServedEndpoint[] {
  const endpoints: ServedEndpoint[] = [];
  for (const relPath of changed) {
    const sourceFile = analysis.sourceFile(relPath);
    if (!sourceFile) continue;
    const facts = new FileFacts(sourceFile, { validatesOrigin: true });
    for (const call of facts.methodCalls('handleRequest', ['StreamableHTTPServerTransport'])) {
      for (const context of routeContextsOf(call)) {
        const pathNode = context.paths.at(-1);
        if (!pathNode) continue;
        if (context.methods !== 'any' && context.methods !== 'unknown' && !context.methods.has('POST')) continue;
        const line = (context.routes[0]?.call ?? pathNode).getStartLineNumber();
        if (!endpoints.some((e) => e.file === relPath && e.line === line)) endpoints.push({ file: relPath, line, path: pathNode.getText() });
      }
    }
  }
  void SyntaxKind;
  void Node;
  return endpoints;
}
