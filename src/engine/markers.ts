// Manual-migration markers left by `apply`: `/* mcp-migrate: <rule-id>: <what to do> */`. `check` reports each one
// as an error so the CI gate stays red until a human resolves it and deletes the comment.
import type { SourceFile } from 'ts-morph';
import type { Finding, Severity } from '../model';
import { engineRuleMetas } from '../rules/engine-rules';

export const MARKER_PATTERN = /\/\*\s*mcp-migrate:\s*([a-z][\w-]*):\s*([\s\S]*?)\s*\*\//g;
/** The official v1→v2 codemod's own marker, folded in under one rule id. */
const CODEMOD_MARKER = /\/\*\s*@mcp-codemod-error\s+([\s\S]*?)\s*\*\//g;
export const SDK_SURFACE_RULE = 'sdk-v2-surface';

export function markerComment(ruleId: string, message: string): string {
  return `/* mcp-migrate: ${ruleId}: ${message.replace(/\*\//g, '* /')} */`;
}

/**
 * A marker has its rule's severity when the engine describes the rule (`v2-deferred` is a warning: the project was
 * kept on 2025-11-25, stateless, nothing deprecated left); every other marker is an error until a human resolves it.
 */
function markerSeverity(ruleId: string): Severity {
  return engineRuleMetas.find((meta) => meta.id === ruleId)?.severity ?? 'error';
}

export function findMarkers(relPath: string, sourceFile: SourceFile): Finding[] {
  const text = sourceFile.getFullText();
  const findings: Finding[] = [];
  if (!text.includes('mcp-migrate:') && !text.includes('@mcp-codemod-error')) return findings;
  const matches = [
    ...[...text.matchAll(MARKER_PATTERN)].map((m) => ({ index: m.index!, length: m[0].length, ruleId: m[1], message: m[2] })),
    ...[...text.matchAll(CODEMOD_MARKER)].map((m) => ({
      index: m.index!,
      length: m[0].length,
      ruleId: SDK_SURFACE_RULE,
      message: `(from @modelcontextprotocol/codemod) ${m[1]}`,
    })),
  ];
  for (const match of matches) {
    const start = sourceFile.getLineAndColumnAtPos(match.index);
    const end = sourceFile.getLineAndColumnAtPos(match.index + match.length);
    findings.push({
      ruleId: match.ruleId,
      severity: markerSeverity(match.ruleId),
      message: `Manual migration left by mcp-migrate: ${match.message.replace(/\s+/g, ' ')}`,
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
