// GitHub Actions workflow commands: one annotation per finding, one warning per problem.
// Escaping as the Actions toolkit does it (@actions/core command.ts): data escapes % \r \n;
// property values additionally escape : and ,.
import type { AnyResult, Severity } from '../model';
import type { ReportOptions } from './options';
import { sortResult } from './sort';

export function escapeData(s: string): string {
  return s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

export function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

function command(name: string, properties: Array<[string, string | number]>, message: string): string {
  const props = properties.map(([k, v]) => `${k}=${typeof v === 'number' ? v : escapeProperty(v)}`).join(',');
  return `::${name}${props ? ` ${props}` : ''}::${escapeData(message)}`;
}

function commandFor(severity: Severity): 'error' | 'warning' | 'notice' {
  return severity === 'error' ? 'error' : severity === 'warning' ? 'warning' : 'notice';
}

export function renderGithub(input: AnyResult, _options: ReportOptions): string {
  const result = sortResult(input);
  const lines: string[] = [];
  for (const f of result.findings) {
    lines.push(
      command(
        commandFor(f.severity),
        [
          ['file', f.file],
          ['line', f.line],
          ['col', f.column],
          ['endLine', f.endLine],
          ['endColumn', f.endColumn],
          ['title', f.ruleId],
        ],
        f.message,
      ),
    );
  }
  for (const p of result.problems) {
    lines.push(
      command(
        'warning',
        [
          ['file', p.file],
          ['title', `mcp-migrate ${p.kind}`],
        ],
        p.message,
      ),
    );
  }
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}
