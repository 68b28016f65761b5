// The keys of a tool's `annotations` (spec: ToolAnnotations). No imports: transforms read it too.
export const ANNOTATION_KEYS: ReadonlySet<string> = new Set([
  'title',
  'readOnlyHint',
  'destructiveHint',
  'idempotentHint',
  'openWorldHint',
]);
