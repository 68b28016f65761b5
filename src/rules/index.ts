// The public rule catalog. Ids are stable: CI configs, suppressions and SARIF results refer to them.
import type { Rule, RuleMeta } from './rule';
import { legacySseTransport } from './legacy-sse-transport';
import { sessionId } from './session-id';
import { getStream } from './get-stream';
import { deleteSession } from './delete-session';
import { lastEventId } from './last-event-id';
import { sharedServerInstance } from './shared-server-instance';
import { originValidation } from './origin-validation';
import { sessionState } from './session-state';
import { idempotencyHint } from './idempotency-hint';
import { localBind } from './local-bind';
import { deprecatedTransportOptions } from './deprecated-transport-options';
import { legacySseClient } from './legacy-sse-client';
import { perRequestTransport } from './per-request-transport';

export const allRules: readonly Rule[] = [
  legacySseTransport,
  sessionId,
  getStream,
  deleteSession,
  lastEventId,
  sharedServerInstance,
  originValidation,
  sessionState,
  idempotencyHint,
  localBind,
  deprecatedTransportOptions,
  legacySseClient,
  perRequestTransport,
];

/** Findings the engine itself produces (markers, suppressions), described like rules for the reporters. */
export const engineRuleMetas: readonly RuleMeta[] = [
  {
    id: 'session-test',
    title: 'A test that drives the deprecated transport or asserts protocol sessions',
    severity: 'warning',
    fix: 'manual',
    doc:
      'Tests are not endpoints: a test that boots a server over HTTP+SSE, reads `Mcp-Session-Id`, or expects a GET stream or ' +
      'a DELETE session asserts behaviour the migration removes. mcp-migrate never rewrites such a test or leaves a marker in ' +
      'it; it reports what the test relies on, so that it can be updated with the server (POST one endpoint; expect 405 on ' +
      'GET/DELETE and no session header).',
    hint: 'Update the test for stateless Streamable HTTP: one POST endpoint, no session id, 405 on GET and DELETE.',
    sources: ['spec 2026-07-28 basic/transports/streamable-http.mdx § Earlier Streamable HTTP Revisions'],
  },
  {
    id: 'unused-suppression',
    title: 'An mcp-migrate-ignore comment that silences nothing',
    severity: 'warning',
    fix: 'manual',
    doc: 'A suppression comment whose rule no longer reports anything on its line (or file) hides nothing and should be removed, so that it cannot hide a future regression.',
    hint: 'Delete the comment.',
    sources: [],
  },
  {
    id: 'sdk-v2-surface',
    title: 'A spot the official v1→v2 SDK codemod could not migrate',
    severity: 'error',
    fix: 'manual',
    doc: 'On the 2026-07-28 target, mcp-migrate runs the official `@modelcontextprotocol/codemod` (v1-to-v2) for the SDK surface. Where it cannot rewrite a site it leaves a `/* @mcp-codemod-error … */` comment; each one is reported here until a human resolves it.',
    hint: 'Follow the comment, then delete it.',
    sources: ['typescript-sdk packages/codemod', 'typescript-sdk docs/migration/upgrade-to-v2.md'],
  },
];

export const allRuleMetas: readonly RuleMeta[] = [...allRules.map((r) => r.meta), ...engineRuleMetas];

export function ruleById(id: string): Rule | undefined {
  return allRules.find((rule) => rule.meta.id === id);
}
