// Where v2 keeps what v1's request context (`extra`) held: the official codemod's own map. Plain data (no ts-morph),
// shared by the check that finds v1 reads on a v2 server (./handler-context) and by the fix-ups that move them.

/** v1 context field → [v2 group (none: the context itself), v2 field]. `http` may be absent. */
export const V2_CONTEXT_PLACES: Readonly<Record<string, readonly [group: 'mcpReq' | 'http' | undefined, field: string]>> = {
  sendNotification: ['mcpReq', 'notify'],
  sendRequest: ['mcpReq', 'send'],
  signal: ['mcpReq', 'signal'],
  requestId: ['mcpReq', 'id'],
  _meta: ['mcpReq', '_meta'],
  sessionId: [undefined, 'sessionId'],
  authInfo: ['http', 'authInfo'],
  closeSSEStream: ['http', 'closeSSE'],
  closeStandaloneSSEStream: ['http', 'closeStandaloneSSE'],
};

/** The v1 fields v2 keeps elsewhere (all but `sessionId`), and the v2 expression each one is read with from `ctx`. */
export function movedContextField(field: string): string | undefined {
  const place = Object.hasOwn(V2_CONTEXT_PLACES, field) ? V2_CONTEXT_PLACES[field] : undefined;
  if (!place || place[0] === undefined) return undefined;
  return place[0] === 'http' ? `ctx.http?.${place[1]}` : `ctx.${place[0]}.${place[1]}`;
}
