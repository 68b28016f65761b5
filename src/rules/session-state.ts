// The session-state rule: words each fact the analysis finds about state a session kept (src/analysis/session-state).
import { Node } from 'ts-morph';
import type { Rule, RuleContext } from './rule';
import { packageServerPlan } from '../analysis/package-servers';
import { sessionStateFacts, type SessionStateFact } from '../analysis/session-state';

export const sessionState: Rule = {
  meta: {
    id: 'session-state',
    title: 'Tool behaviour that depends on per-session state',
    severity: 'warning',
    fix: 'unsafe',
    doc:
      'Without protocol sessions every request may reach a fresh server, so state keyed by `extra.sessionId`, state captured ' +
      'in a per-session server factory (or made there, or in the route handler of each connection, and handed to the function ' +
      'that registers the tools), state a prompt, resource or notification handler or a timer or listener the factory starts ' +
      'changes, fields and registrations a tool changes on the server built per session (or stores keyed by it or its ' +
      'transport, or collecting it), a server a ' +
      'package builds per session, what the client declared at `initialize` (read back by a tool; not under ' +
      "`createMcpHandler(…, { legacy: 'reject' })`, which fills it from every request), or an AsyncLocalStorage " +
      'context entered per session silently resets. Revision ' +
      '2026-07-28 replaces hidden session state with explicit handles: a `create_*`/`open_*` tool returns an unguessable ' +
      'handle that later calls pass as an ordinary argument (§ "Stateful Tools", SEP-2567).',
    hint: 'Mint a handle in an `open_*` tool and pass it as a tool argument; keep the state in a store keyed by handle with a bounded lifetime.',
    sources: ['spec 2026-07-28 server/tools.mdx § Stateful Tools', 'spec 2026-07-28 changelog.mdx § Major changes 1 (SEP-2567)'],
  },
  check(context) {
    if (!context.facts.importsMcp && context.facts.tools.length === 0) return;
    for (const fact of sessionStateFacts(context.facts, context.sourceFile)) reportFact(fact, context);
  },
};

type Report = RuleContext['report'];

/** One finding for a fact, in the words the rule has always used. */
function reportFact(fact: SessionStateFact, { facts, report }: RuleContext): void {
  switch (fact.kind) {
    case 'session-id-read':
    case 'session-id-destructured':
      return reportSessionIdRead(fact, report);
    case 'factory-resource':
      return report(
        fact.at,
        `Session state: \`${fact.at.getName()}\` is a resource made per session in the server factory (it has close()) and ${fact.user} uses it; without sessions each request gets a new one, and multi-step flows lose it.`,
        { data: { resource: true } },
      );
    case 'set-at-initialize':
      return report(
        fact.at,
        `Session state: \`${fact.at.getName()}\` is set when the session initializes (\`${fact.hook}\`) and ${fact.reader} reads it; without sessions a tool call reaches a fresh server that was never initialized, so it always sees its first value.`,
        { data: { clientInfo: true } },
      );
    case 'factory-local':
      return reportFactoryLocal(fact, report);
    case 'made-per-session':
      if (fact.what === 'conversation')
        return report(
          fact.at,
          `Session state: \`${fact.at.getName()}\` is a conversation the per-session server factory starts (\`${fact.made}\`) and ${fact.user} uses it; without sessions each request starts a new one, and what it kept is lost.`,
        );
      // (an endpoint that is already stateless drew it per request all along)
      if (facts.endpoints.length > 0 && facts.endpoints.every((plan) => plan.stateless)) return;
      return report(
        fact.at,
        `Session state: \`${fact.at.getName()}\` is drawn afresh in the per-session server factory (\`${fact.made}\`) and ${fact.user} reads it; without sessions every request draws a new one, so calls no longer agree on it.`,
        { data: { drawnPerSession: true } },
      );
    case 'background-state':
      return report(
        fact.at,
        `Session state: \`${fact.at.getName()}\` is changed by what the per-session server factory starts (\`${fact.starter}\`) and ${fact.reader} reads it; a fresh server per request starts it over, so the reader sees it as it began.`,
      );
    case 'handed-to-helper':
      return reportHandedState(fact, report);
    case 'servers-collected':
    case 'keyed-by-server':
    case 'server-field':
    case 'server-registration':
      return reportServerFact(fact, report);
    default:
      return reportOtherFact(fact, facts.relPath, report);
  }
}

/** State kept on or by the server built for each session. */
function reportServerFact(
  fact: Extract<SessionStateFact, { kind: 'servers-collected' | 'keyed-by-server' | 'server-field' | 'server-registration' }>,
  report: Report,
): void {
  switch (fact.kind) {
    case 'servers-collected':
      return report(
        fact.at,
        `Session state: \`${fact.at.getText().split('\n')[0]}\` keeps the server built for each session in \`${fact.store}\`, and ${fact.reader} reads it; without sessions a request's server is done once it answers, so \`${fact.store}\` holds only the servers of requests in flight.`,
        { data: { keyedByServer: fact.store } },
      );
    case 'keyed-by-server':
      return report(
        fact.at,
        `Session state: ${fact.tool} looks up \`${fact.store}\` by the server built for each session (\`${fact.at.getText().split('\n')[0]}\`); without sessions every request has a new server, and the lookup misses.`,
        { data: { keyedByServer: fact.store } },
      );
    case 'server-field':
      return report(
        fact.at,
        `Session state: \`${fact.at.getText()}\` is a field of the server built for each session, and ${fact.handler} changes it; a fresh server per request loses it.`,
        { data: { inInstance: 'McpServer' } },
      );
    case 'server-registration':
      return report(
        fact.at,
        `Session state: ${fact.handler} changes what the server built for each session offers (\`${fact.at.getText().split('\n')[0]}\`; ${fact.what}); without sessions every request reaches a fresh server as the factory built it, and the change is lost.`,
        { data: { inInstance: 'McpServer' } },
      );
  }
}

function reportFactoryLocal(fact: Extract<SessionStateFact, { kind: 'factory-local' }>, report: Report): void {
  const options = fact.nestedBlock ? { data: { nestedBlock: true } } : undefined;
  if (fact.destructured) {
    const names = fact.destructured.map((n) => `\`${n}\``).join(', ');
    const verb = fact.destructured.length > 1 ? 'are' : 'is';
    return report(
      fact.at,
      `Session state: ${names}, destructured in the per-session server factory (\`${fact.at.getText().split('\n')[0]}\`), ${verb} what ${fact.changedIn} changes; a fresh server per request loses it.`,
      options,
    );
  }
  report(
    fact.at,
    `Session state: \`${fact.at.getName()}\` lives in the per-session server factory and ${fact.changedIn} changes it; a fresh server per request loses it.`,
    options,
  );
}

function reportSessionIdRead(
  fact: Extract<SessionStateFact, { kind: 'session-id-read' | 'session-id-destructured' }>,
  report: Report,
): void {
  const { at } = fact;
  if (fact.kind === 'session-id-destructured') {
    const from = fact.from ? `\`${fact.from}\`` : 'its context';
    return report(at, `Session state: the tool destructures \`sessionId\` from ${from}, which is undefined once sessions are gone.`);
  }
  if (fact.carried)
    return report(
      at,
      `Session state: the tool reads \`${at.getText()}\` to look up credentials each request carries again; the endpoint migration reads them from the request instead.`,
      { data: { endpoint: fact.carried } },
    );
  if (fact.filled)
    return report(
      at,
      `Session state: the tool reads \`${at.getText()}\`, which is undefined once sessions are gone, to look up \`${fact.filled.store}\`, which is filled when a session starts (\`${fact.filled.fill}\`): every lookup misses.`,
      { data: { filledAtSessionStart: fact.filled.store } },
    );
  report(at, `Session state: the tool reads \`${at.getText()}\`, which is undefined once sessions are gone.`);
}

function reportHandedState(fact: Extract<SessionStateFact, { kind: 'handed-to-helper' }>, report: Report): void {
  const { at } = fact;
  const what = Node.isVariableDeclaration(at) ? at.getName() : at.getText().split('\n')[0];
  const made = fact.perRequest ? 'made for each connection or request' : 'made for each server the factory builds';
  report(
    at,
    `Session state: \`${what}\` is ${made} and handed to \`${fact.helper}\`, where ${fact.changedIn} changes it; a fresh server per request loses it.`,
    { data: { handedTo: fact.helper } },
  );
}

function reportOtherFact(fact: SessionStateFact, relPath: string, report: Report): void {
  switch (fact.kind) {
    case 'fastmcp-session':
      // Stateless, fastmcp authenticates every request again, so what a tool changes on the session is gone by the next call.
      return report(
        fact.at,
        `Session state: tool \`${fact.tool}\` changes \`${fact.at.getText()}\`, the object fastmcp's \`authenticate\` returned for the session; stateless, fastmcp authenticates every request again and the change is gone by the next call.`,
        { data: { frameworkSession: 'fastmcp' } },
      );
    case 'client-info-read':
      return report(
        fact.at,
        `Session state: ${fact.reader} reads \`${fact.at.getText()}\`, which the server learns at \`initialize\`; without sessions a tool call from a 2025-era client reaches a fresh server that never saw it, and it is undefined (2026-07-28 clients declare it with every request).`,
        { data: { clientInfo: true } },
      );
    case 'instance-field':
      return report(
        fact.at,
        `Session state: \`${fact.name}\` lives in each \`${fact.className}\`, made per connection (\`${fact.made.getText().split('\n')[0]}\`), and tool \`${fact.tool}\` changes it; a fresh server per request loses it.`,
        { data: { inInstance: fact.className } },
      );
    case 'per-session-endpoint':
      return report(
        fact.at,
        `Session state: \`${fact.at.getText().split('\n')[0]}\` creates state per session (a store or manager keyed by the session id); without sessions every request starts without it, and tools that look it up by session lose it.`,
        // The endpoint's own marker already stands there.
        { data: { endpoint: fact.plan } },
      );
    case 'package-server':
      return report(
        fact.at,
        `Session state: \`${fact.found.factory}()\` from \`${fact.found.module}\` builds a server per connection, with whatever it owns (a browser, a client); without sessions each request gets a new one, and multi-step flows lose it.`,
        { data: { packageServer: packageServerPlan(fact.found, relPath) } },
      );
    case 'async-local-storage':
      return report(fact.at, 'Session state: an AsyncLocalStorage context is entered per request/session and read by tools.', {
        fix: 'manual',
      });
  }
}
