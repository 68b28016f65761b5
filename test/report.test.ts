import { describe, expect, it } from 'vitest';
import type { ApplyResult, CheckResult, Finding, Location } from '../src/model';
import type { RuleMeta } from '../src/rules/rule';
import {
  NOTHING_TO_MIGRATE,
  REPORT_FORMATS,
  isReportFormat,
  renderDiff,
  renderReport,
  sortFindings,
  type ReportFormat,
  type ReportOptions,
} from '../src/report/index';
import { codeSpan, escapeMarkdown } from '../src/report/markdown';
import { ruleHelpMarkdown, ruleHelpText } from '../src/report/rule-help';
import { escapeData, escapeProperty } from '../src/report/github';
import { pascalCase, pathToUri } from '../src/report/sarif';

// ---------------------------------------------------------------------------------------------
// Fixtures, built by hand. Lists are deliberately out of order: every reporter must sort them.
// ---------------------------------------------------------------------------------------------

const RULES: RuleMeta[] = [
  {
    id: 'session-id',
    title: 'Protocol sessions (Mcp-Session-Id) are deprecated',
    severity: 'warning',
    fix: 'unsafe',
    doc: 'Stateless Streamable HTTP servers do not issue Mcp-Session-Id; state moves into the request.',
    hint: 'Set sessionIdGenerator to undefined.',
    sources: ['spec: basic/transports#session-management'],
  },
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
    id: 'last-event-id',
    title: 'Resumability (Last-Event-ID, EventStore) is deprecated',
    severity: 'info',
    fix: 'manual',
    doc: 'Resumable streams are gone.',
    hint: 'Drop the event store.',
    sources: [],
  },
  {
    id: 'origin-validation',
    title: 'Origin header is not validated',
    severity: 'error',
    fix: 'none',
    doc: 'Servers must validate Origin.',
    hint: 'Validate Origin.',
    sources: [],
  },
];

const OPTIONS: ReportOptions = { color: false, rules: RULES, toolVersion: '1.2.3' };

function at(file: string, line: number, column: number, endLine = line, endColumn = column + 4): Location {
  return { file, line, column, endLine, endColumn };
}

const PIPE_MESSAGE = 'sessionIdGenerator | creates <sessions> for 100% of requests';

function makeCheck(): CheckResult {
  return {
    root: '/home/dev/weather server',
    findings: [
      { ...at('src/server.ts', 40, 3), ruleId: 'session-id', severity: 'warning', message: PIPE_MESSAGE, fix: 'unsafe' },
      {
        ...at('src/server.ts', 12, 9, 14, 2),
        ruleId: 'legacy-sse-transport',
        severity: 'error',
        message: 'new SSEServerTransport(...)\nserves the deprecated HTTP+SSE transport',
        fix: 'auto',
        hint: 'Use StreamableHTTPServerTransport.',
        related: [
          { ...at('src/routes/post.ts', 8, 1), message: 'POST /messages, the other half' },
          { ...at('src/routes/get.ts', 3, 1), message: 'GET /sse' },
        ],
      },
      { ...at('src/a,b:c.ts', 2, 1), ruleId: 'last-event-id', severity: 'info', message: 'EventStore `store` in use', fix: 'manual' },
      { ...at('src/server.ts', 12, 9), ruleId: 'session-id', severity: 'warning', message: 'sessionIdGenerator set here', fix: 'unsafe' },
      { ...at('src/routes/get.ts', 3, 1), ruleId: 'legacy-sse-transport', severity: 'error', message: 'GET /sse route', fix: 'auto' },
    ],
    suppressions: [
      { ...at('src/legacy.ts', 4, 1), kind: 'next-line', ruleId: 'legacy-sse-transport', reason: 'old clients | v1', used: 2 },
      { ...at('src/alpha.ts', 1, 1), kind: 'file', ruleId: 'last-event-id', used: 0 },
    ],
    problems: [
      { file: 'src/broken.ts', kind: 'parse', message: "';' expected | near `x` (3:14)" },
      { file: 'assets/logo.ts', kind: 'binary', message: 'binary file' },
    ],
    summary: {
      filesScanned: 9,
      filesParsed: 7,
      filesWithFindings: 4,
      filesSkipped: 1,
      findingsByRule: { 'session-id': 2, 'legacy-sse-transport': 2, 'last-event-id': 1 },
      durationMs: 41.6,
    },
  };
}

const SERVER_DIFF = [
  'Index: src/server.ts',
  '===================================================================',
  '--- src/server.ts',
  '+++ src/server.ts',
  '@@ -10,4 +10,4 @@',
  " import express from 'express';",
  '--- a comment that starts with dashes',
  "-const t = new SSEServerTransport('/messages', res);",
  '+const t = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });',
  ' app.listen(3000);',
  '',
].join('\n');

const ROUTES_DIFF = [
  'Index: src/routes/get.ts',
  '===================================================================',
  '--- src/routes/get.ts',
  '+++ src/routes/get.ts',
  '@@ -3,1 +3,1 @@',
  "-app.get('/sse', sse);",
  "+app.all('/mcp', mcp);",
  '\\ No newline at end of file',
  '',
].join('\n');

function makeApply(dryRun = true): ApplyResult {
  return {
    ...makeCheck(),
    dryRun,
    target: 'stateless Streamable HTTP',
    changes: [
      { file: 'src/server.ts', ruleIds: ['session-id', 'legacy-sse-transport'], diff: SERVER_DIFF },
      { file: 'src/routes/get.ts', ruleIds: ['legacy-sse-transport'], diff: ROUTES_DIFF },
    ],
    manual: [
      { file: 'src/server.ts', line: 70, ruleId: 'last-event-id', message: 'Remove the `EventStore` | by hand' },
      { file: 'src/a,b:c.ts', line: 2, ruleId: 'last-event-id', message: 'Resumability used <here>' },
    ],
    endpoints: [{ file: 'src/server.ts', line: 20, path: "'/mcp'" }],
    rolledBack: [],
    typeUnchecked: [],
  };
}

function emptyCheck(): CheckResult {
  return {
    root: '/srv/clean',
    findings: [],
    suppressions: [],
    problems: [],
    summary: { filesScanned: 3, filesParsed: 3, filesWithFindings: 0, filesSkipped: 0, findingsByRule: {}, durationMs: 5 },
  };
}

/** Same content, every list reversed: output must not change. */
function shuffled<T extends CheckResult>(result: T): T {
  const copy = structuredClone(result) as T & Partial<ApplyResult>;
  copy.findings.reverse();
  copy.suppressions.reverse();
  copy.problems.reverse();
  copy.summary.findingsByRule = Object.fromEntries(Object.entries(copy.summary.findingsByRule).reverse());
  copy.changes?.reverse();
  copy.manual?.reverse();
  copy.endpoints?.reverse();
  return copy;
}

const ANSI = /\u001b\[[0-9;]*m/g;
const stripAnsi = (s: string): string => s.replace(ANSI, '');

// ---------------------------------------------------------------------------------------------

describe('sort', () => {
  it('orders by file, line, column, then rule id, without mutating the input', () => {
    const check = makeCheck();
    const before = JSON.stringify(check.findings);
    const sorted = sortFindings(check.findings);
    expect(sorted.map((f) => `${f.file}:${f.line}:${f.column}:${f.ruleId}`)).toEqual([
      'src/a,b:c.ts:2:1:last-event-id',
      'src/routes/get.ts:3:1:legacy-sse-transport',
      'src/server.ts:12:9:legacy-sse-transport',
      'src/server.ts:12:9:session-id',
      'src/server.ts:40:3:session-id',
    ]);
    expect(JSON.stringify(check.findings)).toBe(before);
    // related locations are ordered too
    expect(sorted[2].related!.map((r) => r.file)).toEqual(['src/routes/get.ts', 'src/routes/post.ts']);
  });

  it('every format is byte-identical whatever order the engine produced', () => {
    for (const format of REPORT_FORMATS) {
      for (const result of [makeCheck(), makeApply()]) {
        expect(renderReport(shuffled(result), format, OPTIONS), format).toBe(renderReport(result, format, OPTIONS));
      }
    }
  });
});

describe('renderReport', () => {
  it('dispatches every format and rejects unknown ones', () => {
    expect(REPORT_FORMATS).toEqual(['text', 'json', 'markdown', 'sarif', 'github', 'junit', 'gitlab']);
    for (const format of REPORT_FORMATS) {
      expect(isReportFormat(format)).toBe(true);
      const out = renderReport(makeCheck(), format, OPTIONS);
      expect(out.endsWith('\n')).toBe(true);
    }
    expect(isReportFormat('xml')).toBe(false);
    expect(() => renderReport(makeCheck(), 'xml' as ReportFormat, OPTIONS)).toThrow(/Unknown report format: xml/);
  });
});

describe('text', () => {
  it('groups findings by file, then problems, suppressions and the summary line', () => {
    const out = renderReport(makeCheck(), 'text', OPTIONS);
    expect(out).not.toMatch(ANSI);
    expect(out).toBe(
      [
        'src/a,b:c.ts',
        '  2:1  info     EventStore `store` in use  last-event-id',
        '',
        'src/routes/get.ts',
        '  3:1  error    GET /sse route  legacy-sse-transport',
        '',
        'src/server.ts',
        '  12:9  error    new SSEServerTransport(...)',
        '                 serves the deprecated HTTP+SSE transport  legacy-sse-transport',
        '    hint: Use StreamableHTTPServerTransport.',
        '    also src/routes/get.ts:3: GET /sse',
        '    also src/routes/post.ts:8: POST /messages, the other half',
        '  12:9  warning  sessionIdGenerator set here  session-id',
        `  40:3  warning  ${PIPE_MESSAGE}  session-id`,
        '',
        'Problems:',
        '  assets/logo.ts: binary: binary file',
        "  src/broken.ts: parse: ';' expected | near `x` (3:14)",
        '',
        'Suppressions used:',
        '  src/legacy.ts:4  next-line  legacy-sse-transport  silenced 2 — old clients | v1',
        '',
        'Unused suppressions:',
        '  src/alpha.ts:1  file  last-event-id',
        '',
        '9 files scanned, 7 parsed, 1 skipped, 4 with findings; findings: last-event-id 1, legacy-sse-transport 2, session-id 2 (in 42ms)',
        '',
      ].join('\n'),
    );
  });

  it('colours only when asked, and the colours carry no other change', () => {
    const plain = renderReport(makeCheck(), 'text', OPTIONS);
    const coloured = renderReport(makeCheck(), 'text', { ...OPTIONS, color: true });
    expect(coloured).not.toBe(plain);
    expect(stripAnsi(coloured)).toBe(plain);
    expect(coloured).toContain('\u001b[31merror  \u001b[39m'); // error in red
    expect(coloured).toContain('\u001b[33mwarning\u001b[39m'); // warning in yellow
    expect(coloured).toContain('\u001b[34minfo   \u001b[39m'); // info in blue
  });

  it('prints the apply sections and the dry-run wording', () => {
    const out = renderReport(makeApply(true), 'text', OPTIONS);
    const tail = out.slice(out.indexOf('Changed files'));
    expect(tail).toBe(
      [
        'Changed files (dry run, nothing written):',
        '  src/routes/get.ts: legacy-sse-transport',
        '  src/server.ts: legacy-sse-transport, session-id',
        '',
        'Endpoints now served:',
        "  src/server.ts:20  '/mcp'",
        '',
        'Needs a human:',
        '  src/a,b:c.ts:2  last-event-id  Resumability used <here>',
        '  src/server.ts:70  last-event-id  Remove the `EventStore` | by hand',
        '',
        '9 files scanned, 7 parsed, 1 skipped, 4 with findings; findings: last-event-id 1, legacy-sse-transport 2, session-id 2 (in 42ms)',
        'Dry run: 2 files would change (target: stateless Streamable HTTP); 2 items need a human. Nothing was written; run without --dry-run to apply.',
        '',
      ].join('\n'),
    );
    // the findings are still listed before the apply sections
    expect(out.indexOf('src/server.ts\n  12:9')).toBeLessThan(out.indexOf('Changed files'));
    // the text report never embeds the diff: that is renderDiff's job
    expect(out).not.toContain('@@');

    const applied = renderReport(makeApply(false), 'text', OPTIONS);
    expect(applied).toContain('Changed files:\n');
    expect(applied.trimEnd().split('\n').pop()).toBe('Applied: 2 files changed (target: stateless Streamable HTTP); 2 items need a human.');
  });

  it('says clearly when there is nothing at all', () => {
    const out = renderReport(emptyCheck(), 'text', OPTIONS);
    expect(out).toBe(`${NOTHING_TO_MIGRATE}\n\n3 files scanned, 3 parsed, 0 with findings; findings: none (in 5ms)\n`);
    expect(NOTHING_TO_MIGRATE).toBe('No deprecated MCP transport constructs found — nothing to migrate.');
    const apply: ApplyResult = {
      ...emptyCheck(),
      dryRun: false,
      target: 't',
      changes: [],
      manual: [],
      endpoints: [],
      rolledBack: [],
      typeUnchecked: [],
    };
    const applied = renderReport(apply, 'text', OPTIONS);
    expect(applied.startsWith(NOTHING_TO_MIGRATE)).toBe(true);
    expect(applied).toContain('Applied: no file changed.');
    // problems alone are not "nothing"
    const withProblem = { ...emptyCheck(), problems: [{ file: 'x.ts', kind: 'parse' as const, message: 'bad' }] };
    const out2 = renderReport(withProblem, 'text', OPTIONS);
    expect(out2).not.toContain(NOTHING_TO_MIGRATE);
    expect(out2).toContain('No findings.\n\nProblems:\n  x.ts: parse: bad\n');
  });

  it('never sends control characters from scanned code to the terminal', () => {
    const check = emptyCheck();
    check.findings = [
      { ...at('evil.ts', 1, 1), ruleId: 'session-id', severity: 'error', message: 'boom\u001b[2J\u0007 done', fix: 'none' },
    ];
    const out = renderReport(check, 'text', OPTIONS);
    expect(out).not.toContain('\u001b');
    expect(out).not.toContain('\u0007');
    expect(out).toContain('boom\\x1b[2J\\x07 done');
  });
});

describe('json', () => {
  it('keeps the public contract field by field', () => {
    const report = JSON.parse(renderReport(makeCheck(), 'json', OPTIONS));
    expect(Object.keys(report)).toEqual(['version', 'tool', 'root', 'findings', 'suppressions', 'problems', 'summary']);
    expect(report.version).toBe(1);
    expect(report.tool).toEqual({ name: 'mcp-migrate', version: '1.2.3' });
    expect(report.root).toBe('/home/dev/weather server');

    expect(report.findings).toHaveLength(5);
    const withAll = report.findings[2];
    expect(Object.keys(withAll)).toEqual([
      'ruleId',
      'severity',
      'file',
      'line',
      'column',
      'endLine',
      'endColumn',
      'message',
      'fix',
      'hint',
      'related',
    ]);
    expect(withAll).toEqual({
      ruleId: 'legacy-sse-transport',
      severity: 'error',
      file: 'src/server.ts',
      line: 12,
      column: 9,
      endLine: 14,
      endColumn: 2,
      message: 'new SSEServerTransport(...)\nserves the deprecated HTTP+SSE transport',
      fix: 'auto',
      hint: 'Use StreamableHTTPServerTransport.',
      related: [
        { file: 'src/routes/get.ts', line: 3, column: 1, endLine: 3, endColumn: 5, message: 'GET /sse' },
        { file: 'src/routes/post.ts', line: 8, column: 1, endLine: 8, endColumn: 5, message: 'POST /messages, the other half' },
      ],
    });
    // optional fields are absent, not null
    expect(Object.keys(report.findings[0])).toEqual([
      'ruleId',
      'severity',
      'file',
      'line',
      'column',
      'endLine',
      'endColumn',
      'message',
      'fix',
    ]);
    expect(report.findings.map((f: Finding) => f.message)).toContain(PIPE_MESSAGE);

    expect(report.suppressions).toEqual([
      { kind: 'file', ruleId: 'last-event-id', file: 'src/alpha.ts', line: 1, column: 1, endLine: 1, endColumn: 5, used: 0 },
      {
        kind: 'next-line',
        ruleId: 'legacy-sse-transport',
        file: 'src/legacy.ts',
        line: 4,
        column: 1,
        endLine: 4,
        endColumn: 5,
        reason: 'old clients | v1',
        used: 2,
      },
    ]);
    expect(report.problems).toEqual([
      { file: 'assets/logo.ts', kind: 'binary', message: 'binary file' },
      { file: 'src/broken.ts', kind: 'parse', message: "';' expected | near `x` (3:14)" },
    ]);
    expect(report.summary).toEqual({
      filesScanned: 9,
      filesParsed: 7,
      filesWithFindings: 4,
      filesSkipped: 1,
      findingsByRule: { 'last-event-id': 1, 'legacy-sse-transport': 2, 'session-id': 2 },
      durationMs: 41.6,
    });
    expect(Object.keys(report.summary.findingsByRule)).toEqual(['last-event-id', 'legacy-sse-transport', 'session-id']);
  });

  it('adds dryRun, target, changes (with diffs), manual and endpoints for apply', () => {
    const report = JSON.parse(renderReport(makeApply(true), 'json', OPTIONS));
    expect(Object.keys(report)).toEqual([
      'version',
      'tool',
      'root',
      'findings',
      'suppressions',
      'problems',
      'summary',
      'dryRun',
      'target',
      'changes',
      'manual',
      'endpoints',
      'rolledBack',
      'typeUnchecked',
    ]);
    expect(report.dryRun).toBe(true);
    expect(report.target).toBe('stateless Streamable HTTP');
    expect(report.changes).toEqual([
      { file: 'src/routes/get.ts', ruleIds: ['legacy-sse-transport'], diff: ROUTES_DIFF },
      { file: 'src/server.ts', ruleIds: ['legacy-sse-transport', 'session-id'], diff: SERVER_DIFF },
    ]);
    expect(report.manual).toEqual([
      { file: 'src/a,b:c.ts', line: 2, ruleId: 'last-event-id', message: 'Resumability used <here>' },
      { file: 'src/server.ts', line: 70, ruleId: 'last-event-id', message: 'Remove the `EventStore` | by hand' },
    ]);
    expect(report.endpoints).toEqual([{ file: 'src/server.ts', line: 20, path: "'/mcp'" }]);
  });
});

describe('markdown', () => {
  /** Splits a table row on pipes that are not escaped. */
  const cells = (row: string): string[] =>
    row
      .split(/(?<!\\)\|/)
      .slice(1, -1)
      .map((c) => c.trim());

  it('escapes inline text and builds code spans that survive backticks and pipes', () => {
    expect(escapeMarkdown('a | b <c> `d` *e* _f_ [g] 100% $x\nnext')).toBe(
      'a \\| b \\<c\\> \\`d\\` \\*e\\* \\_f\\_ \\[g\\] 100% \\$x<br>next',
    );
    expect(codeSpan('src/a.ts:3')).toBe('`src/a.ts:3`');
    expect(codeSpan('a`b')).toBe('``a`b``');
    expect(codeSpan('`x`')).toBe('`` `x` ``');
    expect(codeSpan('a|b', true)).toBe('`a\\|b`');
    expect(codeSpan('a|b')).toBe('`a|b`');
  });

  it('is a pull-request body: title, summary table, rule sections, apply sections, checklist', () => {
    const md = renderReport(makeApply(true), 'markdown', OPTIONS);
    const lines = md.split('\n');
    expect(lines[0]).toBe('# mcp-migrate: migration to stateless Streamable HTTP (dry run)');
    expect(md).toContain('> **Dry run:** nothing was written.');
    expect(md).toContain('**5 findings** (2 errors, 2 warnings, 1 info) in 4 files; 9 scanned, 7 parsed, 1 skipped.');

    // summary table: one row per rule, in rule-id order
    const start = lines.indexOf('| Rule | Severity | Count | Fix |');
    expect(start).toBeGreaterThan(0);
    expect(lines[start + 1]).toBe('| --- | --- | ---: | --- |');
    expect(lines.slice(start + 2, start + 5)).toEqual([
      '| `last-event-id` | info | 1 | manual |',
      '| `legacy-sse-transport` | error | 2 | auto |',
      '| `session-id` | warning | 2 | unsafe |',
    ]);
    expect(lines[start + 5]).toBe('');

    // per-rule sections, file:line with message, escaped
    const sse = md.slice(md.indexOf('### `legacy-sse-transport`'), md.indexOf('### `session-id`'));
    expect(sse).toBe(
      [
        '### `legacy-sse-transport` — SSEServerTransport (HTTP+SSE) is deprecated',
        '',
        '**What to do:** Serve one endpoint with StreamableHTTPServerTransport.',
        '',
        '- `src/routes/get.ts:3` — GET /sse route',
        '- `src/server.ts:12` — new SSEServerTransport(...)<br>serves the deprecated HTTP+SSE transport',
        '  - hint: Use StreamableHTTPServerTransport.',
        '  - also `src/routes/get.ts:3` — GET /sse',
        '  - also `src/routes/post.ts:8` — POST /messages, the other half',
        '',
        '',
      ].join('\n'),
    );
    expect(md).toContain('- `src/server.ts:40` — sessionIdGenerator \\| creates \\<sessions\\> for 100% of requests');
    expect(md).toContain('- `src/a,b:c.ts:2` — EventStore \\`store\\` in use');

    // changed files table, endpoint, checklist
    expect(md).toContain(
      [
        '## Files that would change',
        '',
        '| File | Rules |',
        '| --- | --- |',
        '| `src/routes/get.ts` | `legacy-sse-transport` |',
        '| `src/server.ts` | `legacy-sse-transport`, `session-id` |',
      ].join('\n'),
    );
    expect(md).toContain("## Endpoint served\n\n- `'/mcp'` at `src/server.ts:20`\n");
    expect(md).toContain(
      [
        '## Needs a human',
        '',
        '- [ ] `src/a,b:c.ts:2` — `last-event-id`: Resumability used \\<here\\>',
        '- [ ] `src/server.ts:70` — `last-event-id`: Remove the \\`EventStore\\` \\| by hand',
      ].join('\n'),
    );
    expect(md.trimEnd().split('\n').pop()).toBe('<sub>Generated by mcp-migrate 1.2.3 in 42ms.</sub>');
  });

  it('never lets a | or a newline break a table row', () => {
    const md = renderReport(makeApply(false), 'markdown', OPTIONS);
    expect(md.split('\n')[0]).toBe('# mcp-migrate: migration to stateless Streamable HTTP');
    expect(md).toContain('## Changed files\n');
    const tables = new Map<string, number>(); // header row → column count
    let columns = 0;
    for (const line of md.split('\n')) {
      if (!line.startsWith('|')) {
        columns = 0;
        continue;
      }
      if (columns === 0) {
        columns = cells(line).length;
        tables.set(line, columns);
      }
      expect(cells(line), line).toHaveLength(columns);
    }
    expect([...tables.values()]).toEqual([4, 2, 3, 5]); // summary, changed files, problems, suppressions
    expect(md).toContain("| `src/broken.ts` | parse | ';' expected \\| near \\`x\\` (3:14) |");
    expect(md).toContain('| `src/legacy.ts:4` | `legacy-sse-transport` | next-line | 2 | old clients \\| v1 |');
    expect(md).toContain('| `src/alpha.ts:1` | `last-event-id` | file | 0 (unused) |  |');

    // a pipe inside a code span in a table cell is escaped too (GFM splits cells first)
    const check = emptyCheck();
    check.problems = [{ file: 'src/we|rd`name.ts', kind: 'encoding', message: 'line 1\nline 2' }];
    const md2 = renderReport(check, 'markdown', OPTIONS);
    const row = md2.split('\n').find((l) => l.includes('encoding'))!;
    expect(row).toBe('| ``src/we\\|rd`name.ts`` | encoding | line 1<br>line 2 |');
    expect(cells(row)).toHaveLength(3);
  });

  it('says there is nothing to migrate on a clean result', () => {
    const md = renderReport(emptyCheck(), 'markdown', OPTIONS);
    expect(md).toBe(`# mcp-migrate report\n\n${NOTHING_TO_MIGRATE}\n\n<sub>Generated by mcp-migrate 1.2.3 in 5ms.</sub>\n`);
  });
});

describe('github', () => {
  it('prints one workflow command per finding, then problems', () => {
    const out = renderReport(makeCheck(), 'github', OPTIONS);
    expect(out.split('\n')).toEqual([
      '::notice file=src/a%2Cb%3Ac.ts,line=2,col=1,endLine=2,endColumn=5,title=last-event-id::EventStore `store` in use',
      '::error file=src/routes/get.ts,line=3,col=1,endLine=3,endColumn=5,title=legacy-sse-transport::GET /sse route',
      '::error file=src/server.ts,line=12,col=9,endLine=14,endColumn=2,title=legacy-sse-transport::new SSEServerTransport(...)%0Aserves the deprecated HTTP+SSE transport',
      '::warning file=src/server.ts,line=12,col=9,endLine=12,endColumn=13,title=session-id::sessionIdGenerator set here',
      '::warning file=src/server.ts,line=40,col=3,endLine=40,endColumn=7,title=session-id::sessionIdGenerator | creates <sessions> for 100%25 of requests',
      '::warning file=assets/logo.ts,title=mcp-migrate binary::binary file',
      "::warning file=src/broken.ts,title=mcp-migrate parse::';' expected | near `x` (3:14)",
      '',
    ]);
    // every line is a single workflow command
    for (const line of out.trimEnd().split('\n')) {
      expect(line).toMatch(/^::(error|warning|notice) file=[^,:\n]+(,[a-zA-Z]+=[^,:\n]+)*::[^\n\r]*$/);
    }
  });

  it('escapes data and properties as the Actions toolkit does', () => {
    expect(escapeData('50% done\r\nnext')).toBe('50%25 done%0D%0Anext');
    expect(escapeProperty('a:b,c%\n')).toBe('a%3Ab%2Cc%25%0A');
    expect(renderReport(emptyCheck(), 'github', OPTIONS)).toBe('');
  });
});

// A tiny XML reader: enough to prove the JUnit output is well-formed and to read it back.
interface XmlNode {
  name: string;
  attrs: Record<string, string>;
  children: XmlNode[];
  text: string;
}

function decodeEntities(s: string): string {
  return s.replace(/&(amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);/g, (_, e: string) => {
    if (e === 'amp') return '&';
    if (e === 'lt') return '<';
    if (e === 'gt') return '>';
    if (e === 'quot') return '"';
    if (e === 'apos') return "'";
    return String.fromCodePoint(e[1] === 'x' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10));
  });
}

function parseXml(xml: string): XmlNode {
  const text = xml.replace(/^<\?xml [^?]*\?>\n?/, '');
  const stack: XmlNode[] = [];
  let root: XmlNode | undefined;
  const tag = /<(\/?)([A-Za-z_][\w.-]*)((?:\s+[\w:.-]+="[^"<]*")*)\s*(\/?)>/y;
  let i = 0;
  while (i < text.length) {
    const lt = text.indexOf('<', i);
    const chunk = text.slice(i, lt === -1 ? text.length : lt);
    if (/&(?!(amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);)/.test(chunk)) throw new Error(`bare & in ${JSON.stringify(chunk)}`);
    if (stack.length > 0) stack[stack.length - 1].text += decodeEntities(chunk);
    else if (chunk.trim() !== '') throw new Error(`text outside the root: ${JSON.stringify(chunk)}`);
    if (lt === -1) break;
    tag.lastIndex = lt;
    const m = tag.exec(text);
    if (!m) throw new Error(`malformed tag at ${lt}: ${JSON.stringify(text.slice(lt, lt + 60))}`);
    const [, closing, name, attrText, selfClosing] = m;
    if (closing) {
      const open = stack.pop();
      if (!open || open.name !== name) throw new Error(`</${name}> closes <${open?.name}>`);
    } else {
      const attrs: Record<string, string> = {};
      for (const a of attrText.matchAll(/([\w:.-]+)="([^"]*)"/g)) {
        if (a[1] in attrs) throw new Error(`duplicate attribute ${a[1]}`);
        if (/&(?!(amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);)/.test(a[2])) throw new Error(`bare & in attribute ${a[1]}`);
        attrs[a[1]] = decodeEntities(a[2]);
      }
      const node: XmlNode = { name, attrs, children: [], text: '' };
      if (stack.length > 0) stack[stack.length - 1].children.push(node);
      else if (root) throw new Error('second root element');
      else root = node;
      if (!selfClosing) stack.push(node);
    }
    i = tag.lastIndex;
  }
  if (stack.length > 0) throw new Error(`unclosed <${stack[stack.length - 1].name}>`);
  if (!root) throw new Error('no root element');
  return root;
}

describe('junit', () => {
  it('is well-formed XML: a suite per file, one test case per finding, one per problem, passing cases for quiet rules', () => {
    const xml = renderReport(makeCheck(), 'junit', OPTIONS);
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n')).toBe(true);
    const root = parseXml(xml);
    expect(root.name).toBe('testsuites');
    expect(root.children.map((s) => s.attrs.name)).toEqual([
      'assets/logo.ts',
      'src/a,b:c.ts',
      'src/broken.ts',
      'src/routes/get.ts',
      'src/server.ts',
      'mcp-migrate.rules',
    ]);
    expect(root.attrs).toMatchObject({ tests: '8', failures: '4', errors: '1', time: '0.042' });

    const server = root.children.find((s) => s.attrs.name === 'src/server.ts')!;
    expect(server.attrs).toMatchObject({ tests: '3', failures: '3', errors: '0', skipped: '0' });
    expect(server.children.map((c) => [c.attrs.name, c.attrs.classname])).toEqual([
      ['legacy-sse-transport at 12:9', 'src/server.ts'],
      ['session-id at 12:9', 'src/server.ts'],
      ['session-id at 40:3', 'src/server.ts'],
    ]);
    const failures = server.children.map((c) => c.children[0]);
    expect(failures.map((f) => [f.name, f.attrs.type])).toEqual([
      ['failure', 'legacy-sse-transport'],
      ['failure', 'session-id'],
      ['failure', 'session-id'],
    ]);
    // attributes round-trip exactly, newline included
    expect(failures[0].attrs.message).toBe('new SSEServerTransport(...)\nserves the deprecated HTTP+SSE transport');
    expect(failures[2].attrs.message).toBe(PIPE_MESSAGE);
    expect(failures[0].text).toBe(
      [
        'src/server.ts:12:9',
        'error legacy-sse-transport: new SSEServerTransport(...)',
        'serves the deprecated HTTP+SSE transport',
        'hint: Use StreamableHTTPServerTransport.',
        'also src/routes/get.ts:3:1: GET /sse',
        'also src/routes/post.ts:8:1: POST /messages, the other half',
      ].join('\n'),
    );
    expect(xml).toContain('creates &lt;sessions&gt; for 100%');

    // an info finding passes, with the finding as output
    const [info] = root.children.find((s) => s.attrs.name === 'src/a,b:c.ts')!.children;
    expect(info.children.map((c) => c.name)).toEqual(['system-out']);
    expect(info.children[0].text).toBe('src/a,b:c.ts:2:1\ninfo last-event-id: EventStore `store` in use');

    // problems: parse → <error>, binary → <skipped>
    expect(root.children.find((s) => s.attrs.name === 'src/broken.ts')!.children[0].children[0]).toMatchObject({
      name: 'error',
      attrs: { type: 'parse', message: "';' expected | near `x` (3:14)" },
    });
    expect(root.children.find((s) => s.attrs.name === 'assets/logo.ts')!.children[0].children[0]).toMatchObject({
      name: 'skipped',
      text: 'binary: binary file',
    });
    expect(root.children.at(-1)!.children.map((c) => c.attrs.name)).toEqual(['origin-validation']);
  });

  it('counts a file that did not parse once: its parse-error finding, not also its parse problem', () => {
    const check = emptyCheck();
    check.problems = [{ file: 'src/broken.ts', kind: 'parse', message: "does not parse: 3:14 ';' expected" }];
    check.findings = [{ ...at('src/broken.ts', 3, 14), ruleId: 'parse-error', severity: 'error', message: 'Not checked', fix: 'none' }];
    const suite = parseXml(renderReport(check, 'junit', { ...OPTIONS, rules: [] })).children[0];
    expect(suite.children.map((c) => c.children[0].name)).toEqual(['failure']);
  });

  it('escapes everything, drops characters XML cannot hold, and is never empty', () => {
    const check = emptyCheck();
    check.findings = [
      {
        ...at('src/"q" & <t>.ts', 1, 1),
        ruleId: 'session-id',
        severity: 'error',
        message: `a & b < c > d "e" 'f' \u0001 ]]> \t end`,
        fix: 'none',
      },
    ];
    const xml = renderReport(check, 'junit', OPTIONS);
    expect(xml).not.toContain('\u0001');
    const [fileSuite] = parseXml(xml).children;
    expect(fileSuite.attrs.name).toBe('src/"q" & <t>.ts');
    expect(fileSuite.children[0].children[0].attrs.message).toBe(`a & b < c > d "e" 'f' \ufffd ]]> \t end`);

    const none = parseXml(renderReport(emptyCheck(), 'junit', { ...OPTIONS, rules: [] }));
    expect(none.children[0].children.map((c) => c.attrs.name)).toEqual(['mcp-migrate']);
    expect(none.attrs.tests).toBe('1');
    const allQuiet = parseXml(renderReport(emptyCheck(), 'junit', OPTIONS));
    expect(allQuiet.children[0].children.map((c) => c.attrs.name)).toEqual([
      'last-event-id',
      'legacy-sse-transport',
      'origin-validation',
      'session-id',
    ]);
    expect(allQuiet.attrs.failures).toBe('0');
  });
});

describe('sarif (structure; schema validation is in sarif-schema.test.ts)', () => {
  it('builds rules from RuleMeta and points every result at its rule', () => {
    const log = JSON.parse(renderReport(makeApply(), 'sarif', OPTIONS));
    const run = log.runs[0];
    const rules = run.tool.driver.rules;
    expect(rules.map((r: { id: string }) => r.id)).toEqual(['last-event-id', 'legacy-sse-transport', 'origin-validation', 'session-id']);
    const sse = rules[1];
    expect(sse).toEqual({
      id: 'legacy-sse-transport',
      name: 'LegacySseTransport',
      shortDescription: { text: 'SSEServerTransport (HTTP+SSE) is deprecated' },
      fullDescription: { text: 'The HTTP+SSE transport was replaced by Streamable HTTP.' },
      helpUri: 'https://www.npmjs.com/package/mcp-migrate#rule-legacy-sse-transport',
      help: { text: ruleHelpText(RULES[1]), markdown: ruleHelpMarkdown(RULES[1]) },
      defaultConfiguration: { level: 'error' },
      properties: { tags: ['mcp', 'transport', 'migration', 'fix-auto'] },
    });
    expect(rules.map((r: { defaultConfiguration: { level: string } }) => r.defaultConfiguration.level)).toEqual([
      'note',
      'error',
      'error',
      'warning',
    ]);
    for (const result of run.results) expect(rules[result.ruleIndex].id).toBe(result.ruleId);
    expect(run.results.map((r: { level: string }) => r.level)).toEqual(['note', 'error', 'error', 'warning', 'warning']);
  });

  it('locates results relative to %SRCROOT% with related locations and stable fingerprints', () => {
    const log = JSON.parse(renderReport(makeCheck(), 'sarif', OPTIONS));
    const run = log.runs[0];
    expect(log.$schema).toBe('https://json.schemastore.org/sarif-2.1.0.json');
    expect(log.version).toBe('2.1.0');
    expect(run.tool.driver).toMatchObject({ name: 'mcp-migrate', version: '1.2.3' });
    expect(run.tool.driver.informationUri).toMatch(/^https:\/\//);
    expect(run.originalUriBaseIds).toEqual({ '%SRCROOT%': { uri: 'file:///home/dev/weather%20server/' } });

    const main = run.results[2];
    expect(main.message.text).toBe('new SSEServerTransport(...)\nserves the deprecated HTTP+SSE transport');
    expect(main.locations).toEqual([
      {
        physicalLocation: {
          artifactLocation: { uri: 'src/server.ts', uriBaseId: '%SRCROOT%' },
          region: { startLine: 12, startColumn: 9, endLine: 14, endColumn: 2 },
        },
      },
    ]);
    expect(main.relatedLocations).toEqual([
      {
        id: 1,
        physicalLocation: {
          artifactLocation: { uri: 'src/routes/get.ts', uriBaseId: '%SRCROOT%' },
          region: { startLine: 3, startColumn: 1, endLine: 3, endColumn: 5 },
        },
        message: { text: 'GET /sse' },
      },
      {
        id: 2,
        physicalLocation: {
          artifactLocation: { uri: 'src/routes/post.ts', uriBaseId: '%SRCROOT%' },
          region: { startLine: 8, startColumn: 1, endLine: 8, endColumn: 5 },
        },
        message: { text: 'POST /messages, the other half' },
      },
    ]);
    expect(run.results[0].locations[0].physicalLocation.artifactLocation.uri).toBe('src/a,b:c.ts');

    const prints = run.results.map((r: { partialFingerprints: Record<string, string> }) => r.partialFingerprints['mcpMigrate/v1']);
    expect(new Set(prints).size).toBe(prints.length);
    for (const p of prints) expect(p).toMatch(/^[0-9a-f]{32}:\d+$/);
    // a finding that moves down a few lines keeps its fingerprint
    const moved = makeCheck();
    const pipe = moved.findings.find((f) => f.message === PIPE_MESSAGE)!;
    pipe.line = 44;
    pipe.endLine = 44;
    const movedPrints = JSON.parse(renderReport(moved, 'sarif', OPTIONS)).runs[0].results.map(
      (r: { partialFingerprints: Record<string, string> }) => r.partialFingerprints['mcpMigrate/v1'],
    );
    expect(movedPrints).toEqual(prints);
  });

  it('reports problems as tool execution notifications and fails the invocation only for real failures', () => {
    const run = JSON.parse(renderReport(makeCheck(), 'sarif', OPTIONS)).runs[0];
    expect(run.invocations).toHaveLength(1);
    expect(run.invocations[0].executionSuccessful).toBe(false);
    expect(run.invocations[0].toolExecutionNotifications).toEqual([
      {
        level: 'note',
        message: { text: 'assets/logo.ts: binary: binary file' },
        locations: [{ physicalLocation: { artifactLocation: { uri: 'assets/logo.ts', uriBaseId: '%SRCROOT%' } } }],
        descriptor: { id: 'binary' },
      },
      {
        level: 'error',
        message: { text: "src/broken.ts: parse: ';' expected | near `x` (3:14)" },
        locations: [{ physicalLocation: { artifactLocation: { uri: 'src/broken.ts', uriBaseId: '%SRCROOT%' } } }],
        descriptor: { id: 'parse' },
      },
    ]);
    const skipsOnly = makeCheck();
    skipsOnly.problems = skipsOnly.problems.filter((p) => p.kind !== 'parse');
    expect(JSON.parse(renderReport(skipsOnly, 'sarif', OPTIONS)).runs[0].invocations[0].executionSuccessful).toBe(true);
    const clean = JSON.parse(renderReport(emptyCheck(), 'sarif', OPTIONS)).runs[0];
    expect(clean.invocations).toEqual([{ executionSuccessful: true }]);
    expect(clean.results).toEqual([]);
  });

  it('names rules in PascalCase and encodes paths as URI references', () => {
    expect(pascalCase('legacy-sse-transport')).toBe('LegacySseTransport');
    expect(pascalCase('session-id')).toBe('SessionId');
    expect(pathToUri('src/my file#1?.ts')).toBe('src/my%20file%231%3F.ts');
    expect(pathToUri('src/100%/ü.ts')).toBe('src/100%25/%C3%BC.ts');
    expect(pathToUri('src\\win\\x.ts')).toBe('src/win/x.ts');
  });
});

describe('diff', () => {
  it('prints the diffs in file order, unchanged when colour is off', () => {
    const changes = makeApply().changes;
    expect(renderDiff(changes, false)).toBe(`${ROUTES_DIFF}${SERVER_DIFF}`);
    expect(renderDiff(changes, false)).not.toMatch(ANSI);
    expect(renderDiff([], false)).toBe('');
    expect(renderDiff([{ file: 'x.ts', ruleIds: [], diff: '' }], true)).toBe('');
  });

  it('colours + green, - red, @@ cyan and headers bold', () => {
    const out = renderDiff(makeApply().changes, true);
    expect(stripAnsi(out)).toBe(`${ROUTES_DIFF}${SERVER_DIFF}`);
    const lines = out.split('\n');
    const find = (plain: string): string => lines.find((l) => stripAnsi(l) === plain)!;
    const bold = (s: string): string => `\u001b[1m${s}\u001b[22m`;
    expect(find('Index: src/server.ts')).toBe(bold('Index: src/server.ts'));
    expect(find('--- src/server.ts')).toBe(bold('--- src/server.ts'));
    expect(find('+++ src/server.ts')).toBe(bold('+++ src/server.ts'));
    expect(find('@@ -10,4 +10,4 @@')).toBe('\u001b[36m@@ -10,4 +10,4 @@\u001b[39m');
    // a removed line that starts with dashes is a removal, not a header
    expect(find('--- a comment that starts with dashes')).toBe('\u001b[31m--- a comment that starts with dashes\u001b[39m');
    expect(find("+app.all('/mcp', mcp);")).toBe("\u001b[32m+app.all('/mcp', mcp);\u001b[39m");
    expect(find("-app.get('/sse', sse);")).toBe("\u001b[31m-app.get('/sse', sse);\u001b[39m");
    expect(find(" import express from 'express';")).toBe(" import express from 'express';");
  });
});
