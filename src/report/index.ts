// The one entry point for every output format (Biome: one reporter per format, ast-grep: one printer,
// so output is ordered). Each format lives in its own module; all of them sort with ./sort first.
import type { AnyResult } from '../model';
import { renderGithub } from './github';
import { renderGitlab } from './gitlab';
import { renderJson } from './json';
import { renderJunit } from './junit';
import { renderMarkdown } from './markdown';
import type { ReportFormat, ReportOptions } from './options';
import { renderSarif } from './sarif';
import { renderText } from './text';

export type { ReportFormat, ReportOptions } from './options';
export { REPORT_FORMATS, isReportFormat } from './options';
export { renderDiff } from './diff';
export { NOTHING_TO_MIGRATE } from './common';
export { sortResult, sortFindings, compareFindings } from './sort';
export { renderText, renderJson, renderMarkdown, renderSarif, renderGithub, renderJunit, renderGitlab };
export { relativeTo, gitRoot } from './paths';
export { linksFromEnv, type SourceLinks } from './options';

const RENDERERS: Record<ReportFormat, (result: AnyResult, options: ReportOptions) => string> = {
  text: renderText,
  json: renderJson,
  markdown: renderMarkdown,
  sarif: renderSarif,
  github: renderGithub,
  junit: renderJunit,
  gitlab: renderGitlab,
};

/**
 * Renders `result` in `format`. The output always ends with a newline (or is empty: `github` with
 * nothing to annotate). It never includes the dry-run diff: print `renderDiff(result.changes, color)`
 * next to the text report for `apply --dry-run`.
 */
export function renderReport(result: AnyResult, format: ReportFormat, options: ReportOptions): string {
  const render = RENDERERS[format];
  if (!render) throw new Error(`Unknown report format: ${String(format)}`);
  return render(result, options);
}
