// V8's compiled code for the large modules the engine loads (TypeScript, ts-morph, jscodeshift's parsers), kept
// between runs. Compiling TypeScript's 9 MB bundle was about 0.15 s of CPU in every process that analyses (each pool
// worker too): on one small server `check` took 0.7 s, of which 0.55 s of CPU, and 0.5 s with the cache. Node 22.1+
// has this built in (`module.enableCompileCache`, used when present); on Node 20 the modules are compiled through
// `vm.Script` with the cached data V8 produced the first time. V8 checks what it is handed (its version, flags, the
// source's length and a checksum) and rejects data that does not fit; it is then made again.
//
// Where: `$MCP_MIGRATE_COMPILE_CACHE`, else `$XDG_CACHE_HOME/mcp-migrate/v8`, else `~/.cache/mcp-migrate/v8` (never a
// shared temporary directory: V8 runs what the cache holds). `MCP_MIGRATE_COMPILE_CACHE=0` turns it off. Nothing is
// ever reported about it: a cache that cannot be read or written only costs the compile.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import Module from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vm from 'node:vm';

/** Modules at least this large (in characters) under a node_modules directory are cached; the rest compile fast. */
const MIN_CACHED_CHARS = 256 * 1024;

const IN_NODE_MODULES = /[\\/]node_modules[\\/]/;

let installed = false;

/** Installs the cache for the modules this thread loads from now on (once per thread; later calls do nothing). */
export function installCompileCache(env: NodeJS.ProcessEnv = process.env): void {
  if (installed) return;
  installed = true;
  const dir = cacheDir(env);
  if (!dir) return;
  const builtIn = (Module as unknown as { enableCompileCache?: (dir: string) => unknown }).enableCompileCache;
  if (typeof builtIn === 'function') {
    try {
      builtIn(dir);
    } catch {
      // no cache
    }
    return;
  }
  const prototype = Module.prototype as unknown as { _compile(content: string, filename: string): unknown };
  const compile = prototype._compile;
  prototype._compile = function (this: Module, content: string, filename: string) {
    if (content.length < MIN_CACHED_CHARS || !IN_NODE_MODULES.test(filename)) return compile.call(this, content, filename);
    return compileCached(this, content, filename, dir, () => compile.call(this, content, filename));
  };
}

function cacheDir(env: NodeJS.ProcessEnv): string | undefined {
  const chosen = env.MCP_MIGRATE_COMPILE_CACHE;
  if (chosen === '0' || chosen === 'false') return undefined;
  if (chosen) return path.resolve(chosen);
  const base = env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.isAbsolute(base) ? path.join(base, 'mcp-migrate', 'v8') : undefined;
}

/** What `Module.prototype._compile` does for a CommonJS file, with the compiled code taken from (or put in) the cache. */
function compileCached(module: Module, content: string, filename: string, dir: string, uncached: () => unknown): unknown {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(filename);
  } catch {
    return uncached();
  }
  // (one entry per file as it is now, and per Node: another copy of a package, an update or another Node gets its own)
  const key = createHash('sha1')
    .update(`${filename}\0${stat.size}\0${stat.mtimeMs}\0${content.length}\0${process.version}\0${process.arch}`)
    .digest('hex');
  const file = path.join(dir, `${key}.bin`);
  let cachedData: Buffer | undefined;
  try {
    cachedData = fs.readFileSync(file);
  } catch {
    // not cached yet
  }
  const script = new vm.Script(Module.wrap(content), { filename, cachedData, importModuleDynamically: DYNAMIC_IMPORT });
  const wrapper = script.runInThisContext({ displayErrors: true }) as (...args: unknown[]) => unknown;
  const require = Module.createRequire(filename);
  const result = wrapper.call(module.exports, module.exports, require, module, filename, path.dirname(filename));
  if (!cachedData || script.cachedDataRejected) store(file, script.createCachedData());
  return result;
}

/** What `import()` in a cached module loads with: Node's own loader, as in a module it compiled itself. */
const DYNAMIC_IMPORT = (vm as unknown as { constants?: { USE_MAIN_CONTEXT_DEFAULT_LOADER?: symbol } }).constants
  ?.USE_MAIN_CONTEXT_DEFAULT_LOADER as never;

/** Written to a temporary name and renamed: a concurrent run reads the old entry, the new one or none, never half. */
function store(file: string, data: Buffer): void {
  const temporary = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(temporary, data);
    fs.renameSync(temporary, file);
  } catch {
    try {
      fs.rmSync(temporary, { force: true });
    } catch {
      // nothing to clean
    }
  }
}
