import type { RuleMeta } from '../rules/rule';

export type ReportFormat = 'text' | 'json' | 'markdown' | 'sarif' | 'github' | 'junit' | 'gitlab';

export const REPORT_FORMATS: readonly ReportFormat[] = ['text', 'json', 'markdown', 'sarif', 'github', 'junit', 'gitlab'];

/** Where a pull-request report links file:line to (from GITHUB_SERVER_URL, GITHUB_REPOSITORY, GITHUB_SHA). */
export interface SourceLinks {
  server: string;
  repository: string;
  sha: string;
}

export interface ReportOptions {
  /** ANSI colour; only the text format (and renderDiff) use it. */
  color: boolean;
  /** Metadata of the rules that ran: SARIF `rules[]`, markdown titles, JUnit passing cases. */
  rules: RuleMeta[];
  /** mcp-migrate's own version, printed in json/sarif/markdown. */
  toolVersion: string;
  /** Absolute root of the repository: SARIF and GitLab paths are relative to it (default: the result's root). */
  repoRoot?: string;
  /** Markdown links each file:line to the commit on GitHub. */
  links?: SourceLinks;
}

export function isReportFormat(value: unknown): value is ReportFormat {
  return typeof value === 'string' && (REPORT_FORMATS as readonly string[]).includes(value);
}

/** Source links from the GitHub Actions environment, when all three variables are set. */
export function linksFromEnv(env: Readonly<Record<string, string | undefined>>): SourceLinks | undefined {
  const { GITHUB_SERVER_URL: server, GITHUB_REPOSITORY: repository, GITHUB_SHA: sha } = env;
  return server && repository && sha ? { server: server.replace(/\/+$/, ''), repository, sha } : undefined;
}
