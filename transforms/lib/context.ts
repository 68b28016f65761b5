// What every transform starts from: the parsed file, the detector's findings for it (given by the engine, or
// computed here when the transform runs under the plain `jscodeshift -t` CLI), and the file's code style.
import * as path from 'node:path';
import type { API, Collection, FileInfo, JSCodeshift, Options } from 'jscodeshift';
import type { Finding } from '../../src/model';
import { expandPlaceholders } from './emit';

export interface TransformOptions extends Options {
  /** Findings of the detector for this file, in this file's current text. */
  findings?: Finding[];
  /** New endpoint path for pure legacy SSE servers. */
  endpoint?: string;
  /** Project-level facts the engine knows (e.g. that a server listens on loopback). */
  localServer?: boolean;
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
  const spaceIndents = indents.filter((i) => !i.startsWith('\t')).map((i) => i.length).filter((n) => n > 0);
  const tabWidth = spaceIndents.length > 0 && Math.min(...spaceIndents) >= 4 ? 4 : 2;
  return { quote: doubles > singles ? ('double' as const) : ('single' as const), useTabs, tabWidth };
}

export function createContext(file: FileInfo, api: API, options: TransformOptions, ruleIds: string[]): TransformContext {
  const j = api.jscodeshift;
  const root = j(file.source);
  const findings = (options.findings ?? detectSingleFile(file)).filter((f) => ruleIds.includes(f.ruleId));
  const commonjs = root.find(j.ImportDeclaration).length === 0 && /\brequire\(/.test(file.source);
  return { j, root, file, findings, typescript: isTypeScriptPath(file.path), commonjs, ...detectStyle(file.source), options };
}

/** Standalone mode (`jscodeshift -t`): run the detector on this one file. */
function detectSingleFile(file: FileInfo): Finding[] {
  // Loaded lazily so the engine, which passes findings, never pays for a second analysis.
  const { analyzeSources } = require('../../src/engine/analyze') as typeof import('../../src/engine/analyze');
  const { allRules } = require('../../src/rules') as typeof import('../../src/rules');
  const absPath = path.resolve(file.path);
  const analysis = analyzeSources([{ absPath, relPath: path.basename(absPath), text: file.source }], allRules);
  return analysis.files[0]?.findings ?? [];
}

export function print(context: TransformContext): string {
  const printed = context.root.toSource({ quote: context.quote, tabWidth: context.tabWidth, useTabs: context.useTabs });
  return expandPlaceholders(context, printed);
}
