// SARIF 2.1.0 for GitHub code scanning (and any other SARIF consumer).
import { pathToFileURL } from 'node:url';
import type { AnyResult, FileProblem, Finding, Location, Severity } from '../model';
import type { RuleMeta } from '../rules/rule';
import { locatedFingerprints } from '../engine/fingerprint';
import { TOOL_INFORMATION_URI, TOOL_NAME, ruleMap } from './common';
import type { ReportOptions } from './options';
import { relativeTo } from './paths';
import { ruleHelpMarkdown, ruleHelpText, ruleHelpUri } from './rule-help';
import { compareStrings, sortResult } from './sort';

export const SARIF_SCHEMA_URI = 'https://json.schemastore.org/sarif-2.1.0.json';
export const SRCROOT = '%SRCROOT%';
/** partialFingerprints key; bump the suffix if the hash input ever changes. */
export const FINGERPRINT_KEY = 'mcpMigrate/v1';

/** Problem kinds that mean the run did not do its job for a file (→ executionSuccessful: false). */
export const FAILED_EXECUTION_KINDS: ReadonlySet<FileProblem['kind']> = new Set<FileProblem['kind']>([
  'parse',
  'transform',
  'invalid-output',
  'write',
]);

type SarifLevel = 'error' | 'warning' | 'note';

export function sarifLevel(severity: Severity): SarifLevel {
  return severity === 'error' ? 'error' : severity === 'warning' ? 'warning' : 'note';
}

/** `sse-server-transport` → `SseServerTransport`. */
export function pascalCase(id: string): string {
  return id
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0].toUpperCase() + part.slice(1))
    .join('');
}

/** A relative POSIX path as a URI reference: each segment percent-encoded where needed. */
export function pathToUri(file: string): string {
  const wellFormed = file.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
  return encodeURI(wellFormed.replace(/\\/g, '/')).replace(/[?#]/g, (c) => (c === '?' ? '%3F' : '%23'));
}

export function renderSarif(input: AnyResult, options: ReportOptions): string {
  return `${JSON.stringify(toSarifLog(input, options), null, 2)}\n`;
}

/** Paths are relative to `options.repoRoot` (the git work tree), so fingerprints and alerts do not depend on the folder scanned. */
export function toSarifLog(input: AnyResult, options: ReportOptions): Record<string, unknown> {
  const result = sortResult(relativeTo(input, options.repoRoot ?? input.root));
  const rules = buildRules(options.rules, result.findings);
  const ruleIndex = new Map(rules.map((r, i) => [r.id as string, i]));
  const fingerprints = locatedFingerprints(result.findings, (f) => f.file);

  const results = result.findings.map((f, i) => {
    const out: Record<string, unknown> = {
      ruleId: f.ruleId,
      ruleIndex: ruleIndex.get(f.ruleId),
      level: sarifLevel(f.severity),
      message: { text: f.message },
      locations: [{ physicalLocation: physicalLocation(f) }],
    };
    if (f.related && f.related.length > 0) {
      out.relatedLocations = f.related.map((r, j) => ({
        id: j + 1,
        physicalLocation: physicalLocation(r),
        message: { text: r.message },
      }));
    }
    out.partialFingerprints = { [FINGERPRINT_KEY]: fingerprints[i] };
    if (result.baseline) out.baselineState = 'new';
    const properties: Record<string, unknown> = { fix: f.fix };
    if (f.hint) properties.hint = f.hint;
    out.properties = properties;
    return out;
  });

  const invocation: Record<string, unknown> = {
    executionSuccessful: !result.problems.some((p) => FAILED_EXECUTION_KINDS.has(p.kind)),
  };
  if (result.problems.length > 0) invocation.toolExecutionNotifications = result.problems.map(notification);

  return {
    $schema: SARIF_SCHEMA_URI,
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: TOOL_NAME,
            informationUri: TOOL_INFORMATION_URI,
            version: options.toolVersion,
            rules,
          },
        },
        originalUriBaseIds: { [SRCROOT]: { uri: rootUri(result.root) } },
        invocations: [invocation],
        columnKind: 'utf16CodeUnits',
        results,
      },
    ],
  };
}

function rootUri(root: string): string {
  const href = pathToFileURL(root).href;
  return href.endsWith('/') ? href : `${href}/`;
}

function buildRules(metas: readonly RuleMeta[], findings: readonly Finding[]): Array<Record<string, unknown>> {
  const known = ruleMap(metas);
  const ids = new Set([...known.keys(), ...findings.map((f) => f.ruleId)]);
  return [...ids].sort(compareStrings).map((id) => {
    const meta = known.get(id);
    if (!meta) {
      // A finding from a rule whose metadata was not passed in (e.g. the engine's own `unused-suppression`).
      return { id, name: pascalCase(id), shortDescription: { text: id } };
    }
    return {
      id,
      name: pascalCase(id),
      shortDescription: { text: meta.title },
      fullDescription: { text: meta.doc },
      helpUri: ruleHelpUri(id),
      help: { text: ruleHelpText(meta), markdown: ruleHelpMarkdown(meta) },
      defaultConfiguration: { level: sarifLevel(meta.severity) },
      properties: { tags: ['mcp', 'transport', 'migration', `fix-${meta.fix}`] },
    };
  });
}

function physicalLocation(loc: Location): Record<string, unknown> {
  const out: Record<string, unknown> = { artifactLocation: { uri: pathToUri(loc.file), uriBaseId: SRCROOT } };
  const region = regionOf(loc);
  if (region) out.region = region;
  return out;
}

/** SARIF lines and columns are 1-based; end fields are left out when they would not make a valid region. */
function regionOf(loc: Location): Record<string, number> | undefined {
  if (!(loc.line >= 1)) return undefined;
  const region: Record<string, number> = { startLine: loc.line };
  if (loc.column >= 1) region.startColumn = loc.column;
  if (loc.endLine >= loc.line) {
    region.endLine = loc.endLine;
    const sameLine = loc.endLine === loc.line;
    if (loc.endColumn >= 1 && (!sameLine || loc.endColumn >= (region.startColumn ?? 1))) region.endColumn = loc.endColumn;
  }
  return region;
}

function notification(problem: FileProblem): Record<string, unknown> {
  const level: SarifLevel = FAILED_EXECUTION_KINDS.has(problem.kind)
    ? 'error'
    : problem.kind === 'binary' || problem.kind === 'too-large' || problem.kind === 'symlink'
      ? 'note'
      : 'warning';
  return {
    level,
    message: { text: `${problem.file}: ${problem.kind}: ${problem.message}` },
    locations: [{ physicalLocation: { artifactLocation: { uri: pathToUri(problem.file), uriBaseId: SRCROOT } } }],
    descriptor: { id: problem.kind },
  };
}
