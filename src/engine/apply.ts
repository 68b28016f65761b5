// The apply pipeline: scan → run each transform on the files that have its findings (re-analysing between
// transforms so positions are current) → verify that every output parses → report what changed, what is left
// for a human, and which endpoint now serves MCP → write atomically (unless --dry-run).
import * as fs from 'node:fs';
import * as path from 'node:path';
import jscodeshift from 'jscodeshift';
import { createTwoFilesPatch } from 'diff';
import { Node, SyntaxKind } from 'ts-morph';
import type { ApplyResult, FileChange, FileProblem, Finding, ManualItem, ServedEndpoint } from '../model';
import type { Rule } from '../rules/rule';
import { allRules } from '../rules';
import { FileFacts } from '../analysis/file-facts';
import { routeContextsOf } from '../analysis/routes';
import { bindSites, LOOPBACK } from '../analysis/binds';
import { servesMcp } from '../analysis/serves-mcp';
import { transforms as allTransforms, type TransformModule } from '../../transforms';
import { parserFor } from '../../transforms/lib/context';
import markLeftoversRun, { id as markLeftoversId } from '../../transforms/mark-leftovers';
import { analyzeSources, createProject, syntaxError, type Analysis, type SourceInput } from './analyze';
import { scan, collectCheckResult, selectRules, type ScanOptions, type LoadedSource } from './scan';
import { migrateSdkSurface } from './sdk-v2-surface';
import { writeSourceText } from './read-source';
import { dirtyFiles, writeFileAtomic } from './write';
import { DEFAULT_TARGET, type Target } from './targets';

export { DEFAULT_TARGET, TARGETS, type Target } from './targets';
/** The id under which the official v1→v2 codemod's changes are reported. */
const SDK_SURFACE_STEP = 'sdk-v2-surface';

export interface ApplyOptions extends ScanOptions {
  dryRun?: boolean;
  unsafe?: boolean;
  allowDirty?: boolean;
  target?: Target;
  /** Endpoint path for servers that had only the legacy HTTP+SSE transport. */
  endpoint?: string;
  legacy?: 'stateless' | 'reject';
}

interface WorkingFile {
  source: SourceInput;
  /** Rule ids found in the file before any transform ran. */
  foundRules: Set<string>;
  original: string;
  text: string;
  transformIds: Set<string>;
  failed?: FileProblem;
}

export interface MigrateOptions {
  /** Rules to detect with (default: all); only transforms for these rules run. */
  rules?: readonly Rule[];
  target?: Target;
  /** createMcpHandler's `legacy` option (2026-07-28 target). */
  legacy?: 'stateless' | 'reject';
  /** package.json texts by path relative to the root, for the v2 SDK surface step (2026-07-28 target). */
  manifests?: Map<string, string>;
  unsafe?: boolean;
  endpoint?: string;
  /** Analysis of exactly these sources, when the caller already has it. */
  initialAnalysis?: Analysis;
  /** Set by migrateSources from the project's listeners: every one binds loopback. */
  localServer?: true;
}

export interface Migration {
  /** Final text per relPath (unchanged files included). */
  outputs: Map<string, string>;
  /** Transform ids that changed each file. */
  transformIds: Map<string, Set<string>>;
  /** Rule ids each file had before. */
  foundRules: Map<string, Set<string>>;
  problems: FileProblem[];
  /** Analysis of the final texts. */
  analysis: Analysis;
  /** Final manifest texts (2026-07-28 target), by path relative to the root. */
  manifests: Map<string, string>;
  /** What the official v1→v2 codemod reported, for the manual list. */
  surfaceNotes: ManualItem[];
}

/**
 * The in-memory migration: run each enabled transform, in order, on the files that have findings of its rules,
 * re-analysing the project between transforms (cross-file facts and positions stay current). A transform that
 * throws, or whose output does not parse, leaves that file as it was and is reported.
 */
export function migrateSources(sources: SourceInput[], options: MigrateOptions = {}): Migration {
  const files = new Map<string, WorkingFile>();
  const rules = options.rules ?? allRules;
  const ruleIds = new Set(rules.map((r) => r.meta.id));
  let analysis = options.initialAnalysis ?? analyzeSources(sources, rules);
  for (const source of sources) {
    const found = analysis.files.find((f) => f.relPath === source.relPath)?.findings ?? [];
    files.set(source.relPath, {
      source,
      foundRules: new Set(found.map((f) => f.ruleId)),
      original: source.text,
      text: source.text,
      transformIds: new Set(),
    });
  }
  const problems: FileProblem[] = [];
  const target = options.target ?? DEFAULT_TARGET;
  const enabled = allTransforms.filter(
    (t) => (t.level === 'auto' || options.unsafe) && t.rules.some((id) => ruleIds.has(id)) && (!t.targets || t.targets.includes(target)),
  );
  let stale = false;
  // Every listener of the project binds loopback (bind-localhost, first, may make it so): generated guards and apps
  // may also require a localhost Host header. Read again only when the analysis is.
  let localOptions: MigrateOptions = { ...options, localServer: bindsLoopbackOnly(analysis) };
  for (const transform of enabled) {
    if (stale) {
      analysis = reanalyze(files, rules);
      localOptions = { ...options, localServer: bindsLoopbackOnly(analysis) };
    }
    stale = false;
    for (const fileAnalysis of analysis.files) {
      const working = files.get(fileAnalysis.relPath)!;
      if (working.failed || fileAnalysis.parseError) continue;
      const findings = fileAnalysis.findings.filter((f) => transform.rules.includes(f.ruleId));
      if (findings.length === 0) continue;
      stale = runTransform(transform, working, findings, localOptions, problems) || stale;
    }
  }
  if (stale) {
    analysis = reanalyze(files, rules);
    stale = false;
  }
  // What a transform should have fixed but did not gets a marker now, not on the next run.
  const fixedByRunTransforms = new Set(enabled.flatMap((t) => t.rules));
  for (const fileAnalysis of analysis.files) {
    const working = files.get(fileAnalysis.relPath)!;
    if (working.failed || fileAnalysis.parseError) continue;
    const leftovers = fileAnalysis.findings.filter(
      (f) =>
        f.fix === 'auto' &&
        f.severity !== 'info' &&
        fixedByRunTransforms.has(f.ruleId) &&
        !f.data?.marker &&
        !markedNear(fileAnalysis.findings, f),
    );
    if (leftovers.length === 0) continue;
    stale = runTransform(markLeftovers, working, leftovers, localOptions, problems) || stale;
  }
  let manifests = new Map(options.manifests ?? []);
  const surfaceNotes: ManualItem[] = [];
  if (target === '2026-07-28') {
    const surface = sdkSurfaceStep(files, analysis, manifests, problems);
    manifests = surface.manifests;
    surfaceNotes.push(...surface.notes);
    stale = surface.changed || stale;
  }
  if (stale) analysis = reanalyze(files, rules);
  return {
    manifests,
    surfaceNotes,
    outputs: new Map([...files].map(([rel, w]) => [rel, w.text])),
    transformIds: new Map([...files].map(([rel, w]) => [rel, w.transformIds])),
    foundRules: new Map([...files].map(([rel, w]) => [rel, w.foundRules])),
    problems,
    analysis,
  };
}

/**
 * 2026-07-28: the official v1→v2 codemod on the working texts. A file it breaks keeps its original text, and then no
 * manifest is edited either (package.json must not promise v2 for code that stayed on v1).
 */
function sdkSurfaceStep(files: Map<string, WorkingFile>, analysis: Analysis, manifests: Map<string, string>, problems: FileProblem[]) {
  // Files that do not parse are left alone here too (the scan already reported them).
  const unparsed = new Set(analysis.files.filter((f) => f.parseError).map((f) => f.relPath));
  const surface = migrateSdkSurface({
    files: new Map([...files].filter(([rel, w]) => !w.failed && !unparsed.has(rel)).map(([rel, w]) => [rel, w.text])),
    manifests,
  });
  let changed = false;
  let broke = false;
  for (const [rel, text] of surface.files) {
    const working = files.get(rel)!;
    if (text === working.text) continue;
    changed = true;
    const broken = syntaxError(createProject().createSourceFile(working.source.absPath, text, { overwrite: true }));
    if (broken) {
      broke = true;
      working.failed = {
        file: rel,
        kind: 'invalid-output',
        message: `the v1→v2 SDK codemod produced code that does not parse (${broken}); file left unchanged`,
      };
      working.text = working.original;
      problems.push(working.failed);
    } else {
      working.text = text;
      working.transformIds.add(SDK_SURFACE_STEP);
    }
  }
  const notes: ManualItem[] = [
    ...surface.diagnostics
      .filter((d) => d.level !== 'info')
      .map((d) => ({ file: d.file, line: d.line, ruleId: 'sdk-v2-surface', message: `(from @modelcontextprotocol/codemod) ${d.message}` })),
    ...surface.manifestWarnings.map((w) => ({ file: w.manifest, line: 1, ruleId: 'sdk-v2-surface', message: w.message })),
  ];
  return { manifests: broke ? manifests : surface.manifests, notes, changed };
}

export function apply(options: ApplyOptions): ApplyResult {
  const target = options.target ?? DEFAULT_TARGET;
  const scanned = scan(options);
  // Transforms work on LF text; the writer restores CRLF (files with mixed endings are left as they are).
  let normalized = false;
  const sources = scanned.sources.map((loaded) => {
    const crlf = loaded.source.eol === '\r\n' && !loaded.source.mixedEol;
    normalized ||= crlf;
    return { absPath: loaded.absPath, relPath: loaded.relPath, text: crlf ? loaded.text.replace(/\r\n/g, '\n') : loaded.text };
  });
  const rules = selectRules(options.rules, options.skipRules);
  const owners =
    target === '2026-07-28'
      ? ownerManifests(
          scanned.root,
          scanned.sources.map((s) => s.absPath),
        )
      : { inside: new Map<string, string>(), outside: new Set<string>() };
  const manifestPaths = owners.inside;
  const manifestTexts = new Map([...manifestPaths].map(([rel, abs]) => [rel, fs.readFileSync(abs, 'utf8')]));
  const migration = migrateSources(sources, {
    rules,
    target,
    legacy: options.legacy,
    manifests: manifestTexts,
    unsafe: options.unsafe,
    endpoint: options.endpoint,
    initialAnalysis: normalized ? undefined : scanned.analysis,
  });
  const problems: FileProblem[] = [...scanned.problems, ...migration.problems];
  const after = collectCheckResult({ ...scanned, analysis: migration.analysis, problems });
  const changes: FileChange[] = [];
  for (const source of sources) {
    const relPath = source.relPath;
    const output = migration.outputs.get(relPath)!;
    if (output === source.text) continue;
    const found = migration.foundRules.get(relPath)!;
    changes.push({
      file: relPath,
      ruleIds: rulesOf(migration.transformIds.get(relPath)!).filter((id) => found.has(id)),
      diff: createTwoFilesPatch(`a/${relPath}`, `b/${relPath}`, source.text, output, '', '', { context: 3 }),
    });
  }
  const manifestChanges: FileChange[] = [];
  for (const [rel, before] of manifestTexts) {
    const after = migration.manifests.get(rel) ?? before;
    if (after === before) continue;
    manifestChanges.push({
      file: rel,
      ruleIds: ['sdk-v2-surface'],
      diff: createTwoFilesPatch(`a/${rel}`, `b/${rel}`, before, after, '', '', { context: 3 }),
    });
  }
  changes.sort((a, b) => a.file.localeCompare(b.file));
  const loadedByRel = new Map(scanned.sources.map((l) => [l.relPath, l]));
  const targets = new Map<string, { absPath: string; text: string; source?: LoadedSource['source'] }>();
  for (const change of changes) {
    const loaded = loadedByRel.get(change.file)!;
    targets.set(change.file, { absPath: loaded.absPath, text: migration.outputs.get(change.file)!, source: loaded.source });
  }
  for (const change of manifestChanges)
    targets.set(change.file, { absPath: manifestPaths.get(change.file)!, text: migration.manifests.get(change.file)! });
  const allChanges = [...changes, ...manifestChanges];
  if (!options.dryRun) writeChanges(targets, allChanges, options, problems);
  return {
    ...after,
    problems,
    dryRun: options.dryRun ?? false,
    target,
    changes: allChanges,
    manual: [
      ...manualItems(after.findings),
      ...migration.surfaceNotes,
      ...manifestChanges.map((c) => ({
        file: c.file,
        line: 1,
        ruleId: 'sdk-v2-surface',
        message: "Dependencies changed to the v2 SDK packages: run your package manager's install.",
      })),
      ...(migration.outputs.size > 0 && changes.length > 0
        ? [...owners.outside].map((manifest) => ({
            file: manifest,
            line: 1,
            ruleId: 'sdk-v2-surface',
            message:
              'This package.json is outside the scanned root and was not edited: add the v2 packages the migrated code imports (@modelcontextprotocol/server, /node, /express) and drop @modelcontextprotocol/sdk once nothing imports it.',
          }))
        : []),
    ],
    endpoints: servedEndpoints(migration.analysis, new Set(changes.map((c) => c.file))),
  };
}

/** true when the project's MCP code listens somewhere and every listener binds loopback; else undefined (ask per file). */
function bindsLoopbackOnly(analysis: Analysis): true | undefined {
  const hosts = analysis.files.flatMap((file) => {
    const sourceFile = analysis.sourceFile(file.relPath);
    return sourceFile && servesMcp(sourceFile) ? bindSites(sourceFile).map((site) => site.host) : [];
  });
  return hosts.length > 0 && hosts.every((host) => typeof host === 'string' && LOOPBACK.has(host)) ? true : undefined;
}

function reanalyze(files: Map<string, WorkingFile>, rules: readonly Rule[]): Analysis {
  return analyzeSources(
    [...files.values()].map((w) => ({ ...w.source, text: w.text })),
    rules,
  );
}

/** Returns whether the file changed. */
function runTransform(
  transform: TransformModule,
  working: WorkingFile,
  findings: Finding[],
  options: MigrateOptions,
  problems: FileProblem[],
): boolean {
  const filePath = working.source.absPath;
  const j = jscodeshift.withParser(parserFor(filePath));
  const api = { j, jscodeshift: j, stats: () => undefined, report: () => undefined };
  let output: string | undefined | null;
  try {
    // Test-only fault injection seam (never set in real use): MCP_MIGRATE_FAULT_TRANSFORM=<relPath> makes every transform throw on that file.
    if (process.env.MCP_MIGRATE_FAULT_TRANSFORM === working.source.relPath)
      throw new Error('injected transform fault (MCP_MIGRATE_FAULT_TRANSFORM)');
    output = transform.run({ path: filePath, source: working.text }, api, {
      findings,
      endpoint: options.endpoint,
      target: options.target ?? DEFAULT_TARGET,
      legacy: options.legacy,
      localServer: options.localServer,
    });
  } catch (error) {
    working.failed = {
      file: working.source.relPath,
      kind: 'transform',
      message: `${transform.id} failed: ${(error as Error).message}; file left unchanged`,
    };
    working.text = working.original;
    problems.push(working.failed);
    return true;
  }
  if (output == null || output === working.text) return false;
  // Test-only seam (never set in real use): MCP_MIGRATE_FAULT_OUTPUT=<relPath> makes a transform's output unparsable.
  if (process.env.MCP_MIGRATE_FAULT_OUTPUT === working.source.relPath) output += '\n}}} (';
  const broken = syntaxError(createProject().createSourceFile(filePath, output, { overwrite: true }));
  if (broken) {
    working.failed = {
      file: working.source.relPath,
      kind: 'invalid-output',
      message: `${transform.id} produced code that does not parse (${broken}); file left unchanged`,
    };
    working.text = working.original;
    problems.push(working.failed);
    return true;
  }
  working.text = output;
  working.transformIds.add(transform.id);
  return true;
}

/** A marker of the same rule already stands on the finding's line or the line above it. */
function markedNear(findings: Finding[], finding: Finding): boolean {
  return findings.some(
    (m) =>
      m.data?.marker &&
      m.ruleId === finding.ruleId &&
      (m.line === finding.line || m.line === finding.line - 1 || m.endLine === finding.line - 1),
  );
}

const markLeftovers: TransformModule = { id: markLeftoversId, rules: [], level: 'auto', run: markLeftoversRun };

function rulesOf(transformIds: Set<string>): string[] {
  return allTransforms.filter((t) => transformIds.has(t.id)).flatMap((t) => t.rules);
}

function writeChanges(
  targets: Map<string, { absPath: string; text: string; source?: LoadedSource['source'] }>,
  changes: FileChange[],
  options: ApplyOptions,
  problems: FileProblem[],
): void {
  const absPaths = changes.map((c) => targets.get(c.file)!.absPath);
  if (!options.allowDirty) {
    const dirty = new Set(dirtyFiles(path.dirname(absPaths[0] ?? '.'), absPaths));
    if (dirty.size > 0) {
      for (const change of changes) {
        if (dirty.has(targets.get(change.file)!.absPath))
          problems.push({
            file: change.file,
            kind: 'dirty',
            message: 'has uncommitted changes; commit or stash them, or pass --allow-dirty (nothing was written)',
          });
      }
      changes.length = 0;
      return;
    }
  }
  for (let i = changes.length - 1; i >= 0; i--) {
    const target = targets.get(changes[i].file)!;
    try {
      writeFileAtomic(target.absPath, target.source ? writeSourceText(target.text, target.source) : target.text);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      problems.push({
        file: changes[i].file,
        kind: 'write',
        message: `could not be written (${code ?? (error as Error).message}); left unchanged`,
      });
      changes.splice(i, 1);
    }
  }
}

/**
 * The package.json that owns each source file (the nearest one up from it), by path relative to the scan root: a
 * monorepo's members each get their own manifest edited. Only manifests inside the scanned root are edited; one
 * above it belongs to a project we were not asked to change, and is reported instead.
 */
function ownerManifests(root: string, absPaths: string[]): { inside: Map<string, string>; outside: Set<string> } {
  const inside = new Map<string, string>();
  const outside = new Set<string>();
  const rootPrefix = root.endsWith(path.sep) ? root : root + path.sep;
  for (const file of absPaths) {
    for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
      const candidate = path.join(dir, 'package.json');
      if (fs.existsSync(candidate)) {
        if (candidate.startsWith(rootPrefix)) inside.set(path.relative(root, candidate).split(path.sep).join('/'), candidate);
        else outside.add(candidate);
        break;
      }
      if (path.dirname(dir) === dir) break;
    }
  }
  return { inside, outside };
}

function manualItems(findings: Finding[]): ManualItem[] {
  return findings
    .filter((f) => f.severity !== 'info')
    .map((f) => ({ file: f.file, line: f.line, ruleId: f.ruleId, message: f.hint ? `${f.message} ${f.hint}` : f.message }));
}

/** The routes that now serve MCP in the changed files: POST routes reaching a stateless transport, or routes (and
 * branches) calling a `createMcpHandler` handler. */
function servedEndpoints(analysis: Analysis, changed: Set<string>): ServedEndpoint[] {
  const endpoints: ServedEndpoint[] = [];
  const add = (relPath: string, node: Node, requirePost: boolean) => {
    for (const context of routeContextsOf(node)) {
      const pathNode = context.paths.at(-1);
      if (!pathNode) continue;
      if (requirePost && context.methods !== 'any' && context.methods !== 'unknown' && !context.methods.has('POST')) continue;
      const line = (context.routes[0]?.call ?? pathNode).getStartLineNumber();
      if (!endpoints.some((e) => e.file === relPath && e.line === line)) endpoints.push({ file: relPath, line, path: pathNode.getText() });
    }
  };
  for (const relPath of changed) {
    const sourceFile = analysis.sourceFile(relPath);
    if (!sourceFile) continue;
    const facts = new FileFacts(sourceFile, { validatesOrigin: true });
    for (const call of facts.methodCalls('handleRequest', ['StreamableHTTPServerTransport'])) add(relPath, call, true);
    for (const declaration of sourceFile.getVariableDeclarations()) {
      if (!/\bcreateMcpHandler\(/.test(declaration.getInitializer()?.getText() ?? '')) continue;
      for (const call of sourceFile.getDescendantsOfKind(SyntaxKind.CallExpression)) {
        // Node mounts call the handler (`toNodeHandler`), Web mounts its `fetch`.
        const callee = call.getExpression().getText();
        if (callee === declaration.getName() || callee === `${declaration.getName()}.fetch`) add(relPath, call, false);
      }
    }
  }
  return endpoints;
}
