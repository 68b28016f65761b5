// State a session kept, as the analysis finds it in one file: every place a tool would silently lose it once each
// request may reach a fresh server (see ./model). The session-state rule words these facts.
import { nodesOfKind } from '../node-index';
import { Node, SyntaxKind, type CallExpression, type SourceFile } from 'ts-morph';
import type { FileFacts } from '../file-facts';
import { routeContextsOf } from '../routes';
import { packageServerFactories } from '../package-servers';
import { clientInfoReads } from './client-info';
import { sessionIdReads } from './context-reads';
import { factoryStateFacts } from './factory-state';
import { fastmcpSessionChanges } from './fastmcp-session';
import { stateHandedPerRequest } from './handed-state';
import { stateHandlers } from './handlers';
import { instanceStateChangedByTools } from './instances';
import type { SessionStateFact } from './model';

export type { SessionStateFact } from './model';

/** Every session-state fact of the file, in the order the rule reports them. */
export function sessionStateFacts(facts: FileFacts, sourceFile: SourceFile): SessionStateFact[] {
  const mutators = stateHandlers(facts.tools, sourceFile, facts);
  const found: SessionStateFact[] = [...sessionIdReads(facts, sourceFile), ...factoryStateFacts(facts, sourceFile, mutators)];
  for (const { at, tool } of fastmcpSessionChanges(facts.tools)) found.push({ kind: 'fastmcp-session', at, tool });
  for (const { call, reader } of clientInfoReads(mutators)) found.push({ kind: 'client-info-read', at: call, reader });
  for (const handed of stateHandedPerRequest(facts, sourceFile, mutators))
    found.push({ kind: 'handed-to-helper', at: handed.made, helper: handed.helper, changedIn: handed.mutatedIn, perRequest: true });
  for (const kept of instanceStateChangedByTools(facts.tools))
    found.push({ kind: 'instance-field', at: kept.field, name: kept.name, className: kept.className, made: kept.made, tool: kept.tool });
  found.push(...perSessionEndpoints(facts));
  for (const call of packageServerFactories(facts, sourceFile)) found.push({ kind: 'package-server', at: call.call, found: call });
  for (const call of asyncLocalStorageRuns(sourceFile)) found.push({ kind: 'async-local-storage', at: call });
  return found;
}

/** Endpoints kept because a call hands the session id to state (`sessionManager.create(id)`): where they say so. */
function perSessionEndpoints(facts: FileFacts): SessionStateFact[] {
  const found: SessionStateFact[] = [];
  for (const plan of facts.endpoints) {
    const { verdict } = plan;
    if (verdict.migratable || verdict.at.file !== facts.relPath || !/keeps state per session/.test(verdict.reason)) continue;
    const at = facts.nodeAt(verdict.at);
    if (at) found.push({ kind: 'per-session-endpoint', at, plan });
  }
  return found;
}

/** `storage.run(…)` of an AsyncLocalStorage, entered in a route (per request or session). */
function asyncLocalStorageRuns(sourceFile: SourceFile): CallExpression[] {
  const found: CallExpression[] = [];
  for (const call of nodesOfKind(sourceFile, SyntaxKind.CallExpression)) {
    const callee = call.getExpression();
    if (!Node.isPropertyAccessExpression(callee) || callee.getName() !== 'run') continue;
    const storage = callee.getExpression();
    const declaration = storage.getSymbol()?.getDeclarations()[0];
    const init = declaration && Node.isVariableDeclaration(declaration) ? declaration.getInitializer() : undefined;
    if (!init || !/^new\s+(?:[\w$]+\.)?AsyncLocalStorage\b/.test(init.getText())) continue;
    if (routeContextsOf(call).length > 0) found.push(call);
  }
  return found;
}
