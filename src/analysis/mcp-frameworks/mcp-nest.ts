// @rekog/mcp-nest: a NestJS module, `McpModule.forRoot({ name, version, transport, streamableHttp, … })`, that mounts
// the MCP controllers itself. `transport` lists what it serves; without it, 1.x serves HTTP+SSE (`/sse`, `/messages`),
// Streamable HTTP (`/mcp`) and stdio (1.5.2 to 1.9.11 `dist/mcp/mcp.module.js`, `defaultOptions`). Streamable HTTP is
// stateless by default, but the options merge shallowly: a written `streamableHttp` without `statelessMode: true`
// keeps a session per client. 2.x is built on the v2 SDK. The plan says what the stateless options keep.
import { Node, type CallExpression, type ObjectLiteralExpression } from 'ts-morph';
import type { FileFacts } from '../file-facts';
import { objectOf, positionOf, propertyOf, type Position } from './options';

/** `McpTransportType`'s members, by the value each stands for. */
const MEMBERS: Record<string, string> = { sse: 'SSE', 'streamable-http': 'STREAMABLE_HTTP', stdio: 'STDIO' };
/** What `forRoot` serves when the options name no `transport`. */
const DEFAULT_TRANSPORTS = ['SSE', 'STREAMABLE_HTTP', 'STDIO'];

export interface McpNestPlan {
  /** The options object of `McpModule.forRoot(…)`. */
  options: Position;
  /** It serves HTTP+SSE: `transport` lists SSE, or is not written (the default list has it). */
  sse: boolean;
  /** Its Streamable HTTP keeps sessions: `streamableHttp` is written without `statelessMode: true`. */
  sessions: boolean;
  /** The `McpTransportType` members the stateless options list (SSE out, Streamable HTTP in), when `sse`. */
  transports: string[];
  /**
   * `transport: opts.stdio ? McpTransportType.STDIO : McpTransportType.SSE`: the test as written and the stateless
   * members of each branch (a branch without SSE keeps its own).
   */
  choice?: { test: string; whenTrue: string[]; whenFalse: string[] };
  /** Why the options cannot be rewritten (a variable, a spread, a transport that is not a member), for the marker. */
  opaque?: string;
  /** The `guards` the options list, as written (the Origin guard goes first), or why they cannot be extended. */
  guards: string[] | 'opaque';
  /** The file is JavaScript: no Nest guard class is written for it (decorators need TypeScript). */
  javascript: boolean;
}

/** The plan for `McpModule.forRoot(…)` from @rekog/mcp-nest when it serves HTTP (SSE, Streamable HTTP or both). */
export function mcpNestPlan(call: CallExpression, facts: FileFacts): McpNestPlan | undefined {
  const callee = call.getExpression();
  if (!Node.isPropertyAccessExpression(callee) || callee.getName() !== 'forRoot') return undefined;
  if (!facts.is(callee.getExpression(), 'McpNestModule')) return undefined;
  const [options] = call.getArguments();
  if (!options) return undefined;
  const javascript = /\.[cm]?jsx?$/.test(call.getSourceFile().getFilePath());
  const opaque = (why: string): McpNestPlan => ({
    options: positionOf(options),
    sse: true,
    sessions: false,
    transports: [],
    opaque: why,
    guards: 'opaque',
    javascript,
  });
  if (!Node.isObjectLiteralExpression(options)) return opaque('its options are not an object literal');
  if (options.getProperties().some((p) => Node.isSpreadAssignment(p))) return opaque('its options spread another object');
  const branches = transportBranches(options);
  if (typeof branches === 'string') return opaque(branches);
  const listed = branches.lists.flat();
  const sse = listed.includes('SSE');
  const sessions = listed.includes('STREAMABLE_HTTP') && keepsSessions(options);
  if (sessions === undefined) return opaque('its `streamableHttp` options are not an object literal');
  if (!sse && !listed.includes('STREAMABLE_HTTP')) return undefined;
  const [whenTrue, whenFalse] = branches.lists.map((list) => (list.includes('SSE') ? statelessMembers(list) : list));
  return {
    options: positionOf(options),
    sse,
    sessions,
    transports: statelessMembers(listed.filter((member, i) => listed.indexOf(member) === i)),
    ...(branches.test !== undefined ? { choice: { test: branches.test, whenTrue, whenFalse } } : {}),
    guards: guardsOf(options),
    javascript,
  };
}

/** The members a stateless module lists instead: SSE out, Streamable HTTP in, the others kept. */
function statelessMembers(listed: string[]): string[] {
  const kept = listed.filter((member) => member !== 'SSE');
  return kept.includes('STREAMABLE_HTTP') ? kept : ['STREAMABLE_HTTP', ...kept];
}

/**
 * The members `transport` lists: one list, or one per branch of a conditional (`cond ? A : B`, each a member or an
 * array of members), with the test as written; or why they cannot be read.
 */
function transportBranches(options: ObjectLiteralExpression): { lists: string[][]; test?: string } | string {
  const property = options.getProperty('transport');
  if (!property) return { lists: [DEFAULT_TRANSPORTS] };
  if (!Node.isPropertyAssignment(property)) return '`transport` is not written as `transport: …`';
  let value = property.getInitializerOrThrow();
  while (Node.isParenthesizedExpression(value)) value = value.getExpression();
  if (!Node.isConditionalExpression(value)) {
    const members = membersOf(value);
    return typeof members === 'string' ? members : { lists: [members] };
  }
  const lists = [value.getWhenTrue(), value.getWhenFalse()].map(membersOf);
  const unreadable = lists.find((list): list is string => typeof list === 'string');
  return unreadable ?? { lists: lists as string[][], test: value.getCondition().getText() };
}

/** The guards the options list, each as written; `opaque` when `guards` is not an array literal. */
function guardsOf(options: ObjectLiteralExpression): string[] | 'opaque' {
  const property = options.getProperty('guards');
  if (!property) return [];
  const value = Node.isPropertyAssignment(property) ? property.getInitializer() : undefined;
  if (!value || !Node.isArrayLiteralExpression(value)) return 'opaque';
  return value.getElements().map((element) => element.getText());
}

/** The members one `transport` value lists (a member or an array of them), or why they cannot be read. */
function membersOf(value: Node): string[] | string {
  while (Node.isParenthesizedExpression(value)) value = value.getExpression();
  const items = Node.isArrayLiteralExpression(value) ? value.getElements() : [value];
  const members: string[] = [];
  for (const item of items) {
    const member = memberOf(item);
    if (!member) return `\`transport\` lists \`${item.getText()}\`, which is not a \`McpTransportType\` member`;
    members.push(member);
  }
  return members;
}

/** `McpTransportType.SSE` (or the `'sse'` it stands for) → `SSE`. */
function memberOf(node: Node): string | undefined {
  if (Node.isStringLiteral(node)) return MEMBERS[node.getLiteralValue()];
  if (!Node.isPropertyAccessExpression(node)) return undefined;
  const name = node.getName();
  return Object.values(MEMBERS).includes(name) && node.getExpression().getText().endsWith('McpTransportType') ? name : undefined;
}

/** `streamableHttp: { … }` written without `statelessMode: true`; undefined when it is not a literal. */
function keepsSessions(options: ObjectLiteralExpression): boolean | undefined {
  if (!options.getProperty('streamableHttp')) return false;
  const streamable = objectOf(options, 'streamableHttp');
  if (!streamable) return undefined;
  return propertyOf(streamable, 'statelessMode')?.getInitializer()?.getText() !== 'true';
}
