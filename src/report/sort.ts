// One ordering for every reporter (ast-grep's single printer idea): by file, line, column, then rule id.
// Comparisons are by UTF-16 code unit, never locale-aware, so output is byte-identical on every machine.
import type {
  AnyResult,
  ApplyResult,
  FileChange,
  FileProblem,
  Finding,
  ManualItem,
  RelatedLocation,
  ServedEndpoint,
  Suppression,
} from '../model';
import { isApplyResult } from '../model';

export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function compareNumbers(a: number, b: number): number {
  return a - b;
}

interface Positioned {
  file: string;
  line: number;
  column?: number;
}

/** file, line, column: the part of the ordering every located item shares. */
export function compareLocations(a: Positioned, b: Positioned): number {
  return compareStrings(a.file, b.file) || compareNumbers(a.line, b.line) || compareNumbers(a.column ?? 0, b.column ?? 0);
}

/** file, line, column, ruleId — then end position and message so the order is total. */
export function compareFindings(a: Finding, b: Finding): number {
  return (
    compareLocations(a, b) ||
    compareStrings(a.ruleId, b.ruleId) ||
    compareNumbers(a.endLine, b.endLine) ||
    compareNumbers(a.endColumn, b.endColumn) ||
    compareStrings(a.message, b.message)
  );
}

export function compareRelated(a: RelatedLocation, b: RelatedLocation): number {
  return (
    compareLocations(a, b) ||
    compareNumbers(a.endLine, b.endLine) ||
    compareNumbers(a.endColumn, b.endColumn) ||
    compareStrings(a.message, b.message)
  );
}

export function compareSuppressions(a: Suppression, b: Suppression): number {
  return compareLocations(a, b) || compareStrings(a.ruleId, b.ruleId) || compareStrings(a.kind, b.kind);
}

export function compareProblems(a: FileProblem, b: FileProblem): number {
  return compareStrings(a.file, b.file) || compareStrings(a.kind, b.kind) || compareStrings(a.message, b.message);
}

export function compareManual(a: ManualItem, b: ManualItem): number {
  return compareLocations(a, b) || compareStrings(a.ruleId, b.ruleId) || compareStrings(a.message, b.message);
}

export function compareEndpoints(a: ServedEndpoint, b: ServedEndpoint): number {
  return compareLocations(a, b) || compareStrings(a.path, b.path);
}

export function compareChanges(a: FileChange, b: FileChange): number {
  return compareStrings(a.file, b.file);
}

/** A sorted copy; the input is never mutated. */
export function sortFindings(findings: readonly Finding[]): Finding[] {
  return findings
    .map((f) => (f.related && f.related.length > 1 ? { ...f, related: [...f.related].sort(compareRelated) } : f))
    .sort(compareFindings);
}

export function sortSuppressions(suppressions: readonly Suppression[]): Suppression[] {
  return [...suppressions].sort(compareSuppressions);
}

export function sortProblems(problems: readonly FileProblem[]): FileProblem[] {
  return [...problems].sort(compareProblems);
}

export function sortManual(items: readonly ManualItem[]): ManualItem[] {
  return [...items].sort(compareManual);
}

export function sortEndpoints(endpoints: readonly ServedEndpoint[]): ServedEndpoint[] {
  return [...endpoints].sort(compareEndpoints);
}

export function sortChanges(changes: readonly FileChange[]): FileChange[] {
  return changes.map((c) => ({ ...c, ruleIds: [...new Set(c.ruleIds)].sort(compareStrings) })).sort(compareChanges);
}

/** Record with its keys in code-unit order (JSON key order is insertion order). */
export function sortRecord<V>(record: Record<string, V>): Record<string, V> {
  const out: Record<string, V> = {};
  for (const key of Object.keys(record).sort(compareStrings)) out[key] = record[key];
  return out;
}

/** A copy of the result with every list in the one deterministic order. Every reporter starts here. */
export function sortResult<T extends AnyResult>(result: T): T {
  const sorted: AnyResult = {
    ...result,
    findings: sortFindings(result.findings),
    suppressions: sortSuppressions(result.suppressions),
    problems: sortProblems(result.problems),
    summary: { ...result.summary, findingsByRule: sortRecord(result.summary.findingsByRule) },
  };
  if (isApplyResult(result)) {
    const apply = sorted as ApplyResult;
    apply.changes = sortChanges(result.changes);
    apply.manual = sortManual(result.manual);
    apply.endpoints = sortEndpoints(result.endpoints);
  }
  return sorted as T;
}
