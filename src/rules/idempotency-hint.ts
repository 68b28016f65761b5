import type { Rule } from './rule';
import { writtenHints } from '../analysis/tools';
import { Node } from 'ts-morph';

export const idempotencyHint: Rule = {
  meta: {
    id: 'idempotency-hint',
    title: 'A tool registered without readOnlyHint / idempotentHint annotations',
    severity: 'info',
    fix: 'manual',
    doc:
      'Without sessions or `Last-Event-ID`, a dropped connection loses the in-flight request and the client re-issues it with ' +
      'a new id, so a tool handler may run twice. `readOnlyHint` (no side effects) and `idempotentHint` (repeating has no ' +
      'further effect) tell clients which tools are safe to retry; both default to false. Tools should carry honest hints.',
    hint: 'Add `annotations: { readOnlyHint, idempotentHint }` that describe what the handler really does.',
    sources: ['spec 2026-07-28 schema.ts ToolAnnotations', 'spec 2026-07-28 changelog.mdx § Major changes 9'],
  },
  check({ facts, report }) {
    for (const tool of facts.tools) {
      const hints = writtenHints(tool);
      if (hints.has('readOnlyHint') || hints.has('idempotentHint')) continue;
      const site = tool.form === 'list-literal' ? tool.node : Node.isCallExpression(tool.node) ? tool.node.getArguments()[0] ?? tool.node : tool.node;
      report(site, `Tool \`${tool.name}\` has no readOnlyHint/idempotentHint: clients cannot tell whether re-issuing a dropped call is safe.`);
    }
  },
};
