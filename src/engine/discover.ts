// Discovery: which files a run looks at.
//
// Rules (documented in the README):
// - `root` is the directory of the single path given (the path itself when it is a directory, its
//   parent when it is a file) or the deepest common ancestor directory of several paths. Every
//   `relPath` is relative to it with `/` separators; files come sorted by `relPath`.
// - Directories named in ALWAYS_SKIPPED_DIRS are never entered when met during the walk, with or
//   without .gitignore. The names are matched on directories *below* a given path only, so
//   `discover({ paths: ['node_modules/some-pkg'] })` scans that package.
// - Paths named explicitly bypass .gitignore and the always-skipped names (you asked for them);
//   the extension filter and --include/--exclude still apply to them.
// - With `gitignore`, the .gitignore files of the root, of every directory below it and of its
//   ancestors up to the enclosing git work tree apply, plus `.git/info/exclude`, with git's
//   precedence (a deeper file overrides a shallower one; within a file the last match wins; a file
//   inside an ignored directory cannot be re-included). Not read: `core.excludesFile` (global
//   gitignore). When a directory is re-included by a deeper .gitignore (or given explicitly while
//   ignored by a .gitignore above it), the shallower file's rules no longer apply beneath it.
// - Globs (--include/--exclude) are picomatch globs relative to the root, POSIX, dotfiles matched.
//   A glob without a `/` matches a name at any depth (`*.test.ts`, `fixtures`), like .gitignore; a
//   leading `/` anchors it at the root. --exclude applies to files and directories (a matching
//   directory is not entered); --include, when given, must match every scanned file.
// - `.d.ts` / `.d.mts` / `.d.cts` declaration files are never scanned.
// - Symbolic links are resolved: what is scanned is decided by the link's real target. A link to
//   something outside the root, a link to one of its own ancestor directories (a loop) and a
//   dangling link are skipped and reported (`symlink` problems). A link to a file or directory that
//   the walk reaches anyway is followed no further (each real file is scanned once, under its own
//   path); a link into a directory the walk skips (ignored, excluded, always skipped) is skipped
//   silently. Links whose type cannot be known (dangling, looping chains) are reported unless their
//   name is ignored/excluded or carries an extension that is not scanned.
// - An unreadable directory yields an `unreadable` problem and the walk goes on.

import * as fs from 'node:fs';
import * as path from 'node:path';
import ignore, { type Ignore } from 'ignore';
import picomatch from 'picomatch/posix';
import type { FileProblem } from '../model';
import { UsageError } from './errors';

export interface DiscoverOptions {
  /** Files or directories, relative to `cwd` or absolute. An empty list means `['.']`. */
  paths: string[];
  cwd: string;
  /** Honour .gitignore files (root, nested, ancestors within the work tree) and .git/info/exclude. */
  gitignore: boolean;
  /** Globs relative to the root (POSIX); when non-empty a file must match one. */
  include: string[];
  /** Globs; a matching file or directory is skipped. */
  exclude: string[];
  /** Default {@link DEFAULT_EXTENSIONS}. Declaration files (`.d.ts`) are never scanned. */
  extensions?: string[];
}

export interface DiscoveredFile {
  absPath: string;
  /** POSIX, relative to root. */
  relPath: string;
}

export interface Discovery {
  /** Absolute path (as given, not symlink-resolved). */
  root: string;
  files: DiscoveredFile[];
  problems: FileProblem[];
}

export const DEFAULT_EXTENSIONS: readonly string[] = Object.freeze(['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs']);

/** Directory names never entered during the walk (build output, dependencies, VCS and tool caches). */
export const ALWAYS_SKIPPED_DIRS: ReadonlySet<string> = new Set([
  'node_modules',
  '.git',
  '.hg',
  '.svn',
  'dist',
  'build',
  'out',
  'coverage',
  '.next',
  '.turbo',
  '.cache',
  '.wrangler',
  '.tmp',
]);

const DECLARATION_SUFFIXES = ['.d.ts', '.d.mts', '.d.cts'];

/** One .gitignore-style file: its rules apply to paths below `base`. */
interface Matcher {
  ig: Ignore;
  /** Characters to drop from a root-relative path (the base's own root-relative path and its `/`). */
  strip: number;
  /** Prepended to a root-relative path when the base is above the root (`<root from base>/`). */
  prefix: string;
}

interface Candidate {
  absPath: string;
  relPath: string;
  /** Reached through a symbolic link (a real path wins over a link path for the same file). */
  viaLink: boolean;
}

interface PendingLink {
  absPath: string;
  relPath: string;
  /** Real path of the target. */
  target: string;
  isDir: boolean;
  chain: Matcher[];
}

const toPosix = path.sep === '/' ? (p: string) => p : (p: string) => p.split(path.sep).join('/');

function errorCode(error: unknown): string {
  return (error as NodeJS.ErrnoException | null)?.code ?? 'unknown error';
}

function isSameOrInside(child: string, parent: string): boolean {
  if (child === parent) return true;
  const prefix = parent.endsWith(path.sep) ? parent : parent + path.sep;
  return child.startsWith(prefix);
}

function compileGlobs(globs: string[]): ((relPath: string) => boolean) | null {
  const patterns = globs
    .map((glob) => glob.trim())
    .filter((glob) => glob !== '')
    .map((glob) => {
      let g = glob;
      while (g.startsWith('./')) g = g.slice(2);
      const anchored = g.startsWith('/');
      if (anchored) g = g.replace(/^\/+/, '');
      g = g.replace(/\/+$/, '');
      return !anchored && !g.includes('/') ? `**/${g}` : g;
    })
    .filter((glob) => glob !== '');
  if (patterns.length === 0) return null;
  return picomatch(patterns, { dot: true });
}

function commonAncestor(dirs: string[]): string {
  let common = dirs[0];
  for (const dir of dirs.slice(1)) {
    while (!isSameOrInside(dir, common)) {
      const parent = path.dirname(common);
      if (parent === common) throw new UsageError(`the given paths have no common directory: ${dirs.join(', ')}`);
      common = parent;
    }
  }
  return common;
}

/** Nearest directory at or above `dir` that holds `.git` (a directory, or a file in worktrees and submodules). */
function findWorkTree(dir: string): string | undefined {
  for (let current = dir; ;) {
    if (fs.existsSync(path.join(current, '.git'))) return current;
    const parent = path.dirname(current);
    if (parent === current) return undefined;
    current = parent;
  }
}

/** `<git dir>/info/exclude` for a work tree, following `gitdir:` files and `commondir`. */
function infoExcludePath(workTree: string): string | undefined {
  const dotGit = path.join(workTree, '.git');
  try {
    let gitDir = dotGit;
    if (fs.statSync(dotGit).isFile()) {
      const match = /^gitdir:\s*(.+?)\s*$/m.exec(fs.readFileSync(dotGit, 'utf8'));
      if (!match) return undefined;
      gitDir = path.resolve(workTree, match[1]);
      const commonDirFile = path.join(gitDir, 'commondir');
      if (fs.existsSync(commonDirFile)) gitDir = path.resolve(gitDir, fs.readFileSync(commonDirFile, 'utf8').trim());
    }
    return path.join(gitDir, 'info', 'exclude');
  } catch {
    return undefined;
  }
}

export function discover(options: DiscoverOptions): Discovery {
  const cwd = path.resolve(options.cwd);
  const given = options.paths.length > 0 ? options.paths : ['.'];

  // --- the given paths and the root ---------------------------------------------------------
  const specs = given.map((p) => {
    const absPath = path.resolve(cwd, p);
    let stat: fs.Stats;
    try {
      stat = fs.statSync(absPath);
    } catch (error) {
      const code = errorCode(error);
      if (code === 'ENOENT' || code === 'ENOTDIR') throw new UsageError(`path not found: ${p}`);
      throw new UsageError(`cannot access ${p} (${code})`);
    }
    if (!stat.isDirectory() && !stat.isFile()) throw new UsageError(`not a file or directory: ${p}`);
    return { given: p, absPath, isDir: stat.isDirectory() };
  });
  const root = commonAncestor(specs.map((s) => (s.isDir ? s.absPath : path.dirname(s.absPath))));
  const realRoot = fs.realpathSync(root);
  const relOf = (absPath: string): string => toPosix(path.relative(root, absPath));

  // --- filters ------------------------------------------------------------------------------
  const extensions = (options.extensions && options.extensions.length > 0 ? options.extensions : DEFAULT_EXTENSIONS).map((ext) =>
    ext.startsWith('.') ? ext : `.${ext}`,
  );
  const singleDotExts = new Set(extensions.filter((ext) => ext.lastIndexOf('.') === 0));
  const multiDotExts = extensions.filter((ext) => ext.lastIndexOf('.') > 0);
  const hasWantedExtension = (name: string): boolean => {
    const dot = name.lastIndexOf('.');
    const matches =
      (dot > 0 && singleDotExts.has(name.slice(dot))) || multiDotExts.some((ext) => name.length > ext.length && name.endsWith(ext));
    return matches && !DECLARATION_SUFFIXES.some((suffix) => name.endsWith(suffix));
  };
  const isExcluded = compileGlobs(options.exclude) ?? (() => false);
  const isIncluded = compileGlobs(options.include) ?? (() => true);
  /** Name- and glob-based file filters (everything but .gitignore). */
  const fileWanted = (name: string, relPath: string): boolean => hasWantedExtension(name) && !isExcluded(relPath) && isIncluded(relPath);

  // --- .gitignore ---------------------------------------------------------------------------
  const problems: FileProblem[] = [];
  const ignoreCase = process.platform === 'darwin' || process.platform === 'win32';
  const matcherCache = new Map<string, Matcher | null>();

  const matcherFor = (base: string, file: string): Matcher | null => {
    const key = `${base}\0${file}`;
    const cached = matcherCache.get(key);
    if (cached !== undefined) return cached;
    let matcher: Matcher | null = null;
    try {
      const content = fs.readFileSync(file, 'utf8');
      const ig = ignore({ ignorecase: ignoreCase }).add(content);
      if (isSameOrInside(base, root)) {
        const rel = relOf(base);
        matcher = { ig, strip: rel === '' ? 0 : rel.length + 1, prefix: '' };
      } else {
        matcher = { ig, strip: 0, prefix: `${toPosix(path.relative(base, root))}/` };
      }
    } catch (error) {
      const code = errorCode(error);
      if (code !== 'ENOENT' && code !== 'ENOTDIR') {
        problems.push({
          file: isSameOrInside(file, root) ? relOf(file) : toPosix(file),
          kind: 'unreadable',
          message: `cannot read ${path.basename(file)} (${code}); its rules are not applied`,
        });
      }
    }
    matcherCache.set(key, matcher);
    return matcher;
  };

  const workTree = options.gitignore ? findWorkTree(root) : undefined;
  // Where .gitignore files start to count: the work tree when the root is inside one, else the root.
  const ignoreTop = workTree !== undefined && isSameOrInside(root, workTree) ? workTree : root;

  /** The .gitignore chain that applies to entries of `dir` (excluding `dir`'s own .gitignore). */
  const chainAbove = (dir: string): Matcher[] => {
    if (!options.gitignore) return [];
    const chain: Matcher[] = [];
    if (workTree !== undefined && ignoreTop === workTree) {
      const exclude = infoExcludePath(workTree);
      const m = exclude ? matcherFor(workTree, exclude) : null;
      if (m) chain.push(m);
    }
    const dirs: string[] = [];
    for (let current = path.dirname(dir); isSameOrInside(current, ignoreTop); current = path.dirname(current)) {
      dirs.unshift(current);
      if (current === ignoreTop || path.dirname(current) === current) break;
    }
    for (const d of dirs) {
      const m = matcherFor(d, path.join(d, '.gitignore'));
      if (m) chain.push(m);
    }
    return chain;
  };

  const gitIgnored = (chain: Matcher[], relPath: string, isDir: boolean): boolean => {
    for (let i = chain.length - 1; i >= 0; i--) {
      const m = chain[i];
      const p = m.prefix + (m.strip ? relPath.slice(m.strip) : relPath);
      const result = m.ig.test(isDir ? `${p}/` : p);
      if (result.unignored) return false;
      if (result.ignored) {
        // `ignore` reports a path inside an ignored directory as ignored. We only walk directories
        // that are not ignored overall, so if this file's rules ignore the parent, a deeper file
        // re-included it (or it was given explicitly): this file has no say here.
        const slash = p.lastIndexOf('/');
        if (slash > 0 && m.ig.test(p.slice(0, slash + 1)).ignored) continue;
        return true;
      }
    }
    return false;
  };

  // --- the walk -----------------------------------------------------------------------------
  const found = new Map<string, Candidate>(); // real path -> file
  const visited = new Set<string>(); // real paths of walked directories
  const pruned = new Set<string>(); // real paths of directories the walk chose not to enter
  const prunedFiles = new Set<string>(); // real paths of files skipped by --exclude or .gitignore
  const pending: PendingLink[] = [];
  const allowedRoots = [realRoot];

  const addFile = (realPath: string, candidate: Candidate): void => {
    const existing = found.get(realPath);
    if (
      existing === undefined ||
      (existing.viaLink && !candidate.viaLink) ||
      (existing.viaLink === candidate.viaLink && candidate.relPath < existing.relPath)
    ) {
      found.set(realPath, candidate);
    }
  };

  const linkProblem = (relPath: string, message: string): void => {
    problems.push({ file: relPath, kind: 'symlink', message });
  };

  const readLinkText = (absPath: string): string => {
    try {
      return fs.readlinkSync(absPath);
    } catch {
      return '?';
    }
  };

  const walk = (dirAbs: string, dirRel: string, dirReal: string, parentChain: Matcher[], viaLink: boolean): void => {
    if (visited.has(dirReal)) return;
    visited.add(dirReal);
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dirAbs, { withFileTypes: true });
    } catch (error) {
      problems.push({
        file: dirRel === '' ? '.' : dirRel,
        kind: 'unreadable',
        message: `cannot read directory (${errorCode(error)}); skipped`,
      });
      return;
    }
    let chain = parentChain;
    if (options.gitignore) {
      for (const entry of entries) {
        if (entry.name === '.gitignore' && entry.isFile()) {
          const m = matcherFor(dirAbs, path.join(dirAbs, '.gitignore'));
          if (m) chain = [...parentChain, m];
          break;
        }
      }
    }
    // Entry names never contain a separator, so plain concatenation is a correct (and much
    // cheaper) `path.join` here; the prefixes handle a directory that is a filesystem root.
    const relPrefix = dirRel === '' ? '' : `${dirRel}/`;
    const absPrefix = dirAbs.endsWith(path.sep) ? dirAbs : dirAbs + path.sep;
    const realPrefix = dirReal.endsWith(path.sep) ? dirReal : dirReal + path.sep;
    for (const entry of entries) {
      const name = entry.name;
      const relPath = relPrefix + name;
      if (entry.isFile()) {
        if (!hasWantedExtension(name)) continue;
        if (isExcluded(relPath) || (options.gitignore && gitIgnored(chain, relPath, false))) {
          prunedFiles.add(realPrefix + name);
          continue;
        }
        if (!isIncluded(relPath)) continue;
        addFile(realPrefix + name, { absPath: absPrefix + name, relPath, viaLink });
      } else if (entry.isDirectory()) {
        if (ALWAYS_SKIPPED_DIRS.has(name) || isExcluded(relPath) || (options.gitignore && gitIgnored(chain, relPath, true))) {
          pruned.add(realPrefix + name);
          continue;
        }
        walk(absPrefix + name, relPath, realPrefix + name, chain, viaLink);
      } else if (entry.isSymbolicLink()) {
        visitLink(absPrefix + name, name, relPath, dirReal, chain);
      }
      // Sockets, FIFOs, devices: never read (a FIFO would block).
    }
  };

  const visitLink = (absPath: string, name: string, relPath: string, dirReal: string, chain: Matcher[]): void => {
    if (isExcluded(relPath)) return;
    let target: string;
    try {
      target = fs.realpathSync(absPath);
    } catch (error) {
      // Type unknown: report unless the name says we would not have scanned it anyway.
      if (options.gitignore && gitIgnored(chain, relPath, false)) return;
      if (path.extname(name) !== '' && !fileWanted(name, relPath)) return;
      const code = errorCode(error);
      if (code === 'ENOENT' || code === 'ENOTDIR') linkProblem(relPath, `dangling symlink: ${relPath} -> ${readLinkText(absPath)}`);
      else if (code === 'ELOOP') linkProblem(relPath, `symlink loop: ${relPath} -> ${readLinkText(absPath)}`);
      else problems.push({ file: relPath, kind: 'unreadable', message: `cannot resolve symlink (${code}); skipped` });
      return;
    }
    let stat: fs.Stats;
    try {
      stat = fs.statSync(target);
    } catch (error) {
      problems.push({ file: relPath, kind: 'unreadable', message: `cannot read symlink target (${errorCode(error)}); skipped` });
      return;
    }
    const inside = allowedRoots.some((r) => isSameOrInside(target, r));
    if (stat.isDirectory()) {
      if (ALWAYS_SKIPPED_DIRS.has(name) || (options.gitignore && gitIgnored(chain, relPath, true))) return;
      if (isSameOrInside(dirReal, target)) {
        linkProblem(relPath, `symlink loop: ${relPath} -> ${target} (an ancestor of the link); not followed`);
        return;
      }
      if (!inside) {
        linkProblem(relPath, `symlink points outside the scanned root: ${relPath} -> ${target}; not followed`);
        return;
      }
      pending.push({ absPath, relPath, target, isDir: true, chain });
    } else if (stat.isFile()) {
      if (!fileWanted(name, relPath)) return;
      if (options.gitignore && gitIgnored(chain, relPath, false)) return;
      if (!inside) {
        linkProblem(relPath, `symlink points outside the scanned root: ${relPath} -> ${target}; not scanned`);
        return;
      }
      pending.push({ absPath, relPath, target, isDir: false, chain });
    }
  };

  /** The target is inside a directory the walk chose to skip. */
  const inPrunedDir = (target: string): boolean => {
    for (let p = target; isSameOrInside(p, realRoot) && p !== realRoot; p = path.dirname(p)) {
      if (pruned.has(p)) return true;
    }
    return false;
  };

  // Phase 1: the real tree. Explicit directories shallowest first so nested ones are walked once.
  const ordered = [...specs].sort((a, b) => a.absPath.length - b.absPath.length);
  for (const spec of ordered) {
    const realPath = fs.realpathSync(spec.absPath);
    const relPath = relOf(spec.absPath);
    if (spec.isDir) {
      if (relPath !== '' && isExcluded(relPath)) continue;
      if (!allowedRoots.some((r) => isSameOrInside(realPath, r))) allowedRoots.push(realPath);
      walk(spec.absPath, relPath, realPath, chainAbove(spec.absPath), false);
    } else if (fileWanted(path.basename(spec.absPath), relPath)) {
      addFile(realPath, { absPath: spec.absPath, relPath, viaLink: false });
    }
  }

  // Phase 2: links inside the root, once every real file and directory is known. Walking a linked
  // directory can queue more links, hence the loop.
  for (let i = 0; i < pending.length; i++) {
    const link = pending[i];
    if (link.isDir) {
      if (visited.has(link.target) || inPrunedDir(link.target)) continue;
      walk(link.absPath, link.relPath, link.target, link.chain, true);
    } else {
      if (found.has(link.target) || prunedFiles.has(link.target) || inPrunedDir(link.target)) continue;
      addFile(link.target, { absPath: link.absPath, relPath: link.relPath, viaLink: true });
    }
  }

  const files = [...found.values()]
    .map(({ absPath, relPath }) => ({ absPath, relPath }))
    .sort((a, b) => (a.relPath < b.relPath ? -1 : a.relPath > b.relPath ? 1 : 0));
  problems.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.message < b.message ? -1 : a.message > b.message ? 1 : 0));
  return { root, files, problems };
}
