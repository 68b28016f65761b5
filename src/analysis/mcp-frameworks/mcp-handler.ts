// mcp-handler (Vercel; published as @vercel/mcp-adapter before 1.0): `createMcpHandler(initialize, serverOptions,
// config)` returns a Web `(Request) => Response` handler, mounted on a Next.js route (`app/[transport]/route.ts`) or
// any fetch runtime. 1.x serves Streamable HTTP statelessly and, unless `config.disableSse` is true, the HTTP+SSE
// transport at `${basePath}/sse` and `/message` (through Redis). 2.x is built on the v2 SDK and has neither SSE nor
// `config` (its README, "Migrating from 1.x"). The plan says where `disableSse: true` goes.
import semver from 'semver';
import { Node, SyntaxKind, type CallExpression } from 'ts-morph';
import type { FileFacts } from '../file-facts';
import { declaredRange } from '../sdk-version';
import { mcpHandlerPackageOf, type MCP_HANDLER_PACKAGES } from '../sdk-modules';
import { positionOf, propertyOf, type Position } from './options';

export interface McpHandlerPlan {
  /** The package the handler comes from: `@vercel/mcp-adapter` 0.x has no `disableSse`; its 1.0 re-exports mcp-handler 1.x, which has. */
  package: (typeof MCP_HANDLER_PACKAGES)[number];
  /** The `createMcpHandler(…)` call. */
  call: Position;
  /** How many arguments it is written with (the config is the third). */
  args: number;
  /**
   * The config: an object literal `disableSse: true` can go in (`literal`; a `disableSse` written with another value is
   * replaced), none yet (`absent`: a third argument is added), or anything else (`opaque`: a variable, a spread).
   */
  config: 'literal' | 'absent' | 'opaque';
}

/** The plans of the file's `createMcpHandler` calls that serve HTTP+SSE (mcp-handler 1.x without `disableSse: true`). */
export function mcpHandlerPlans(facts: FileFacts): Array<{ call: CallExpression; plan: McpHandlerPlan }> {
  return facts
    .functionCalls('mcpHandlerPackage', 'createMcpHandler')
    .flatMap((call): Array<{ call: CallExpression; plan: McpHandlerPlan }> => {
      const origin = facts.origin(call.getExpression());
      const pkg = origin && mcpHandlerPackageOf(origin.module);
      if (!pkg || (pkg === 'mcp-handler' && onVersion2(call))) return [];
      const args = call.getArguments();
      const config = args[2];
      if (config && Node.isObjectLiteralExpression(config)) {
        if (config.getProperties().some((p) => p.getKind() === SyntaxKind.SpreadAssignment)) return [opaque(call, pkg, args.length)];
        if (propertyOf(config, 'disableSse')?.getInitializer()?.getText() === 'true') return [];
        return [{ call, plan: { package: pkg, call: positionOf(call), args: args.length, config: 'literal' } }];
      }
      if (config || args.length < 1) return [opaque(call, pkg, args.length)];
      return [{ call, plan: { package: pkg, call: positionOf(call), args: args.length, config: 'absent' } }];
    });
}

function opaque(call: CallExpression, pkg: McpHandlerPlan['package'], args: number): { call: CallExpression; plan: McpHandlerPlan } {
  return { call, plan: { package: pkg, call: positionOf(call), args, config: 'opaque' } };
}

/** The project declares mcp-handler 2 or later (no SSE, no config). */
function onVersion2(call: CallExpression): boolean {
  const range = declaredRange(call.getSourceFile().getFilePath(), 'mcp-handler');
  const floor = range && semver.validRange(range) ? semver.minVersion(range) : null;
  return !!floor && floor.major >= 2;
}
