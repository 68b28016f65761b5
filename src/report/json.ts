// Machine-readable format. The field names are model.ts's, as they are: a public contract.
// Objects are rebuilt field by field so key order (and so the bytes) never depend on how the engine built them.
import type {
  AnyResult,
  ApplyResult,
  BaselineSummary,
  CheckResult,
  FileChange,
  FileProblem,
  Finding,
  ManualItem,
  RelatedLocation,
  RolledBackEndpoint,
  ServedEndpoint,
  Summary,
  Suppression,
} from '../model';
import { isApplyResult } from '../model';
import { TOOL_NAME } from './common';
import type { ReportOptions } from './options';
import { sortResult } from './sort';

export const JSON_REPORT_VERSION = 1;

/** `check --format json`, as an object: the public contract (README). */
export interface JsonCheckReport {
  version: typeof JSON_REPORT_VERSION;
  tool: { name: string; version: string };
  root: string;
  findings: Array<Omit<Finding, 'data'>>;
  suppressions: Suppression[];
  problems: FileProblem[];
  summary: Summary;
  /** Present when a baseline was applied. */
  baseline?: BaselineSummary;
}

/** `apply --format json`, as an object. */
export interface JsonApplyReport extends JsonCheckReport {
  dryRun: boolean;
  target: string;
  changes: FileChange[];
  manual: ManualItem[];
  endpoints: ServedEndpoint[];
  rolledBack: RolledBackEndpoint[];
  typeUnchecked: Array<{ file: string; reason: string }>;
  /** Present when the project was kept on 2025-11-25: why the 2026-07-28 move was not written. */
  deferred?: NonNullable<ApplyResult['deferred']>;
}

export function renderJson(input: AnyResult, options: ReportOptions): string {
  return `${JSON.stringify(toJsonReport(input, options), null, 2)}\n`;
}

/** The object `renderJson` serialises; exported for callers that embed it. */
export function toJsonReport(input: ApplyResult, options: Pick<ReportOptions, 'toolVersion'>): JsonApplyReport;
export function toJsonReport(input: CheckResult, options: Pick<ReportOptions, 'toolVersion'>): JsonCheckReport;
export function toJsonReport(input: AnyResult, options: Pick<ReportOptions, 'toolVersion'>): JsonCheckReport | JsonApplyReport;
export function toJsonReport(input: AnyResult, options: Pick<ReportOptions, 'toolVersion'>): JsonCheckReport | JsonApplyReport {
  const result = sortResult(input);
  const report: Record<string, unknown> = {
    version: JSON_REPORT_VERSION,
    tool: { name: TOOL_NAME, version: options.toolVersion },
    root: result.root,
    findings: result.findings.map(finding),
    suppressions: result.suppressions.map(suppression),
    problems: result.problems.map(problem),
    summary: summary(result.summary),
  };
  if (result.baseline) report.baseline = baseline(result.baseline);
  if (isApplyResult(result)) {
    report.dryRun = result.dryRun;
    report.target = result.target;
    report.changes = result.changes.map(change);
    report.manual = result.manual.map(manual);
    report.endpoints = result.endpoints.map(endpoint);
    report.rolledBack = (result.rolledBack ?? []).map((r) => ({ endpoint: r.endpoint, reason: r.reason }));
    report.typeUnchecked = (result.typeUnchecked ?? []).map((u) => ({ file: u.file, reason: u.reason }));
    if (result.deferred) report.deferred = deferred(result.deferred);
  }
  return report as unknown as JsonCheckReport | JsonApplyReport;
}

function deferred(d: NonNullable<ApplyResult['deferred']>): NonNullable<ApplyResult['deferred']> {
  return {
    target: d.target,
    errors: d.errors.map((e) => ({
      relPath: e.relPath,
      line: e.line,
      column: e.column,
      code: e.code,
      message: e.message,
      lineText: e.lineText,
    })),
    lockConflicts: d.lockConflicts.map((c) => ({
      manifest: c.manifest,
      locked: { name: c.locked.name, version: c.locked.version, source: c.locked.source },
      peer: c.peer,
      peerRange: c.peerRange,
      declared: c.declared,
    })),
  };
}

function baseline(b: BaselineSummary): Record<string, unknown> {
  return {
    file: b.file,
    old: b.old,
    new: b.new,
    stale: b.stale.map((e) => ({ file: e.file, ruleId: e.ruleId, fingerprint: e.fingerprint, message: e.message, count: e.count })),
  };
}

function finding(f: Finding): Record<string, unknown> {
  const out: Record<string, unknown> = {
    ruleId: f.ruleId,
    severity: f.severity,
    file: f.file,
    line: f.line,
    column: f.column,
    endLine: f.endLine,
    endColumn: f.endColumn,
    message: f.message,
    fix: f.fix,
  };
  if (f.hint !== undefined) out.hint = f.hint;
  if (f.related !== undefined) out.related = f.related.map(related);
  return out;
}

function related(r: RelatedLocation): Record<string, unknown> {
  return {
    file: r.file,
    line: r.line,
    column: r.column,
    endLine: r.endLine,
    endColumn: r.endColumn,
    message: r.message,
  };
}

function suppression(s: Suppression): Record<string, unknown> {
  const out: Record<string, unknown> = {
    kind: s.kind,
    ruleId: s.ruleId,
    file: s.file,
    line: s.line,
    column: s.column,
    endLine: s.endLine,
    endColumn: s.endColumn,
  };
  if (s.reason !== undefined) out.reason = s.reason;
  out.used = s.used;
  return out;
}

function problem(p: FileProblem): Record<string, unknown> {
  return { file: p.file, kind: p.kind, message: p.message };
}

function summary(s: Summary): Record<string, unknown> {
  return {
    filesScanned: s.filesScanned,
    filesParsed: s.filesParsed,
    filesWithFindings: s.filesWithFindings,
    filesSkipped: s.filesSkipped,
    findingsByRule: s.findingsByRule, // keys already sorted by sortResult
    durationMs: s.durationMs,
  };
}

function change(c: FileChange): Record<string, unknown> {
  return { file: c.file, ruleIds: c.ruleIds, diff: c.diff };
}

function manual(m: ManualItem): Record<string, unknown> {
  return { file: m.file, line: m.line, ruleId: m.ruleId, message: m.message };
}

function endpoint(e: ServedEndpoint): Record<string, unknown> {
  return { file: e.file, line: e.line, path: e.path };
}
