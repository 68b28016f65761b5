// Validates the SARIF reporter's output against the SARIF 2.1.0 JSON schema.
//
// The schema comes from the devDependency @microsoft/jest-sarif (Microsoft's sarif-js-sdk), which ships
// `lib/schemas/sarif-2.1.0-rtm.5.json` — the 2.1.0 schema as published on schemastore. That file is
// written in JSON Schema draft-04 (`id`, `$schema: draft-04`), which Ajv 8 does not load as is; the
// keywords it uses are the same in draft-07, so only the root `id` → `$id` and `$schema` are adapted.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import type { ApplyResult, CheckResult } from '../src/model';
import type { RuleMeta } from '../src/rules/rule';
import { renderReport, type ReportOptions } from '../src/report/index';

const requireHere = createRequire(__filename);
const SCHEMA_DIR = join(dirname(requireHere.resolve('@microsoft/jest-sarif/package.json')), 'lib', 'schemas');
const SCHEMA_FILE = join(SCHEMA_DIR, 'sarif-2.1.0-rtm.5.json');

function loadSchema(): Record<string, unknown> {
  const schema = JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')) as Record<string, unknown>;
  expect(schema.$schema).toBe('http://json-schema.org/draft-04/schema#');
  expect(String(schema.title)).toContain('SARIF');
  expect(String(schema.title)).toContain('2.1.0');
  const { $schema: _draft, id, ...rest } = schema;
  return { $id: id, ...rest };
}

// unicodeRegExp: false — the schema's `language` pattern (`^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$`) has a
// stray `]` that is legal in a plain JavaScript RegExp but not with the `u` flag Ajv 8 uses by default.
const ajv = new Ajv({ strict: false, allErrors: true, unicodeRegExp: false });
addFormats(ajv);
const validate = ajv.compile(loadSchema());

function errorsOf(log: unknown): string[] {
  return validate(log) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

const RULES: RuleMeta[] = [
  {
    id: 'legacy-sse-transport',
    title: 'SSEServerTransport (HTTP+SSE) is deprecated',
    severity: 'error',
    fix: 'auto',
    doc: 'The HTTP+SSE transport was replaced by Streamable HTTP.',
    hint: 'Serve one endpoint with StreamableHTTPServerTransport.',
    sources: ['spec: basic/transports#backwards-compatibility', 'sdk: src/server/sse.ts'],
  },
  {
    id: 'session-id',
    title: 'Protocol sessions are deprecated',
    severity: 'warning',
    fix: 'unsafe',
    doc: 'Stateless servers do not issue Mcp-Session-Id.',
    hint: 'Set sessionIdGenerator to undefined.',
    sources: [],
  },
  {
    id: 'last-event-id',
    title: 'Resumability is deprecated',
    severity: 'info',
    fix: 'manual',
    doc: 'Resumable streams are gone.',
    hint: '',
    sources: [],
  },
];

const OPTIONS: ReportOptions = { color: false, rules: RULES, toolVersion: '0.1.0' };

function check(): CheckResult {
  return {
    root: '/home/dev/weather server',
    findings: [
      {
        file: 'src/server.ts',
        line: 12,
        column: 9,
        endLine: 14,
        endColumn: 2,
        ruleId: 'legacy-sse-transport',
        severity: 'error',
        fix: 'auto',
        message: 'new SSEServerTransport(...) | <deprecated> at 100%\nsecond line',
        hint: 'Use StreamableHTTPServerTransport.',
        related: [
          { file: 'src/routes/get.ts', line: 3, column: 1, endLine: 3, endColumn: 20, message: 'GET /sse' },
          { file: 'src/routes/post.ts', line: 8, column: 1, endLine: 8, endColumn: 24, message: 'POST /messages' },
        ],
      },
      {
        file: 'src/my file #2 ü.ts',
        line: 4,
        column: 3,
        endLine: 4,
        endColumn: 30,
        ruleId: 'session-id',
        severity: 'warning',
        fix: 'unsafe',
        message: 'sessionIdGenerator: randomUUID',
      },
      {
        file: 'src/a.ts',
        line: 1,
        column: 1,
        endLine: 1,
        endColumn: 10,
        ruleId: 'last-event-id',
        severity: 'info',
        fix: 'manual',
        message: 'EventStore in use',
      },
      {
        // a rule with no metadata passed in (the engine's own) still gets a rules[] entry
        file: 'src/a.ts',
        line: 7,
        column: 1,
        endLine: 7,
        endColumn: 40,
        ruleId: 'unused-suppression',
        severity: 'warning',
        fix: 'none',
        message: 'unused mcp-migrate-ignore',
      },
    ],
    suppressions: [
      { file: 'src/legacy.ts', line: 4, column: 1, endLine: 4, endColumn: 30, kind: 'next-line', ruleId: 'legacy-sse-transport', used: 1 },
    ],
    problems: [
      { file: 'src/broken.ts', kind: 'parse', message: "';' expected" },
      { file: 'assets/logo.ts', kind: 'binary', message: 'binary file' },
      { file: 'src/out.ts', kind: 'write', message: 'EACCES' },
    ],
    summary: {
      filesScanned: 8,
      filesParsed: 6,
      filesWithFindings: 3,
      filesSkipped: 1,
      findingsByRule: { 'legacy-sse-transport': 1, 'session-id': 1, 'last-event-id': 1, 'unused-suppression': 1 },
      durationMs: 12,
    },
  };
}

function apply(): ApplyResult {
  return {
    ...check(),
    dryRun: true,
    target: 'stateless Streamable HTTP',
    changes: [{ file: 'src/server.ts', ruleIds: ['legacy-sse-transport'], diff: '--- a\n+++ b\n@@ -1 +1 @@\n-x\n+y\n' }],
    manual: [{ file: 'src/a.ts', line: 1, ruleId: 'last-event-id', message: 'remove by hand' }],
    endpoints: [{ file: 'src/server.ts', line: 20, path: "'/mcp'" }],
    rolledBack: [],
    typeUnchecked: [],
  };
}

function empty(): CheckResult {
  return {
    root: '/srv/clean/',
    findings: [],
    suppressions: [],
    problems: [],
    summary: { filesScanned: 0, filesParsed: 0, filesWithFindings: 0, filesSkipped: 0, findingsByRule: {}, durationMs: 0 },
  };
}

describe('SARIF output against the SARIF 2.1.0 JSON schema', () => {
  it('the schema is the real one: it rejects logs that break it', () => {
    const good = JSON.parse(renderReport(check(), 'sarif', OPTIONS));
    expect(errorsOf(good)).toEqual([]);

    const badVersion = structuredClone(good);
    badVersion.version = '2.0.0';
    expect(errorsOf(badVersion).length).toBeGreaterThan(0);

    const badLevel = structuredClone(good);
    badLevel.runs[0].results[0].level = 'info'; // SARIF says "note"
    expect(errorsOf(badLevel).join('\n')).toContain('/runs/0/results/0/level');

    const badLine = structuredClone(good);
    badLine.runs[0].results[0].locations[0].physicalLocation.region.startLine = 0;
    expect(errorsOf(badLine).join('\n')).toContain('startLine');

    const badUri = structuredClone(good);
    badUri.runs[0].tool.driver.informationUri = 'not a uri';
    expect(errorsOf(badUri).join('\n')).toContain('informationUri');

    const extra = structuredClone(good);
    extra.runs[0].tool.driver.colour = 'red';
    expect(errorsOf(extra).length).toBeGreaterThan(0);
  });

  it('validates a check result with related locations, odd paths, an unknown rule and problems', () => {
    const log = JSON.parse(renderReport(check(), 'sarif', OPTIONS));
    expect(errorsOf(log)).toEqual([]);
    const run = log.runs[0];
    expect(run.results).toHaveLength(4);
    expect(run.tool.driver.rules.map((r: { id: string }) => r.id)).toEqual([
      'last-event-id',
      'legacy-sse-transport',
      'session-id',
      'unused-suppression',
    ]);
    expect(run.invocations[0].executionSuccessful).toBe(false);
    expect(run.invocations[0].toolExecutionNotifications).toHaveLength(3);
    const odd = run.results.find((r: { ruleId: string }) => r.ruleId === 'session-id');
    expect(odd.locations[0].physicalLocation.artifactLocation.uri).toBe('src/my%20file%20%232%20%C3%BC.ts');
  });

  it('validates an apply result and an empty result', () => {
    expect(errorsOf(JSON.parse(renderReport(apply(), 'sarif', OPTIONS)))).toEqual([]);
    const clean = JSON.parse(renderReport(empty(), 'sarif', { ...OPTIONS, rules: [] }));
    expect(errorsOf(clean)).toEqual([]);
    expect(clean.runs[0].results).toEqual([]);
    expect(clean.runs[0].originalUriBaseIds['%SRCROOT%'].uri).toBe('file:///srv/clean/');
  });

  it('validates results whose end position is missing or inconsistent (regions are trimmed, not invalid)', () => {
    const result = check();
    result.findings = [
      { ...result.findings[2], line: 5, column: 0, endLine: 0, endColumn: 0 },
      { ...result.findings[2], line: 9, column: 10, endLine: 9, endColumn: 3, message: 'end before start' },
    ];
    const log = JSON.parse(renderReport(result, 'sarif', OPTIONS));
    expect(errorsOf(log)).toEqual([]);
    expect(
      log.runs[0].results.map(
        (r: { locations: Array<{ physicalLocation: { region: unknown } }> }) => r.locations[0].physicalLocation.region,
      ),
    ).toEqual([{ startLine: 5 }, { startLine: 9, startColumn: 10, endLine: 9 }]);
  });
});
