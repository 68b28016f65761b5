// Factory state that code the factory starts for each session changes later — a timer, an event listener, a promise
// callback — and a handler reads: a fresh server per request starts it over, and a tool always sees it as it began.
import { Node, type CallExpression, type VariableDeclaration } from 'ts-morph';
import { isFunctionNode, type FunctionNode } from '../endpoints/spans';
import { changedAt } from '../state-changes';
import { usesOfVariable } from '../node-index';
import type { StateHandler } from './handlers';

/** Calls whose callbacks run later than the call: timers, listeners, promise reactions, subscriptions. */
const LATER = /^(?:setInterval|setTimeout|setImmediate|on|once|addListener|addEventListener|then|catch|finally|subscribe|watch)$/;

/** The variable is changed in a callback the factory hands to a timer, listener or promise, and a handler reads it. */
export function changedInBackground(
  variable: VariableDeclaration,
  factory: FunctionNode,
  handlers: readonly StateHandler[],
): { starter: string; reader: string } | undefined {
  const references = usesOfVariable(variable, factory);
  if (!references) return undefined;
  const starter = references.map((id) => (changedAt(id) ? laterCallback(id, factory) : undefined)).find((call) => !!call);
  if (!starter) return undefined;
  const reader = handlers.find(
    ({ handler }) => !!handler && references.some((id) => handler.containsRange(id.getPos(), id.getEnd()) && !changedAt(id)),
  );
  return reader ? { starter: `${starter.getExpression().getText()}(…)`, reader: reader.name } : undefined;
}

/** The timer, listener or promise call (inside the factory) whose callback `node` runs in. */
function laterCallback(node: Node, factory: FunctionNode): CallExpression | undefined {
  for (const fn of node.getAncestors()) {
    if (fn === factory) return undefined;
    const call = fn.getParent();
    if (!isFunctionNode(fn) || !Node.isCallExpression(call) || !call.getArguments().includes(fn)) continue;
    const callee = call.getExpression();
    const name = Node.isPropertyAccessExpression(callee) ? callee.getName() : callee.getText();
    if (LATER.test(name)) return call;
  }
  return undefined;
}
