// Where a report's paths start. The engine names files relative to the scanned root; what a user reads (and what
// `git apply` and CI annotations resolve) is relative to the working directory, or, for SARIF and GitLab, to the
// repository root. `relativeTo` re-roots every path of a result, including the dry-run diff headers.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AnyResult, ApplyResult, FileChange } from '../model';
import { isApplyResult } from '../model';

const toPosix = (p: string): string => p.split(path.sep).join('/');

/** A copy of `result` whose `root` is `dir` and whose every `file` (and diff header) is relative to it. */
export function relativeTo<T extends AnyResult>(result: T, dir: string): T {
  const from = result.root;
  const rebase = (file: string): string => toPosix(path.relative(dir, path.resolve(from, file))) || '.';
  const withFile = <L extends { file: string }>(item: L): L => ({ ...item, file: rebase(item.file) });
  const rebased: AnyResult = {
    ...result,
    root: dir,
    findings: result.findings.map((f) => ({ ...withFile(f), ...(f.related ? { related: f.related.map(withFile) } : {}) })),
    suppressions: result.suppressions.map(withFile),
    problems: result.problems.map(withFile),
  };
  if (result.baseline) rebased.baseline = { ...withFile(result.baseline), stale: result.baseline.stale.map(withFile) };
  if (isApplyResult(result)) {
    const apply = rebased as ApplyResult;
    apply.changes = result.changes.map((c) => rebaseChange(c, rebase(c.file)));
    apply.manual = result.manual.map(withFile);
    apply.endpoints = result.endpoints.map(withFile);
    apply.typeUnchecked = (result.typeUnchecked ?? []).map(withFile);
    if (result.deferred)
      apply.deferred = {
        ...result.deferred,
        errors: result.deferred.errors.map((e) => ({ ...e, relPath: rebase(e.relPath) })),
        lockConflicts: result.deferred.lockConflicts.map((c) => ({ ...c, manifest: rebase(c.manifest) })),
      };
    // An endpoint id is `<file>#<path>`.
    apply.rolledBack = (result.rolledBack ?? []).map((r) => {
      const hash = r.endpoint.indexOf('#');
      return { ...r, endpoint: hash < 0 ? r.endpoint : rebase(r.endpoint.slice(0, hash)) + r.endpoint.slice(hash) };
    });
  }
  return rebased as T;
}

/** The change under its new name, diff header included (`--- a/<file>` / `+++ b/<file>`, as `git apply -p1` reads). */
function rebaseChange(change: FileChange, file: string): FileChange {
  const lines = change.diff.split('\n');
  const firstHunk = lines.findIndex((line) => line.startsWith('@@'));
  for (let i = 0; i < (firstHunk < 0 ? lines.length : firstHunk); i++) {
    if (lines[i] === `--- a/${change.file}`) lines[i] = `--- a/${file}`;
    else if (lines[i] === `+++ b/${change.file}`) lines[i] = `+++ b/${file}`;
  }
  return { ...change, file, diff: lines.join('\n') };
}

/** The root of the git work tree holding `dir` (a `.git` directory or file), or undefined outside one. */
export function gitRoot(dir: string): string | undefined {
  for (let current = path.resolve(dir); ; current = path.dirname(current)) {
    if (fs.existsSync(path.join(current, '.git'))) return current;
    if (path.dirname(current) === current) return undefined;
  }
}
