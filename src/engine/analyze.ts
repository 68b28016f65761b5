// Handle stage: parse each import group of the candidate files into a ts-morph project (so imports resolve across
// its files), run every enabled rule on every file, then apply suppressions and collect migration markers. A group's
// project is dropped once the group is analysed: what later steps read of it (findings, endpoint plans, each file's
// FileShape) is plain data, so an analysis holds no syntax tree and a migration's analyses cost little memory.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Project, ts, type Node, type ResolutionHostFactory, type SourceFile, type Symbol as TsMorphSymbol } from 'ts-morph';
import type { Finding, Suppression } from '../model';
import type { ReportOptions, Rule } from '../rules/rule';
import { FileFacts, type ProjectFacts } from '../analysis/file-facts';
import { fileValidatesOrigin } from '../analysis/origin';
import { projectEndpoints } from '../analysis/endpoints/build';
import { isClientFile, isTestFile } from '../analysis/endpoints/classify';
import type { EndpointPlan, Span } from '../analysis/endpoints/model';
import { explainLeftover } from '../analysis/endpoints/leftovers';
import type { RelPathOf } from '../analysis/endpoints/spans';
import { applySuppressions, parseSuppressions } from './suppressions';
import { aliasBases, ImportGraph, isAliasSpecifier, isLocalSpecifier, localSpecifiers } from './import-graph';
import { findMarkers } from './markers';
import { emitProgress } from './progress';
import { servesMcp } from '../analysis/serves-mcp';
import { bindSites, type BindSite } from '../analysis/binds';

export interface SourceInput {
  absPath: string;
  relPath: string;
  text: string;
}

export interface FileAnalysis {
  relPath: string;
  findings: Finding[];
  suppressions: Suppression[];
  /** First syntax error, when the file does not parse; no rule runs on such a file. */
  parseError?: string;
  /** The packages the file imports (by package name): what its package.json must declare. */
  packages?: string[];
}

/** What steps after the analysis read of a file's syntax tree (the analysis keeps no tree). */
export interface FileShape {
  /** Depth of the deepest node (the source file is level 0). */
  depth: number;
  /** The hosts the file's listeners bind when it serves MCP (analysis/serves-mcp.ts); none when it does not. */
  mcpListenHosts: Array<BindSite['host']>;
}

export interface Analysis {
  files: FileAnalysis[];
  shape(relPath: string): FileShape | undefined;
  /** The project's endpoint plans. */
  endpoints(): EndpointPlan[];
  /** Each import group's analysis by its {@link groupKey}, with the rules it ran: what a re-analysis reuses. */
  reusable?: { rules: readonly Rule[]; groups: ReadonlyMap<string, GroupAnalysis> };
}

/** Files in a node_modules directory: a package specifier may name them. */
const IN_NODE_MODULES = /[\\/]node_modules[\\/]/;

/**
 * An in-memory project for `files` (they are added by the caller). A package specifier (`express`,
 * `@modelcontextprotocol/sdk/server/sse.js`) can name a file of such a project only when that file lies in a
 * node_modules directory: the project holds no package.json and no tsconfig `paths`. Unless one of `files` does,
 * package specifiers are left unresolved without the lookups TypeScript would make in every ancestor directory
 * (a twentieth of the analysis of the bench tree).
 */
export function createProject(files: readonly { absPath: string }[] = []): Project {
  const packagesInProject = files.some((file) => IN_NODE_MODULES.test(file.absPath));
  const project = new Project({
    useInMemoryFileSystem: true,
    skipAddingFilesFromTsConfig: true,
    skipFileDependencyResolution: true,
    ...(packagesInProject ? {} : { resolutionHost: localModulesOnly }),
    compilerOptions: {
      allowJs: true,
      checkJs: false,
      noLib: true,
      noResolve: false,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      jsx: ts.JsxEmit.Preserve,
      allowImportingTsExtensions: true,
      noEmit: true,
    },
  });
  rememberSymbols(project);
  rememberSourceFiles(project);
  return project;
}

/**
 * `project.getSourceFiles()` (no globs) listed once per program: ts-morph walks its directory tree for each call, and
 * the endpoint model asks for every project file in many places. The list is made again when the project's files
 * change (a new program); callers get a copy.
 */
function rememberSourceFiles(project: Project): void {
  const list = project.getSourceFiles.bind(project);
  let program: ts.Program | undefined;
  let files: SourceFile[] = [];
  project.getSourceFiles = ((globPatterns?: string | readonly string[]) => {
    if (globPatterns !== undefined) return list(globPatterns as readonly string[]);
    const current = project.getProgram().compilerObject;
    if (current !== program) {
      program = current;
      files = list();
    }
    return [...files];
  }) as Project['getSourceFiles'];
}

/**
 * The project's type checker answers `getSymbolAtLocation` (what `node.getSymbol()` asks) once per node of its
 * program: rules and the endpoint model ask about the same identifiers again and again (on the 10k bench tree 88,000
 * questions about 16,000 nodes), and TypeScript resolves a name anew each time. A program is never changed under its
 * checker — a project's edit makes a new program and checker — so the answers are kept per checker, and a new one
 * starts afresh. (A Map, not a WeakMap: it goes with the checker, and weak keys cost the garbage collector more.)
 */
function rememberSymbols(project: Project): void {
  const checker = project.getTypeChecker();
  const ask = checker.getSymbolAtLocation.bind(checker);
  let current: ts.TypeChecker | undefined;
  let answers = new Map<ts.Node, TsMorphSymbol | null>();
  checker.getSymbolAtLocation = (node: Node): TsMorphSymbol | undefined => {
    // (`node.getSymbol()` reaches this through the project's context, which has brought the program up to date)
    const compiler = checker.compilerObject;
    if (compiler !== current) {
      current = compiler;
      answers = new Map();
    }
    let answer = answers.get(node.compilerNode);
    if (answer === undefined) answers.set(node.compilerNode, (answer = ask(node) ?? null));
    return answer ?? undefined;
  };
}

const localModulesOnly: ResolutionHostFactory = (host, compilerOptions) => ({
  resolveModuleNames: (names, containingFile) =>
    names.map((name) =>
      isLocalSpecifier(name)
        ? ts.resolveModuleName(name, containingFile, compilerOptions(), host).resolvedModule
        : isAliasSpecifier(name)
          ? aliasBases(containingFile, name)
              .map((base) => ts.resolveModuleName(base, containingFile, compilerOptions(), host).resolvedModule)
              .find((resolved) => resolved !== undefined)
          : undefined,
    ),
});

/**
 * `project.createSourceFile(path, text, { overwrite: true })`. ts-morph overwrites by first reading the path from its
 * file system, which throws (an error with its stack, caught) for each new file of an in-memory project: a path the
 * project does not hold yet is created without that.
 */
export function createSourceFile(project: Project, filePath: string, text: string): SourceFile {
  return project.createSourceFile(filePath, text, { overwrite: !!project.getSourceFile(filePath) });
}

/** Syntax errors of a file, as `line:col message` (1-based), or undefined when it parses. */
export function syntaxError(sourceFile: SourceFile): string | undefined {
  const diagnostics = (sourceFile.compilerNode as unknown as { parseDiagnostics?: ts.DiagnosticWithLocation[] }).parseDiagnostics ?? [];
  const first = diagnostics[0];
  if (!first) return undefined;
  const { line, character } = sourceFile.compilerNode.getLineAndCharacterOfPosition(first.start);
  return `${line + 1}:${character + 1} ${ts.flattenDiagnosticMessageText(first.messageText, ' ')}`;
}

/**
 * Analyses each import group of `sources` (files linked by local imports, either way: import-graph.ts) in a project
 * of its own. What decides a server's findings — resolution across its files, whether something validates Origin,
 * whether every listener binds loopback — then never depends on another server scanned with it, and a group is
 * analysed alike whichever other groups share its chunk or worker.
 */
export function analyzeSources(sources: SourceInput[], rules: readonly Rule[], previous?: Analysis): Analysis {
  const graph = new ImportGraph(sources.map((source) => ({ absPath: source.absPath, specifiers: localSpecifiers(source.text) })));
  const earlier = previous?.reusable;
  const reusable = earlier && sameRules(earlier.rules, rules) ? earlier.groups : undefined;
  const keyed = new Map<string, GroupAnalysis>();
  const groups = graph.groups().map((indices) => {
    const group = indices.map((index) => sources[index]);
    const key = groupKey(group);
    const analysed = reusable?.get(key) ?? analyzeGroup(group, rules);
    keyed.set(key, analysed);
    return analysed;
  });
  const shapes = new Map(groups.flatMap((group) => [...group.shapes]));
  return {
    files: groups.flatMap((group) => group.files).sort((a, b) => a.relPath.localeCompare(b.relPath)),
    shape: (relPath) => shapes.get(relPath),
    endpoints: () => groups.flatMap((group) => group.endpoints).sort((a, b) => a.id.localeCompare(b.id)),
    reusable: { rules, groups: keyed },
  };
}

function sameRules(a: readonly Rule[], b: readonly Rule[]): boolean {
  return a.length === b.length && a.every((rule, index) => rule === b[index]);
}

/**
 * What a group's analysis depends on: its files' paths and texts. A group is analysed in a project of its own, so
 * one whose key is unchanged since an earlier analysis has the same findings and plans, and is not analysed again.
 */
function groupKey(group: readonly SourceInput[]): string {
  const hash = createHash('sha1');
  for (const source of group) hash.update(`${source.absPath}\0${source.relPath}\0${source.text.length}\0`).update(source.text);
  return hash.digest('hex');
}

export interface GroupAnalysis {
  shapes: Map<string, FileShape>;
  files: FileAnalysis[];
  endpoints: EndpointPlan[];
}

function analyzeGroup(sources: SourceInput[], rules: readonly Rule[]): GroupAnalysis {
  const project = createProject(sources);
  const byRel = new Map<string, SourceFile>();
  for (const source of sources) {
    byRel.set(source.relPath, createSourceFile(project, source.absPath, source.text));
  }
  addUnscannedImports(project, sources);
  const parsed: Array<[SourceInput, SourceFile]> = [];
  const files: FileAnalysis[] = [];
  for (const source of sources) {
    const sourceFile = byRel.get(source.relPath)!;
    const parseError = syntaxError(sourceFile);
    if (parseError) {
      files.push({ relPath: source.relPath, findings: [], suppressions: [], parseError });
      // Out of the project: its nodes may be incomplete (an import without its module string, on which ts-morph
      // throws), and nothing project-wide (plans, resolution, listeners) may be inferred from them.
      project.removeSourceFile(sourceFile);
      byRel.delete(source.relPath);
      continue;
    }
    parsed.push([source, sourceFile]);
  }
  const relPaths = new Map(parsed.map(([source, sourceFile]) => [sourceFile, source.relPath]));
  const relPathOf: RelPathOf = (file) => relPaths.get(file) ?? file.getFilePath();
  let endpoints: EndpointPlan[] | undefined;
  const endpointsOf = () => (endpoints ??= projectEndpoints(project, relPathOf));
  const factsByFile = connectedFacts(
    parsed.map(([, sourceFile]) => sourceFile),
    endpointsOf,
  );
  for (const [source, sourceFile] of parsed) {
    files.push(analyzeFile(source.relPath, sourceFile, factsByFile.get(sourceFile)!, rules, relPathOf));
    emitProgress({ kind: 'analysed', file: source.relPath, done: files.length, total: sources.length });
  }
  const shapes = new Map([...byRel].map(([relPath, sourceFile]) => [relPath, shapeOf(sourceFile)]));
  return { shapes, files, endpoints: endpointsOf() };
}

/** At most this many modules the pre-filter left out are read for one group, each at most this large. */
const MAX_UNSCANNED_IMPORTS = 64;
const MAX_UNSCANNED_IMPORT_BYTES = 256 * 1024;
const IMPORT_EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs'];

/**
 * The local modules the group's files import that the pre-filter left out (no MCP marker: the `Cart` class or the
 * `createTally()` helper a server factory makes its state with), read from disk into the project so that calls into
 * them resolve: what a tool changes through them is seen. They are never analysed and never join a group (no
 * finding, no shared fact): only one import away, and only as many as {@link MAX_UNSCANNED_IMPORTS}.
 */
function addUnscannedImports(project: Project, sources: readonly SourceInput[]): void {
  const known = new Set(sources.map((source) => path.resolve(source.absPath)));
  let added = 0;
  for (const source of sources) {
    for (const specifier of new Set(localSpecifiers(source.text))) {
      // (an alias names a scanned file or none this step can tell)
      if (isAliasSpecifier(specifier)) continue;
      const file = onDisk(source.absPath, specifier);
      if (!file || known.has(file)) continue;
      known.add(file);
      let text: string;
      try {
        if (fs.statSync(file).size > MAX_UNSCANNED_IMPORT_BYTES) continue;
        text = fs.readFileSync(file, 'utf8');
      } catch {
        continue;
      }
      createSourceFile(project, file, text);
      if (++added >= MAX_UNSCANNED_IMPORTS) return;
    }
  }
}

/** The script file a local specifier names, as bundler resolution would try it (`./a.js` may be `a.ts`). */
function onDisk(fromFile: string, specifier: string): string | undefined {
  const base = specifier.startsWith('/') ? path.resolve(specifier) : path.resolve(path.dirname(fromFile), specifier);
  const stem = base.replace(/\.(?:[cm]?[jt]s|[jt]sx)$/, '');
  const candidates = /\.(?:[cm]?[jt]s|[jt]sx)$/.test(base)
    ? [base, ...IMPORT_EXTENSIONS.map((ext) => stem + ext)]
    : [...IMPORT_EXTENSIONS.map((ext) => base + ext), ...IMPORT_EXTENSIONS.map((ext) => path.join(base, `index${ext}`))];
  for (const candidate of candidates) {
    if (candidate.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
    try {
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // not this one
    }
  }
  return undefined;
}

function shapeOf(sourceFile: SourceFile): FileShape {
  return {
    depth: syntaxDepth(sourceFile.compilerNode),
    mcpListenHosts: servesMcp(sourceFile) ? bindSites(sourceFile).map((site) => site.host) : [],
  };
}

/** Depth of the deepest node (the source file is level 0), walked with an explicit stack: no recursion here. */
export function syntaxDepth(root: ts.Node): number {
  let max = 0;
  const nodes: ts.Node[] = [root];
  const depths: number[] = [0];
  while (nodes.length > 0) {
    const node = nodes.pop()!;
    const depth = depths.pop()!;
    if (depth > max) max = depth;
    ts.forEachChild(node, (child) => {
      nodes.push(child);
      depths.push(depth + 1);
    });
  }
  return max;
}

/**
 * Facts shared by the files of one server: files linked by local imports (either way) form one component, and an
 * Origin check anywhere in a component covers its endpoints — but not those of another server in the same repo.
 * Worked out when a rule first asks (most files never do): finding the imports needs the type checker.
 */
function connectedFacts(files: SourceFile[], endpoints: () => EndpointPlan[]): Map<SourceFile, ProjectFacts> {
  let rootOf: Map<SourceFile, SourceFile> | undefined;
  const validating = new Map<SourceFile, boolean>();
  const validatesOrigin = (file: SourceFile): boolean => {
    rootOf ??= importComponents(files);
    const root = rootOf.get(file)!;
    let validates = validating.get(root);
    if (validates === undefined) {
      validates = files.some((other) => rootOf!.get(other) === root && fileValidatesOrigin(other));
      validating.set(root, validates);
    }
    return validates;
  };
  return new Map(
    files.map((file) => [
      file,
      {
        get validatesOrigin() {
          return validatesOrigin(file);
        },
        endpoints,
      },
    ]),
  );
}

/** Each file's component (by its root file): files linked by local imports, either way. */
function importComponents(files: SourceFile[]): Map<SourceFile, SourceFile> {
  const parent = new Map<SourceFile, SourceFile>(files.map((f) => [f, f]));
  const find = (f: SourceFile): SourceFile => {
    let root = f;
    while (parent.get(root) !== root) root = parent.get(root)!;
    parent.set(f, root);
    return root;
  };
  const byPath = new Map(files.map((f) => [f.getFilePath(), f]));
  for (const file of files) {
    for (const target of localImports(file, byPath)) parent.set(find(file), find(target));
  }
  return new Map(files.map((file) => [file, find(file)]));
}

/** Project files this file imports, re-exports from or requires (relative specifiers). */
function localImports(file: SourceFile, byPath: Map<string, SourceFile>): SourceFile[] {
  const targets: SourceFile[] = [];
  for (const declaration of [...file.getImportDeclarations(), ...file.getExportDeclarations()]) {
    const target = declaration.getModuleSpecifierSourceFile();
    if (target && byPath.has(target.getFilePath())) targets.push(target);
  }
  const text = file.getFullText();
  if (text.includes('require(')) {
    const dir = file.getDirectoryPath();
    for (const match of text.matchAll(/require\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g)) {
      const base = `${dir}/${match[1]}`.replace(/\/\.\//g, '/');
      const normalized = base
        .split('/')
        .reduce<string[]>((parts, part) => (part === '..' ? parts.slice(0, -1) : [...parts, part]), [])
        .join('/');
      for (const candidate of [
        normalized,
        ...['.js', '.cjs', '.mjs', '.ts', '.cts', '.mts', '/index.js', '/index.ts'].map(
          (ext) => normalized.replace(/\.(?:c|m)?js$/, '') + ext,
        ),
      ]) {
        const target = byPath.get(candidate);
        if (target) {
          targets.push(target);
          break;
        }
      }
    }
  }
  return targets;
}

function analyzeFile(
  relPath: string,
  sourceFile: SourceFile,
  projectFacts: ProjectFacts,
  rules: readonly Rule[],
  relPathOf: RelPathOf,
): FileAnalysis {
  const facts = new FileFacts(sourceFile, projectFacts, relPath);
  const raw: Finding[] = [];
  const seen = new Set<string>();
  for (const rule of rules) {
    const report = (node: Node, message: string, options: ReportOptions = {}) => {
      const finding: Finding = {
        ruleId: rule.meta.id,
        severity: rule.meta.severity,
        message,
        ...locate(relPath, node),
        fix: options.fix ?? rule.meta.fix,
      };
      const hint = options.hint ?? rule.meta.hint;
      if (hint) finding.hint = hint;
      if (options.data) finding.data = options.data;
      if (options.related?.length) {
        finding.related = options.related.map(({ node: other, message: relatedMessage }) => ({
          ...locate(relativeTo(relPath, sourceFile, other), other),
          message: relatedMessage,
        }));
      }
      const key = `${finding.ruleId}:${finding.line}:${finding.column}:${finding.message}`;
      if (seen.has(key)) return;
      seen.add(key);
      raw.push(finding);
    };
    rule.check({ sourceFile, facts, report });
  }
  attachPlans(raw, facts.endpoints, relPath);
  if (isTestFile(relPath, sourceFile)) asTestFindings(raw);
  else if (raw.some(isEndpointFinding) && isClientFile(sourceFile, servesEndpoint(facts.endpoints, relPath))) asClientFindings(raw);
  else explainLeftovers(raw, sourceFile, projectFacts.endpoints?.() ?? [], relPathOf);
  raw.push(...findMarkers(relPath, sourceFile));
  const suppressions = parseSuppressions(relPath, sourceFile.getFullText());
  const findings = applySuppressions(raw, suppressions, relPath);
  return { relPath, findings, suppressions, packages: facts.packages };
}

/** Related nodes may sit in another project file; express their path relative to the same root. */
function relativeTo(relPath: string, sourceFile: SourceFile, other: Node): string {
  const otherFile = other.getSourceFile();
  if (otherFile === sourceFile) return relPath;
  const base = sourceFile.getFilePath();
  const rootPrefix = base.slice(0, base.length - relPath.length);
  const otherPath = otherFile.getFilePath();
  return otherPath.startsWith(rootPrefix) ? otherPath.slice(rootPrefix.length) : otherPath;
}

export function locate(file: string, node: Node) {
  const sourceFile = node.getSourceFile();
  const start = sourceFile.getLineAndColumnAtPos(node.getStart());
  const end = sourceFile.getLineAndColumnAtPos(node.getEnd());
  return { file, line: start.line, column: start.column, endLine: end.line, endColumn: end.column };
}

/** Rules whose findings the endpoint transform fixes by carrying out the endpoint's plan. */
export const ENDPOINT_RULES: ReadonlySet<string> = new Set([
  'legacy-sse-transport',
  'session-id',
  'get-stream',
  'delete-session',
  'last-event-id',
  'shared-server-instance',
  'origin-validation',
  'per-request-transport',
]);

/**
 * A finding inside a plan's reach (a region, the shared server and its setup, a call that passes it, the construct
 * that stops it) carries the plan: the transform reads it from there.
 */
function attachPlans(findings: Finding[], plans: EndpointPlan[], relPath: string): void {
  if (plans.length === 0) return;
  for (const finding of findings) {
    if (!ENDPOINT_RULES.has(finding.ruleId) || finding.data?.endpoint) continue;
    const plan = plans.find((p) => planSpans(p).some((span) => span.file === relPath && within(finding, span)));
    if (plan) finding.data = { ...finding.data, endpoint: plan };
  }
}

function planSpans(plan: EndpointPlan): Span[] {
  const spans: Span[] = plan.regions.flatMap((r) => [
    r.fn,
    ...r.arrivals.flatMap((a) => (a.kind === 'route' ? [a.registration] : a.kind === 'call' ? [a.call] : [])),
  ]);
  if (plan.server.kind === 'shared') {
    spans.push(plan.server.declaration);
    const hoist = plan.server.hoist;
    if (hoist)
      spans.push(
        hoist.declaration,
        ...hoist.setup,
        ...(hoist.parameter ? [hoist.parameter.fn, ...hoist.parameter.callSites] : []),
        ...(hoist.registrations?.sites.flatMap((site) => [site.call, ...site.setup]) ?? []),
      );
  }
  if (plan.server.kind === 'built' && plan.server.cached) spans.push(plan.server.cached.declaration, plan.server.cached.fn);
  if (!plan.verdict.migratable) spans.push(plan.verdict.at);
  return spans;
}

function within(finding: Finding, span: Span): boolean {
  const after = finding.line > span.line || (finding.line === span.line && finding.column >= span.column);
  const before = finding.line < span.endLine || (finding.line === span.endLine && finding.column <= span.endColumn);
  return after && before;
}

/**
 * An endpoint finding no plan holds, which apply would otherwise mark as "a shape it does not rewrite": it carries the
 * plan of the endpoint it belongs to (whose marker then stands for it), or the exact construct and why it stays.
 */
function explainLeftovers(findings: Finding[], sourceFile: SourceFile, plans: EndpointPlan[], relPathOf: RelPathOf): void {
  for (const finding of findings) {
    if (!isEndpointFinding(finding) || finding.fix !== 'auto' || finding.data?.endpoint) continue;
    // (a finding located at a node of another file, by a rule that reports across files, is left as it is)
    if (finding.line > sourceFile.getEndLineNumber()) continue;
    const position = sourceFile.compilerNode.getPositionOfLineAndCharacter(finding.line - 1, finding.column - 1);
    const node = sourceFile.getDescendantAtPos(position);
    const leftover = node && explainLeftover(node, plans, relPathOf);
    if (leftover?.kind === 'endpoint') finding.data = { ...finding.data, endpoint: leftover.plan };
    else if (leftover) finding.data = { ...finding.data, leftover: leftover.reason };
  }
}

function isEndpointFinding(finding: Finding): boolean {
  return ENDPOINT_RULES.has(finding.ruleId);
}

/** A request function of some endpoint is in the file. */
function servesEndpoint(plans: EndpointPlan[], relPath: string): boolean {
  return plans.some((plan) => plan.regions.some((region) => region.fn.file === relPath));
}

/**
 * In client code, what the endpoint rules find is what the client relies on (the session id it echoes, the DELETE
 * that ends its session): one `session-client` warning, never a marker.
 */
function asClientFindings(findings: Finding[]): void {
  asWarnings(findings.filter(isEndpointFinding), {
    ruleId: 'session-client',
    subject: 'Client',
    hint: 'Send each request on its own: no session header, no GET stream, no DELETE; expect no `Mcp-Session-Id` back.',
  });
}

/**
 * In a test, what the endpoint rules find — and session state a test server keeps — is what the test relies on: one
 * `session-test` warning, never a marker or a rewrite.
 */
function asTestFindings(findings: Finding[]): void {
  asWarnings(
    findings.filter((finding) => isEndpointFinding(finding) || finding.ruleId === 'session-state'),
    {
      ruleId: 'session-test',
      subject: 'Test',
      hint: 'Update the test for stateless Streamable HTTP: one POST endpoint, no session id, 405 on GET and DELETE.',
    },
  );
}

/** Findings in code that is not an endpoint become manual warnings of `ruleId`, saying what relies on them. */
function asWarnings(findings: Finding[], as: { ruleId: string; subject: string; hint: string }): void {
  for (const finding of findings) {
    finding.message = `${as.subject} relies on the old transport (${finding.ruleId}): ${finding.message}`;
    finding.ruleId = as.ruleId;
    finding.severity = 'warning';
    finding.fix = 'manual';
    finding.hint = as.hint;
    delete finding.data;
  }
}
