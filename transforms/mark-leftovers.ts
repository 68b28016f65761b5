/**
 * mark-leftovers — runs last, on findings the other transforms were expected to fix but did not (a shape they do
 * not recognise). Each gets a `/* mcp-migrate: <rule-id>: … *\/` marker in the same run, so `check` keeps failing
 * on it and a second `apply` has nothing left to add (every run is idempotent).
 */
import type { API, FileInfo } from 'jscodeshift';
import { createContext, print, type TransformOptions } from './lib/context';
import { addMarker } from './lib/markers';

export const id = 'mark-leftovers';
export const parser = 'tsx';

export default function transform(file: FileInfo, api: API, options: TransformOptions = {}): string | undefined {
  const ruleIds = [...new Set((options.findings ?? []).map((f) => f.ruleId))];
  const context = createContext(file, api, options, ruleIds);
  let changed = false;
  for (const finding of context.findings) {
    const what = finding.hint ?? 'migrate this by hand';
    changed =
      addMarker(context, finding.line, finding.ruleId, `not migrated automatically (a shape mcp-migrate does not rewrite): ${what}`) ||
      changed;
  }
  return changed ? print(context) : undefined;
}
