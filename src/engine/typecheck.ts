// The type-check gate: before anything is written, the changed files (and the project files that import them) are
// type-checked in their own tsconfig project, once with the old texts and once with the new. An error that only the
// new texts have is the migration's: the caller rolls back what caused it. Nothing from the project is executed.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Project, ts } from 'ts-morph';
import { readJson, workspaceRootAbove } from './package-files';
import { packageName } from '../analysis/package-name';
import type { PackageJson } from './v2-dependencies';

export interface TypeCheckInput {
  absPath: string;
  relPath: string;
  before: string;
  after: string;
}

export interface TypeError {
  relPath: string;
  line: number;
  column: number;
  code: number;
  message: string;
  /** The head of the message, without the chained details: what errors are compared by. */
  head: string;
  /** The text of the line it is on (trimmed), to find it in code that was never written. */
  lineText: string;
}

export interface TypeCheckResult {
  /** Errors the new texts have and the old ones did not. */
  introduced: TypeError[];
  /** Files that were checked (changed files and their importers), by tsconfig project. */
  checked: number;
  /** Changed files that were only re-parsed, not type-checked, and why. */
  unchecked: Array<{ file: string; reason: string }>;
}

/**
 * Errors about the program rather than the code: the gate builds its program from the changed files and their
 * importers, not the tsconfig's whole file list, so a composite project reports the files it reached through imports as
 * unlisted (TS6307), and a referenced project's missing build output (TS6305) or rootDir (TS6059) says nothing of what
 * the migration wrote.
 */
const PROGRAM_SCOPE = new Set([6059, 6305, 6306, 6307, 6310]);

/**
 * The Web and Node globals servers (and the code mcp-migrate writes) use beyond ECMAScript's: the names check needs them
 * declared, not typed (lib.dom would cost tens of megabytes per gate).
 */
const HOST_GLOBALS = [
  'console',
  'URL',
  'URLSearchParams',
  'Headers',
  'Request',
  'Response',
  'fetch',
  'FormData',
  'Blob',
  'ReadableStream',
  'TextEncoder',
  'TextDecoder',
  'AbortController',
  'AbortSignal',
  'Event',
  'EventTarget',
  'crypto',
  'performance',
  'structuredClone',
  'queueMicrotask',
  'atob',
  'btoa',
  'setTimeout',
  'clearTimeout',
  'setInterval',
  'clearInterval',
  'setImmediate',
  'clearImmediate',
  'navigator',
  'location',
  'self',
  'caches',
  'WebSocket',
  'Deno',
  'Bun',
]
  .map((name) => `declare var ${name}: any;`)
  .join('\n');

/** "Cannot find name 'x'." and "Cannot find name 'x'. Did you mean 'y'?" */
const UNDECLARED_NAME = new Set([2304, 2552]);

/** Modules the migration may add that the project has not installed yet: resolved from mcp-migrate's own copy. */
const MIGRATION_MODULES = /^@modelcontextprotocol\/(?:server|server-legacy|node|express|hono|fastify|core|client)(?:\/|$)/;

/**
 * What the migrated code compiles against once the migrated manifests are installed. `raised`: packages whose range
 * they raised (zod ^3 → ^4.2.0, the v1 SDK to its floor), resolved from mcp-migrate's own copy; then every file of the
 * project is checked, not only the changed ones (a raised package can break any file that uses it). `removed`: packages
 * no migrated manifest lists any more (the v1 SDK after the v2 move), which the project's own files cannot import.
 * The original texts are always checked against what is installed now.
 */
export interface Environment {
  raised: ReadonlySet<string>;
  removed: ReadonlySet<string>;
}

const INSTALLED: Environment = { raised: new Set(), removed: new Set() };

/**
 * One gate for one migration: the tsconfig projects stay loaded across the gate's rounds, and each file's errors with
 * the original texts are computed once, and only for files that have errors with the new ones (most have none).
 */
export class TypeCheckGate {
  private readonly projects = new Map<string, Project>();
  private readonly before = new Map<string, TypeError[]>();
  private readonly originals = new Map<string, string>();

  constructor(private readonly root: string) {}

  check(changes: TypeCheckInput[], environment: Environment = INSTALLED): TypeCheckResult {
    const byConfig = new Map<string, TypeCheckInput[]>();
    const unchecked: TypeCheckResult['unchecked'] = [];
    const namesOnly: TypeCheckInput[] = [];
    for (const change of changes) {
      this.originals.set(path.resolve(change.absPath), change.before);
      const config = ts.findConfigFile(path.dirname(change.absPath), ts.sys.fileExists, 'tsconfig.json');
      const reason = uncheckedBecause(change.absPath, config ? this.config(config) : undefined, this.root);
      if (reason) {
        namesOnly.push(change);
        unchecked.push({ file: change.relPath, reason: `${reason}; only its names were checked` });
      } else byConfig.set(config!, [...(byConfig.get(config!) ?? []), change]);
    }
    // Configs that share a project are checked in one program.
    const byProject = new Map<string, { config: string; files: string[]; texts: Map<string, string> }>();
    for (const [config, group] of byConfig) {
      const key = this.projectKey(config);
      const shared = byProject.get(key) ?? { config, files: [], texts: new Map<string, string>() };
      shared.files.push(...this.checkedFiles(config, group, environment).filter((file) => !shared.files.includes(file)));
      for (const change of group) shared.texts.set(path.resolve(change.absPath), change.after);
      byProject.set(key, shared);
    }
    const introduced: TypeError[] = this.undeclaredNames(namesOnly);
    let checked = 0;
    for (const { config, files, texts } of byProject.values()) {
      checked += files.length;
      const after = this.diagnostics(this.project(config, environment), files, texts);
      const failing = [...new Set(after.map((e) => e.absPath))];
      const missing = failing.filter((file) => !this.before.has(file));
      if (missing.length > 0) {
        const original = this.project(config, INSTALLED);
        for (const file of missing) if (!original.getSourceFile(file)) original.addSourceFileAtPathIfExists(file);
        const before = this.diagnostics(original, missing, new Map());
        for (const file of missing)
          this.before.set(
            file,
            before.filter((e) => e.absPath === file),
          );
      }
      const old = failing.flatMap((file) => this.before.get(file)!);
      introduced.push(
        ...newErrors(old, after)
          .filter((error) => !awaitsInstall(error, environment))
          .map(({ absPath: _absPath, ...error }) => error),
      );
    }
    return { introduced, checked, unchecked };
  }

  private namesProject?: Project;

  /**
   * Code the gate cannot type-check still must not lose a declaration it uses: the names each file cannot find (TS2304,
   * TS2552) with its new text, beyond those it could not find with its old one. Imports are not resolved (an imported
   * name is declared all the same), and Node's globals are not known: `process` or `require` are another code (TS2580),
   * before and after alike. The files are checked together, once with each text.
   */
  private undeclaredNames(changes: TypeCheckInput[]): TypeError[] {
    if (changes.length === 0) return [];
    const project = (this.namesProject ??= new Project({
      skipAddingFilesFromTsConfig: true,
      compilerOptions: {
        allowJs: true,
        checkJs: true,
        noEmit: true,
        noResolve: true,
        types: [],
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.Preserve,
        jsx: ts.JsxEmit.Preserve,
        lib: ['lib.es2022.d.ts'],
      },
    }));
    const globals = path.join(this.root, '__mcp-migrate-globals.d.ts');
    if (!project.getSourceFile(globals)) project.createSourceFile(globals, HOST_GLOBALS);
    const files = changes.map((change) => path.resolve(change.absPath));
    const names = (text: (change: TypeCheckInput) => string) => {
      const texts = new Map(changes.map((change, index) => [files[index], text(change)]));
      for (const [file, content] of texts) project.createSourceFile(file, content, { overwrite: true });
      return this.diagnostics(project, files, texts).filter((e) => UNDECLARED_NAME.has(e.code));
    };
    const before = names((change) => change.before);
    const after = names((change) => change.after);
    for (const file of files) project.removeSourceFile(project.getSourceFileOrThrow(file));
    return newErrors(before, after).map(({ absPath: _absPath, ...error }) => error);
  }

  private readonly configs = new Map<string, ts.ParsedCommandLine | undefined>();

  private config(config: string): { path: string; parsed: ts.ParsedCommandLine | undefined } {
    if (!this.configs.has(config)) this.configs.set(config, parsedConfig(config));
    return { path: config, parsed: this.configs.get(config) };
  }

  /**
   * Configs whose compiler options agree (output locations aside) and that resolve packages from the same
   * node_modules share one project: a monorepo of like packages, or a folder of copies, loads its declaration files once.
   */
  private projectKey(config: string): string {
    const { outDir, rootDir, declarationDir, tsBuildInfoFile, configFilePath, ...options } = this.config(config).parsed?.options ?? {};
    return JSON.stringify([options, packagesDirectory(config)]);
  }

  /** The config's project in one environment (one project per environment). */
  private project(config: string, environment: Environment): Project {
    const key = [this.projectKey(config), ...[...environment.raised].sort(), '', ...[...environment.removed].sort()].join('\u0000');
    let project = this.projects.get(key);
    if (!project) {
      project = new Project({
        tsConfigFilePath: config,
        skipAddingFilesFromTsConfig: true,
        compilerOptions: ownCompilerDefaults(this.config(config).parsed, config),
        resolutionHost: migrationModuleResolution(environment, packagesDirectory(config)),
      });
      // (the project's own declaration files, as tsc reads them: ambient modules such as `cloudflare:workers`, globals)
      for (const file of projectDeclarations(this.config(config).parsed)) project.addSourceFileAtPathIfExists(file);
      this.projects.set(key, project);
    }
    return project;
  }

  /** The changed files and the project files that import them; every file of the project when packages were raised. */
  private checkedFiles(config: string, changes: TypeCheckInput[], environment: Environment): string[] {
    const changed = new Set(changes.map((c) => path.resolve(c.absPath)));
    const parsed = this.config(config).parsed;
    const others = environment.raised.size > 0 ? projectFiles(parsed).filter((file) => !changed.has(file)) : importersOf(parsed, changed);
    const files = [...changed, ...others];
    const project = this.project(config, environment);
    for (const file of files) if (!project.getSourceFile(file)) project.addSourceFileAtPathIfExists(file);
    return files;
  }

  /** Errors of `files` with these texts for the changed files (every other file as it was). */
  private diagnostics(project: Project, files: string[], texts: Map<string, string>): Array<TypeError & { absPath: string }> {
    for (const [absPath, original] of this.originals) {
      const text = texts.get(absPath) ?? original;
      const current = project.getSourceFile(absPath);
      if (current ? current.getFullText() !== text : texts.has(absPath)) project.createSourceFile(absPath, text, { overwrite: true });
    }
    const program = project.getProgram().compilerObject;
    const errors: Array<TypeError & { absPath: string }> = [];
    for (const absPath of files) {
      const sourceFile = program.getSourceFile(absPath);
      if (!sourceFile) continue;
      for (const diagnostic of [...program.getSyntacticDiagnostics(sourceFile), ...program.getSemanticDiagnostics(sourceFile)]) {
        if (diagnostic.category !== ts.DiagnosticCategory.Error || PROGRAM_SCOPE.has(diagnostic.code)) continue;
        const position =
          diagnostic.start !== undefined ? sourceFile.getLineAndCharacterOfPosition(diagnostic.start) : { line: 0, character: 0 };
        errors.push({
          absPath,
          relPath: path.relative(this.root, absPath).split(path.sep).join('/'),
          line: position.line + 1,
          column: position.character + 1,
          code: diagnostic.code,
          message: ts.flattenDiagnosticMessageText(diagnostic.messageText, ' '),
          // (the chain under the head message names other files, which differ between runs of the same error)
          head: typeof diagnostic.messageText === 'string' ? diagnostic.messageText : diagnostic.messageText.messageText,
          lineText: sourceFile.text.slice(sourceFile.getLineStarts()[position.line], sourceFile.getLineStarts()[position.line + 1]).trim(),
        });
      }
    }
    return errors;
  }
}

/** Why a changed file can only be re-parsed, or undefined when it can be type-checked. */
function uncheckedBecause(
  absPath: string,
  config: { path: string; parsed: ts.ParsedCommandLine | undefined } | undefined,
  root: string,
): string | undefined {
  if (!config) return 'no tsconfig.json covers it';
  // A file its nearest tsconfig does not include (tests outside `include`) is not type-checked by the project either.
  if (!(config.parsed?.fileNames ?? []).some((file) => path.resolve(file) === path.resolve(absPath)))
    return 'its tsconfig.json does not include it';
  if (/\.[cm]?jsx?$/.test(absPath) && !(config.parsed?.options.allowJs && config.parsed.options.checkJs))
    return 'JavaScript without checkJs';
  if (!dependenciesInstalled(config.path)) return "the project's dependencies are not installed (run npm install, then apply)";
  const nested = uninstalledNestedPackage(absPath, root);
  if (nested)
    return `its package (${path.relative(root, nested).split(path.sep).join('/')}) has no node_modules of its own (run npm install there, then apply)`;
  return undefined;
}

/**
 * The package.json of a package nested below the root that owns the file, declares dependencies, has no node_modules
 * beside it and is no workspace of a folder above (whose install would hoist its packages): its files would be
 * checked against the packages of the folder above, which its own install does not bring. (gitlab-mcp's `mcp-server/`
 * against the root's zod 3.24 and SDK 1.30: tsc takes 4.9 GB and 267 s, then fails with TS2589.)
 */
function uninstalledNestedPackage(absPath: string, root: string): string | undefined {
  const top = path.resolve(root);
  for (let dir = path.dirname(path.resolve(absPath)); dir !== top && dir.startsWith(top + path.sep); dir = path.dirname(dir)) {
    const manifest = readJson<PackageJson>(path.join(dir, 'package.json'));
    if (!manifest || Object.keys({ ...manifest.dependencies, ...manifest.devDependencies }).length === 0) continue;
    if (fs.existsSync(path.join(dir, 'node_modules')) || workspaceRootAbove(dir)) return undefined;
    return path.join(dir, 'package.json');
  }
  return undefined;
}

/**
 * "Cannot find module 'agents/mcp/server'": the module of a package whose range the migration raised and that
 * mcp-migrate does not carry (a framework: agents, fastmcp, mcp-framework). The installed version predates it; the
 * install the report asks for brings it. Not an error of the migrated code.
 */
function awaitsInstall(error: TypeError, environment: Environment): boolean {
  const module = error.code === 2307 ? /^Cannot find module '([^']+)'/.exec(error.head)?.[1] : undefined;
  return module !== undefined && environment.raised.has(packageName(module));
}

/**
 * Errors of `after` beyond those of `before`, compared by file, code and message (positions move with edits); then an
 * error left over on both sides with the same file, code and line text is the same error whose message names types
 * the migration changed (`GetPromptResult` from the v2 package instead of v1's): a file that failed there still fails
 * there, no more often. A file without errors before has nothing to pair with.
 */
export function newErrors<E extends TypeError>(before: TypeError[], after: E[]): E[] {
  const byMessage = unpaired(before, after, (e) => `${e.relPath}\u0000${e.code}\u0000${e.head}`);
  return unpaired(byMessage.before, byMessage.after, (e) => (e.lineText ? `${e.relPath}\u0000${e.code}\u0000${e.lineText}` : undefined))
    .after;
}

/** What is left of each side once errors with the same key are paired off one to one (no key: never paired). */
function unpaired<E extends TypeError>(
  before: TypeError[],
  after: E[],
  key: (e: TypeError) => string | undefined,
): { before: TypeError[]; after: E[] } {
  const waiting = new Map<string, TypeError[]>();
  for (const error of before) {
    const k = key(error);
    if (k !== undefined) waiting.set(k, [...(waiting.get(k) ?? []), error]);
  }
  const paired = new Set<TypeError>();
  const left = after.filter((error) => {
    const k = key(error);
    const match = k === undefined ? undefined : waiting.get(k)?.shift();
    if (match) paired.add(match);
    return !match;
  });
  return { before: before.filter((error) => !paired.has(error)), after: left };
}

const DECLARATION_FILE = /\.d\.[cm]?ts$/;

/** The tsconfig project's own source files (declaration files left out). */
function projectFiles(parsed: ts.ParsedCommandLine | undefined): string[] {
  return (parsed?.fileNames ?? []).map((file) => path.resolve(file)).filter((file) => !DECLARATION_FILE.test(file));
}

/** The tsconfig project's own declaration files. */
function projectDeclarations(parsed: ts.ParsedCommandLine | undefined): string[] {
  return (parsed?.fileNames ?? []).map((file) => path.resolve(file)).filter((file) => DECLARATION_FILE.test(file));
}

/** Files of the tsconfig project that import one of the changed files (a relative specifier resolving to it). */
function importersOf(parsed: ts.ParsedCommandLine | undefined, changed: Set<string>): string[] {
  const stems = new Set([...changed].map((file) => file.replace(/\.[cm]?[jt]sx?$/, '')));
  const importers: string[] = [];
  for (const file of parsed?.fileNames ?? []) {
    const absPath = path.resolve(file);
    if (changed.has(absPath) || /\.d\.[cm]?ts$/.test(absPath)) continue;
    let text: string;
    try {
      text = fs.readFileSync(absPath, 'utf8');
    } catch {
      continue;
    }
    for (const match of text.matchAll(/(?:from|import|require)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
      const target = path.resolve(path.dirname(absPath), match[1]).replace(/\.[cm]?[jt]sx?$/, '');
      if (stems.has(target) || stems.has(path.join(target, 'index'))) {
        importers.push(absPath);
        break;
      }
    }
  }
  return importers;
}

/**
 * Standard resolution, except: the v2 packages the migration introduces, when the project has not installed them
 * yet, and the `raised` packages come from mcp-migrate's own copy — what the next install brings; `removed` packages do
 * not resolve from the project's own files (a dependency may still bring its own copy). What such a supplied package
 * imports in turn (express and its types for `@modelcontextprotocol/express`) resolves from the project first, as it
 * will once installed there: two copies of express's types would not match.
 */
function migrationModuleResolution({ raised, removed }: Environment, projectPackages: string | undefined) {
  const ownPackages = packagesDirectory(__filename);
  const fromProject = projectPackages && projectPackages !== ownPackages ? path.join(projectPackages, 'package.json') : undefined;
  // (the compiler names files by their real path; mcp-migrate's node_modules may be a link)
  const ownModules = ownPackages && fs.realpathSync(path.join(ownPackages, 'node_modules')) + path.sep;
  const supplied = (file: string) => !!ownModules && path.resolve(file).startsWith(ownModules);
  return (host: ts.ModuleResolutionHost, getOptions: () => ts.CompilerOptions) => ({
    resolveModuleNames(moduleNames: string[], containingFile: string): Array<ts.ResolvedModuleFull | undefined> {
      const options = getOptions();
      const ours = (name: string) => ts.resolveModuleName(name, path.join(__dirname, 'typecheck.ts'), options, host).resolvedModule;
      const ownFile = !containingFile.split(/[\\/]/).includes('node_modules');
      return moduleNames.map((name) => {
        if (ownFile && removed.has(packageName(name))) return undefined;
        if (
          fromProject &&
          supplied(containingFile) &&
          !MIGRATION_MODULES.test(name) &&
          !raised.has(packageName(name)) &&
          !name.startsWith('.')
        ) {
          const installed = ts.resolveModuleName(name, fromProject, options, host).resolvedModule;
          if (installed) return installed;
        }
        if (raised.has(packageName(name))) return ours(name) ?? ts.resolveModuleName(name, containingFile, options, host).resolvedModule;
        const resolved = ts.resolveModuleName(name, containingFile, options, host).resolvedModule;
        return resolved || !MIGRATION_MODULES.test(name) ? resolved : ours(name);
      });
    },
  });
}

/**
 * A type-check without the project's packages compares two walls of "cannot find module" errors: the gate needs
 * the SDK installed where the project resolves packages from.
 */
function dependenciesInstalled(config: string): boolean {
  for (let dir = path.dirname(config); ; dir = path.dirname(dir)) {
    const installed = ['sdk', 'server'].some((name) =>
      fs.existsSync(path.join(dir, 'node_modules', '@modelcontextprotocol', name, 'package.json')),
    );
    if (installed) return true;
    if (path.dirname(dir) === dir) return false;
  }
}

/** The nearest directory above the config that holds a node_modules folder (where its packages resolve from). */
function packagesDirectory(file: string): string | undefined {
  for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'node_modules'))) return dir;
    if (path.dirname(dir) === dir) return undefined;
  }
}

/**
 * TypeScript 6, which the gate runs, changed two defaults that a project built with an older compiler relies on:
 * `types` is now `[]` (no `@types/*` package is loaded unless named, so `process` and `describe` go undeclared) and
 * `strict` is now on. A project whose own compiler is older, or not installed, is checked with the defaults it builds
 * with; options its config sets are kept.
 */
function ownCompilerDefaults(parsed: ts.ParsedCommandLine | undefined, config: string): ts.CompilerOptions {
  const major = Number(/^(\d+)\./.exec(installedVersion('typescript', path.dirname(config)) ?? '')?.[1]);
  if (major >= 6) return {};
  const options = parsed?.options ?? {};
  return { ...(options.types === undefined && { types: ['*'] }), ...(options.strict === undefined && { strict: false }) };
}

/** The version of a package as Node resolves it from a folder (a workspace's root install included). */
function installedVersion(name: string, from: string): string | undefined {
  try {
    return readJson<PackageJson>(require.resolve(`${name}/package.json`, { paths: [from] }))?.version;
  } catch {
    return undefined;
  }
}

function parsedConfig(config: string): ts.ParsedCommandLine | undefined {
  return ts.getParsedCommandLineOfConfigFile(config, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });
}
