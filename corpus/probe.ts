// Probes of a running server with the official SDK clients and plain HTTP: the legacy client for the baseline, the
// v1 Streamable HTTP client and the v2 client pinned to 2026-07-28 after migration, and the wire rules.

import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { LegacyClient, RecipeTool } from './recipe';
import type { Probes, StepResult } from './report';

const PROBE_TIMEOUT_MS = 20_000;

async function withTimeout<T>(work: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${PROBE_TIMEOUT_MS / 1000} s`)), PROBE_TIMEOUT_MS);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** A message on one line, markup and runs of white space squeezed (an HTML error page stays readable). */
function oneLine(message: string): string {
  return message
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 500);
}

/** Runs a probe; its error becomes a failed step with the message as detail. */
async function probe(what: string, work: () => Promise<string>): Promise<StepResult> {
  const started = Date.now();
  try {
    const detail = await withTimeout(work(), what);
    return { status: 'ok', durationMs: Date.now() - started, detail };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { status: 'failed', durationMs: Date.now() - started, detail: oneLine(message) };
  }
}

type ToolResult = { content?: Array<{ type: string; text?: string }>; isError?: boolean };

/** The text of a tool result, checked against the recipe (no `isError`, the expected text). */
function checkedText(result: unknown, tool: RecipeTool): string {
  const { content = [], isError } = result as ToolResult;
  const text = content.map((part) => part.text ?? `[${part.type}]`).join('\n');
  if (Boolean(isError) !== Boolean(tool.expectError))
    throw new Error(`${tool.name} answered ${isError ? '' : 'no '}isError: ${text.slice(0, 200)}`);
  if (tool.expectText !== undefined && !text.includes(tool.expectText)) {
    throw new Error(`${tool.name} answered without "${tool.expectText}": ${text.slice(0, 200)}`);
  }
  return text;
}

/** The subset of Client both SDK generations share, for listing and calling. */
interface ToolClient {
  listTools(): Promise<{ tools: Array<{ name: string }> }>;
  callTool(request: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  close(): Promise<void>;
}

async function listAndCall(client: ToolClient, tools: RecipeTool[]): Promise<string> {
  try {
    const names = (await client.listTools()).tools.map((t) => t.name);
    if (tools.length === 0) {
      if (names.length === 0) throw new Error('no tools listed');
      return `${names.length} tools listed`;
    }
    const answers: string[] = [];
    for (const tool of tools) {
      if (!names.includes(tool.name)) throw new Error(`${tool.name} not among the ${names.length} tools listed: ${names.join(', ')}`);
      const text = checkedText(await client.callTool({ name: tool.name, arguments: tool.arguments }), tool);
      answers.push(`${tool.name} → ${JSON.stringify(text.slice(0, 120))}`);
    }
    return `${names.length} tools listed; ${answers.join('; ')}`;
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** The unmigrated server, through the client it was written for. */
export function probeLegacy(
  base: string,
  legacy: { client: LegacyClient; path: string },
  headers: Record<string, string>,
  tools: RecipeTool[] = [],
) {
  return probe(`${legacy.client} client`, async () => {
    const url = new URL(legacy.path, base);
    const client = new V1Client({ name: 'corpus-baseline', version: '1.0.0' });
    const transport =
      legacy.client === 'sse'
        ? new SSEClientTransport(url, { requestInit: { headers } })
        : new V1Transport(url, { requestInit: { headers } });
    await client.connect(transport);
    return listAndCall(client, tools);
  });
}

function probeV1(endpoint: URL, headers: Record<string, string>, tools: RecipeTool[]) {
  return probe('v1 Streamable HTTP client', async () => {
    const client = new V1Client({ name: 'corpus-2025', version: '1.0.0' });
    const transport = new V1Transport(endpoint, { requestInit: { headers } });
    await client.connect(transport);
    if (transport.sessionId !== undefined) throw new Error(`the server assigned a session id (${transport.sessionId})`);
    return listAndCall(client, tools);
  });
}

function probeV2(endpoint: URL, headers: Record<string, string>, tools: RecipeTool[]) {
  return probe('v2 client pinned to 2026-07-28', async () => {
    const client = new V2Client({ name: 'corpus-2026', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(new V2Transport(endpoint, { requestInit: { headers } }));
    const version = client.getNegotiatedProtocolVersion();
    if (version !== '2026-07-28') {
      await client.close();
      throw new Error(`negotiated ${String(version)}`);
    }
    return listAndCall(client, tools);
  });
}

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'corpus-probe', version: '1' } },
});

interface Answer {
  status: number;
  sessionId: string | null;
}

async function request(endpoint: URL, method: string, headers: Record<string, string>): Promise<Answer> {
  const post = method === 'POST';
  const response = await fetch(endpoint, {
    method,
    headers: {
      ...headers,
      accept: post ? 'application/json, text/event-stream' : 'text/event-stream',
      ...(post ? { 'content-type': 'application/json' } : {}),
    },
    body: post ? INITIALIZE : undefined,
    signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
  });
  // A GET that still opens an event stream never ends: read no body, just drop it.
  await response.body?.cancel().catch(() => undefined);
  return { status: response.status, sessionId: response.headers.get('mcp-session-id') };
}

/** GET and DELETE → 405, no Mcp-Session-Id on any answer, a foreign Origin → 403. */
async function probeWire(
  endpoint: URL,
  headers: Record<string, string>,
): Promise<Pick<Probes, 'methods405' | 'noSessionId' | 'foreignOrigin403'>> {
  const answers: Record<string, Answer> = {};
  const methods405 = await probe('GET and DELETE', async () => {
    for (const method of ['GET', 'DELETE']) answers[method] = await request(endpoint, method, headers);
    const statuses = `GET ${answers.GET.status}, DELETE ${answers.DELETE.status}`;
    if (answers.GET.status !== 405 || answers.DELETE.status !== 405) throw new Error(statuses);
    return statuses;
  });
  const noSessionId = await probe('Mcp-Session-Id', async () => {
    answers.POST = await request(endpoint, 'POST', headers);
    if (answers.POST.status !== 200) throw new Error(`initialize answered ${answers.POST.status}`);
    const withId = Object.entries(answers).filter(([, answer]) => answer.sessionId !== null);
    if (withId.length > 0)
      throw new Error(`Mcp-Session-Id on ${withId.map(([method, answer]) => `${method} (${answer.sessionId})`).join(', ')}`);
    return 'no Mcp-Session-Id on POST, GET or DELETE';
  });
  const foreignOrigin403 = await probe('foreign Origin', async () => {
    const answer = await request(endpoint, 'POST', { ...headers, origin: 'http://evil.example' });
    if (answer.status !== 403) throw new Error(`Origin: http://evil.example answered ${answer.status}`);
    return 'Origin: http://evil.example → 403';
  });
  return { methods405, noSessionId, foreignOrigin403 };
}

/** Every probe of a migrated server; the v2 client only on the 2026-07-28 target. */
export async function probeMigrated(endpoint: URL, headers: Record<string, string>, tools: RecipeTool[], withV2: boolean): Promise<Probes> {
  const v1 = await probeV1(endpoint, headers, tools);
  const v2: StepResult = withV2 ? await probeV2(endpoint, headers, tools) : { status: 'n/a' };
  return { v1, v2, ...(await probeWire(endpoint, headers)) };
}
