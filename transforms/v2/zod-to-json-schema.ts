/**
 * zod-to-json-schema — the `zod-to-json-schema` package reads zod 3 internals only: handed a zod 4 schema (zod 4 is
 * what the v2 SDK needs) it returns a wrong schema without an error (`{ "type": "string" }` for an object), and
 * `tools/list` then advertises it. zod 4 converts its own schemas: `zodToJsonSchema(schema)` becomes
 * `z.toJSONSchema(schema, { io: 'input' })` (the schema of what clients send, as zod-to-json-schema described it).
 * Options that only tune zod-to-json-schema's output are dropped; a call with any other option, or a definition
 * name, gets a marker instead.
 */
import type { API, FileInfo } from 'jscodeshift';
import { createContext, print, type TransformContext, type TransformOptions } from '../lib/context';
import type { AnyNode } from '../lib/ast';
import { inlinePlaceholder } from '../lib/emit';
import { ensureNamedImport, pruneImports } from '../lib/imports';
import { addMarker } from '../lib/markers';
import { originalText } from '../lib/source-edit';
import { moduleBindings, zodNamespaces } from './lib';

export const id = 'zod-to-json-schema';

/** zod-to-json-schema options whose effect z.toJSONSchema has by default, or that only shape its own output. */
const DROPPABLE_OPTIONS = new Set([
  'strictUnions',
  '$refStrategy',
  'target',
  'removeAdditionalStrategy',
  'errorMessages',
  'markdownDescription',
]);

/** Where `x as T` needs no parentheses. */
const BARE_POSITIONS = new Set([
  'VariableDeclarator',
  'ObjectProperty',
  'Property',
  'ReturnStatement',
  'ArrowFunctionExpression',
  'CallExpression',
  'AssignmentExpression',
  'TSAsExpression',
  'ArrayExpression',
]);

export function mayApply(text: string): boolean {
  return text.includes('zod-to-json-schema');
}

export default function transform(file: FileInfo, api: API, options: TransformOptions = {}): string | undefined {
  const context = createContext(file, api, { ...options, findings: [] }, []);
  const { j, root } = context;
  const bindings = moduleBindings(context, ['zod-to-json-schema']);
  const converters = new Set([
    ...bindings.namespaces,
    ...[...bindings.named].filter(([name]) => name === 'zodToJsonSchema').map(([, local]) => local),
  ]);
  if (converters.size === 0) return undefined;
  const calls = root.find(j.CallExpression).filter((p) => {
    const callee = p.node.callee as unknown as AnyNode;
    return callee.type === 'Identifier' && converters.has(callee.name as string);
  });
  if (calls.length === 0) return undefined;
  let z: string | undefined;
  let changed = false;
  calls.forEach((p) => {
    const args = p.node.arguments as unknown as AnyNode[];
    if (args.length === 0 || args.length > 2 || !args.every((a) => a.type !== 'SpreadElement') || (args[1] && !droppable(args[1]))) {
      changed =
        addMarker(
          context,
          p.node.loc!.start.line,
          'zod-4',
          'zodToJsonSchema does not read zod 4 schemas (zod 4 is what the v2 SDK needs): convert with z.toJSONSchema(schema, { io: "input" }) and carry these options over by hand',
        ) || changed;
      return;
    }
    z ??= [...zodNamespaces(context)][0] ?? ensureNamedImport(context, ['zod'], 'z');
    const call = `${z}.toJSONSchema(${originalText(context, args[0])}, { io: ${quoted(context, 'input')} })`;
    // zod 4 types its result as a payload with `~standard` on it: read it as the plain JSON object it is.
    const typed = context.typescript ? `${call} as Record<string, unknown>` : call;
    const parent = p.parent?.node as AnyNode;
    const bare = BARE_POSITIONS.has(parent.type) && (parent.callee as unknown) !== p.node;
    const code = context.typescript && !bare ? `(${typed})` : typed;
    j(p).replaceWith(j.identifier(inlinePlaceholder(context, code)));
    changed = true;
  });
  if (!changed) return undefined;
  pruneImports(context, converters);
  return print(context);
}

/** An options object whose every property zod 4 does not need. */
function droppable(node: AnyNode): boolean {
  if (node.type !== 'ObjectExpression') return false;
  return (node.properties as AnyNode[]).every(
    (p) =>
      (p.type === 'ObjectProperty' || p.type === 'Property') && !p.computed && DROPPABLE_OPTIONS.has((p.key as AnyNode).name as string),
  );
}

function quoted(context: TransformContext, text: string): string {
  return context.quote === 'double' ? `"${text}"` : `'${text}'`;
}
