/**
 * mark-leftovers — runs last, on findings the other transforms were expected to fix but did not (a shape they do
 * not recognise), and on session state a server that lost its protocol sessions still keeps. Each gets a `/* mcp-migrate: <rule-id>: … *\/` marker in the same run, so `check` keeps failing
 * on it and a second `apply` has nothing left to add (every run is idempotent).
 */
import type { API, FileInfo } from 'jscodeshift';
import { createContext, print, type TransformOptions } from './lib/context';
import { addMarker } from './lib/markers';
import type { Finding } from '../src/model';

export const id = 'mark-leftovers';
export const parser = 'tsx';

export default function transform(file: FileInfo, api: API, options: TransformOptions = {}): string | undefined {
  const ruleIds = [...new Set((options.findings ?? []).map((f) => f.ruleId))];
  const context = createContext(file, api, options, ruleIds);
  let changed = false;
  for (const finding of context.findings) changed = addMarker(context, finding.line, finding.ruleId, markerText(finding)) || changed;
  return changed ? print(context) : undefined;
}

function markerText(finding: Finding): string {
  if (finding.ruleId === 'session-state' && finding.data?.clientInfo) {
    const what = finding.message.replace(/^Session state: /, '');
    return `${what} Behaviour changes silently: ${CLIENT_INFO_RECIPE}`;
  }
  if (finding.ruleId === 'session-state') {
    const what = finding.message.replace(/^Session state: /, '');
    return `${what} Behaviour changes silently until it moves behind an explicit handle: ${HANDLE_RECIPE}`;
  }
  const leftover = finding.data?.leftover;
  if (typeof leftover === 'string') return leftover;
  return `not migrated automatically (a shape mcp-migrate does not rewrite): ${finding.hint ?? 'migrate this by hand'}`;
}

/** What every session-state marker asks for (apply --unsafe writes it where the shape allows). */
const HANDLE_RECIPE =
  'an `open_session` tool mints a random handle (randomUUID) and creates the state; each stateful tool takes it as a required ' +
  '`session_handle` argument and looks the state up by it (an unknown handle is an isError result naming open_session); ' +
  'the store evicts handles after a TTL and past a size cap, closing what they own (apply --unsafe does this where it can).';

/** What a marker on client information learnt at `initialize` asks for (a handle does not bring it back). */
const CLIENT_INFO_RECIPE =
  "read what the client declared from the request it sends (the v2 SDK's `ctx.mcpReq.envelope` on 2026-07-28), or make the tool " +
  'work without it (try sampling or elicitation and handle the error); on 2025-11-25 a stateless server never learns it.';
