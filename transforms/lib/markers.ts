// Markers (`/* mcp-migrate: <rule-id>: <what to do> */`) and fresh names: what every transform shares.
import type { TransformContext } from './context';
import { referencedNames, type AnyNode } from './ast';
import { markerComment } from '../../src/engine/markers';

/** `base`, or `base2`, `base3`…: a name nothing in the file uses. */
export function uniqueName(context: TransformContext, base: string): string {
  const taken = referencedNames(context.j, context.root.find(context.j.Program).get().node);
  const free = (name: string) => !taken.has(name) && !context.claimedNames.has(name);
  let name = base;
  for (let i = 2; !free(name); i++) name = `${base}${i}`;
  context.claimedNames.add(name);
  return name;
}

/** The innermost statement of a statement list (a file's, a block's) that spans `line`. */
function statementAt(context: TransformContext, line: number): AnyNode | undefined {
  const { j } = context;
  let found: AnyNode | undefined;
  context.root
    .find(j.Statement)
    .filter(
      (p) =>
        !!p.node.loc &&
        p.node.loc.start.line <= line &&
        p.node.loc.end.line >= line &&
        ['Program', 'BlockStatement'].includes((p.parent?.node as AnyNode)?.type),
    )
    .at(-1)
    .forEach((p) => {
      found = p.node as unknown as AnyNode;
    });
  return found;
}

/** One marker per rule per statement, whichever transform wrote it: a re-run adds nothing. */
function hasMarker(node: AnyNode, ruleId: string): boolean {
  const comments = (node.comments as AnyNode[] | undefined) ?? [];
  return comments.some((c) => String(c.value).trim().startsWith(`mcp-migrate: ${ruleId}:`));
}

/** Put a marker comment above the statement on `line` (once). Returns whether anything changed. */
export function addMarker(context: TransformContext, line: number, ruleId: string, message: string): boolean {
  const { j } = context;
  const text = markerComment(ruleId, message);
  const node = statementAt(context, line);
  if (!node || hasMarker(node, ruleId)) return false;
  const comment = j.commentBlock(text.slice(2, -2), true, false) as unknown as AnyNode;
  node.comments = [...((node.comments as AnyNode[] | undefined) ?? []), comment];
  context.markers.push({ node, comment, text });
  return true;
}

/**
 * The file's text with the markers this run added written into it, each on a line of its own above its statement and
 * indented like it — when the markers are all that changed. Printing the tree reprints every statement that gains a
 * comment (a multi-line signature `f(\n  a,\n  b\n)` comes out on one line, `if (x) y();` on two), so a file that only
 * gets markers keeps its text this way. Undefined when something else changed too, or a marked statement does not
 * start its line: the caller prints the tree.
 */
export function markersSpliced(context: TransformContext, printTree: () => string): string | undefined {
  const source = context.file.source;
  // (recast expands leading tabs before it parses: columns would count the expanded text)
  if (context.markers.length === 0 || context.parsed !== source) return undefined;
  const lines = source.split('\n');
  const inserts = new Map<number, string[]>();
  for (const { node, text } of context.markers) {
    const start = (node.loc as { start?: { line: number; column: number } } | undefined)?.start;
    const before = start && lines[start.line - 1]?.slice(0, start.column);
    if (!start || before === undefined || !/^[ \t]*$/.test(before)) return undefined;
    const carriageReturn = lines[start.line - 1].endsWith('\r') ? '\r' : '';
    inserts.set(start.line - 1, [...(inserts.get(start.line - 1) ?? []), `${before}${text}${carriageReturn}`]);
  }
  const added = new Set(context.markers.map((marker) => marker.comment));
  const saved = context.markers.map(({ node }) => [node, node.comments] as const);
  for (const [node, comments] of saved) {
    const kept = (comments as AnyNode[]).filter((c) => !added.has(c));
    // (a statement that had no comments has none again, not an empty list: recast reprints a node whose list changed)
    node.comments = kept.length > 0 ? kept : undefined;
  }
  let unchanged: boolean;
  try {
    unchanged = printTree() === source;
  } finally {
    for (const [node, comments] of saved) node.comments = comments;
  }
  if (!unchanged) return undefined;
  const out: string[] = [];
  lines.forEach((text, index) => out.push(...(inserts.get(index) ?? []), text));
  return out.join('\n');
}
