/**
 * tool-list-type — a low-level `setRequestHandler('tools/list', …)` returning tool definitions written as JSON-schema
 * literals (`{ tools: TOOLS }`, `TOOLS = [{ inputSchema: { type: 'object', … } }]`): v1 accepted them, v2's result
 * type wants `type: 'object'` and JSON values with index signatures, so TS2322 (`'string' is not assignable to
 * '"object"'`, `Index signature … is missing`). The data is what the server always sent; the returned `tools` is
 * read as v2's `Tool[]` (`tools: TOOLS as Tool[]`), and the type-check says whether that holds.
 */
import type { API, FileInfo } from 'jscodeshift';
import { createContext, print, type TransformOptions } from '../lib/context';
import type { AnyNode } from '../lib/ast';
import { inlinePlaceholder } from '../lib/emit';
import { ensureNamedImport } from '../lib/imports';
import { originalText } from '../lib/source-edit';
import { handlerRegistrations, returnedObjects } from './handler-lib';

export const id = 'tool-list-type';

export function mayApply(text: string): boolean {
  return text.includes('tools/list');
}

export default function transform(file: FileInfo, api: API, options: TransformOptions = {}): string | undefined {
  const context = createContext(file, api, { ...options, findings: [] }, []);
  if (!context.typescript) return undefined;
  const { j } = context;
  let changed = false;
  for (const { method, fn } of handlerRegistrations(context)) {
    if (method !== 'tools/list' || !fn) continue;
    for (const object of returnedObjects(context, fn)) {
      const property = (object.properties as AnyNode[]).find(
        (p) => (p.type === 'ObjectProperty' || p.type === 'Property') && !p.computed && (p.key as AnyNode).name === 'tools',
      );
      const value = property?.value as AnyNode | undefined;
      if (!property || !value || value.type === 'TSAsExpression' || value.type === 'TSSatisfiesExpression' || typedByAuthor(context, value))
        continue;
      const tool = ensureNamedImport(context, ['@modelcontextprotocol/server'], 'Tool', { typeOnly: true });
      const text = property.shorthand ? 'tools' : originalText(context, value);
      property.shorthand = false;
      property.value = j.identifier(inlinePlaceholder(context, `${text} as ${tool}[]`)) as unknown as AnyNode;
      changed = true;
    }
  }
  return changed ? print(context) : undefined;
}

/** A variable the author declared with a type (`const TOOLS: Tool[] = …`): its type is theirs to keep. */
function typedByAuthor(context: ReturnType<typeof createContext>, value: AnyNode): boolean {
  if (value.type !== 'Identifier') return false;
  const { j, root } = context;
  return root.find(j.VariableDeclarator).some((p) => {
    const id = p.node.id as unknown as AnyNode;
    return id.type === 'Identifier' && id.name === value.name && !!id.typeAnnotation;
  });
}
