import { Node, type ObjectLiteralExpression } from 'ts-morph';
import type { ReportOptions, Rule } from './rule';
import {
  boundArguments,
  codemodCannotTypeReceiver,
  isAnnotationsObject,
  resolveObject,
  toolAnnotationsArgument,
  toolConfigArgument,
  withoutWrappers,
  type ToolRegistration,
} from '../analysis/tools';
import { inferToolEffects } from '../analysis/tool-effects';
import { staticString } from '../analysis/routes';
import { registerToolMissing } from '../analysis/sdk-version';

export const idempotencyHint: Rule = {
  meta: {
    id: 'idempotency-hint',
    title: 'A tool registered without readOnlyHint / idempotentHint annotations',
    severity: 'info',
    fix: 'auto',
    doc:
      'Without sessions or `Last-Event-ID`, a dropped connection loses the in-flight request and the client re-issues it with ' +
      'a new id, so a tool handler may run twice. `readOnlyHint` (no side effects) and `idempotentHint` (repeating has no ' +
      'further effect) tell clients which tools are safe to retry; both default to false. Tools should carry honest hints: a ' +
      'client may auto-approve a read-only tool. `apply` adds the hints it can infer from the handler, following values ' +
      'fetched out of module and closure state (`map.get(k)`, `arr.find(…)`, `obj[k]`, destructuring) and through local ' +
      'functions: reads only; set-by-key writes and guarded inserts (idempotent); appends, increments and other writes that ' +
      'build on the previous value (not idempotent); overwrites and deletes (destructive). A handler that hands state to code ' +
      'it cannot read, or calls a method by a computed name, gets no hint and the finding stays for review. `.tool()` ' +
      'registrations are moved to `registerTool(name, { description, inputSchema, annotations }, cb)` (SDK 1.12+): the ' +
      'official v1→v2 codemod reads a positional annotations argument as an input schema.',
    hint: 'Add `annotations: { readOnlyHint, idempotentHint }` that describe what the handler really does.',
    sources: ['spec 2026-07-28 schema.ts ToolAnnotations', 'spec 2026-07-28 changelog.mdx § Major changes 9'],
  },
  check({ facts, report }) {
    for (const tool of facts.tools) {
      const hints = toolHints(tool);
      // `undefined`: the annotations come from somewhere we cannot read (a call, an unresolved import): stay silent.
      if (!hints) continue;
      const site =
        tool.form === 'list-literal'
          ? tool.node
          : Node.isCallExpression(tool.node)
            ? (tool.node.getArguments()[0] ?? tool.node)
            : tool.node;
      const conversion = tool.form === 'tool' ? registerToolConversion(tool) : undefined;
      const finding =
        hints.has('readOnlyHint') || hints.has('idempotentHint') ? positionalFinding(tool, conversion) : hintFinding(tool, conversion);
      if (finding) report(site, finding.message, finding.options);
    }
  },
};

/** How a `.tool()` call becomes `registerTool(…)`, and why the project's SDK may not have that (data for the transform). */
interface Conversion {
  registerTool: RegisterToolLayout;
  registerToolMissing?: string;
}

function registerToolConversion(tool: ToolRegistration): Conversion | undefined {
  const layout = registerToolLayout(tool);
  if (!layout) return undefined;
  const missing = registerToolMissing(tool.node.getSourceFile().getFilePath());
  return { registerTool: layout, ...(missing && { registerToolMissing: missing }) };
}

function sdkNote(conversion: Conversion | undefined): string {
  return conversion?.registerToolMissing ? ` On --target 2025-11-25 apply leaves it: ${conversion.registerToolMissing}.` : '';
}

/** Hints the author wrote, but in the positional `.tool()` slot the official codemod reads as an input schema. */
function positionalFinding(tool: ToolRegistration, conversion: Conversion | undefined) {
  const positional = tool.form === 'tool' ? toolAnnotationsArgument(tool) : undefined;
  if (!positional || positional === 'unknown') return undefined;
  const message =
    `Tool \`${tool.name}\` keeps its annotations in a positional \`.tool()\` argument: the official v1→v2 codemod ` +
    `turns \`(name, [description], annotations, cb)\` into an input schema and \`tools/list\` then fails; \`apply\` moves ` +
    `them into \`registerTool\`'s \`annotations\`.${sdkNote(conversion)}`;
  const options: ReportOptions = conversion ? { fix: 'auto', data: { ...conversion } } : { fix: 'manual', hint: POSITIONAL_HINT };
  return { message, options };
}

/** No hint yet: the inferred ones, or none and why (annotations without hints in the positional slot still move). */
function hintFinding(tool: ToolRegistration, conversion: Conversion | undefined) {
  const inference = tool.handler ? inferToolEffects(tool.handler, boundArguments(tool)) : undefined;
  const evidence = inference?.evidence ?? 'retry-unsafe: review: the handler is not visible at this tool literal';
  const message = `Tool \`${tool.name}\` has no readOnlyHint/idempotentHint: clients cannot tell whether re-issuing a dropped call is safe (${evidence}).`;
  const writable = conversion ? toolAnnotationsAreLiteral(tool) : tool.form !== 'tool' && hintsCanBeWrittenInline(tool);
  const hints = writable ? inference?.hints : undefined;
  const misread = !!conversion && descriptionMisreadByCodemod(tool, conversion.registerTool);
  const untyped = !!conversion && Node.isCallExpression(tool.node) && codemodCannotTypeReceiver(tool.node);
  const moves = !!hints || (!!conversion && (toolAnnotationsArgument(tool) !== undefined || misread || untyped));
  const unsure = inference && !inference.hints ? { unsure: inference.unsure } : undefined;
  const data = { ...(hints && { hints }), ...(moves && conversion), ...unsure };
  const options: ReportOptions = {
    fix: moves ? 'auto' : 'manual',
    ...(unsure && { hint: UNSURE_HINT }),
    ...(Object.keys(data).length > 0 && { data }),
  };
  const why = hints ? '' : misread ? ` ${MISREAD_NOTE}` : untyped ? ` ${UNTYPED_NOTE}` : '';
  return { message: moves ? `${message}${why}${sdkNote(conversion)}` : message, options };
}

const MISREAD_NOTE =
  'Its description is not a string literal, which the official v1→v2 codemod reads as an input schema: `apply` moves it into `registerTool` first.';

const UNTYPED_NOTE =
  "Its server is not typed as an `McpServer` here (plain JavaScript, or `any`): the official v1→v2 codemod leaves the `.tool()` call, which v2's `McpServer` does not have, so the server would fail on its first request; `apply` moves it into `registerTool` first.";

/** The official codemod takes a `.tool()` description for a schema unless it is written as a string literal. */
function descriptionMisreadByCodemod(tool: ToolRegistration, layout: RegisterToolLayout): boolean {
  if (layout.description === undefined || !Node.isCallExpression(tool.node)) return false;
  const description = tool.node.getArguments()[layout.description];
  return !Node.isStringLiteral(description) && !Node.isNoSubstitutionTemplateLiteral(description);
}

const UNSURE_HINT =
  'The analysis cannot tell what this handler changes (see the reasons above), so it adds no hint: add ' +
  '`annotations: { readOnlyHint, idempotentHint, destructiveHint }` that describe it.';
const POSITIONAL_HINT = 'Register the tool with `registerTool(name, { description, inputSchema, annotations }, cb)`.';

/**
 * Where each argument of a `server.tool(name, [description], [schema], [annotations], cb)` call goes in
 * `registerTool(name, { description, inputSchema, annotations }, cb)`, by argument index; undefined when an argument
 * cannot be told apart (a constant that may be a schema or annotations, a description that is not a string).
 */
export interface RegisterToolLayout {
  description?: number;
  inputSchema?: number;
  annotations?: number;
}

function registerToolLayout(tool: ToolRegistration): RegisterToolLayout | undefined {
  if (!Node.isCallExpression(tool.node) || tool.callbackIndex === undefined) return undefined;
  const annotations = toolAnnotationsArgument(tool);
  if (annotations === 'unknown') return undefined;
  const args = tool.node.getArguments();
  const layout: RegisterToolLayout = {};
  for (let index = 1; index < tool.callbackIndex; index++) {
    const arg = args[index];
    const value = withoutWrappers(arg);
    if (annotations && arg === annotations.node) layout.annotations = index;
    else if (index === 1 && value && isStringValued(value)) layout.description = index;
    else if (layout.inputSchema === undefined && value && isSchemaValued(value)) layout.inputSchema = index;
    else return undefined;
  }
  return layout;
}

function isStringValued(node: Node): boolean {
  return (
    Node.isStringLiteral(node) ||
    Node.isNoSubstitutionTemplateLiteral(node) ||
    Node.isTemplateExpression(node) ||
    staticString(node) !== undefined ||
    node.getType().isString() ||
    node.getType().isStringLiteral()
  );
}

/** A zod raw shape: an object literal (or a constant holding one) that is not annotations, or `schema.shape`. */
function isSchemaValued(node: Node): boolean {
  const object = resolveObject(node, 0);
  if (object) return !isAnnotationsObject(object);
  return Node.isPropertyAccessExpression(node) && node.getName() === 'shape';
}

/** `.tool()` annotations the transform can add hints to: none yet, or an object literal written in the call. */
function toolAnnotationsAreLiteral(tool: ToolRegistration): boolean {
  const annotations = toolAnnotationsArgument(tool);
  return annotations !== 'unknown' && (!annotations || Node.isObjectLiteralExpression(withoutWrappers(annotations.node)));
}

/**
 * The idempotency-hints transform edits literals only: the config object or its `annotations` literal. Annotations
 * kept in a constant or a config held in a variable make the fix manual.
 */
function hintsCanBeWrittenInline(tool: ToolRegistration): boolean {
  const config = toolConfigArgument(tool);
  if (!config || !Node.isObjectLiteralExpression(config)) return false;
  const property = config.getProperty('annotations');
  if (!property) return !config.getProperties().some(Node.isSpreadAssignment);
  return Node.isPropertyAssignment(property) && Node.isObjectLiteralExpression(withoutWrappers(property.getInitializer()));
}

const MAX_DEPTH = 6;

/**
 * The annotation keys written for a tool, read through `const` objects, spreads and config variables
 * (`annotations: READ_ONLY`, `{ ...SAFE, title }`, `registerTool(name, config, cb)`); `undefined` when they cannot be read.
 */
export function toolHints(tool: ToolRegistration): Set<string> | undefined {
  if (tool.form === 'tool') {
    const annotations = toolAnnotationsArgument(tool);
    if (annotations === 'unknown') return undefined;
    return annotations ? objectKeys(annotations.object, 0) : new Set();
  }
  const config = toolConfigArgument(tool);
  if (!config) return new Set(); // registerTool(name) with no config
  const object = resolveObject(config, 0);
  if (!object) return undefined;
  const property = object.getProperty('annotations');
  if (!property) return object.getProperties().some(Node.isSpreadAssignment) ? undefined : new Set();
  const value = Node.isPropertyAssignment(property)
    ? property.getInitializer()
    : Node.isShorthandPropertyAssignment(property)
      ? property.getNameNode()
      : undefined;
  const annotations = value && resolveObject(value, 0);
  return annotations ? objectKeys(annotations, 0) : undefined;
}

/** Keys of an object literal, following spreads; `undefined` when a spread cannot be read. */
function objectKeys(object: ObjectLiteralExpression, depth: number): Set<string> | undefined {
  const keys = new Set<string>();
  for (const property of object.getProperties()) {
    if (Node.isSpreadAssignment(property)) {
      const spread = depth < MAX_DEPTH ? resolveObject(property.getExpression(), depth + 1) : undefined;
      const inner = spread && objectKeys(spread, depth + 1);
      if (!inner) return undefined;
      for (const key of inner) keys.add(key);
    } else if (Node.isPropertyAssignment(property) || Node.isShorthandPropertyAssignment(property)) {
      keys.add(property.getName());
    }
  }
  return keys;
}
