// Default, human-readable format: findings grouped by file, then problems, suppressions,
// the apply sections and one summary line.
import type { AnyResult, ApplyResult, BaselineSummary, Finding, Severity } from '../model';
import { isApplyResult } from '../model';
import { paint, terminalSafe, type Paint } from './ansi';
import { NOTHING_TO_MIGRATE, countByRule, formatDuration, groupBy, isEmptyResult, plural } from './common';
import type { ReportOptions } from './options';
import { sortResult } from './sort';

const SEVERITY_WIDTH = 'warning'.length;

export function renderText(input: AnyResult, options: ReportOptions): string {
  const result = sortResult(input);
  const p = paint(options.color);
  const blocks: string[] = [];

  if (isEmptyResult(result)) {
    blocks.push(p.green(NOTHING_TO_MIGRATE));
  } else {
    for (const [file, findings] of groupBy(result.findings, (f) => f.file)) blocks.push(fileBlock(file, findings, p));
    if (result.findings.length === 0) blocks.push(p.green('No findings.'));
    if (result.problems.length > 0) {
      blocks.push(
        section(
          p.bold('Problems:'),
          result.problems.map((pr) => `  ${safe(pr.file)}: ${p.yellow(pr.kind)}: ${indentRest(safe(pr.message), 4)}`),
        ),
      );
    }
    const used = result.suppressions.filter((s) => s.used > 0);
    const unused = result.suppressions.filter((s) => s.used === 0);
    if (used.length > 0) {
      blocks.push(
        section(
          p.bold('Suppressions used:'),
          used.map(
            (s) =>
              `  ${safe(s.file)}:${s.line}  ${s.kind}  ${p.dim(safe(s.ruleId))}  silenced ${s.used}` +
              (s.reason ? ` — ${indentRest(safe(s.reason), 4)}` : ''),
          ),
        ),
      );
    }
    if (unused.length > 0) {
      blocks.push(
        section(
          p.bold(p.yellow('Unused suppressions:')),
          unused.map(
            (s) =>
              `  ${safe(s.file)}:${s.line}  ${s.kind}  ${p.dim(safe(s.ruleId))}` + (s.reason ? ` — ${indentRest(safe(s.reason), 4)}` : ''),
          ),
        ),
      );
    }
    if (isApplyResult(result)) blocks.push(...applyBlocks(result, p));
  }
  if (result.baseline) blocks.push(baselineBlock(result.baseline, p));

  const closing = [summaryLine(result, p)];
  if (isApplyResult(result)) closing.push(applyWording(result, p));
  blocks.push(closing.join('\n'));
  return `${blocks.join('\n\n')}\n`;
}

function fileBlock(file: string, findings: Finding[], p: Paint): string {
  const positions = findings.map((f) => `${f.line}:${f.column}`);
  const width = Math.max(...positions.map((s) => s.length));
  const lines = [p.underline(p.bold(safe(file)))];
  findings.forEach((f, i) => {
    const sev = severityPaint(f.severity, p)(f.severity.padEnd(SEVERITY_WIDTH));
    const message = indentRest(safe(f.message), 2 + width + 2 + SEVERITY_WIDTH + 2);
    lines.push(`  ${p.dim(positions[i].padEnd(width))}  ${sev}  ${message}  ${p.dim(safe(f.ruleId))}`);
    if (f.hint) lines.push(`    ${p.cyan('hint:')} ${indentRest(safe(f.hint), 10)}`);
    for (const r of f.related ?? []) {
      lines.push(`    ${p.dim('also')} ${safe(r.file)}:${r.line}: ${indentRest(safe(r.message), 9)}`);
    }
  });
  return lines.join('\n');
}

function applyBlocks(result: ApplyResult, p: Paint): string[] {
  const blocks: string[] = [];
  if (result.changes.length > 0) {
    const heading = result.dryRun ? 'Changed files (dry run, nothing written):' : 'Changed files:';
    blocks.push(
      section(
        p.bold(heading),
        result.changes.map((c) => `  ${p.green(safe(c.file))}: ${c.ruleIds.map(safe).join(', ')}`),
      ),
    );
  }
  if ((result.rolledBack ?? []).length > 0) {
    blocks.push(
      section(
        p.bold('Rolled back (left as they were, with a marker):'),
        result.rolledBack.map((r) => `  ${safe(r.endpoint)}  ${safe(r.reason)}`),
      ),
    );
  }
  if (result.endpoints.length > 0) {
    blocks.push(
      section(
        p.bold('Endpoints now served:'),
        result.endpoints.map((e) => `  ${safe(e.file)}:${e.line}  ${p.cyan(safe(e.path))}`),
      ),
    );
  }
  if (result.manual.length > 0) {
    blocks.push(
      section(
        p.bold(p.yellow('Needs a human:')),
        result.manual.map((m) => `  ${safe(m.file)}:${m.line}  ${p.dim(safe(m.ruleId))}  ${indentRest(safe(m.message), 4)}`),
      ),
    );
  }
  return blocks;
}

function baselineBlock(baseline: BaselineSummary, p: Paint): string {
  const lines = [p.bold(`Baseline ${safe(baseline.file)}:`) + ` ${plural(baseline.old, 'known finding')} not shown, ${baseline.new} new.`];
  if (baseline.stale.length > 0) {
    lines.push(p.yellow(`Stale entries (fixed since the baseline was written; prune with --baseline-write ${safe(baseline.file)}):`));
    for (const e of baseline.stale)
      lines.push(`  ${safe(e.file)}  ${p.dim(safe(e.ruleId))} ×${e.count}  ${indentRest(safe(e.message), 4)}`);
  }
  return lines.join('\n');
}

function summaryLine(result: AnyResult, p: Paint): string {
  const s = result.summary;
  const byRule = Object.entries(s.findingsByRule).filter(([, n]) => n > 0);
  const counts =
    byRule.length > 0
      ? byRule.map(([rule, n]) => `${safe(rule)} ${n}`).join(', ')
      : countByRule(result.findings)
          .map(([rule, n]) => `${safe(rule)} ${n}`)
          .join(', ') || 'none';
  const skipped = s.filesSkipped > 0 ? `, ${s.filesSkipped} skipped` : '';
  return p.bold(
    `${plural(s.filesScanned, 'file')} scanned, ${s.filesParsed} parsed${skipped}, ${s.filesWithFindings} with findings; ` +
      `findings: ${counts} (in ${formatDuration(s.durationMs)})`,
  );
}

function applyWording(result: ApplyResult, p: Paint): string {
  const target = result.target ? ` (target: ${safe(result.target)})` : '';
  const n = result.changes.length;
  const m = result.manual.length;
  const manual = m > 0 ? `; ${plural(m, 'item')} ${m === 1 ? 'needs' : 'need'} a human` : '';
  if (result.dryRun) {
    const what = n > 0 ? `${plural(n, 'file')} would change${target}` : 'no file would change';
    return p.yellow(`Dry run: ${what}${manual}. Nothing was written; run without --dry-run to apply.`);
  }
  const what = n > 0 ? `${plural(n, 'file')} changed${target}` : 'no file changed';
  return p.green(`Applied: ${what}${manual}.`);
}

function severityPaint(severity: Severity, p: Paint): (s: string) => string {
  return severity === 'error' ? p.red : severity === 'warning' ? p.yellow : p.blue;
}

function section(heading: string, lines: string[]): string {
  return [heading, ...lines].join('\n');
}

/** Continuation lines of a multi-line text, indented so they stay inside their block. */
function indentRest(text: string, spaces: number): string {
  return text.replace(/\r?\n/g, `\n${' '.repeat(spaces)}`);
}

const safe = terminalSafe;
