// Semantic facts about one file, computed lazily once and shared by every rule.
import { nodesOfKind } from './node-index';
import { Node, SyntaxKind, type CallExpression, type SourceFile, type Symbol as TsMorphSymbol } from 'ts-morph';
import { resolveOrigin, type ImportOrigin } from './resolve';
import { isSdkSymbol, mcpModulesOf, type SdkSymbol } from './sdk-modules';
import { packageName } from './package-name';
import { valueOrigins } from './values';
import { routeCalls, type RouteCall } from './routes';
import { registersOnPassedServer, toolRegistrations, type ToolRegistration } from './tools';
import type { EndpointPlan } from './endpoints/model';

export interface ProjectFacts {
  /** Some file reads the Origin header or installs an Origin-validating middleware. */
  validatesOrigin: boolean;
  /** The project's MCP endpoints (computed once per analysis, on first use). */
  endpoints?: () => EndpointPlan[];
}

export class FileFacts {
  private toolsCache?: ToolRegistration[];
  private importsMcpCache?: boolean;
  private packagesCache?: string[];
  /** What each expression asked about in {@link holds} may hold: rules and endpoint analysis ask again and again. */
  private readonly originsCache = new Map<Node, ImportOrigin[]>();
  /** The same for every identifier naming one binding: a handler names its transport store many times. */
  private readonly bindingOriginsCache = new Map<TsMorphSymbol, ImportOrigin[]>();

  constructor(
    readonly sourceFile: SourceFile,
    readonly project: ProjectFacts,
    /** The file's path in findings (relative to the scanned root). */
    readonly relPath: string = sourceFile.getFilePath(),
  ) {}

  /** The file imports (or requires) the MCP SDK or an MCP framework, or hand-rolls the protocol's HTTP side. */
  get importsMcp(): boolean {
    if (this.importsMcpCache === undefined) {
      // A hand-rolled server speaks the protocol without importing it.
      const text = this.sourceFile.getFullText();
      const handRolled = ENDPOINT_EVENT.test(text) || /mcp-session-id/i.test(text);
      this.importsMcpCache = mcpModulesOf(this.sourceFile).length > 0 || handRolled;
    }
    return this.importsMcpCache;
  }

  /** The packages the file imports, re-exports or requires (bare specifiers by package name: `zod/v4` is zod), sorted. */
  get packages(): string[] {
    if (!this.packagesCache) {
      const specifiers = [
        ...this.sourceFile.getImportDeclarations().map((d) => d.getModuleSpecifierValue()),
        ...this.sourceFile.getExportDeclarations().map((d) => d.getModuleSpecifierValue() ?? ''),
        ...[...this.sourceFile.getFullText().matchAll(/\b(?:require|import)\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => m[1]),
      ];
      const bare = specifiers.filter((s) => s !== '' && !s.startsWith('.') && !s.startsWith('/') && !s.startsWith('node:'));
      this.packagesCache = [...new Set(bare.map(packageName))].sort();
    }
    return this.packagesCache;
  }

  origin(expression: Node): ImportOrigin | undefined {
    return resolveOrigin(expression);
  }

  /** The expression (a class reference) resolves to this SDK symbol. */
  is(expression: Node, symbol: SdkSymbol): boolean {
    return isSdkSymbol(resolveOrigin(expression), symbol);
  }

  /** The value may hold an instance of this SDK class (or a container of them). */
  holds(expression: Node, symbol: SdkSymbol): boolean {
    return this.origins(expression).some((origin) => isSdkSymbol(origin, symbol));
  }

  /** Where what the value may hold comes from, as far as the analysis can see (empty: it cannot tell). */
  origins(expression: Node): ImportOrigin[] {
    let origins = this.originsCache.get(expression);
    if (!origins) {
      origins = this.bindingOrigins(expression) ?? valueOrigins(expression);
      this.originsCache.set(expression, origins);
    }
    return origins;
  }

  /** What a bare identifier may hold is what its binding may hold, whichever identifier names it. */
  private bindingOrigins(expression: Node): ImportOrigin[] | undefined {
    if (!Node.isIdentifier(expression)) return undefined;
    const binding = expression.getSymbol();
    if (!binding) return undefined;
    let origins = this.bindingOriginsCache.get(binding);
    if (!origins) {
      origins = valueOrigins(expression);
      this.bindingOriginsCache.set(binding, origins);
    }
    return origins;
  }

  /** `new X(...)` expressions whose class resolves to the symbol. */
  constructions(symbol: SdkSymbol) {
    return nodesOfKind(this.sourceFile, SyntaxKind.NewExpression).filter((n) => this.is(n.getExpression(), symbol));
  }

  /** Calls `recv.method(...)` whose receiver holds one of the symbols. */
  methodCalls(method: string, symbols: SdkSymbol[]) {
    return nodesOfKind(this.sourceFile, SyntaxKind.CallExpression).filter((call) => {
      const callee = call.getExpression();
      return (
        Node.isPropertyAccessExpression(callee) && callee.getName() === method && symbols.some((s) => this.holds(callee.getExpression(), s))
      );
    });
  }

  /**
   * Calls `f(…)` or `ns.f(…)` whose callee resolves to the SDK function `symbol` (named `exported` in its module). The
   * checker is asked only about callees spelled as its name or as the name an import gave it.
   */
  functionCalls(symbol: SdkSymbol, exported: string): CallExpression[] {
    if (!this.sourceFile.getFullText().includes(exported)) return [];
    const spellings = new Set([exported]);
    for (const declaration of this.sourceFile.getImportDeclarations())
      for (const named of declaration.getNamedImports())
        if (named.getName() === exported) spellings.add(named.getAliasNode()?.getText() ?? exported);
    return nodesOfKind(this.sourceFile, SyntaxKind.CallExpression).filter((call) => {
      const callee = call.getExpression();
      const name = Node.isPropertyAccessExpression(callee) ? callee.getName() : Node.isIdentifier(callee) ? callee.getText() : '';
      return spellings.has(name) && this.is(callee, symbol);
    });
  }

  /** Endpoint plans with a region, a hoisted server or a call site in this file. */
  get endpoints(): EndpointPlan[] {
    return (this.project.endpoints?.() ?? []).filter((plan) => touchedFiles(plan).has(this.relPath));
  }

  /** The node a plan's span names in this file (the span must be this file's). */
  nodeAt(span: { start: number; end: number }): Node | undefined {
    return this.sourceFile.getDescendantAtStartWithWidth(span.start, span.end - span.start);
  }

  get routes(): RouteCall[] {
    return routeCalls(this.sourceFile);
  }

  get tools(): ToolRegistration[] {
    this.toolsCache ??= this.importsMcp || registersOnPassedServer(this.sourceFile) ? toolRegistrations(this.sourceFile) : [];
    return this.toolsCache;
  }
}

/**
 * The HTTP+SSE handshake written by hand, in the text of a file: `event: endpoint` in a string (`res.write(…)`), or an
 * event named `endpoint` in an object (hono's `stream.writeSSE({ event: 'endpoint', data })`).
 */
export const ENDPOINT_EVENT = /event:\s*['"`]?endpoint\b/;

/** Where a file writes the HTTP+SSE `endpoint` event by hand: the strings, and the `{ event: 'endpoint', data }` objects. */
export function endpointEvents(file: SourceFile): Node[] {
  if (!ENDPOINT_EVENT.test(file.getFullText())) return [];
  const objects = nodesOfKind(file, SyntaxKind.ObjectLiteralExpression).filter((object) => {
    const event = object.getProperty('event');
    const value = event && Node.isPropertyAssignment(event) ? event.getInitializer() : undefined;
    const named =
      !!value && (Node.isStringLiteral(value) || Node.isNoSubstitutionTemplateLiteral(value)) && value.getLiteralValue() === 'endpoint';
    return named && !!object.getProperty('data');
  });
  return [...stringLiterals(file, /event:\s*endpoint\b/), ...objects].sort((a, b) => a.getStart() - b.getStart());
}

/** String literals (and no-substitution templates) in the file whose value matches. */
export function stringLiterals(file: SourceFile, pattern: RegExp): Node[] {
  const literals = [...nodesOfKind(file, SyntaxKind.StringLiteral), ...nodesOfKind(file, SyntaxKind.NoSubstitutionTemplateLiteral)].filter(
    (node) => pattern.test(node.getLiteralValue()),
  );
  const templates = nodesOfKind(file, SyntaxKind.TemplateExpression).filter((node) => pattern.test(node.getText()));
  return [...literals, ...templates].sort((a, b) => a.getStart() - b.getStart());
}

/** Every file an endpoint plan rewrites. */
export function touchedFiles(plan: EndpointPlan): Set<string> {
  const files = new Set<string>(plan.regions.map((r) => r.fn.file));
  if (plan.server.kind === 'shared' && plan.server.hoist) {
    files.add(plan.server.hoist.declaration.file);
    for (const site of [...(plan.server.hoist.parameter?.callSites ?? []), ...(plan.server.hoist.parameter?.wrapSites ?? [])])
      files.add(site.file);
    for (const site of plan.server.hoist.registrations?.sites ?? []) files.add(site.call.file);
  }
  if (plan.server.kind === 'built' && plan.server.cached) files.add(plan.server.cached.fn.file);
  if (plan.credentials) {
    files.add(plan.credentials.store.file);
    for (const reader of plan.credentials.readers) files.add(reader.lookup.file);
  }
  if (!plan.verdict.migratable) files.add(plan.verdict.at.file);
  return files;
}
