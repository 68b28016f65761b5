// Small helpers shared by the reporters.
import type { AnyResult, Finding, Severity } from '../model';
import { isApplyResult } from '../model';
import type { RuleMeta } from '../rules/rule';
import { compareStrings } from './sort';

export const TOOL_NAME = 'mcp-migrate';
export const TOOL_INFORMATION_URI = 'https://www.npmjs.com/package/mcp-migrate';
export const NOTHING_TO_MIGRATE = 'No deprecated MCP transport constructs found — nothing to migrate.';

/** True when the result has nothing at all to report: no findings (not even baselined ones), problems, suppressions or apply output. */
export function isEmptyResult(result: AnyResult): boolean {
  const hidden = result.baseline !== undefined && (result.baseline.old > 0 || result.baseline.stale.length > 0);
  const empty = result.findings.length === 0 && result.problems.length === 0 && result.suppressions.length === 0 && !hidden;
  if (!empty || !isApplyResult(result)) return empty;
  return result.changes.length === 0 && result.manual.length === 0 && result.endpoints.length === 0;
}

/** Consecutive items with the same key, keeping order (the input is already sorted). */
export function groupBy<T>(items: readonly T[], key: (item: T) => string): Array<[string, T[]]> {
  const groups: Array<[string, T[]]> = [];
  for (const item of items) {
    const k = key(item);
    const last = groups[groups.length - 1];
    if (last && last[0] === k) last[1].push(item);
    else groups.push([k, [item]]);
  }
  return groups;
}

/** Finding counts per rule id, keys in code-unit order. */
export function countByRule(findings: readonly Finding[]): Array<[string, number]> {
  const counts = new Map<string, number>();
  for (const f of findings) counts.set(f.ruleId, (counts.get(f.ruleId) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => compareStrings(a[0], b[0]));
}

export function ruleMap(rules: readonly RuleMeta[]): Map<string, RuleMeta> {
  return new Map(rules.map((r) => [r.id, r]));
}

const SEVERITY_RANK: Record<Severity, number> = { error: 0, warning: 1, info: 2 };

/** Severities that occur, most severe first. */
export function severitiesOf(findings: readonly Finding[]): Severity[] {
  return [...new Set(findings.map((f) => f.severity))].sort((a, b) => SEVERITY_RANK[a] - SEVERITY_RANK[b]);
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

export function formatDuration(ms: number): string {
  return `${Math.round(ms)}ms`;
}
