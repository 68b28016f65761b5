// A rule's documentation, generated from its metadata and example: `mcp-migrate explain <id>` prints the text form,
// SARIF carries both forms as `help` with `helpUri` pointing at the rule's row in the README.
import type { RuleMeta } from '../rules/rule';
import { RULE_EXAMPLES } from '../rules/examples';
import { TOOL_INFORMATION_URI } from './common';

/** The README's anchor for a rule (`<a id="rule-<id>">` in its Rules table). */
export function ruleHelpUri(id: string): string {
  return `${TOOL_INFORMATION_URI}#rule-${id}`;
}

export function ruleHelpText(meta: RuleMeta): string {
  const example = RULE_EXAMPLES[meta.id];
  const parts = [`${meta.id}: ${meta.title}`, `severity: ${meta.severity}, fix: ${meta.fix}`, meta.doc];
  if (meta.hint) parts.push(`What to do: ${meta.hint}`);
  if (example) parts.push(`Before:\n${indent(example.before)}`, `After:\n${indent(example.after)}`);
  if (meta.sources.length > 0) parts.push(`Sources:\n${meta.sources.map((s) => `- ${s}`).join('\n')}`);
  parts.push(`More: ${ruleHelpUri(meta.id)}`);
  return `${parts.join('\n\n')}\n`;
}

export function ruleHelpMarkdown(meta: RuleMeta): string {
  const example = RULE_EXAMPLES[meta.id];
  const parts = [`**${meta.title}** (severity: ${meta.severity}, fix: ${meta.fix})`, meta.doc];
  if (meta.hint) parts.push(`**What to do:** ${meta.hint}`);
  const language = example?.file === 'package.json' ? 'json' : 'ts';
  if (example) parts.push(`**Before:**\n\n${fenced(example.before, language)}`, `**After:**\n\n${fenced(example.after, language)}`);
  if (meta.sources.length > 0) parts.push(`**Sources:**\n\n${meta.sources.map((s) => `- ${s}`).join('\n')}`);
  return parts.join('\n\n');
}

function indent(code: string): string {
  return code
    .replace(/\n$/, '')
    .split('\n')
    .map((line) => (line === '' ? '' : `    ${line}`))
    .join('\n');
}

/** A fenced TypeScript block whose fence is longer than any backtick run inside. */
export function fenced(code: string, language = 'ts'): string {
  const longest = Math.max(2, ...(code.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${language}\n${code.replace(/\n?$/, '\n')}${fence}`;
}
