// Writing results: atomic replace and the git guard.
//
// `writeFileAtomic` writes a temp file next to the target (same directory, so the rename cannot cross file systems),
// gives it the target's mode (umask does not apply) and owner (when running as root), fsyncs it, then renames it
// over the target and fsyncs the directory. A reader, a crash or a signal at any moment therefore sees either the
// whole old file or the whole new one, never a truncated one. A symbolic link is written through: its target is
// replaced and the link stays a link. Temp files left by a run that was killed between write and rename are removed
// by the next run that writes into the same directory (only when the process that made them is gone).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';

const TEMP_PATTERN = /^\.(.+)\.mcp-migrate-(\d+)-[0-9a-z]+\.tmp$/;
let tempCounter = 0;

function tempPathFor(target: string): string {
  tempCounter += 1;
  const stamp = `${Date.now().toString(36)}${tempCounter.toString(36)}`;
  return path.join(path.dirname(target), `.${path.basename(target)}.mcp-migrate-${process.pid}-${stamp}.tmp`);
}

function processIsGone(pid: number): boolean {
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

const sweptDirectories = new Set<string>();

/**
 * Removes `.<name>.mcp-migrate-<pid>-<stamp>.tmp` files in `dir` whose process no longer runs (a run killed between
 * writing a temp file and renaming it). Once per directory per process.
 */
function removeStaleTemps(dir: string): void {
  if (sweptDirectories.has(dir)) return;
  sweptDirectories.add(dir);
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const match = TEMP_PATTERN.exec(name);
    if (!match || !processIsGone(Number(match[2]))) continue;
    fs.rmSync(path.join(dir, name), { force: true });
  }
}

function fsyncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, 'r');
    fs.fsyncSync(fd);
  } catch {
    // Not supported everywhere (e.g. some network file systems); the rename itself is still atomic.
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

// --- test-only fault injection ---------------------------------------------------------------------------------
// These environment variables exist ONLY so that tests can reproduce failures that permission bits cannot (tests
// run as root in CI, and root ignores them) and interrupts at an exact moment. Never set them in real use.
//
// MCP_MIGRATE_FAULT_WRITE=<relPath>[:<CODE>][,<relPath>[:<CODE>]...]
//   Writing a file whose path ends with `/<relPath>` fails with the errno CODE (default EACCES). EACCES, EPERM and
//   EROFS fail before the temp file exists (as opening it would); any other code (ENOSPC, EIO, EDQUOT...) fails after
//   half of the content went into the temp file (as a full disk would), so the clean-up path is exercised too.
// MCP_MIGRATE_FAULT_WRITE_DELAY=<ms>
//   Sleep this long after each temp file is complete and before it is renamed over the target, so that an interrupt
//   test can land a signal inside the write phase (and inside the temp-file window).

interface InjectedFault {
  error: NodeJS.ErrnoException;
  /** Fail after part of the content was written. */
  late: boolean;
}

function injectedWriteFault(absPath: string): InjectedFault | undefined {
  const spec = process.env.MCP_MIGRATE_FAULT_WRITE;
  if (!spec) return undefined;
  const posix = absPath.split(path.sep).join('/');
  for (const entry of spec.split(',')) {
    const [relPath, code = 'EACCES'] = entry.trim().split(':');
    if (!relPath || !(posix === relPath || posix.endsWith(`/${relPath}`))) continue;
    const error: NodeJS.ErrnoException = new Error(`${code}: injected write fault (MCP_MIGRATE_FAULT_WRITE), '${absPath}'`);
    error.code = code;
    return { error, late: !['EACCES', 'EPERM', 'EROFS'].includes(code) };
  }
  return undefined;
}

function injectedDelay(): void {
  const ms = Number(process.env.MCP_MIGRATE_FAULT_WRITE_DELAY ?? 0);
  if (ms > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
// ----------------------------------------------------------------------------------------------------------------

/** Write `content` so that a reader (or a crash) sees either the old file or the new one, never a partial one. */
export function writeFileAtomic(absPath: string, content: string): void {
  const fault = injectedWriteFault(absPath);
  if (fault && !fault.late) throw fault.error;
  // Through a symbolic link: replace what it points at (renaming over the link would turn it into a plain file).
  const target = fs.realpathSync(absPath);
  const stat = fs.statSync(target);
  // Refuse early when the target itself is read-only: rename would silently replace it.
  fs.accessSync(target, fs.constants.W_OK);
  removeStaleTemps(path.dirname(target));
  const temp = tempPathFor(target);
  const mode = stat.mode & 0o7777;
  let fd: number | undefined;
  try {
    fd = fs.openSync(temp, 'wx', mode);
    if (fault) {
      fs.writeFileSync(fd, content.slice(0, content.length >> 1));
      throw fault.error;
    }
    fs.writeFileSync(fd, content);
    fs.fchmodSync(fd, mode); // the mode given to open is masked by the umask
    if (typeof process.getuid === 'function' && (stat.uid !== process.getuid() || stat.gid !== process.getgid?.())) {
      try {
        fs.fchownSync(fd, stat.uid, stat.gid);
      } catch {
        // Only root may give a file away; a non-root writer owns the file it replaces anyway.
      }
    }
    fs.fsyncSync(fd);
    fs.closeSync(fd);
    fd = undefined;
    injectedDelay();
    fs.renameSync(temp, target);
  } catch (error) {
    if (fd !== undefined) fs.closeSync(fd);
    fs.rmSync(temp, { force: true });
    throw error;
  }
  fsyncDirectory(path.dirname(target));
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
  const status = spawnSync('git', ['-C', topLevel, 'status', '--porcelain', '-z', '--', ...absPaths.map((p) => fs.realpathSync(p))], {
    encoding: 'utf8',
  });
  if (status.status !== 0) return [];
  const dirty = new Set<string>();
  for (const entry of status.stdout.split('\0')) {
    if (entry.length < 4) continue;
    dirty.add(path.join(topLevel, entry.slice(3)));
  }
  return absPaths.filter((p) => dirty.has(fs.realpathSync(p)));
}
