import type { RuleMeta } from '../rules/rule';

export type ReportFormat = 'text' | 'json' | 'markdown' | 'sarif' | 'github' | 'junit';

export const REPORT_FORMATS: readonly ReportFormat[] = ['text', 'json', 'markdown', 'sarif', 'github', 'junit'];

export interface ReportOptions {
  /** ANSI colour; only the text format (and renderDiff) use it. */
  color: boolean;
  /** Metadata of the rules that ran: SARIF `rules[]`, markdown titles, JUnit passing cases. */
  rules: RuleMeta[];
  /** mcp-migrate's own version, printed in json/sarif/markdown. */
  toolVersion: string;
}

export function isReportFormat(value: unknown): value is ReportFormat {
  return typeof value === 'string' && (REPORT_FORMATS as readonly string[]).includes(value);
}
