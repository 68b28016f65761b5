// What the v2 fix-ups share: the local names a module's exports are bound to in a file (ESM imports and top-level
// CommonJS requires), for transforms that must only touch calls on the real import.
import type { TransformContext } from '../lib/context';
import type { AnyNode } from '../lib/ast';

export interface ModuleBindings {
  /** `import * as z from 'zod'`, `import z from 'zod'`, `const z = require('zod')`. */
  namespaces: Set<string>;
  /** Named imports by imported name → local name (`import { z } from 'zod'` → z → z). */
  named: Map<string, string>;
}

/** How a file binds `modules` (equivalent specifiers, e.g. `zod` and `zod/v4`). */
export function moduleBindings(context: TransformContext, modules: string[]): ModuleBindings {
  const { j, root } = context;
  const bindings: ModuleBindings = { namespaces: new Set(), named: new Map() };
  root.find(j.ImportDeclaration).forEach((p) => {
    if (!modules.includes(p.node.source.value as string) || p.node.importKind === 'type') return;
    for (const specifier of (p.node.specifiers ?? []) as unknown as AnyNode[]) {
      const local = (specifier.local as AnyNode).name as string;
      if (specifier.type === 'ImportSpecifier' && specifier.importKind !== 'type')
        bindings.named.set((specifier.imported as AnyNode).name as string, local);
      else if (specifier.type === 'ImportNamespaceSpecifier' || specifier.type === 'ImportDefaultSpecifier') bindings.namespaces.add(local);
    }
  });
  root.find(j.VariableDeclarator).forEach((p) => {
    const init = p.node.init as unknown as AnyNode | null;
    if (!init || init.type !== 'CallExpression') return;
    const callee = init.callee as AnyNode;
    const [argument] = init.arguments as AnyNode[];
    if (callee.type !== 'Identifier' || callee.name !== 'require' || !argument || !modules.includes(argument.value as string)) return;
    const id = p.node.id as unknown as AnyNode;
    if (id.type === 'Identifier') bindings.namespaces.add(id.name as string);
    if (id.type !== 'ObjectPattern') return;
    for (const property of id.properties as AnyNode[]) {
      const key = (property.key as AnyNode | undefined)?.name as string | undefined;
      const value = (property.value as AnyNode | undefined)?.name as string | undefined;
      if (key) bindings.named.set(key, value ?? key);
    }
  });
  return bindings;
}

/** The zod entry points whose `z` is the zod 4 API once zod 4 is installed. */
export const ZOD_MODULES = ['zod', 'zod/v4'];

/** Local names that reach zod's `z` namespace in this file (`z` from `import { z }`, or the namespace itself). */
export function zodNamespaces(context: TransformContext): Set<string> {
  const bindings = moduleBindings(context, ZOD_MODULES);
  const names = new Set(bindings.namespaces);
  const z = bindings.named.get('z');
  if (z) names.add(z);
  return names;
}

/** v1 context field → [v2 group (none: the context itself), v2 field]: the codemod's own map. `http` may be absent. */
export const V2_CONTEXT_PLACES: Record<string, [group: 'mcpReq' | 'http' | undefined, field: string]> = {
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

/** Local names of v2's `ServerContext` type, imported from a v2 package (`import { type ServerContext as Ctx }`). */
export function v2ContextTypes(context: TransformContext): Set<string> {
  const { j, root } = context;
  const names = new Set<string>();
  root.find(j.ImportDeclaration).forEach((p) => {
    if (!String(p.node.source.value).startsWith('@modelcontextprotocol/')) return;
    for (const specifier of (p.node.specifiers ?? []) as unknown as AnyNode[]) {
      if (specifier.type === 'ImportSpecifier' && (specifier.imported as AnyNode).name === 'ServerContext')
        names.add((specifier.local as AnyNode).name as string);
    }
  });
  return names;
}
