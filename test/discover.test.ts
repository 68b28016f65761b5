import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { discover, type DiscoverOptions } from '../src/engine/discover';
import { UsageError } from '../src/engine/errors';

let tmp: string;

beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-migrate-discover-'));
});

afterEach(() => {
  // Restore permissions changed by the unreadable-directory test so the tree can be removed.
  const restore = (dir: string): void => {
    try {
      fs.chmodSync(dir, 0o755);
    } catch {
      return;
    }
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) restore(path.join(dir, entry.name));
    }
  };
  restore(tmp);
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** Creates files (content = value) under `base`; a value of `null` creates a directory. */
function tree(base: string, files: Record<string, string | null>): void {
  for (const [rel, content] of Object.entries(files)) {
    const abs = path.join(base, rel);
    if (content === null) {
      fs.mkdirSync(abs, { recursive: true });
    } else {
      fs.mkdirSync(path.dirname(abs), { recursive: true });
      fs.writeFileSync(abs, content);
    }
  }
}

function run(options: Partial<DiscoverOptions> = {}) {
  return discover({ paths: ['.'], cwd: tmp, gitignore: true, include: [], exclude: [], ...options });
}

function rels(options: Partial<DiscoverOptions> = {}): string[] {
  return run(options).files.map((f) => f.relPath);
}

describe('discover: root and paths', () => {
  it('uses the given directory as root, returns absolute and POSIX relative paths, sorted', () => {
    tree(tmp, { 'z.ts': '', 'a.ts': '', 'src/b/c.ts': '', 'src/a.ts': '', 'B.ts': '', 'src/b.ts': '' });
    const result = run();
    expect(result.root).toBe(tmp);
    expect(result.files.map((f) => f.relPath)).toEqual(['B.ts', 'a.ts', 'src/a.ts', 'src/b.ts', 'src/b/c.ts', 'z.ts']);
    expect(result.files[4].absPath).toBe(path.join(tmp, 'src', 'b', 'c.ts'));
    expect(result.problems).toEqual([]);
  });

  it('passes over entries that are neither files, directories nor links', (context) => {
    tree(tmp, { 'a.ts': '' });
    try {
      execFileSync('mkfifo', [path.join(tmp, 'pipe.ts')]);
    } catch {
      context.skip();
    }
    expect(run()).toEqual({ root: tmp, files: [{ absPath: path.join(tmp, 'a.ts'), relPath: 'a.ts' }], problems: [] });
  });

  it('accepts an absolute path and a path relative to cwd', () => {
    tree(tmp, { 'pkg/src/a.ts': '' });
    const abs = discover({ paths: [path.join(tmp, 'pkg')], cwd: '/', gitignore: false, include: [], exclude: [] });
    const rel = discover({ paths: ['pkg'], cwd: tmp, gitignore: false, include: [], exclude: [] });
    expect(abs.root).toBe(path.join(tmp, 'pkg'));
    expect(rel.root).toBe(path.join(tmp, 'pkg'));
    expect(abs.files).toEqual(rel.files);
    expect(rel.files.map((f) => f.relPath)).toEqual(['src/a.ts']);
  });

  it('uses the parent directory as root when a single file is given', () => {
    tree(tmp, { 'src/server.ts': '', 'src/other.ts': '' });
    const result = run({ paths: ['src/server.ts'] });
    expect(result.root).toBe(path.join(tmp, 'src'));
    expect(result.files).toEqual([{ absPath: path.join(tmp, 'src', 'server.ts'), relPath: 'server.ts' }]);
  });

  it('uses the deepest common ancestor for several paths', () => {
    tree(tmp, { 'repo/packages/a/src/x.ts': '', 'repo/packages/b/src/y.ts': '', 'repo/packages/b/src/z.ts': '', 'repo/other.ts': '' });
    const result = run({ paths: ['repo/packages/b/src/y.ts', 'repo/packages/a'] });
    expect(result.root).toBe(path.join(tmp, 'repo', 'packages'));
    expect(result.files.map((f) => f.relPath)).toEqual(['a/src/x.ts', 'b/src/y.ts']);
  });

  it('scans overlapping paths once', () => {
    tree(tmp, { 'src/a.ts': '', 'src/lib/b.ts': '' });
    expect(rels({ paths: ['src/lib', 'src', 'src/lib/b.ts'] })).toEqual(['a.ts', 'lib/b.ts']);
  });

  it('throws UsageError for a path that does not exist', () => {
    tree(tmp, { 'a.ts': '' });
    expect(() => run({ paths: ['a.ts', 'missing/dir'] })).toThrow(UsageError);
    expect(() => run({ paths: ['missing/dir'] })).toThrow('path not found: missing/dir');
    try {
      run({ paths: ['nope.ts'] });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(UsageError);
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).name).toBe('UsageError');
    }
  });
});

describe('discover: filters', () => {
  it('keeps the default extensions and never scans declaration files', () => {
    tree(tmp, {
      'a.ts': '',
      'b.tsx': '',
      'c.mts': '',
      'd.cts': '',
      'e.js': '',
      'f.jsx': '',
      'g.mjs': '',
      'h.cjs': '',
      'types.d.ts': '',
      'm.d.mts': '',
      'c2.d.cts': '',
      'readme.md': '',
      'data.json': '',
      noext: '',
      '.ts': '',
      'x.ts.bak': '',
    });
    expect(rels()).toEqual(['a.ts', 'b.tsx', 'c.mts', 'd.cts', 'e.js', 'f.jsx', 'g.mjs', 'h.cjs']);
  });

  it('honours a custom extension list (with or without the dot), still without .d.ts', () => {
    tree(tmp, { 'a.ts': '', 'b.js': '', 'c.vue': '', 'd.d.ts': '' });
    expect(rels({ extensions: ['.ts', 'vue'] })).toEqual(['a.ts', 'c.vue']);
  });

  it('always skips dependency, build and VCS directories, even without gitignore', () => {
    const skipped = [
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
    ];
    const files: Record<string, string> = { 'src/keep.ts': '', 'src/distance.ts': '', 'builder/b.ts': '' };
    for (const dir of skipped) {
      files[`${dir}/x.ts`] = '';
      files[`src/${dir}/y.ts`] = '';
    }
    tree(tmp, files);
    expect(rels({ gitignore: false })).toEqual(['builder/b.ts', 'src/distance.ts', 'src/keep.ts']);
    expect(rels({ gitignore: true })).toEqual(['builder/b.ts', 'src/distance.ts', 'src/keep.ts']);
  });

  it('scans inside an always-skipped directory when it is the given path', () => {
    tree(tmp, { 'node_modules/pkg/index.js': '', 'node_modules/pkg/node_modules/dep/i.js': '', 'node_modules/pkg/lib/a.js': '' });
    const result = run({ paths: ['node_modules/pkg'] });
    expect(result.root).toBe(path.join(tmp, 'node_modules', 'pkg'));
    expect(result.files.map((f) => f.relPath)).toEqual(['index.js', 'lib/a.js']);
  });

  it('applies exclude globs to files and directories', () => {
    tree(tmp, {
      'src/a.ts': '',
      'src/a.test.ts': '',
      'src/deep/b.spec.ts': '',
      'fixtures/f.ts': '',
      'src/fixtures/g.ts': '',
      'legacy/old.ts': '',
      'src/legacy/keep.ts': '',
      'gen/x.ts': '',
    });
    expect(rels({ exclude: ['*.test.ts', '**/*.spec.ts', 'fixtures', '/legacy', './gen/'] })).toEqual(['src/a.ts', 'src/legacy/keep.ts']);
    expect(rels({ exclude: ['src/**'] })).toEqual(['fixtures/f.ts', 'gen/x.ts', 'legacy/old.ts']);
  });

  it('requires include globs to match when given', () => {
    tree(tmp, { 'src/a.ts': '', 'src/b.js': '', 'lib/c.ts': '', 'server.ts': '' });
    expect(rels({ include: ['src/**'] })).toEqual(['src/a.ts', 'src/b.js']);
    expect(rels({ include: ['*.ts'] })).toEqual(['lib/c.ts', 'server.ts', 'src/a.ts']);
    expect(rels({ include: ['/*.ts', 'lib/*.ts'] })).toEqual(['lib/c.ts', 'server.ts']);
    expect(rels({ include: ['src/**'], exclude: ['**/*.js'] })).toEqual(['src/a.ts']);
  });

  it('applies include/exclude and extensions, but not .gitignore, to an explicitly given file', () => {
    tree(tmp, { '.gitignore': 'ignored.ts\n', 'ignored.ts': '', 'other.ts': '', 'notes.md': '' });
    expect(rels({ paths: ['ignored.ts'] })).toEqual(['ignored.ts']);
    expect(rels({ paths: ['ignored.ts', 'other.ts'], exclude: ['other.ts'] })).toEqual(['ignored.ts']);
    expect(rels({ paths: ['notes.md'] })).toEqual([]);
  });
});

describe('discover: .gitignore', () => {
  it('honours root and nested .gitignore files with negation', () => {
    tree(tmp, {
      '.gitignore': '# generated\n*.gen.ts\n!keep.gen.ts\nsecret/\n/top-only.ts\n',
      'a.ts': '',
      'a.gen.ts': '',
      'keep.gen.ts': '',
      'top-only.ts': '',
      'secret/s.ts': '',
      'pkg/top-only.ts': '',
      'pkg/b.gen.ts': '',
      'pkg/c.ts': '',
      'pkg/tmp.ts': '',
      'pkg/secret/s.ts': '',
      'pkg/.gitignore': 'tmp.ts\n!b.gen.ts\n',
      'pkg/sub/tmp.ts': '',
      'pkg/sub/d.gen.ts': '',
    });
    expect(rels()).toEqual(['a.ts', 'keep.gen.ts', 'pkg/b.gen.ts', 'pkg/c.ts', 'pkg/top-only.ts']);
  });

  it('lets a deeper .gitignore re-include a directory a shallower one ignores', () => {
    tree(tmp, {
      '.gitignore': 'vendor/\n',
      'vendor/v.ts': '',
      'pkg/.gitignore': '!vendor/\n',
      'pkg/vendor/v.ts': '',
    });
    expect(rels()).toEqual(['pkg/vendor/v.ts']);
  });

  it('cannot re-include a file inside an ignored directory (git semantics)', () => {
    tree(tmp, { '.gitignore': 'gen/\n!gen/keep.ts\n', 'gen/keep.ts': '', 'a.ts': '' });
    expect(rels()).toEqual(['a.ts']);
  });

  it('ignores .gitignore files when gitignore is off', () => {
    tree(tmp, { '.gitignore': '*.ts\n', 'sub/.gitignore': '*.js\n', 'a.ts': '', 'sub/b.js': '', 'node_modules/x.ts': '' });
    expect(rels()).toEqual([]);
    expect(rels({ gitignore: false })).toEqual(['a.ts', 'sub/b.js']);
  });

  it('reads .git/info/exclude and .gitignore files above the root inside the work tree', () => {
    tree(tmp, {
      '.git/info/exclude': 'local-*.ts\n',
      '.gitignore': 'generated/\n*.tmp.ts\n',
      'packages/app/src/a.ts': '',
      'packages/app/src/local-notes.ts': '',
      'packages/app/src/x.tmp.ts': '',
      'packages/app/generated/g.ts': '',
    });
    expect(rels({ paths: ['packages/app'] })).toEqual(['src/a.ts']);
    expect(rels({ paths: ['packages/app'], gitignore: false })).toEqual([
      'generated/g.ts',
      'src/a.ts',
      'src/local-notes.ts',
      'src/x.tmp.ts',
    ]);
  });

  it('does not read .gitignore files above the root when there is no work tree', () => {
    tree(tmp, { '.gitignore': '*.ts\n', 'pkg/a.ts': '' });
    expect(rels({ paths: ['pkg'] })).toEqual(['a.ts']);
  });

  it('scans a given directory that a .gitignore above it ignores, still applying its own rules', () => {
    tree(tmp, {
      '.git/HEAD': 'ref: refs/heads/main\n',
      '.gitignore': 'vendor/\n',
      'vendor/lib/a.ts': '',
      'vendor/lib/b.ts': '',
      'vendor/lib/.gitignore': 'b.ts\n',
    });
    expect(rels()).toEqual([]);
    expect(rels({ paths: ['vendor/lib'] })).toEqual(['a.ts']);
  });
});

describe('discover: symlinks', () => {
  it('reports a symlinked directory that points outside the root and does not follow it', () => {
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-migrate-outside-'));
    try {
      tree(outside, { 'secret.ts': '', 'more/x.ts': '' });
      tree(tmp, { 'root/a.ts': '' });
      fs.symlinkSync(outside, path.join(tmp, 'root', 'ext'));
      fs.symlinkSync(path.join(outside, 'secret.ts'), path.join(tmp, 'root', 'secret-link.ts'));
      const result = run({ paths: ['root'] });
      expect(result.files.map((f) => f.relPath)).toEqual(['a.ts']);
      expect(result.problems).toHaveLength(2);
      expect(result.problems[0]).toMatchObject({ file: 'ext', kind: 'symlink' });
      expect(result.problems[0].message).toMatch(/^symlink points outside the scanned root: ext -> /);
      expect(result.problems[1]).toMatchObject({ file: 'secret-link.ts', kind: 'symlink' });
      expect(result.problems[1].message).toMatch(/^symlink points outside the scanned root: secret-link\.ts -> .*secret\.ts; not scanned$/);
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });

  it('reports a symlink loop and terminates', () => {
    tree(tmp, { 'src/a.ts': '', 'src/deep/b.ts': '' });
    fs.symlinkSync('..', path.join(tmp, 'src', 'deep', 'up'));
    fs.symlinkSync('.', path.join(tmp, 'src', 'self'));
    const result = run();
    expect(result.files.map((f) => f.relPath)).toEqual(['src/a.ts', 'src/deep/b.ts']);
    expect(result.problems.map((p) => [p.file, p.kind])).toEqual([
      ['src/deep/up', 'symlink'],
      ['src/self', 'symlink'],
    ]);
    expect(result.problems[0].message).toMatch(/^symlink loop: src\/deep\/up -> /);
  });

  it('reports a chain of links that resolves to itself', () => {
    tree(tmp, { 'a.ts': '' });
    fs.symlinkSync('loop-b', path.join(tmp, 'loop-a'));
    fs.symlinkSync('loop-a', path.join(tmp, 'loop-b'));
    const result = run();
    expect(result.files.map((f) => f.relPath)).toEqual(['a.ts']);
    expect(result.problems).toEqual([
      { file: 'loop-a', kind: 'symlink', message: 'symlink loop: loop-a -> loop-b' },
      { file: 'loop-b', kind: 'symlink', message: 'symlink loop: loop-b -> loop-a' },
    ]);
  });

  it('reports a dangling symlink unless its name is not a scanned file type', () => {
    tree(tmp, { 'a.ts': '' });
    fs.symlinkSync('gone.ts', path.join(tmp, 'broken.ts'));
    fs.symlinkSync('gone-dir', path.join(tmp, 'broken-dir'));
    fs.symlinkSync('gone.png', path.join(tmp, 'image.png'));
    const result = run();
    expect(result.files.map((f) => f.relPath)).toEqual(['a.ts']);
    expect(result.problems).toEqual([
      { file: 'broken-dir', kind: 'symlink', message: 'dangling symlink: broken-dir -> gone-dir' },
      { file: 'broken.ts', kind: 'symlink', message: 'dangling symlink: broken.ts -> gone.ts' },
    ]);
  });

  it('scans a file once when a link inside the root points at a scanned file', () => {
    tree(tmp, { 'src/real.ts': '', 'lib/only.ts': '' });
    fs.symlinkSync(path.join('src', 'real.ts'), path.join(tmp, 'alias.ts'));
    fs.symlinkSync('real.ts', path.join(tmp, 'src', 'alias2.ts'));
    fs.symlinkSync('src', path.join(tmp, 'src-link'));
    const result = run();
    expect(result.files.map((f) => f.relPath)).toEqual(['lib/only.ts', 'src/real.ts']);
    expect(result.problems).toEqual([]);
  });

  it('follows a link inside the root when its target is not otherwise scanned', () => {
    tree(tmp, { 'shared/util.txt': 'x', 'src/a.ts': '' });
    fs.symlinkSync(path.join('..', 'shared', 'util.txt'), path.join(tmp, 'src', 'util.ts'));
    const result = run();
    expect(result.files).toEqual([
      { absPath: path.join(tmp, 'src', 'a.ts'), relPath: 'src/a.ts' },
      { absPath: path.join(tmp, 'src', 'util.ts'), relPath: 'src/util.ts' },
    ]);
  });

  it('skips a link into a directory the walk skips', () => {
    tree(tmp, { 'node_modules/pkg/index.js': '', 'src/a.ts': '', '.gitignore': 'generated/\n', 'generated/g.ts': '' });
    fs.symlinkSync(path.join('..', 'node_modules', 'pkg'), path.join(tmp, 'src', 'pkg'));
    fs.symlinkSync(path.join('..', 'generated', 'g.ts'), path.join(tmp, 'src', 'g.ts'));
    const result = run();
    expect(result.files.map((f) => f.relPath)).toEqual(['src/a.ts']);
    expect(result.problems).toEqual([]);
  });
});

describe('discover: unreadable directories', () => {
  // Running as root (common in containers) makes chmod ineffective: probe before asserting.
  function chmodIsEffective(): boolean {
    const probe = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-migrate-probe-'));
    try {
      fs.chmodSync(probe, 0o000);
      try {
        fs.readdirSync(probe);
        return false;
      } catch {
        return true;
      }
    } finally {
      fs.chmodSync(probe, 0o755);
      fs.rmSync(probe, { recursive: true, force: true });
    }
  }

  it('reports an unreadable directory and goes on', (context) => {
    if (process.platform === 'win32' || !chmodIsEffective()) context.skip();
    tree(tmp, { 'a.ts': '', 'locked/b.ts': '', 'z/c.ts': '' });
    fs.chmodSync(path.join(tmp, 'locked'), 0o000);
    const result = run();
    expect(result.files.map((f) => f.relPath)).toEqual(['a.ts', 'z/c.ts']);
    expect(result.problems).toEqual([{ file: 'locked', kind: 'unreadable', message: 'cannot read directory (EACCES); skipped' }]);
  });
});

describe('discover: scale', () => {
  it('walks a 5,000-file tree quickly and deterministically', () => {
    const files: Record<string, string> = {};
    for (let d = 0; d < 50; d++) for (let f = 0; f < 100; f++) files[`pkg${d}/src/file${f}.ts`] = '';
    tree(tmp, files);
    const started = performance.now();
    const first = run();
    const elapsed = performance.now() - started;
    expect(first.files).toHaveLength(5000);
    expect(run().files).toEqual(first.files);
    expect(elapsed).toBeLessThan(2000);
  });
});
