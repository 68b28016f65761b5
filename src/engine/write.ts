// Writing results: atomic replace (temp file in the same directory + rename, mode kept), and the git guard.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';

/** Write `content` so that a reader (or a crash) sees either the old file or the new one, never a partial one. */
export function writeFileAtomic(absPath: string, content: string): void {
  const dir = path.dirname(absPath);
  const temp = path.join(dir, `.${path.basename(absPath)}.mcp-migrate-${process.pid}-${Date.now().toString(36)}.tmp`);
  const mode = fs.statSync(absPath).mode;
  // Refuse early when the target itself is read-only: rename would silently replace it.
  fs.accessSync(absPath, fs.constants.W_OK);
  try {
    fs.writeFileSync(temp, content, { mode });
    fs.renameSync(temp, absPath);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw error;
  }
}

/**
 * Files among `absPaths` with uncommitted changes (modified, staged or untracked) in their git work tree.
 * Returns [] when git is missing or the files are not in a work tree: there is nothing to protect then.
 */
export function dirtyFiles(root: string, absPaths: string[]): string[] {
  if (absPaths.length === 0) return [];
  const top = spawnSync('git', ['-C', root, 'rev-parse', '--show-toplevel'], { encoding: 'utf8' });
  if (top.status !== 0 || !top.stdout.trim()) return [];
  const topLevel = fs.realpathSync(top.stdout.trim());
  const status = spawnSync('git', ['-C', topLevel, 'status', '--porcelain', '-z', '--', ...absPaths.map((p) => fs.realpathSync(p))], { encoding: 'utf8' });
  if (status.status !== 0) return [];
  const dirty = new Set<string>();
  for (const entry of status.stdout.split('\0')) {
    if (entry.length < 4) continue;
    dirty.add(path.join(topLevel, entry.slice(3)));
  }
  return absPaths.filter((p) => dirty.has(fs.realpathSync(p)));
}
