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

/** Put a marker comment above the statement on `line` (once). Returns whether anything changed. */
export function addMarker(context: TransformContext, line: number, ruleId: string, message: string): boolean {
  const { j } = context;
  const text = markerComment(ruleId, message);
  let changed = false;
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
      const node = p.node as unknown as AnyNode;
      const comments = (node.comments as AnyNode[] | undefined) ?? [];
      // One marker per rule per statement, whichever transform wrote it: a re-run adds nothing.
      if (comments.some((c) => String(c.value).trim().startsWith(`mcp-migrate: ${ruleId}:`))) return;
      node.comments = [...comments, j.commentBlock(text.slice(2, -2), true, false) as unknown as AnyNode];
      changed = true;
    });
  return changed;
}
