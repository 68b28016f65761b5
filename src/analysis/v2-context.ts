// What v1's API became in v2: where v2 keeps what v1's request context (`extra`) held (the official codemod's own map),
// and the v2 form of each v1 registration method. Plain data (no ts-morph), shared by the check that finds v1 API on a
// v2 server (rule v1-sdk-api, ./handler-context) and by the fix-ups that move it.

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

/** v1's registration methods, which v2's `McpServer` does not have, and the v2 form each one takes. */
export const V2_REGISTRATION_FORMS: Readonly<Record<string, string>> = {
  tool: 'registerTool(name, { description, inputSchema, annotations }, cb)',
  prompt: 'registerPrompt(name, { description, argsSchema }, cb)',
  resource: 'registerResource(name, uriOrTemplate, metadata, cb)',
};

/** A receiver that cannot be typed is taken for a server when its last name says so: `server`, `this.mcp`. */
export const SERVER_NAME = /server|mcp/i;
