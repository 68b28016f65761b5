// Manual-migration markers left by `apply`: `/* mcp-migrate: <rule-id>: <what to do> */`. `check` reports each one
// as an error so the CI gate stays red until a human resolves it and deletes the comment.
import type { SourceFile } from 'ts-morph';
import type { Finding } from '../model';

export const MARKER_PATTERN = /\/\*\s*mcp-migrate:\s*([a-z][\w-]*):\s*([\s\S]*?)\s*\*\//g;

export function markerComment(ruleId: string, message: string): string {
  return `/* mcp-migrate: ${ruleId}: ${message.replace(/\*\//g, '* /')} */`;
}

export function findMarkers(relPath: string, sourceFile: SourceFile): Finding[] {
  const text = sourceFile.getFullText();
  const findings: Finding[] = [];
  if (!text.includes('mcp-migrate:')) return findings;
  for (const match of text.matchAll(MARKER_PATTERN)) {
    const start = sourceFile.getLineAndColumnAtPos(match.index!);
    const end = sourceFile.getLineAndColumnAtPos(match.index! + match[0].length);
    findings.push({
      ruleId: match[1],
      severity: 'error',
      message: `Manual migration left by mcp-migrate: ${match[2].replace(/\s+/g, ' ')}`,
      hint: 'Do what the marker says, then delete the marker comment.',
      fix: 'manual',
      data: { marker: true },
      file: relPath,
      line: start.line,
      column: start.column,
      endLine: end.line,
      endColumn: end.column,
    });
  }
  return findings;
}
