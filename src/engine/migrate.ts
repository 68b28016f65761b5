// The in-memory migration: each enabled transform, in order, on the files that have findings of its rules,
// re-analysing the project between transforms so positions and cross-file facts stay current; then, on the
// 2026-07-28 target, the official v1→v2 codemod. A transform that throws, or whose output does not parse, leaves that
// file as it was and is reported. Endpoint plans named in `rolledBack` are left as they were, with a marker.
import jscodeshift from 'jscodeshift';
import { ts } from 'ts-morph';
import type { FileProblem, Finding, Location, ManualItem } from '../model';
import type { Rule } from '../rules/rule';
import { endpointPlanOf, type EndpointPlan } from '../analysis/endpoints/model';
import { touchedFiles } from '../analysis/file-facts';
import { allRules } from '../rules';
import { LOOPBACK } from '../analysis/binds';
import { transforms as allTransforms, type TransformModule } from '../../transforms';
import { parserFor } from '../../transforms/lib/context';
import markLeftoversRun, { id as markLeftoversId } from '../../transforms/mark-leftovers';
import { marksAgentInstead, type AgentsHandlerModule, type AgentsPlan } from '../analysis/mcp-frameworks/agents';
import { analyzeSources, createProject, ENDPOINT_RULES, syntaxError, type Analysis, type SourceInput } from './analyze';
import { withoutAnsweredSchemaMarkers } from './schema-markers';
import { migrateSdkSurface } from './sdk-v2-surface';
import { fixupsFor, importsModule, satisfyV2Dependencies, settledByRaise, withoutAnsweredCodemodNotes } from './v2-fixups';
import type { Raise } from './v2-dependencies';
import { DEFAULT_TARGET, type Target } from './targets';
import {
  addDependency,
  raiseDependencyRange,
  raiseSdkRange,
  migratedTexts,
  sdkCompanions,
  sdkFloor,
  V1_SDK,
  V1_TESTED_RANGE,
} from './sdk-floor';
import { importsPackage, LEGACY_PACKAGE, withoutDependency } from './sdk-v2-surface';
import * as path from 'node:path';
import { emitProgress } from './progress';
import { discover } from './discover';
import { isReadProblem, readSource } from './read-source';

/** The id under which the official v1→v2 codemod's changes are reported. */
const SDK_SURFACE_STEP = 'sdk-v2-surface';
/** The rule that finds v1's registration calls on a server already on the v2 packages (its fix is a v2 fix-up). */
const V1_SDK_API = 'v1-sdk-api';

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
  /** Where a migrated McpAgent's 2026-07-28 handler comes from (see agents-handler); the SDK's leaves `agents` unused. */
  agentsHandlerModule?: AgentsHandlerModule;
  /** package.json texts by path relative to the root, for the v2 SDK surface step (2026-07-28 target). */
  manifests?: Map<string, string>;
  unsafe?: boolean;
  endpoint?: string;
  /** Analysis of exactly these sources, when the caller already has it. */
  initialAnalysis?: Analysis;
  /** Set by migrateSources from the project's listeners: every one binds loopback. */
  localServer?: true;
  /** Endpoint plans (by id) to leave as they were, with why (a change of theirs was rolled back). */
  rolledBack?: Record<string, string>;
  /** (per file, set by the loop) the endpoint plans that touch the file. */
  plans?: EndpointPlan[];
  /** The scanned root (2026-07-28: where manifests' installed packages are looked up); default: from the sources. */
  root?: string;
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
  /** The v2 SDK surface step ran: a transform wrote v2 imports (2026-07-28 target). */
  movedToV2: boolean;
  /** Endpoint plans of the original sources. */
  plans: EndpointPlan[];
  /** Packages whose range the migrated manifests raised: the next install brings the version this release carries. */
  raised: Set<string>;
  /** Packages a raised one depends on that the project does not declare: the install brings them with it. */
  brought: Set<string>;
  /** The endpoint plans each file's transforms carried out, by relPath. */
  applied: Map<string, Set<string>>;
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
  const original = analysis;
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
  const applied = new Map<string, Set<string>>();
  const plans = analysis.endpoints();
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
      analysis = reanalyze(files, rules, analysis);
      localOptions = { ...options, localServer: bindsLoopbackOnly(analysis) };
    }
    stale = false;
    for (const fileAnalysis of analysis.files) {
      const working = files.get(fileAnalysis.relPath)!;
      if (working.failed || fileAnalysis.parseError) continue;
      const findings = fileAnalysis.findings.filter((f) => transform.rules.includes(f.ruleId));
      // The endpoint transform also edits files its plans touch without a finding there (a test's call site).
      const plans = transform.plans ? analysis.endpoints().filter((plan) => touchedFiles(plan).has(fileAnalysis.relPath)) : [];
      if (findings.length === 0 && plans.length === 0) continue;
      stale = runTransform(transform, working, findings, { ...localOptions, plans }, problems, applied) || stale;
    }
  }
  if (stale) {
    analysis = reanalyze(files, rules, analysis);
    stale = false;
  }
  // What a transform should have fixed but did not gets a marker now, not on the next run. So does session state a
  // project served over HTTP still keeps (without --unsafe, or where the handles could not be applied): without
  // protocol sessions it silently resets, so the gate stays red until it moves behind a handle.
  const fixedByRunTransforms = new Set(enabled.flatMap((t) => t.rules));
  // (a framework that owns its HTTP server — fastmcp, mcp-framework, agents — has no endpoint plan: the transport
  // findings it had say it served HTTP, and its stateless start serves HTTP still)
  const servesHttp =
    plans.length > 0 ||
    analysis.endpoints().length > 0 ||
    [...files.values()].some((w) => [...w.foundRules].some((id) => HTTP_TRANSPORT_RULES.has(id)));
  for (const fileAnalysis of analysis.files) {
    const working = files.get(fileAnalysis.relPath)!;
    if (working.failed || fileAnalysis.parseError) continue;
    const leftovers = [...fileAnalysis.findings, ...drawnValuesNowUnreported(original, fileAnalysis.findings, working)].filter(
      (f) =>
        ((f.fix === 'auto' && f.severity !== 'info' && fixedByRunTransforms.has(f.ruleId)) ||
          (servesHttp && f.ruleId === 'session-state')) &&
        !f.data?.marker &&
        !(f.data?.drawnPerSession && !foundBefore(original, fileAnalysis.relPath, f)) &&
        !markedByPlan(f, options, target) &&
        !markedNear(fileAnalysis.findings, f),
    );
    if (leftovers.length === 0) continue;
    stale = runTransform(markLeftovers, working, leftovers, localOptions, problems, applied) || stale;
  }
  let manifests = new Map(options.manifests ?? []);
  const surfaceNotes: ManualItem[] = [];
  const raised = new Set<string>();
  const brought = new Set<string>();
  // The v2 SDK surface (and package.json) moves only with code that now needs it: a selected rule's transform wrote
  // v2 imports. A stdio server, or a run limited to rules whose fixes stay on v1, keeps its SDK and manifest.
  const movedToV2 = target === '2026-07-28' && [...files.values()].some((w) => importsNewV2Package(w.original, w.text));
  if (movedToV2) {
    const surface = sdkSurfaceStep(files, analysis, manifests, problems);
    const dependencies = satisfyV2Dependencies(
      surface.manifests,
      options.root ?? rootOf(sources),
      [...files.values()].map((w) => ({ relPath: w.source.relPath, text: w.original })),
    );
    manifests = dependencies.manifests;
    for (const raise of [...dependencies.raised.values()].flat()) raised.add(raise.name);
    stale = surface.changed || stale;
    const codemodTexts = new Map([...files].map(([rel, w]) => [rel, w.text]));
    stale = runFixups(files, dependencies.raised, localOptions, problems, applied) || stale;
    const fixedTexts = new Map([...files].map(([rel, w]) => [rel, w.text]));
    surfaceNotes.push(
      ...withoutAnsweredCodemodNotes(surface.notes, codemodTexts, fixedTexts).filter((note) => !settledByRaise(note, dependencies.raised)),
      ...dependencies.notes,
    );
    manifests = withoutUnimportedLegacy(files, manifests, options.manifests ?? new Map());
    manifests = withoutEmptiedZodConverter(files, manifests, surfaceNotes);
    if (options.agentsHandlerModule === '@modelcontextprotocol/server')
      manifests = withoutUnusedAgents(files, manifests, options.root ?? rootOf(sources), surfaceNotes);
  } else if (target === '2026-07-28' && [...files.values()].some((w) => w.foundRules.has(V1_SDK_API))) {
    // Already on v2 (moved by hand, or by the codemod alone) and still calling v1's registration API: the fix-ups
    // that move it run; nothing else of the v2 move is due.
    const before = new Map([...files].map(([rel, w]) => [rel, w.text]));
    stale = runFixups(files, new Map(), localOptions, problems, applied) || stale;
    for (const [rel, working] of files) if (working.text !== before.get(rel)) working.transformIds.add(V1_SDK_API);
  }
  surfaceNotes.push(...transformNotes(files));
  manifests = new Map([...manifests, ...raiseFrameworkFloors(files, manifests, surfaceNotes, raised)]);
  if (target === '2025-11-25') {
    const floors = raiseSdkFloors(files, manifests, surfaceNotes);
    if (floors.size > 0) {
      raised.add(V1_SDK);
      for (const name of sdkCompanions(floors.values())) brought.add(name);
    }
    manifests = new Map([...manifests, ...floors]);
  }
  if (stale) analysis = reanalyze(files, rules, analysis);
  return {
    movedToV2,
    plans,
    raised,
    brought,
    applied,
    manifests,
    surfaceNotes,
    outputs: new Map([...files].map(([rel, w]) => [rel, w.text])),
    transformIds: new Map([...files].map(([rel, w]) => [rel, w.transformIds])),
    foundRules: new Map([...files].map(([rel, w]) => [rel, w.foundRules])),
    problems,
    analysis,
  };
}

/** 2025-11-25: each manifest whose SDK range predates the transport the migrated code uses is raised to one that has it. */
function raiseSdkFloors(files: Map<string, WorkingFile>, manifests: Map<string, string>, notes: ManualItem[]): Map<string, string> {
  const raised = new Map<string, string>();
  for (const [manifest, owned] of changedFilesByManifest(files, manifests)) {
    const floor = sdkFloor(migratedTexts(owned));
    const text = floor ? raiseSdkRange(manifests.get(manifest)!, floor) : undefined;
    if (!text) continue;
    raised.set(manifest, text);
    notes.push({
      file: manifest,
      line: 1,
      ruleId: 'per-request-transport',
      message: `@modelcontextprotocol/sdk raised to ${V1_TESTED_RANGE}: the migrated code needs ${floor} or later; run your package manager's install.`,
    });
  }
  return raised;
}

/** The notes of the transforms that changed each file, at the line their anchor names (none where it names none). */
function transformNotes(files: Map<string, WorkingFile>): ManualItem[] {
  return [...files.values()].flatMap((working) =>
    allTransforms
      .filter((t) => t.note && working.transformIds.has(t.id))
      .map((t) => {
        const index = working.text.split('\n').findIndex((line) => t.note!.anchor.test(line));
        return index < 0 ? [] : [{ file: working.source.relPath, line: index + 1, ruleId: t.rules[0], message: t.note!.message }];
      })
      .flat(),
  );
}

/** Each manifest whose files a framework transform changed gets that framework's range when it allows an older one. */
function raiseFrameworkFloors(
  files: Map<string, WorkingFile>,
  manifests: Map<string, string>,
  notes: ManualItem[],
  names: Set<string>,
): Map<string, string> {
  const raised = new Map<string, string>();
  const everyFile = filesByManifest(files, manifests, false);
  for (const [manifest, owned] of changedFilesByManifest(files, manifests)) {
    for (const transform of allTransforms) {
      const requires = transform.requires;
      if (!requires || !owned.some((w) => w.transformIds.has(transform.id) && requires.uses.test(w.text))) continue;
      for (const { name, floor, range, why, undeclared } of requires.packages) {
        const current = raised.get(manifest) ?? manifests.get(manifest)!;
        const imported = () => (everyFile.get(manifest) ?? []).some((w) => importsModule(w.text, name));
        const added = undeclared && imported() ? addDependency(current, name, range) : undefined;
        const text = added ?? raiseDependencyRange(current, name, floor, range);
        if (!text) continue;
        raised.set(manifest, text);
        names.add(name);
        notes.push({
          file: manifest,
          line: 1,
          ruleId: transform.rules[0],
          message: added
            ? `${name} ${range} added: the code imports it without declaring it, and ${why}; run your package manager's install.`
            : `${name} raised to ${range}: ${why} (${floor} or later); run your package manager's install.`,
        });
      }
    }
  }
  return raised;
}

/**
 * `@modelcontextprotocol/server-legacy` goes from each manifest the v2 move added it to when none of the package's
 * files imports it any more: the codemod added it for a legacy class that the v2 fix-ups then took out of dead code.
 */
function withoutUnimportedLegacy(
  files: Map<string, WorkingFile>,
  manifests: Map<string, string>,
  before: ReadonlyMap<string, string>,
): Map<string, string> {
  const result = new Map(manifests);
  for (const [manifest, owned] of changedFilesByManifest(files, manifests)) {
    const text = manifests.get(manifest)!;
    if (before.get(manifest)?.includes(`"${LEGACY_PACKAGE}"`) || owned.some((w) => importsPackage(w.text, LEGACY_PACKAGE))) continue;
    result.set(manifest, withoutDependency(text, LEGACY_PACKAGE));
  }
  return result;
}

/**
 * `zod-to-json-schema` goes from a manifest when the `zod-to-json-schema` fix-up replaced its last use: zod 4 converts
 * its own schemas, and the old converter's peer range (zod 3) would stop the install (zereight/gitlab-mcp pins 3.24.5).
 * Every file of the package that imports it is in `files` (the zod companions), so none left means none at all.
 */
function withoutEmptiedZodConverter(
  files: Map<string, WorkingFile>,
  manifests: Map<string, string>,
  notes: ManualItem[],
): Map<string, string> {
  const result = new Map(manifests);
  for (const [manifest, owned] of filesByManifest(files, manifests, false)) {
    const text = manifests.get(manifest)!;
    const imported = (w: WorkingFile, which: 'original' | 'text') => importsModule(w[which], ZOD_CONVERTER);
    if (!owned.some((w) => imported(w, 'original')) || owned.some((w) => imported(w, 'text'))) continue;
    const without = withoutDependency(text, ZOD_CONVERTER);
    if (without === text) continue;
    result.set(manifest, without);
    notes.push({
      file: manifest,
      line: 1,
      ruleId: 'sdk-v2-surface',
      message: `${ZOD_CONVERTER} removed: the zod-to-json-schema fix-up replaced its last use with zod 4's own z.toJSONSchema (its zod 3 peer range would stop the install); run your package manager's install.`,
    });
  }
  return result;
}

const ZOD_CONVERTER = 'zod-to-json-schema';

/**
 * `agents` goes from a manifest when the McpAgent it served is now served by the SDK's own createMcpHandler and no
 * file of the package imports agents any more: its old tree (agents 0.0's `ai@4`, which wants zod 3) would otherwise
 * stay in the lock and stop the install. The package's other files are read for imports too (an `agents/react` client).
 */
function withoutUnusedAgents(
  files: Map<string, WorkingFile>,
  manifests: Map<string, string>,
  root: string,
  notes: ManualItem[],
): Map<string, string> {
  const result = new Map(manifests);
  const known = new Set([...files.values()].map((w) => w.source.absPath));
  for (const [manifest, owned] of filesByManifest(files, manifests, false)) {
    if (!owned.some((w) => importsModule(w.original, AGENTS)) || owned.some((w) => importsModule(w.text, AGENTS))) continue;
    if (packageImports(path.join(root, path.dirname(manifest)), AGENTS, known)) continue;
    const without = withoutDependency(manifests.get(manifest)!, AGENTS);
    if (without === manifests.get(manifest)) continue;
    result.set(manifest, without);
    notes.push({
      file: manifest,
      line: 1,
      ruleId: 'legacy-sse-transport',
      message: `${AGENTS} removed: nothing imports it any more (the McpAgent is served by the SDK's createMcpHandler, because raising ${AGENTS} would not install beside the project's lock); run your package manager's install.`,
    });
  }
  return result;
}

const AGENTS = 'agents';

/** Some source file under `dir` (its own package, not `except`) imports package `name`. */
function packageImports(dir: string, name: string, except: ReadonlySet<string>): boolean {
  const { files } = discover({ paths: [dir], cwd: dir, gitignore: true, include: [], exclude: [] });
  return files.some((file) => {
    if (except.has(file.absPath)) return false;
    const read = readSource(file.absPath);
    return !isReadProblem(read) && importsModule(read.text, name);
  });
}

/** The files the migration changed, by the manifest that owns them (the nearest package.json above). */
function changedFilesByManifest(files: Map<string, WorkingFile>, manifests: Map<string, string>): Map<string, WorkingFile[]> {
  return filesByManifest(files, manifests, true);
}

/** The working files by the manifest that owns them (the nearest package.json above); only changed ones if asked. */
function filesByManifest(
  files: Map<string, WorkingFile>,
  manifests: Map<string, string>,
  changedOnly: boolean,
): Map<string, WorkingFile[]> {
  const dirs = [...manifests.keys()].map((m) => path.posix.dirname(m)).sort((a, b) => b.length - a.length);
  const owned = new Map<string, WorkingFile[]>();
  for (const manifest of manifests.keys()) {
    const dir = path.posix.dirname(manifest);
    owned.set(
      manifest,
      [...files.values()].filter((w) => {
        if (changedOnly && w.text === w.original) return false;
        const owner = dirs.find((d) => d === '.' || w.source.relPath.startsWith(`${d}/`));
        return owner === dir;
      }),
    );
  }
  return owned;
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
  for (const [rel, text] of surface.files) {
    const own = surface.diagnostics.filter((d) => d.file === rel);
    const answered = withoutAnsweredSchemaMarkers(text, files.get(rel)!.source.absPath, own);
    surface.files.set(rel, answered.text);
    surface.diagnostics = [...surface.diagnostics.filter((d) => d.file !== rel), ...answered.diagnostics];
  }
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

/** The v2 fix-ups (transforms/v2) on every file they may change; returns whether one changed. */
function runFixups(
  files: Map<string, WorkingFile>,
  raised: Map<string, Raise[]>,
  options: MigrateOptions,
  problems: FileProblem[],
  applied: Map<string, Set<string>>,
): boolean {
  let changed = false;
  for (const working of files.values()) {
    for (const fixup of fixupsFor(working.source.relPath, raised)) {
      if (working.failed || !fixup.mayApply(working.text)) continue;
      const transform: TransformModule = { id: fixup.id, rules: [], level: 'auto', run: fixup.run };
      changed = runTransform(transform, working, [], options, problems, applied) || changed;
    }
  }
  return changed;
}

/** The scanned root, from any source's absolute and relative paths. */
function rootOf(sources: SourceInput[]): string {
  const [first] = sources;
  return first ? first.absPath.slice(0, first.absPath.length - first.relPath.length) || '.' : '.';
}

/** true when the project's MCP code listens somewhere and every listener binds loopback; else undefined (ask per file). */
function bindsLoopbackOnly(analysis: Analysis): true | undefined {
  const hosts = analysis.files.flatMap((file) => analysis.shape(file.relPath)?.mcpListenHosts ?? []);
  return hosts.length > 0 && hosts.every((host) => typeof host === 'string' && LOOPBACK.has(host)) ? true : undefined;
}

/** The analysis of the current texts; import groups none of whose files changed since `previous` are reused. */
function reanalyze(files: Map<string, WorkingFile>, rules: readonly Rule[], previous: Analysis): Analysis {
  return analyzeSources(
    [...files.values()].map((w) => ({ ...w.source, text: w.text })),
    rules,
    previous,
  );
}

/** The rewrite parser's error on the text, or undefined when it parses. */
function rewriteParseError(j: ReturnType<typeof jscodeshift.withParser>, text: string): string | undefined {
  try {
    j(text);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/** Returns whether the file changed. */
function runTransform(
  transform: TransformModule,
  working: WorkingFile,
  findings: Finding[],
  options: MigrateOptions,
  problems: FileProblem[],
  applied: Map<string, Set<string>>,
): boolean {
  const filePath = working.source.absPath;
  const appliedEndpoints = new Set<string>();
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
      agentsHandlerModule: options.agentsHandlerModule,
      localServer: options.localServer,
      compiler: compilerFacts(working.source.absPath),
      rolledBack: options.rolledBack,
      appliedEndpoints,
      plans: options.plans,
      relPath: working.source.relPath,
    });
  } catch (error) {
    // (a file TypeScript reads and the rewrite's parser refuses, `import x` twice: say that, not that a transform failed)
    const unreadable = rewriteParseError(j, working.text);
    working.failed = {
      file: working.source.relPath,
      kind: 'transform',
      message: unreadable
        ? `the rewrite's parser (babel) refuses the file: ${unreadable}; file left unchanged`
        : `${transform.id} failed: ${(error as Error).message}; file left unchanged`,
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
  emitProgress({ kind: 'transformed', file: working.source.relPath, transform: transform.id });
  if (appliedEndpoints.size > 0)
    applied.set(working.source.relPath, new Set([...(applied.get(working.source.relPath) ?? []), ...appliedEndpoints]));
  return true;
}

/** A transform marked this finding's endpoint itself: it cannot be migrated, it was rolled back, or the agent it serves stays. */
function markedByPlan(finding: Finding, options: MigrateOptions, target: string): boolean {
  const plan = endpointPlanOf(finding);
  if (plan) return !plan.verdict.migratable || !!options.rolledBack?.[plan.id];
  const agents = finding.data?.agents as AgentsPlan | undefined;
  return !!agents && marksAgentInstead(agents, target, options.agentsHandlerModule);
}

/**
 * Values a per-session server factory drew (`randomUUID()`, `Date.now()`; `drawnPerSession`) that the analysis no longer
 * reports once the run served their endpoint statelessly: it reads a stateless endpoint as one that drew them per request
 * all along. Their findings from before, moved to where each declaration is now (found by its unchanged text), so that
 * the leftover marker says what the migration changed. One whose text is no longer there once, exactly, is not moved.
 */
function drawnValuesNowUnreported(original: Analysis, now: Finding[], working: WorkingFile): Finding[] {
  if (working.text === working.original) return [];
  const before = original.files.find((file) => file.relPath === working.source.relPath)?.findings ?? [];
  return before.flatMap((finding) => {
    if (!finding.data?.drawnPerSession || now.some((f) => f.ruleId === finding.ruleId && f.message === finding.message)) return [];
    const declaration = textAt(working.original, finding);
    const at = working.text.indexOf(declaration);
    if (!declaration || at < 0 || working.text.indexOf(declaration, at + 1) >= 0) return [];
    const start = positionOf(working.text, at);
    const end = positionOf(working.text, at + declaration.length);
    return [{ ...finding, line: start.line, column: start.column, endLine: end.line, endColumn: end.column }];
  });
}

/** The text a location spans (lines and columns from 1). */
function textAt(text: string, location: Location): string {
  const lines = text.split('\n');
  const offset = (line: number, column: number) => lines.slice(0, line - 1).reduce((n, l) => n + l.length + 1, 0) + column - 1;
  return text.slice(offset(location.line, location.column), offset(location.endLine, location.endColumn));
}

function positionOf(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, column: before[before.length - 1].length + 1 };
}

/**
 * A value drawn afresh in a server factory is state only where that factory ran once per session before the
 * migration (the rule says so only then): one the migration moved behind `createMcpHandler` from an endpoint that was
 * already stateless was drawn per request all along, and gets no marker.
 */
function foundBefore(original: Analysis, relPath: string, finding: Finding): boolean {
  return !!original.files
    .find((file) => file.relPath === relPath)
    ?.findings.some((before) => before.ruleId === finding.ruleId && before.message === finding.message);
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

/**
 * Rules whose findings mean the code served MCP over HTTP: the endpoint rules but origin-validation, which says only
 * that an endpoint lacks a guard (a client's or a test's rules are not among them).
 */
const HTTP_TRANSPORT_RULES = new Set([...ENDPOINT_RULES].filter((id) => id !== 'origin-validation'));

const markLeftovers: TransformModule = { id: markLeftoversId, rules: [], level: 'auto', run: markLeftoversRun };

/**
 * Rule ids of the transforms that changed a file, `sdk-v2-surface` when the v1→v2 surface step did, and `v1-sdk-api`
 * when the v2 fix-ups did on a project already on v2.
 */
export function rulesOf(transformIds: Set<string>): string[] {
  const ids = allTransforms.filter((t) => transformIds.has(t.id)).flatMap((t) => t.rules);
  return [...ids, ...[SDK_SURFACE_STEP, V1_SDK_API].filter((step) => transformIds.has(step))];
}

/** The v2 SDK packages (`@modelcontextprotocol/server`, `/node`, `/express`, …) a module imports or requires. */
const V2_SPECIFIER = /['"]@modelcontextprotocol\/(server|node|express|hono|fastify|core|client)(?:\/[^'"]*)?['"]/g;

function importsNewV2Package(before: string, after: string): boolean {
  const packages = (text: string) => new Set([...text.matchAll(V2_SPECIFIER)].map((m) => m[1]));
  const old = packages(before);
  return [...packages(after)].some((name) => !old.has(name));
}

const compilerCache = new Map<string, { exactOptionalPropertyTypes?: boolean }>();

/** What the file's nearest tsconfig.json says that changes the code a transform may write. */
function compilerFacts(absPath: string): { exactOptionalPropertyTypes?: boolean } {
  const config = ts.findConfigFile(path.dirname(absPath), ts.sys.fileExists, 'tsconfig.json');
  if (!config) return {};
  let facts = compilerCache.get(config);
  if (!facts) {
    const parsed = ts.getParsedCommandLineOfConfigFile(config, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });
    facts = { exactOptionalPropertyTypes: parsed?.options.exactOptionalPropertyTypes };
    compilerCache.set(config, facts);
  }
  return facts;
}
