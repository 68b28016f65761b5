// Which scanned files import which, found without a parser: a specifier scanner over the raw text, resolved against
// the scanned files the way TypeScript's bundler resolution would try them. The analysis (ts-morph) links files
// through the same relative imports, so files this graph does not link can never see each other there.
//
// The graph over-approximates on purpose: a specifier in a comment or a string that only looks like an import still
// makes an edge, a specifier that could name several files links all of them, and paths are compared without case.
// An extra edge can only make the analysis look at more files; a missed one could change findings.
import * as path from 'node:path';

/**
 * `import … from 's'`, `import 's'`, `export … from 's'`, `import('s')`, `require('s')`, `import x = require('s')`:
 * a keyword, optionally `(`, then a quoted specifier. Also `/// <reference path="s" />`.
 */
const SPECIFIER = /\b(?:from|import|require)\s*\(?\s*(['"`])([^'"`\n\r]+)\1|<reference\s+path\s*=\s*(['"])([^'"\n\r]+)\3/g;

/** Specifiers that name project files: relative (`./x`, `../x`, `.`, `..`) or absolute paths. */
const LOCAL = /^(?:\.{1,2}(?:\/|$)|\/)/;

export function isLocalSpecifier(specifier: string): boolean {
  return LOCAL.test(specifier);
}

/**
 * Path aliases no package name can start with (`@/lib/server`, `~/lib/server`, `#lib/server`): a tsconfig `paths`
 * entry, a bundler alias or a package.json `imports` entry maps them to project files, most often from the project
 * root or its `src/` (`"@/*": ["./src/*"]`).
 */
const ALIAS = /^(?:[@~]\/|#(?!\/))/;

export function isAliasSpecifier(specifier: string): boolean {
  return ALIAS.test(specifier);
}

/**
 * Where an alias may point, nearest first: the rest of the specifier under each folder above the importing file, and
 * under its `src/` (the analysis takes the first that names a project file).
 */
export function aliasBases(fromFile: string, specifier: string): string[] {
  const rest = specifier.replace(ALIAS, '');
  const bases: string[] = [];
  for (let dir = path.dirname(fromFile), i = 0; i < 32; i++) {
    bases.push(path.join(dir, rest), path.join(dir, 'src', rest));
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return bases;
}

/** Local module specifiers (and path aliases) written in `text`, in order of appearance, duplicates kept. */
export function localSpecifiers(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(SPECIFIER)) {
    const specifier = match[2] ?? match[4];
    if (isLocalSpecifier(specifier) || isAliasSpecifier(specifier)) found.push(detached(specifier));
  }
  return found;
}

/**
 * A copy of a substring that does not keep the string it was cut from alive. V8 makes a longer substring a view into
 * its parent; the specifiers outlive the file texts, which `check` does not keep (on the bench tree the heap after
 * reading was 54 MB with views, 25 MB with copies). Concatenating makes a new string; slicing that one drops the parent.
 */
function detached(substring: string): string {
  return `${substring} `.slice(0, -1);
}

const SCRIPT_EXTENSION = /\.(?:[cm]?[jt]s|[jt]sx)$/i;
const INDEX = /^index\.(?:[cm]?[jt]s|[jt]sx)$/i;

export interface GraphFile {
  absPath: string;
  /** What {@link localSpecifiers} found in the file. */
  specifiers: readonly string[];
}

/** Files keyed by every path a specifier may spell them with: exact, without the extension, as a directory. */
class PathIndex {
  private readonly keys = new Map<string, number[]>();

  constructor(files: readonly GraphFile[]) {
    files.forEach((file, index) => {
      const exact = file.absPath.toLowerCase();
      this.add(exact, index);
      this.add(`${exact.replace(SCRIPT_EXTENSION, '')}\0stem`, index);
      if (INDEX.test(path.basename(exact))) this.add(`${path.dirname(exact)}\0dir`, index);
    });
  }

  private add(key: string, index: number): void {
    const list = this.keys.get(key);
    if (list) list.push(index);
    else this.keys.set(key, [index]);
  }

  /** `./a` may be `a.ts` or `a/index.ts`; `./a.js` may be `a.ts`; `./a.ts` is `a.ts`. */
  resolve(fromFile: string, specifier: string): number[] {
    if (isAliasSpecifier(specifier)) {
      for (const base of aliasBases(fromFile, specifier)) {
        const found = this.resolve(fromFile, base);
        if (found.length > 0) return found;
      }
      return [];
    }
    const base = (specifier.startsWith('/') ? path.resolve(specifier) : path.resolve(path.dirname(fromFile), specifier)).toLowerCase();
    return [
      ...(this.keys.get(base) ?? []),
      ...(this.keys.get(`${base.replace(SCRIPT_EXTENSION, '')}\0stem`) ?? []),
      ...(this.keys.get(`${base}\0dir`) ?? []),
    ];
  }
}

/** The import edges between scanned files, by index into the list the graph was built from. */
export class ImportGraph {
  /** For each file, the files it imports (ascending, no duplicates, never itself). */
  readonly imports: number[][];
  /** For each file, the files that import it. */
  readonly importers: number[][];

  constructor(files: readonly GraphFile[]) {
    const index = new PathIndex(files);
    this.imports = files.map((file, from) => {
      const targets = new Set<number>();
      for (const specifier of new Set(file.specifiers)) {
        for (const target of index.resolve(file.absPath, specifier)) if (target !== from) targets.add(target);
      }
      return [...targets].sort((a, b) => a - b);
    });
    this.importers = files.map(() => []);
    this.imports.forEach((targets, from) => {
      for (const target of targets) this.importers[target].push(from);
    });
  }

  /**
   * The groups of files linked by imports in either direction, each ascending, ordered by their first file. Only the
   * files in `among` (all when omitted) take part, and only edges between them count.
   */
  groups(among?: ReadonlySet<number>): number[][] {
    const starts = among ? [...among].sort((a, b) => a - b) : this.imports.keys();
    const groups: number[][] = [];
    const seen = new Set<number>();
    for (const start of starts) {
      if (seen.has(start)) continue;
      const group = [...this.closure([start], 'both', among)].sort((a, b) => a - b);
      for (const file of group) seen.add(file);
      groups.push(group);
    }
    return groups;
  }

  /**
   * The files reachable from `starts` (included) by following imports (`forward`), importers (`backward`) or both,
   * staying within `among` when given.
   */
  closure(starts: Iterable<number>, direction: 'forward' | 'backward' | 'both', among?: ReadonlySet<number>): Set<number> {
    const reached = new Set<number>(starts);
    const pending = [...reached];
    while (pending.length > 0) {
      const file = pending.pop()!;
      const next =
        direction === 'forward'
          ? this.imports[file]
          : direction === 'backward'
            ? this.importers[file]
            : [...this.imports[file], ...this.importers[file]];
      for (const other of next) {
        if (reached.has(other) || (among && !among.has(other))) continue;
        reached.add(other);
        pending.push(other);
      }
    }
    return reached;
  }
}
