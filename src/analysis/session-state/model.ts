// What the analysis finds about state a session kept: one fact per place a tool would silently lose it once every
// request may reach a fresh server. The session-state rule words each one.
import type { CallExpression, Node, VariableDeclaration } from 'ts-morph';
import type { EndpointPlan } from '../endpoints/model';
import type { PackageServerCall } from '../package-servers';

export type SessionStateFact =
  /** `extra.sessionId` (or a transport's) read in a tool; `carried` when the endpoint migration reads the credentials it keys, `filled` when it looks up a store filled at session start. */
  | { kind: 'session-id-read'; at: Node; carried?: EndpointPlan; filled?: { store: string; fill: string } }
  /** `const { sessionId } = extra` (`from` names the context) or `async (args, { sessionId }) => …`. */
  | { kind: 'session-id-destructured'; at: Node; from?: string }
  /** A resource (it has close()) made in the per-session factory and used by `user`. */
  | { kind: 'factory-resource'; at: VariableDeclaration; user: string }
  /** A factory variable only the initialize hook sets, read by `reader`. */
  | { kind: 'set-at-initialize'; at: VariableDeclaration; hook: string; reader: string }
  /** A factory variable a handler changes (`destructured`: the names of a destructuring declaration it changes). */
  | { kind: 'factory-local'; at: VariableDeclaration; changedIn: string; nestedBlock: boolean; destructured?: string[] }
  /** A factory variable a timer, listener or promise callback the factory starts (`starter`) changes, read by `reader`. */
  | { kind: 'background-state'; at: VariableDeclaration; starter: string; reader: string }
  /** The server built per session put into a collection outside the factory (`store`) that `reader` reads. */
  | { kind: 'servers-collected'; at: CallExpression; store: string; reader: string }
  /** A factory value different for each session (a conversation a package keeps, a value drawn afresh) that `user` uses. */
  | { kind: 'made-per-session'; at: VariableDeclaration; what: 'conversation' | 'drawn'; made: string; user: string }
  /** A store looked up by the server the factory built. */
  | { kind: 'keyed-by-server'; at: CallExpression; store: string; tool: string }
  /** A value made per server (`perRequest`: per request or connection) handed to `helper`, whose tools change it. */
  | { kind: 'handed-to-helper'; at: Node; helper: string; changedIn: string; perRequest: boolean }
  /** A field the project adds to the server built per session (`server.history`), changed by `handler`. */
  | { kind: 'server-field'; at: Node; handler: string }
  /** A tool, prompt or resource of the session's server that `handler` registers or switches (`admin.enable()`). */
  | { kind: 'server-registration'; at: Node; handler: string; what: string }
  /** fastmcp's `context.session` changed by a tool. */
  | { kind: 'fastmcp-session'; at: Node; tool: string }
  /** `getClientCapabilities()` / `getClientVersion()` read by `reader`. */
  | { kind: 'client-info-read'; at: CallExpression; reader: string }
  /** A field of a class instantiated per connection that `tool` changes. */
  | { kind: 'instance-field'; at: Node; name: string; className: string; made: Node; tool: string }
  /** An endpoint kept as it was because it hands the session id to state (`sessionManager.create(id)`). */
  | { kind: 'per-session-endpoint'; at: Node; plan: EndpointPlan }
  /** A server a package builds per connection. */
  | { kind: 'package-server'; at: CallExpression; found: PackageServerCall }
  /** An AsyncLocalStorage context entered per request or session. */
  | { kind: 'async-local-storage'; at: CallExpression };
