// GitHub-flavoured Markdown fit for a pull-request body or a job summary: file:line links to the commit when the
// GitHub Actions variables say where it is, each diff folded in <details>, and a size guard that keeps the whole
// report under MARKDOWN_LIMIT (GitHub refuses comments and bodies over 65,536 characters).
import * as path from 'node:path';
import type { AnyResult, ApplyResult, BaselineSummary, FileChange, Finding } from '../model';
import { isApplyResult } from '../model';
import { NOTHING_TO_MIGRATE, TOOL_NAME, formatDuration, groupBy, isEmptyResult, plural, ruleMap, severitiesOf } from './common';
import type { ReportOptions } from './options';
import { fenced } from './rule-help';
import { compareStrings, sortResult } from './sort';

export const MARKDOWN_LIMIT = 65_000;

/**
 * Escapes text for Markdown inline content (list items, headings, table cells): every character
 * that could start emphasis, code, links, HTML or break a table row is backslash-escaped
 * (CommonMark allows a backslash before any ASCII punctuation; GFM honours `\|` in tables, and `$` would start math).
 * Line breaks become `<br>` so a message stays in its list item or table cell.
 */
export function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_[\]<>|~&$]/g, (c) => `\\${c}`).replace(/\r\n?|\n/g, '<br>');
}

/**
 * A code span that holds `text` verbatim: the fence is longer than any backtick run inside,
 * padded with spaces when the text starts or ends with a backtick. In a table cell `|` must be
 * written `\|` even inside code (GFM splits cells before parsing inlines).
 */
export function codeSpan(text: string, inTable = false): string {
  let body = text.replace(/\r\n?|\n/g, ' ');
  if (inTable) body = body.replace(/\|/g, '\\|');
  const longest = Math.max(0, ...(body.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  const pad = body.startsWith('`') || body.endsWith('`') || body === '' ? ' ' : '';
  return `${fence}${pad}${body}${pad}${fence}`;
}

function row(cells: string[]): string {
  return `| ${cells.join(' | ')} |`;
}

/** What a render leaves out to fit the limit: the diffs of these files, and list items past `maxItems` per list. */
interface Budget {
  omittedDiffs: Set<string>;
  maxItems: number;
}

/**
 * Renders the report; when it is over {@link MARKDOWN_LIMIT} characters, diffs are folded away from the largest down,
 * then every list is cut shorter (each cut says how many items it left out) until it fits.
 */
export function renderMarkdown(input: AnyResult, options: ReportOptions): string {
  const result = sortResult(input);
  const budget: Budget = { omittedDiffs: new Set(), maxItems: Infinity };
  let text = render(result, options, budget);
  const bySize = isApplyResult(result) ? [...result.changes].sort((a, b) => b.diff.length - a.diff.length) : [];
  for (const change of bySize) {
    if (text.length <= MARKDOWN_LIMIT) return text;
    budget.omittedDiffs.add(change.file);
    text = render(result, options, budget);
  }
  for (let maxItems = 256; text.length > MARKDOWN_LIMIT && budget.maxItems > 0; maxItems = Math.floor(maxItems / 2)) {
    budget.maxItems = maxItems;
    text = render(result, options, budget);
  }
  return text;
}

function render(result: AnyResult, options: ReportOptions, budget: Budget): string {
  const rules = ruleMap(options.rules);
  const apply = isApplyResult(result) ? result : undefined;
  const link = linker(result.root, options);
  const list = <T>(items: readonly T[], line: (item: T) => string[]): string[] => capped(items, budget, line);
  const out: string[] = [];

  if (apply) {
    const target = apply.target ? ` to ${escapeMarkdown(apply.target)}` : '';
    out.push(`# ${TOOL_NAME}: migration${target}${apply.dryRun ? ' (dry run)' : ''}`, '');
    if (apply.dryRun) out.push('> **Dry run:** nothing was written. These changes are what `apply` would make.', '');
  } else {
    out.push(`# ${TOOL_NAME} report`, '');
  }

  const s = result.summary;
  if (isEmptyResult(result)) {
    out.push(NOTHING_TO_MIGRATE, '');
  } else {
    const bySeverity = severitiesOf(result.findings)
      .map((sev) => {
        const n = result.findings.filter((f) => f.severity === sev).length;
        return sev === 'info' ? `${n} info` : plural(n, sev);
      })
      .join(', ');
    out.push(
      `**${plural(result.findings.length, 'finding')}**${bySeverity ? ` (${bySeverity})` : ''} in ` +
        `${plural(s.filesWithFindings, 'file')}; ${s.filesScanned} scanned, ${s.filesParsed} parsed` +
        `${s.filesSkipped > 0 ? `, ${s.filesSkipped} skipped` : ''}.`,
      '',
    );
  }
  if (budget.omittedDiffs.size > 0 || budget.maxItems < Infinity) {
    out.push(
      `> **Shortened** to stay under ${MARKDOWN_LIMIT.toLocaleString('en-US')} characters` +
        `${budget.omittedDiffs.size > 0 ? `: ${plural(budget.omittedDiffs.size, 'diff')} folded away` : ''}` +
        `${budget.maxItems < Infinity ? `; lists cut at ${plural(budget.maxItems, 'item')}` : ''}. ` +
        'Run with `--format json` (or `apply --dry-run`) for everything.',
      '',
    );
  }
  if (result.baseline) out.push(...baselineSection(result.baseline, list));

  if (result.findings.length > 0) {
    const byRule = groupBy(
      [...result.findings].sort((a, b) => compareStrings(a.ruleId, b.ruleId)),
      (f) => f.ruleId,
    ); // stable sort: inside a rule, findings keep the file/line/column order
    out.push('## Summary', '');
    out.push(row(['Rule', 'Severity', 'Count', 'Fix']), row(['---', '---', '---:', '---']));
    for (const [ruleId, findings] of byRule) {
      const fixes = [...new Set(findings.map((f) => f.fix))].join(', ');
      out.push(row([codeSpan(ruleId, true), severitiesOf(findings).join(', '), String(findings.length), fixes]));
    }
    out.push('');
    for (const [ruleId, findings] of byRule) {
      const meta = rules.get(ruleId);
      out.push(`### ${codeSpan(ruleId)}${meta?.title ? ` — ${escapeMarkdown(meta.title)}` : ''}`, '');
      if (meta?.hint) out.push(`**What to do:** ${escapeMarkdown(meta.hint)}`, '');
      out.push(...list(findings, (f) => findingLines(f, meta?.hint, link)), '');
    }
  }

  if (apply) out.push(...applySections(apply, link, list, budget));

  if (result.problems.length > 0) {
    out.push('## Files that could not be processed', '');
    out.push(row(['File', 'Kind', 'Message']), row(['---', '---', '---']));
    out.push(...list(result.problems, (p) => [row([codeSpan(p.file, true), p.kind, escapeMarkdown(p.message)])]), '');
  }

  if (result.suppressions.length > 0) {
    out.push('## Suppressions', '');
    out.push(row(['Location', 'Rule', 'Kind', 'Silenced', 'Reason']), row(['---', '---', '---', '---:', '---']));
    out.push(
      ...list(result.suppressions, (sup) => [
        row([
          codeSpan(`${sup.file}:${sup.line}`, true),
          codeSpan(sup.ruleId, true),
          sup.kind,
          sup.used === 0 ? '0 (unused)' : String(sup.used),
          sup.reason ? escapeMarkdown(sup.reason) : '',
        ]),
      ]),
      '',
    );
  }

  out.push(`<sub>Generated by ${TOOL_NAME} ${escapeMarkdown(options.toolVersion)} in ${formatDuration(s.durationMs)}.</sub>`);
  return `${out.join('\n')}\n`;
}

type Linker = (file: string, line: number) => string;
type Lister = <T>(items: readonly T[], line: (item: T) => string[]) => string[];

/** `file:line` as a code span, linked to the line at the commit when the GitHub variables were given. */
function linker(root: string, options: ReportOptions): Linker {
  const links = options.links;
  if (!links) return (file, line) => codeSpan(`${file}:${line}`);
  const repoRoot = options.repoRoot ?? root;
  return (file, line) => {
    const inRepo = path.relative(repoRoot, path.resolve(root, file)).split(path.sep).join('/');
    const url = `${links.server}/${links.repository}/blob/${links.sha}/${encodeURI(inRepo).replace(/[?#]/g, encodeURIComponent)}#L${line}`;
    return `[${codeSpan(`${file}:${line}`)}](${url.replace(/[()]/g, encodeURIComponent)})`;
  };
}

/** The items' lines, cut at the budget's `maxItems` with a line saying how many were left out. */
function capped<T>(items: readonly T[], budget: Budget, line: (item: T) => string[]): string[] {
  const shown = items.slice(0, budget.maxItems);
  const out = shown.flatMap(line);
  if (shown.length < items.length) out.push(`- … and ${items.length - shown.length} more (left out to fit the size limit)`);
  return out;
}

function findingLines(f: Finding, ruleHint: string | undefined, link: Linker): string[] {
  const out = [`- ${link(f.file, f.line)} — ${escapeMarkdown(f.message)}`];
  if (f.hint && f.hint !== ruleHint) out.push(`  - hint: ${escapeMarkdown(f.hint)}`);
  for (const r of f.related ?? []) out.push(`  - also ${link(r.file, r.line)} — ${escapeMarkdown(r.message)}`);
  return out;
}

function baselineSection(baseline: BaselineSummary, list: Lister): string[] {
  const out = [
    '## Baseline',
    '',
    `${plural(baseline.old, 'finding')} known to ${codeSpan(baseline.file)} ${baseline.old === 1 ? 'is' : 'are'} not listed; ` +
      `${baseline.new} ${baseline.new === 1 ? 'is' : 'are'} new.`,
    '',
  ];
  if (baseline.stale.length > 0) {
    out.push(`Fixed since the baseline was written (prune with \`--baseline-write ${escapeMarkdown(baseline.file)}\`):`, '');
    out.push(
      ...list(baseline.stale, (e) => [`- ${codeSpan(e.file)} — ${codeSpan(e.ruleId)} ×${e.count}: ${escapeMarkdown(e.message)}`]),
      '',
    );
  }
  return out;
}

function applySections(apply: ApplyResult, link: Linker, list: Lister, budget: Budget): string[] {
  const out: string[] = [];
  if (apply.changes.length > 0) {
    out.push(apply.dryRun ? '## Files that would change' : '## Changed files', '');
    out.push(row(['File', 'Rules']), row(['---', '---']));
    out.push(...list(apply.changes, (c) => [row([codeSpan(c.file, true), c.ruleIds.map((id) => codeSpan(id, true)).join(', ')])]), '');
    out.push(...apply.changes.flatMap((c) => diffDetails(c, budget.omittedDiffs.has(c.file))));
  }
  if ((apply.rolledBack ?? []).length > 0) {
    out.push('## Rolled back', '', 'Left as they were, with a marker, because their migration would have broken the build:', '');
    out.push(...list(apply.rolledBack, (r) => [`- ${codeSpan(r.endpoint)}: ${escapeMarkdown(r.reason)}`]), '');
  }
  if (apply.endpoints.length > 0) {
    out.push(apply.endpoints.length === 1 ? '## Endpoint served' : '## Endpoints served', '');
    out.push(...list(apply.endpoints, (e) => [`- ${codeSpan(e.path)} at ${link(e.file, e.line)}`]), '');
  }
  if (apply.manual.length > 0) {
    out.push('## Needs a human', '');
    out.push(...list(apply.manual, (m) => [`- [ ] ${link(m.file, m.line)} — ${codeSpan(m.ruleId)}: ${escapeMarkdown(m.message)}`]), '');
  }
  return out;
}

/** One file's diff, folded: the summary names the file and counts the lines added and removed. */
function diffDetails(change: FileChange, omitted: boolean): string[] {
  if (change.diff === '') return [];
  const lines = change.diff.split('\n');
  const added = lines.filter((l) => l.startsWith('+') && !l.startsWith('+++')).length;
  const removed = lines.filter((l) => l.startsWith('-') && !l.startsWith('---')).length;
  const summary = `<summary><code>${escapeHtml(change.file)}</code> (+${added} −${removed})</summary>`;
  const body = omitted ? '_Diff left out to fit the size limit._' : fenced(change.diff, 'diff');
  return ['<details>', summary, '', body, '', '</details>', ''];
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
