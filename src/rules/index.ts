// The public rule catalog. Ids are stable: CI configs, suppressions and SARIF results refer to them.
import type { Rule, RuleMeta } from './rule';
import { engineRuleMetas } from './engine-rules';
import { legacySseTransport } from './legacy-sse-transport';
import { sessionId } from './session-id';
import { getStream } from './get-stream';
import { deleteSession } from './delete-session';
import { lastEventId } from './last-event-id';
import { sharedServerInstance } from './shared-server-instance';
import { sharedTransport } from './shared-transport';
import { originValidation } from './origin-validation';
import { sessionState } from './session-state';
import { idempotencyHint } from './idempotency-hint';
import { localBind } from './local-bind';
import { deprecatedTransportOptions } from './deprecated-transport-options';
import { legacySseClient } from './legacy-sse-client';
import { perRequestTransport } from './per-request-transport';
import { v1SdkApi } from './v1-sdk-api';

export const allRules: readonly Rule[] = [
  legacySseTransport,
  sessionId,
  getStream,
  deleteSession,
  lastEventId,
  sharedServerInstance,
  sharedTransport,
  originValidation,
  sessionState,
  idempotencyHint,
  localBind,
  deprecatedTransportOptions,
  legacySseClient,
  perRequestTransport,
  v1SdkApi,
];

export { engineRuleMetas } from './engine-rules';

export const allRuleMetas: readonly RuleMeta[] = [...allRules.map((r) => r.meta), ...engineRuleMetas];

export function ruleById(id: string): Rule | undefined {
  return allRules.find((rule) => rule.meta.id === id);
}
