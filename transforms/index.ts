// The transform pipeline, in the order it runs. Each entry is a jscodeshift transform module that also runs
// under the plain `jscodeshift -t transforms/<id>.ts` CLI.
import type { API, FileInfo } from 'jscodeshift';
import type { FixKind } from '../src/model';
import type { TransformOptions } from './lib/context';
import stdioBridge, * as bridgeMeta from './stdio-bridge';
import migrateEndpoint, * as endpointMeta from './migrate-endpoint';
import fastmcpStateless, * as fastmcpMeta from './fastmcp-stateless';
import mcpFrameworkStateless, * as mcpFrameworkMeta from './mcp-framework-stateless';
import mcpNestStateless, * as mcpNestMeta from './mcp-nest-stateless';
import fastifyMcpStateless, * as fastifyMcpMeta from './fastify-mcp-stateless';
import agentsHandler, * as agentsMeta from './agents-handler';
import mcpHandlerNoSse, * as mcpHandlerMeta from './mcp-handler-no-sse';
import mcpHandlerOriginGuard, * as mcpHandlerGuardMeta from './mcp-handler-origin-guard';
import bindLocalhost, * as bindMeta from './bind-localhost';
import idempotencyHints, * as hintsMeta from './idempotency-hints';
import packageServerHandles, * as packageServerMeta from './package-server-handles';
import sessionHandles, * as handlesMeta from './session-handles';
import lowLevelHandles, * as lowLevelMeta from './low-level-handles';

export interface TransformModule {
  id: string;
  /** Rule ids whose findings drive it. */
  rules: string[];
  /** `unsafe` transforms run only with --unsafe. */
  level: Exclude<FixKind, 'none' | 'manual'>;
  /** Targets it runs for (default: every target). */
  targets?: string[];
  /** It carries out endpoint plans: it also runs on files a plan touches where no finding of its rules stands. */
  plans?: boolean;
  /**
   * The package versions the code it writes needs: in a file where that code stands (`uses` matches), each owning
   * package.json that lists `name` below `floor` gets `range`.
   */
  requires?: {
    uses: RegExp;
    /**
     * `undeclared`: also added at `range` when the package's files import it and its package.json does not name it
     * (a package reached through hoisting, which the raised ones would hoist at another major).
     */
    packages: Array<{ name: string; floor: string; range: string; why: string; undeclared?: boolean }>;
  };
  /** What the report tells a human about every file it changed, at the first line `anchor` matches there. */
  note?: { message: string; anchor: RegExp };
  run(file: FileInfo, api: API, options: TransformOptions): string | undefined | null;
}

export const transforms: readonly TransformModule[] = [
  // First: whether the server is local (it binds loopback) decides how later transforms validate Host.
  { id: bindMeta.id, rules: bindMeta.rules, level: 'unsafe', run: bindLocalhost },
  // A stdio bridge that hands raw messages to one child becomes an ordinary server forwarding to it.
  { id: bridgeMeta.id, rules: bridgeMeta.rules, level: 'auto', plans: true, run: stdioBridge },
  // Before the endpoint: a low-level server's per-session state moves behind handles, so the endpoint can go stateless.
  { id: lowLevelMeta.id, rules: lowLevelMeta.rules, level: 'unsafe', run: lowLevelHandles },
  // Every MCP endpoint, whole or not at all, from the analysis's plan: in place, guarded, on the target's SDK.
  { id: endpointMeta.id, rules: endpointMeta.rules, level: 'auto', plans: true, run: migrateEndpoint },
  // Servers built on MCP frameworks: their own transport options, from the plans the analysis put on the findings.
  {
    id: fastmcpMeta.id,
    rules: fastmcpMeta.rules,
    level: 'auto',
    requires: fastmcpMeta.requires,
    note: fastmcpMeta.note,
    run: fastmcpStateless,
  },
  {
    id: mcpFrameworkMeta.id,
    rules: mcpFrameworkMeta.rules,
    level: 'auto',
    requires: mcpFrameworkMeta.requires,
    run: mcpFrameworkStateless,
  },
  {
    id: agentsMeta.id,
    rules: agentsMeta.rules,
    level: 'auto',
    requires: agentsMeta.requires,
    note: agentsMeta.note,
    run: agentsHandler,
  },
  {
    id: mcpHandlerMeta.id,
    rules: mcpHandlerMeta.rules,
    level: 'auto',
    requires: mcpHandlerMeta.requires,
    run: mcpHandlerNoSse,
  },
  { id: mcpNestMeta.id, rules: mcpNestMeta.rules, level: 'auto', run: mcpNestStateless },
  { id: fastifyMcpMeta.id, rules: fastifyMcpMeta.rules, level: 'auto', run: fastifyMcpStateless },
  // …and mcp-handler's handler, which checks no Origin, behind a check where it is created.
  { id: mcpHandlerGuardMeta.id, rules: mcpHandlerGuardMeta.rules, level: 'auto', run: mcpHandlerOriginGuard },
  // A server a package builds per session: a handle owns one, behind a server per request that forwards to it.
  { id: packageServerMeta.id, rules: packageServerMeta.rules, level: 'unsafe', run: packageServerHandles },
  { id: handlesMeta.id, rules: handlesMeta.rules, level: 'unsafe', run: sessionHandles },
  { id: hintsMeta.id, rules: hintsMeta.rules, level: 'auto', run: idempotencyHints },
];
