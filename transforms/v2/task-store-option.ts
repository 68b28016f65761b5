/**
 * task-store-option — v2 removed the experimental tasks runtime (SEP-2663, no replacement): `new McpServer(info,
 * { taskStore: new InMemoryTaskStore() })` fails (TS2353: 'taskStore' does not exist in type 'McpServerOptions') and
 * its import from `@modelcontextprotocol/sdk/experimental/tasks/…` names a package the v2 manifest no longer has. The
 * codemod marks both. Where the store only served that option (built in place, or a variable nothing else reads),
 * the option, the store and the import go, with the codemod's markers; a store the code also uses (tasks created,
 * listed, cancelled by hand) is left for a human, and the type-check keeps the project on 2025-11-25.
 */
import type { API, FileInfo } from 'jscodeshift';
import { createContext, print, type TransformOptions } from '../lib/context';
import { referencedNames, type AnyNode } from '../lib/ast';
import { removeDeadDeclarations } from '../lib/dead-code';
import { inlinePlaceholder } from '../lib/emit';
import { withoutProperties } from '../lib/source-edit';

export const id = 'task-store-option';

const TASK_OPTIONS = new Set(['taskStore', 'taskMessageQueue']);
const TASKS_MODULE = '@modelcontextprotocol/sdk/experimental/tasks';
const SERVER_CLASSES = new Set(['McpServer', 'Server']);

export function mayApply(text: string): boolean {
  return text.includes(TASKS_MODULE) || /\btask(?:Store|MessageQueue)\b/.test(text);
}

export default function transform(file: FileInfo, api: API, options: TransformOptions = {}): string | undefined {
  const context = createContext(file, api, { ...options, findings: [] }, []);
  const { j, root } = context;
  const dead = new Set<string>();
  let changed = false;
  root.find(j.NewExpression).forEach((p) => {
    const callee = p.node.callee as unknown as AnyNode;
    const settings = (p.node.arguments as unknown as AnyNode[])[1];
    if (callee.type !== 'Identifier' || !SERVER_CLASSES.has(callee.name as string) || settings?.type !== 'ObjectExpression') return;
    const removed = (settings.properties as AnyNode[]).filter(isTaskOption);
    if (removed.length === 0) return;
    for (const property of removed) {
      const value = property.value as AnyNode;
      if (value.type === 'Identifier') dead.add(value.name as string);
      for (const name of referencedNames(j, value)) dead.add(name);
    }
    const arg = (p.node.arguments as unknown as AnyNode[]).indexOf(settings);
    (p.node.arguments as unknown[])[arg] = j.identifier(inlinePlaceholder(context, withoutProperties(context, settings, removed)));
    changed = true;
  });
  if (!changed) return undefined;
  removeDeadDeclarations(context, dead);
  dropCodemodMarkers(context);
  return print(context);
}

function isTaskOption(property: AnyNode): boolean {
  const key = property.key as AnyNode | undefined;
  return (
    (property.type === 'ObjectProperty' || property.type === 'Property') && !property.computed && TASK_OPTIONS.has(key?.name as string)
  );
}

/** The codemod's markers about tasks, once what they point at is gone (a marker over a kept import stays). */
function dropCodemodMarkers(context: ReturnType<typeof createContext>): void {
  const { j, root } = context;
  const remainingTaskImports = root.find(j.ImportDeclaration).filter((p) => String(p.node.source.value).startsWith(TASKS_MODULE)).length;
  root.find(j.Node).forEach((p) => {
    const node = p.node as unknown as AnyNode;
    const comments = node.comments as AnyNode[] | undefined;
    if (!comments?.length) return;
    node.comments = comments.filter((c) => {
      const text = String(c.value);
      if (!text.includes('@mcp-codemod-error')) return true;
      if (/Remove '(?:taskStore|taskMessageQueue)' from McpServer options/.test(text)) return false;
      return !(remainingTaskImports === 0 && text.includes(`Unknown SDK import path: ${TASKS_MODULE}`));
    });
  });
}
