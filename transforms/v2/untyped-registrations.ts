/**
 * untyped-registrations — JavaScript on the v2 packages still calling v1's `server.prompt(…)`, `server.resource(…)` or
 * `server.tool(…)`: the codemod moves those calls only on a receiver it types as an `McpServer`, which it cannot in
 * JavaScript, and v2's `McpServer` has none of them, so the server throws `server.prompt is not a function` when it is
 * built. Each call that has the v1 shape (a literal name first, the callback last) takes the v2 form:
 * `prompt(name, [description], [argsSchema], cb)` → `registerPrompt(name, { description, argsSchema }, cb)`,
 * `resource(name, uriOrTemplate, [metadata], cb)` → `registerResource(name, uriOrTemplate, metadata ?? {}, cb)`, and
 * `tool(name, [description], [inputSchema], [annotations], cb)` → `registerTool(name, { … }, cb)`. An argument whose
 * role cannot be read from the call (a variable that may be a schema or annotations, a name that is not a literal)
 * leaves the call as it was, with a marker: `check` stays red until a human moves it. Files that still import the v1
 * SDK, and TypeScript (the codemod's, with types), are left alone.
 */
import type { API, FileInfo } from 'jscodeshift';
import { createContext, print, type TransformOptions } from '../lib/context';
import { isFunctionNode, type AnyNode } from '../lib/ast';
import { inlinePlaceholder } from '../lib/emit';
import { originalText } from '../lib/source-edit';
import { addMarker } from '../lib/markers';
import { onV2Packages } from './lib';
import { ANNOTATION_KEYS } from '../../src/analysis/tool-annotations';
import { SERVER_NAME, V2_REGISTRATION_FORMS } from '../../src/analysis/v2-context';

export const id = 'untyped-registrations';

const V1_CALLS = /\.(?:prompt|resource|tool)\s*\(/;
const V1_METHODS = new Set(['prompt', 'resource', 'tool']);

function unconvertedNote(method: string): string {
  return (
    `\`.${method}(…)\` is v1's API, which v2's McpServer does not have (the server would throw when it is built); the ` +
    `arguments do not show where each goes: register it with \`${V2_REGISTRATION_FORMS[method]}\`.`
  );
}

export function mayApply(text: string): boolean {
  return V1_CALLS.test(text);
}

export default function transform(file: FileInfo, api: API, options: TransformOptions = {}): string | undefined {
  if (!/\.[cm]?jsx?$/.test(file.path)) return undefined;
  const context = createContext(file, api, { ...options, findings: [] }, []);
  const { j, root } = context;
  if (!onV2Packages(context)) return undefined;
  // (in a file that imports nothing MCP, only calls on a receiver named like a server: `server.tool(…)`, `this.mcp.prompt(…)`)
  const importsV2 = root.find(j.ImportDeclaration).some((p) => String(p.node.source.value).startsWith('@modelcontextprotocol/'));
  let changed = false;
  root.find(j.CallExpression).forEach((p) => {
    const call = p.node as unknown as AnyNode;
    const callee = call.callee as AnyNode;
    if (callee.type !== 'MemberExpression' || callee.computed) return;
    const method = (callee.property as AnyNode).name as string;
    const args = call.arguments as AnyNode[];
    const name = args[0];
    const callback = args[args.length - 1];
    if (!V1_METHODS.has(method) || args.length < (method === 'resource' ? 3 : 2) || !isFunctionNode(callback)) return;
    if (!importsV2 && !SERVER_NAME.test(receiverName(callee.object as AnyNode))) return;
    const text = (node: AnyNode) => originalText(context, node);
    const middle = args.slice(1, -1);
    const plain = isLiteralName(name) && !args.some((a) => a.type === 'SpreadElement');
    const v2 = !plain
      ? undefined
      : method === 'prompt'
        ? promptCall(middle, text)
        : method === 'resource'
          ? resourceCall(middle, text)
          : toolCall(middle, text);
    if (!v2) {
      const line = (call.loc as AnyNode['loc'])?.start.line;
      if (line !== undefined) changed = addMarker(context, line, 'sdk-v2-surface', unconvertedNote(method)) || changed;
      return;
    }
    const loc = call.loc as AnyNode['loc'];
    if (loc && loc.start.line === loc.end.line) {
      // (a one-line call stays on one line, as written)
      const receiver = text(callee.object as AnyNode);
      const written = `${receiver}.${v2.method}(${[text(name), ...v2.middle, text(callback)].join(', ')})`;
      p.replace(j.identifier(inlinePlaceholder(context, written)) as never);
      changed = true;
      return;
    }
    // (renamed in place, the middle arguments replaced: a call over several lines keeps its layout)
    (callee.property as AnyNode).name = v2.method;
    (call.arguments as AnyNode[]).splice(
      1,
      middle.length,
      ...v2.middle.map((code) => j.identifier(inlinePlaceholder(context, code)) as unknown as AnyNode),
    );
    changed = true;
  });
  return changed ? print(context) : undefined;
}

/** The receiver's last name: `server`, `this.mcp` → `mcp`, `app.server` → `server`. */
function receiverName(node: AnyNode): string {
  if (node.type === 'Identifier') return node.name as string;
  if (node.type === 'MemberExpression' && !node.computed) return (node.property as AnyNode).name as string;
  return '';
}

function isLiteralName(node: AnyNode): boolean {
  return (
    node.type === 'StringLiteral' ||
    node.type === 'Literal' ||
    (node.type === 'TemplateLiteral' && (node.expressions as AnyNode[]).length === 0)
  );
}

function isString(node: AnyNode): boolean {
  return isLiteralName(node) || node.type === 'TemplateLiteral' || (node.type === 'BinaryExpression' && node.operator === '+');
}

/** `(name, [description], [argsSchema], cb)`: the middle arguments, each a string or an object literal. */
function promptCall(middle: AnyNode[], text: (node: AnyNode) => string): { method: string; middle: string[] } | undefined {
  const config = configOf(middle, text, (object) => (isAnnotations(object) ? undefined : 'argsSchema'));
  return config === undefined ? undefined : { method: 'registerPrompt', middle: [config] };
}

/** `(name, [description], [inputSchema], [annotations], cb)`. */
function toolCall(middle: AnyNode[], text: (node: AnyNode) => string): { method: string; middle: string[] } | undefined {
  let schemaSeen = false;
  const config = configOf(middle, text, (object) => {
    if (isAnnotations(object)) return 'annotations';
    if (schemaSeen) return undefined;
    schemaSeen = true;
    return 'inputSchema';
  });
  return config === undefined ? undefined : { method: 'registerTool', middle: [config] };
}

/** `(name, uriOrTemplate, [metadata], cb)`: the config is the metadata, or `{}`. */
function resourceCall(middle: AnyNode[], text: (node: AnyNode) => string): { method: string; middle: string[] } | undefined {
  if (middle.length === 1) return { method: 'registerResource', middle: [text(middle[0]), '{}'] };
  if (middle.length === 2) return { method: 'registerResource', middle: middle.map(text) };
  return undefined;
}

/**
 * The config object literal the middle arguments make: a string first is the description, each object literal goes
 * under the key `roleOf` gives it (undefined: its role cannot be told, so no config).
 */
function configOf(middle: AnyNode[], text: (node: AnyNode) => string, roleOf: (object: AnyNode) => string | undefined): string | undefined {
  const entries: string[] = [];
  for (const [index, argument] of middle.entries()) {
    if (index === 0 && isString(argument)) entries.push(`description: ${text(argument)}`);
    else if (argument.type === 'ObjectExpression') {
      const role = roleOf(argument);
      if (!role) return undefined;
      entries.push(`${role}: ${text(argument)}`);
    } else return undefined;
  }
  return entries.length === 0 ? '{}' : `{ ${entries.join(', ')} }`;
}

/** An object literal whose keys are all tool annotation names (and at least one). */
function isAnnotations(object: AnyNode): boolean {
  const keys = (object.properties as AnyNode[]).map((p) => (p.key as AnyNode | undefined)?.name ?? (p.key as AnyNode | undefined)?.value);
  return keys.length > 0 && keys.every((key) => ANNOTATION_KEYS.has(String(key)));
}
