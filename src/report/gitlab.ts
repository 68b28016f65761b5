// GitLab Code Quality (a subset of the Code Climate issue format): a JSON array, one issue per finding, paths relative
// to the repository root (GitLab matches them against the merge request's files).
import type { AnyResult, Severity } from '../model';
import { locatedFingerprints } from '../engine/fingerprint';
import type { ReportOptions } from './options';
import { relativeTo } from './paths';
import { sortResult } from './sort';

type CodeQualitySeverity = 'info' | 'minor' | 'major' | 'critical' | 'blocker';

const SEVERITY: Record<Severity, CodeQualitySeverity> = { error: 'major', warning: 'minor', info: 'info' };

export function renderGitlab(input: AnyResult, options: ReportOptions): string {
  const result = sortResult(relativeTo(input, options.repoRoot ?? input.root));
  const fingerprints = locatedFingerprints(result.findings, (f) => f.file);
  const issues = result.findings.map((f, i) => ({
    type: 'issue',
    check_name: f.ruleId,
    description: f.message,
    ...(f.hint ? { content: { body: f.hint } } : {}),
    categories: ['Compatibility'],
    severity: SEVERITY[f.severity],
    fingerprint: fingerprints[i],
    location: { path: f.file, lines: { begin: f.line, end: f.endLine } },
  }));
  return `${JSON.stringify(issues, null, 2)}\n`;
}
