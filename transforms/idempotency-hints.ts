/**
 * idempotency-hints — rule `idempotency-hint`.
 * Adds the annotations the detector inferred from each handler (`readOnlyHint`, `idempotentHint`, `destructiveHint`)
 * to tools that have none, in every registration form; hints the author wrote are never touched. A dropped
 * request is re-issued without sessions, so clients need to know which tools are safe to retry.
 * A `server.tool(name, [description], [schema], [annotations], cb)` registration becomes
 * `server.registerTool(name, { description, inputSchema, annotations }, cb)` first: the official v1→v2 codemod reads a
 * positional annotations argument as an input schema, so hints must never be left there (nor annotations an author
 * wrote there). On --target 2025-11-25, a project whose SDK predates `registerTool` (1.12) is left as it is.
 */
import type { API, ASTPath, FileInfo } from 'jscodeshift';
import { createContext, print, type TransformContext, type TransformOptions } from './lib/context';
import { containsLocation, type AnyNode } from './lib/ast';
import { inlinePlaceholder } from './lib/emit';
import { appendProperty, lineIndentation, sourceText } from './lib/source-edit';
import { babelColumn } from './lib/locate';
import type { ToolHints } from '../src/analysis/tool-effects';
import type { RegisterToolLayout } from '../src/rules/idempotency-hint';

export const id = 'idempotency-hints';
export const rules = ['idempotency-hint'];
export const parser = 'tsx';

interface HintData {
  hints?: ToolHints;
  /** `.tool()` registrations: where each argument goes in `registerTool`'s config. */
  registerTool?: RegisterToolLayout;
  /** Why the project's v1 SDK may lack `registerTool`. */
  registerToolMissing?: string;
}

export default function transform(file: FileInfo, api: API, options: TransformOptions = {}): string | undefined {
  const context = createContext(file, api, options, rules);
  const anchors = context.findings.filter(
    (f) => f.fix === 'auto' && f.data && ((f.data as HintData).hints || (f.data as HintData).registerTool),
  );
  if (anchors.length === 0) return undefined;
  const { j, root } = context;
  let changed = false;
  for (const anchor of anchors) {
    const data = anchor.data as HintData;
    const at = { line: anchor.line, column: babelColumn(context, anchor.line, anchor.column) + 1 };
    // `server.tool(…)`, or `servers.get(id)?.tool(…)` (an OptionalCallExpression in babel's tree); the innermost call
    // whose first argument holds the anchor (`createMcpHandler((server) => { server.tool(…) })`: not the outer one)
    const call = root
      .find(j.Node, (node: { type: string }) => node.type === 'CallExpression' || node.type === 'OptionalCallExpression')
      .filter((p) => {
        const first = ((p.node as unknown as AnyNode).arguments as AnyNode[])[0];
        return !!first && containsLocation(first, at);
      })
      .paths()
      .sort((a, b) => firstArgumentLength(a) - firstArgumentLength(b))[0] as ASTPath | undefined;
    if (call) {
      changed = annotateCall(context, call, data) || changed;
      continue;
    }
    const literal = root
      .find(j.ObjectExpression)
      .filter((p) => !!p.node.loc && p.node.loc.start.line === at.line && p.node.loc.start.column === at.column - 1)
      .nodes()[0] as unknown as AnyNode | undefined;
    if (literal && data.hints) changed = addAnnotationsProperty(context, literal, hintText(data.hints)) || changed;
  }
  return changed ? print(context) : undefined;
}

function firstArgumentLength(path: { node: unknown }): number {
  const first = ((path.node as unknown as AnyNode).arguments as AnyNode[])[0];
  return (first.end as number) - (first.start as number);
}

function hintText(hints: ToolHints): string {
  const parts = [`readOnlyHint: ${hints.readOnlyHint}`];
  if (hints.idempotentHint !== undefined) parts.push(`idempotentHint: ${hints.idempotentHint}`);
  if (hints.destructiveHint !== undefined) parts.push(`destructiveHint: ${hints.destructiveHint}`);
  return parts.join(', ');
}

function propertyNamed(object: AnyNode, key: string): AnyNode | undefined {
  return (object.properties as AnyNode[]).find(
    (p) => ((p.key as AnyNode | undefined)?.name ?? (p.key as AnyNode | undefined)?.value) === key,
  );
}

function annotateCall(context: TransformContext, path: ASTPath, data: HintData): boolean {
  const call = path.node as unknown as AnyNode;
  const callee = call.callee as AnyNode;
  const method = /MemberExpression$/.test(callee.type) ? ((callee.property as AnyNode).name as string) : undefined;
  const args = call.arguments as AnyNode[];
  if (method === 'tool' && data.registerTool) {
    if (data.registerToolMissing && context.options.target === '2025-11-25') return false;
    path.replace(context.j.identifier(inlinePlaceholder(context, registerToolCall(context, call, data.registerTool, data.hints))));
    return true;
  }
  if ((method === 'registerTool' || method === 'addTool') && data.hints) {
    const index = method === 'registerTool' ? 1 : 0;
    const config = args[index];
    if (!config || config.type !== 'ObjectExpression') return false;
    return addAnnotationsProperty(context, config, hintText(data.hints), (text) => {
      args[index] = context.j.identifier(inlinePlaceholder(context, text)) as unknown as AnyNode;
      return true;
    });
  }
  return false;
}

/**
 * `server.tool(name, …, cb)` rewritten as `server.registerTool(name, { description, inputSchema, annotations }, cb)`,
 * everything outside the moved arguments as the file has it; the config is laid out like the argument list (one
 * property per line when the arguments are one per line).
 */
function registerToolCall(context: TransformContext, call: AnyNode, layout: RegisterToolLayout, hints: ToolHints | undefined): string {
  const args = call.arguments as AnyNode[];
  const callback = args[args.length - 1];
  const property = (call.callee as AnyNode).property as AnyNode;
  const text = (node: AnyNode) => sourceText(context, node.start as number, node.end as number);
  const annotations =
    layout.annotations !== undefined
      ? hints
        ? appendProperty(context, args[layout.annotations], hintText(hints))
        : text(args[layout.annotations])
      : hints && `{ ${hintText(hints)} }`;
  const entries: Array<[string, string | undefined]> = [
    ['description', layout.description !== undefined ? text(args[layout.description]) : undefined],
    ['inputSchema', layout.inputSchema !== undefined ? text(args[layout.inputSchema]) : undefined],
    ['annotations', annotations],
  ];
  const properties = entries.filter((e): e is [string, string] => e[1] !== undefined);
  const moved = args.slice(1, -1);
  const firstMoved = moved[0] ?? callback;
  const multiline = context.parsed.slice(args[0].end as number, firstMoved.start as number).includes('\n');
  let config: string;
  if (!multiline) config = `{ ${properties.map(([key, value]) => `${key}: ${value}`).join(', ')} }`;
  else {
    const indentation = lineIndentation(context, firstMoved.start as number);
    const inner = indentation + (context.useTabs ? '\t' : ' '.repeat(context.tabWidth));
    const trailingComma = context.parsed.slice(callback.end as number, call.end as number).includes(',') ? ',' : '';
    const lines = properties.map(([key, value], index) => {
      const comma = index < properties.length - 1 ? ',' : trailingComma;
      // A value spanning lines moves one level deeper with the property that now holds it.
      return `${inner}${key}: ${value.replace(/\n/g, `\n${inner.slice(indentation.length)}`)}${comma}`;
    });
    config = `{\n${lines.join('\n')}\n${indentation}}`;
  }
  // Around the config: the separators the call had (after the name; before the callback).
  const slice = (from: number, to: number) => sourceText(context, from, to);
  const nameToFirst = slice(property.end as number, firstMoved.start as number);
  const toCallback =
    moved.length > 0
      ? slice(moved[moved.length - 1].end as number, callback.start as number)
      : nameToFirst.slice(nameToFirst.lastIndexOf(','));
  const head = slice(call.start as number, property.start as number);
  return `${head}registerTool${nameToFirst}${config}${toCallback}${slice(callback.start as number, call.end as number)}`;
}

function addAnnotationsProperty(context: TransformContext, config: AnyNode, hints: string, replace?: (text: string) => boolean): boolean {
  const annotations = propertyNamed(config, 'annotations');
  if (annotations) {
    const value = annotations.value as AnyNode;
    if (value?.type !== 'ObjectExpression') return false;
    annotations.value = context.j.identifier(inlinePlaceholder(context, appendProperty(context, value, hints))) as never;
    return true;
  }
  const text = appendProperty(context, config, `annotations: { ${hints} }`);
  if (replace) return replace(text);
  // A tool literal in a list: swap the node itself.
  config.type = 'Identifier';
  config.name = inlinePlaceholder(context, text);
  return true;
}
