// The apply pipeline: scan → run each transform on the files that have its findings (re-analysing between
// transforms so positions are current) → verify that every output parses → report what changed, what is left
// for a human, and which endpoint now serves MCP → write atomically (unless --dry-run).
import * as path from 'node:path';
import jscodeshift from 'jscodeshift';
import { createTwoFilesPatch } from 'diff';
import type { ApplyResult, FileChange, FileProblem, Finding, ManualItem, ServedEndpoint } from '../model';
import { transforms as allTransforms, type TransformModule } from '../../transforms';
import { parserFor } from '../../transforms/lib/context';
import { scan, collectCheckResult, selectRules, type ScanOptions, type LoadedSource } from './scan';
import type { Rule } from '../rules/rule';
import { analyzeSources, createProject, syntaxError, type Analysis, type SourceInput } from './analyze';
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
  source: SourceInput;
  /** Rule ids found in the file before any transform ran. */
  foundRules: Set<string>;
  original: string;
  text: string;
  transformIds: Set<string>;
  failed?: FileProblem;
}

export interface MigrateOptions {
  /** Rules to detect with (default: all); only transforms for these rules run. */
  rules?: readonly Rule[];
  unsafe?: boolean;
  endpoint?: string;
  /** Analysis of exactly these sources, when the caller already has it. */
  initialAnalysis?: Analysis;
}

export interface Migration {
  /** Final text per relPath (unchanged files included). */
  outputs: Map<string, string>;
  /** Transform ids that changed each file. */
  transformIds: Map<string, Set<string>>;
  /** Rule ids each file had before. */
  foundRules: Map<string, Set<string>>;
  problems: FileProblem[];
  /** Analysis of the final texts. */
  analysis: Analysis;
}

/**
 * The in-memory migration: run each enabled transform, in order, on the files that have findings of its rules,
 * re-analysing the project between transforms (cross-file facts and positions stay current). A transform that
 * throws, or whose output does not parse, leaves that file as it was and is reported.
 */
export function migrateSources(sources: SourceInput[], options: MigrateOptions = {}): Migration {
  const files = new Map<string, WorkingFile>();
  const rules = options.rules ?? allRules;
  const ruleIds = new Set(rules.map((r) => r.meta.id));
  let analysis = options.initialAnalysis ?? analyzeSources(sources, rules);
  for (const source of sources) {
    const found = analysis.files.find((f) => f.relPath === source.relPath)?.findings ?? [];
    files.set(source.relPath, { source, foundRules: new Set(found.map((f) => f.ruleId)), original: source.text, text: source.text, transformIds: new Set() });
  }
  const problems: FileProblem[] = [];
  const enabled = allTransforms.filter((t) => (t.level === 'auto' || options.unsafe) && t.rules.some((id) => ruleIds.has(id)));
  let stale = false;
  for (const transform of enabled) {
    if (stale) analysis = reanalyze(files, rules);
    stale = false;
    for (const fileAnalysis of analysis.files) {
      const working = files.get(fileAnalysis.relPath)!;
      if (working.failed || fileAnalysis.parseError) continue;
      const findings = fileAnalysis.findings.filter((f) => transform.rules.includes(f.ruleId));
      if (findings.length === 0) continue;
      stale = runTransform(transform, working, findings, options, problems) || stale;
    }
  }
  if (stale) analysis = reanalyze(files, rules);
  return {
    outputs: new Map([...files].map(([rel, w]) => [rel, w.text])),
    transformIds: new Map([...files].map(([rel, w]) => [rel, w.transformIds])),
    foundRules: new Map([...files].map(([rel, w]) => [rel, w.foundRules])),
    problems,
    analysis,
  };
}

export function apply(options: ApplyOptions): ApplyResult {
  const target = options.target ?? '2025-11-25';
  if (target !== '2025-11-25') throw new UsageError(`--target ${target} is not supported yet; use --target 2025-11-25`);
  const scanned = scan(options);
  // Transforms work on LF text; the writer restores CRLF (files with mixed endings are left as they are).
  let normalized = false;
  const sources = scanned.sources.map((loaded) => {
    const crlf = loaded.source.eol === '\r\n' && !loaded.source.mixedEol;
    normalized ||= crlf;
    return { absPath: loaded.absPath, relPath: loaded.relPath, text: crlf ? loaded.text.replace(/\r\n/g, '\n') : loaded.text };
  });
  const rules = selectRules(options.rules, options.skipRules);
  const migration = migrateSources(sources, { rules, unsafe: options.unsafe, endpoint: options.endpoint, initialAnalysis: normalized ? undefined : scanned.analysis });
  const problems: FileProblem[] = [...scanned.problems, ...migration.problems];
  const after = collectCheckResult({ ...scanned, analysis: migration.analysis, problems });
  const changes: FileChange[] = [];
  for (const source of sources) {
    const relPath = source.relPath;
    const output = migration.outputs.get(relPath)!;
    if (output === source.text) continue;
    const found = migration.foundRules.get(relPath)!;
    changes.push({
      file: relPath,
      ruleIds: rulesOf(migration.transformIds.get(relPath)!).filter((id) => found.has(id)),
      diff: createTwoFilesPatch(`a/${relPath}`, `b/${relPath}`, source.text, output, '', '', { context: 3 }),
    });
  }
  changes.sort((a, b) => a.file.localeCompare(b.file));
  const loadedByRel = new Map(scanned.sources.map((l) => [l.relPath, l]));
  if (!options.dryRun) writeChanges(loadedByRel, migration.outputs, changes, options, problems);
  return {
    ...after,
    problems,
    dryRun: options.dryRun ?? false,
    target,
    changes,
    manual: manualItems(after.findings),
    endpoints: servedEndpoints(migration.analysis, new Set(changes.map((c) => c.file))),
  };
}

function reanalyze(files: Map<string, WorkingFile>, rules: readonly Rule[]): Analysis {
  return analyzeSources([...files.values()].map((w) => ({ ...w.source, text: w.text })), rules);
}

/** Returns whether the file changed. */
function runTransform(transform: TransformModule, working: WorkingFile, findings: Finding[], options: MigrateOptions, problems: FileProblem[]): boolean {
  const filePath = working.source.absPath;
  const j = jscodeshift.withParser(parserFor(filePath));
  const api = { j, jscodeshift: j, stats: () => undefined, report: () => undefined };
  let output: string | undefined | null;
  try {
    // Test-only fault injection seam (never set in real use): MCP_MIGRATE_FAULT_TRANSFORM=<relPath> makes every transform throw on that file.
    if (process.env.MCP_MIGRATE_FAULT_TRANSFORM === working.source.relPath) throw new Error('injected transform fault (MCP_MIGRATE_FAULT_TRANSFORM)');
    output = transform.run({ path: filePath, source: working.text }, api, { findings, endpoint: options.endpoint });
  } catch (error) {
    working.failed = { file: working.source.relPath, kind: 'transform', message: `${transform.id} failed: ${(error as Error).message}; file left unchanged` };
    working.text = working.original;
    problems.push(working.failed);
    return true;
  }
  if (output == null || output === working.text) return false;
  const broken = syntaxError(createProject().createSourceFile(filePath, output, { overwrite: true }));
  if (broken) {
    working.failed = { file: working.source.relPath, kind: 'invalid-output', message: `${transform.id} produced code that does not parse (${broken}); file left unchanged` };
    working.text = working.original;
    problems.push(working.failed);
    return true;
  }
  working.text = output;
  working.transformIds.add(transform.id);
  return true;
}

function rulesOf(transformIds: Set<string>): string[] {
  return allTransforms.filter((t) => transformIds.has(t.id)).flatMap((t) => t.rules);
}

function writeChanges(loaded: Map<string, LoadedSource>, outputs: Map<string, string>, changes: FileChange[], options: ApplyOptions, problems: FileProblem[]): void {
  const targets = changes.map((c) => loaded.get(c.file)!);
  if (!options.allowDirty) {
    const dirty = new Set(dirtyFiles(path.dirname(targets[0]?.absPath ?? '.'), targets.map((t) => t.absPath)));
    if (dirty.size > 0) {
      for (const target of targets) {
        if (dirty.has(target.absPath)) problems.push({ file: target.relPath, kind: 'dirty', message: 'has uncommitted changes; commit or stash them, or pass --allow-dirty (nothing was written)' });
      }
      changes.length = 0;
      return;
    }
  }
  for (let i = changes.length - 1; i >= 0; i--) {
    const target = loaded.get(changes[i].file)!;
    try {
      writeFileAtomic(target.absPath, writeSourceText(outputs.get(target.relPath)!, target.source));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      problems.push({ file: target.relPath, kind: 'write', message: `could not be written (${code ?? (error as Error).message}); left unchanged` });
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
  return endpoints;
}
