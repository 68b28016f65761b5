// Inline suppressions: `// mcp-migrate-ignore-next-line <rule-id>[, <rule-id>] -- reason` silences those rules on the
// next line; `// mcp-migrate-ignore-file <rule-id> -- reason` for the whole file. Unused ones are reported.
import type { Finding, Suppression } from '../model';

const DIRECTIVE = /\/[/*]\s*mcp-migrate-ignore-(next-line|file)\s+([\w-]+(?:\s*,\s*[\w-]+)*)(?:\s+--\s*([^\n*]*?))?\s*(?:\*\/)?\s*$/;

export function parseSuppressions(relPath: string, text: string): Suppression[] {
  const suppressions: Suppression[] = [];
  const lines = text.split('\n');
  lines.forEach((lineText, index) => {
    if (!lineText.includes('mcp-migrate-ignore-')) return;
    const match = DIRECTIVE.exec(lineText);
    if (!match) return;
    const column = lineText.indexOf(match[0]) + 1;
    for (const ruleId of match[2].split(',').map((s) => s.trim())) {
      suppressions.push({
        file: relPath,
        line: index + 1,
        column,
        endLine: index + 1,
        endColumn: lineText.replace(/\r$/, '').length + 1,
        kind: match[1] === 'file' ? 'file' : 'next-line',
        ruleId,
        ...(match[3] ? { reason: match[3].trim() } : {}),
        used: 0,
      });
    }
  });
  return suppressions;
}

/** Drop suppressed findings (counting uses) and add an `unused-suppression` finding for each unused one. */
export function applySuppressions(findings: Finding[], suppressions: Suppression[], relPath: string): Finding[] {
  const kept: Finding[] = [];
  for (const finding of findings) {
    const suppression = suppressions.find((s) => s.ruleId === finding.ruleId && (s.kind === 'file' || s.line + 1 === finding.line));
    if (suppression) suppression.used += 1;
    else kept.push(finding);
  }
  for (const suppression of suppressions) {
    if (suppression.used > 0) continue;
    kept.push({
      ruleId: 'unused-suppression',
      severity: 'warning',
      message: `Unused suppression: no \`${suppression.ruleId}\` finding ${suppression.kind === 'file' ? 'in this file' : 'on the next line'}.`,
      hint: 'Delete the comment.',
      fix: 'manual',
      file: relPath,
      line: suppression.line,
      column: suppression.column,
      endLine: suppression.endLine,
      endColumn: suppression.endColumn,
    });
  }
  return kept;
}
