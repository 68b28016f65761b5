// What every transform starts from: the parsed file, the detector's findings for it (given by the engine, or
// computed here when the transform runs under the plain `jscodeshift -t` CLI), and the file's code style.
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import type { AgentsHandlerModule } from '../../src/analysis/mcp-frameworks/agents';
import type { API, Collection, FileInfo, JSCodeshift, Options } from 'jscodeshift';
import type { Finding } from '../../src/model';
import type { EndpointPlan } from '../../src/analysis/endpoints/model';
import { expandPlaceholders } from './emit';
import { markersSpliced } from './markers';
import type { AnyNode } from './ast';

export interface TransformOptions extends Options {
  /** Findings of the detector for this file, in this file's current text. */
  findings?: Finding[];
  /** New endpoint path for pure legacy SSE servers. */
  endpoint?: string;
  /** Project-level facts the engine knows (e.g. that a server listens on loopback). */
  localServer?: boolean;
  /** Protocol target: '2025-11-25' (v1 SDK) or '2026-07-28' (v2 packages). */
  target?: string;
  /** createMcpHandler's `legacy` option on the 2026-07-28 target. */
  legacy?: 'stateless' | 'reject';
  /** Where an `agents` McpAgent's 2026-07-28 handler comes from (default `agents/mcp/server`; see agents-handler). */
  agentsHandlerModule?: AgentsHandlerModule;
  /** Endpoint plans (by id) this run must leave as they are, with why: a change of theirs was rolled back. */
  rolledBack?: Record<string, string>;
  /** Filled by the endpoint transform with the ids of the plans it carried out in this file. */
  appliedEndpoints?: Set<string>;
  /** The endpoint plans that touch this file (the engine's; standalone, the findings carry them). */
  plans?: EndpointPlan[];
  /** The file's path as plans and findings name it (relative to the scanned root). */
  relPath?: string;
  /** Compiler options of the file's tsconfig that change what code may be written. */
  compiler?: { exactOptionalPropertyTypes?: boolean };
}

export interface TransformContext {
  j: JSCodeshift;
  root: Collection;
  file: FileInfo;
  findings: Finding[];
  typescript: boolean;
  commonjs: boolean;
  quote: 'single' | 'double';
  tabWidth: number;
  useTabs: boolean;
  options: TransformOptions;
  /**
   * The text the parser saw: recast hands babel the source with leading tabs expanded, so node offsets
   * (`start`/`end`) index into this, not into `file.source`, on files with tab-indented lines.
   */
  parsed: string;
  /** Names this run has declared in text not parsed yet (placeholders): `uniqueName` does not hand them out again. */
  claimedNames: Set<string>;
  /** The markers this run added (see addMarker): the statement, the comment it gained, the comment's text. */
  markers: Array<{ node: AnyNode; comment: AnyNode; text: string }>;
}

export function isTypeScriptPath(filePath: string): boolean {
  return /\.(?:ts|tsx|mts|cts)$/.test(filePath);
}

/** jscodeshift parser per extension: `ts` for TypeScript (angle-bracket casts), `tsx` for .tsx and JavaScript. */
export function parserFor(filePath: string): 'ts' | 'tsx' {
  return /\.(?:ts|mts|cts)$/.test(filePath) ? 'ts' : 'tsx';
}

function detectStyle(source: string) {
  const singles = (source.match(/(?:from|require\()\s*'/g) ?? []).length;
  const doubles = (source.match(/(?:from|require\()\s*"/g) ?? []).length;
  const indents = source.match(/^[ \t]+(?=\S)/gm) ?? [];
  const useTabs = indents.filter((i) => i.startsWith('\t')).length > indents.length / 2;
  const spaceIndents = indents
    .filter((i) => !i.startsWith('\t'))
    .map((i) => i.length)
    .filter((n) => n > 0);
  // recast measures a tab as `tabWidth` columns when it parses (default 4): print tab files with the same width.
  const tabWidth = useTabs ? 4 : spaceIndents.length > 0 && Math.min(...spaceIndents) >= 4 ? 4 : 2;
  return { quote: doubles > singles ? ('double' as const) : ('single' as const), useTabs, tabWidth };
}

export function createContext(file: FileInfo, api: API, options: TransformOptions, ruleIds: string[]): TransformContext {
  const j = api.jscodeshift;
  const style = detectStyle(file.source);
  // Parse with the width we print with: recast slices reused lines by column, and a tab measured as 4 columns at parse
  // time but 2 at print time cut words in half on lines with tabs.
  const root = j(file.source, { tabWidth: style.tabWidth } as never);
  // Markers this tool left earlier are for humans; transforms act on the detector's own findings only.
  const findings = (options.findings ?? detectSingleFile(file)).filter((f) => ruleIds.includes(f.ruleId) && !f.data?.marker);
  const commonjs = root.find(j.ImportDeclaration).length === 0 && /\brequire\(/.test(file.source);
  const context = {
    j,
    root,
    file,
    findings,
    typescript: isTypeScriptPath(file.path),
    commonjs,
    ...style,
    options,
    parsed: file.source,
    claimedNames: new Set<string>(),
    markers: [],
  };
  // Only a file with tabs is re-rendered for the parser; work it out once, when a transform first needs offsets.
  if (file.source.includes('\t')) {
    let parsed: string | undefined;
    Object.defineProperty(context, 'parsed', {
      get: () => {
        const lines = (root.get().node as { loc?: { lines?: { toString(options: object): string } } }).loc?.lines;
        return (parsed ??= lines ? lines.toString({ tabWidth: style.tabWidth, reuseWhitespace: false, useTabs: false }) : file.source);
      },
    });
  }
  return context;
}

/**
 * Standalone mode (`jscodeshift -t`): run the detector on this one file, in a child process on the compiled
 * engine (`npm run build`), since jscodeshift's babel hook cannot load ts-morph.
 */
function detectSingleFile(file: FileInfo): Finding[] {
  const cli = compiledEngineModule('detect-file-cli.js');
  const result = spawnSync(process.execPath, [cli, path.resolve(file.path)], {
    input: file.source,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status !== 0)
    throw new Error(`detector failed on ${file.path} (run \`npm run build\` first): ${result.stderr || result.error?.message}`);
  return JSON.parse(result.stdout) as Finding[];
}

/** A module of the compiled engine (`dist/src/engine/<file>`), for what the plain jscodeshift CLI cannot load itself. */
export function compiledEngineModule(file: string): string {
  const inDist = __dirname.includes(`${path.sep}dist${path.sep}`);
  return path.resolve(__dirname, '..', '..', ...(inDist ? [] : ['dist']), 'src', 'engine', file);
}

export function print(context: TransformContext): string {
  return markersSpliced(context, () => printTree(context)) ?? printTree(context);
}

function printTree(context: TransformContext): string {
  const source = context.file.source;
  const output = context.root.toSource({ quote: context.quote, tabWidth: context.tabWidth, useTabs: context.useTabs });
  const printed = context.useTabs ? withTabsOnNewLines(source, output, context.tabWidth) : output;
  const shebang = /^#![^\n]*\n?/.exec(source)?.[0] ?? '';
  const body = restoreShebang(source, printed).slice(shebang.length);
  const rest = source.slice(shebang.length);
  return expandPlaceholders(context, shebang + restoreHeaderSpacing(rest, restorePrologue(rest, body)));
}

/**
 * recast indents a node it reuses with spaces even when it prints with tabs (jina-ai/MCP's tab-indented
 * `import {\n    McpServer,\n\tcreateMcpHandler,` once names were added to it): a line it wrote anew gets the file's
 * tabs for each `tabWidth` spaces it starts with. Lines the file already had are left as they are.
 */
function withTabsOnNewLines(source: string, printed: string, tabWidth: number): string {
  const original = new Set(source.split('\n'));
  return printed
    .split('\n')
    .map((line) => {
      const indent = /^ +(?=\S)/.exec(line)?.[0];
      if (!indent || indent.length % tabWidth !== 0 || original.has(line)) return line;
      return '\t'.repeat(indent.length / tabWidth) + line.slice(indent.length);
    })
    .join('\n');
}

/**
 * A file's header comment keeps the blank line after it: when the statement it was attached to is removed, it moves
 * to the next one and recast prints it flush against that.
 */
export function restoreHeaderSpacing(source: string, printed: string): string {
  const header = /^((?:[ \t]*(?:\/\/[^\n]*|\/\*[\s\S]*?\*\/)[ \t]*\r?\n)+)((?:[ \t]*\r?\n)+)/.exec(source);
  if (!header || !printed.startsWith(header[1]) || printed.slice(header[1].length).startsWith(header[2])) return printed;
  if (/^[ \t]*\r?\n/.test(printed.slice(header[1].length))) return printed;
  return header[1] + header[2] + printed.slice(header[1].length);
}

/** A `#!` line must stay the first line; recast may print inserted statements above it. */
function restoreShebang(source: string, printed: string): string {
  const shebang = /^#![^\n]*\n?/.exec(source)?.[0];
  if (!shebang || printed.startsWith(shebang)) return printed;
  const line = shebang.replace(/\r?\n$/, '');
  const at = printed.indexOf(line);
  const without = at >= 0 ? printed.slice(0, at) + printed.slice(at + line.length).replace(/^\r?\n/, '') : printed;
  return shebang + without;
}

/**
 * recast reprints a directive prologue as `'use strict';;` (and drops the blank line after it) once the program
 * body changes; put the original prologue back.
 */
function restorePrologue(source: string, printed: string): string {
  const prologue = /^((?:[ \t]*(['"])use strict\2;?[ \t]*(?:\r?\n|$))+)([ \t]*\r?\n)*/.exec(source);
  if (!prologue) return printed;
  const directive = prologue[1].trimEnd();
  if (!printed.startsWith(`${directive};`)) return printed;
  return prologue[0] + printed.slice(directive.length + 1).replace(/^[ \t]*\r?\n/, '');
}
