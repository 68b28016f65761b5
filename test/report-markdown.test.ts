// Markdown for a pull-request body: links to file:line at the commit, each diff folded in <details>, and never over
// the size limit (GitHub refuses bodies and comments over 65,536 characters).
import { describe, expect, it } from 'vitest';
import type { ApplyResult, Finding } from '../src/model';
import { MARKDOWN_LIMIT, renderMarkdown } from '../src/report/markdown';
import { linksFromEnv, type ReportOptions } from '../src/report/options';

const OPTIONS: ReportOptions = { color: false, rules: [], toolVersion: '1.0.0' };

function finding(file: string, line: number, message = 'Protocol session: `Mcp-Session-Id` read here.'): Finding {
  return { ruleId: 'session-id', severity: 'error', file, line, column: 1, endLine: line, endColumn: 5, message, fix: 'auto' };
}

function applyResult(findings: Finding[], diffs: Array<[string, number]>): ApplyResult {
  return {
    root: '/work/repo/packages/server',
    findings,
    suppressions: [],
    problems: [],
    summary: {
      filesScanned: 3,
      filesParsed: 3,
      filesWithFindings: 1,
      findingsByRule: { 'session-id': findings.length },
      durationMs: 9,
      filesSkipped: 0,
    },
    dryRun: true,
    target: '2026-07-28',
    changes: diffs.map(([file, lines]) => ({
      file,
      ruleIds: ['session-id'],
      diff: `===================================================================\n--- a/${file}\n+++ b/${file}\n@@ -1,${lines} +1,${lines} @@\n${Array.from({ length: lines }, (_, i) => `-old ${i}\n+new ${i}`).join('\n')}\n`,
    })),
    manual: [],
    endpoints: [],
    rolledBack: [],
    typeUnchecked: [],
  };
}

describe('markdown for pull requests', () => {
  it('links file:line to the commit when GITHUB_SERVER_URL, GITHUB_REPOSITORY and GITHUB_SHA are set', () => {
    const links = linksFromEnv({ GITHUB_SERVER_URL: 'https://github.com/', GITHUB_REPOSITORY: 'acme/tools', GITHUB_SHA: 'abc123' });
    expect(linksFromEnv({ GITHUB_SERVER_URL: 'https://github.com', GITHUB_REPOSITORY: 'acme/tools' })).toBeUndefined();
    const md = renderMarkdown(applyResult([finding('src/my server.ts', 12)], []), { ...OPTIONS, links, repoRoot: '/work/repo' });
    expect(md).toContain(
      '- [`src/my server.ts:12`](https://github.com/acme/tools/blob/abc123/packages/server/src/my%20server.ts#L12) — Protocol session',
    );
    expect(renderMarkdown(applyResult([finding('src/a.ts', 3)], []), OPTIONS)).toContain('- `src/a.ts:3` — Protocol session');
  });

  it('folds each diff in <details> with its line counts', () => {
    const md = renderMarkdown(applyResult([], [['src/index.ts', 2]]), OPTIONS);
    expect(md).toContain(
      '<details>\n<summary><code>src/index.ts</code> (+2 −2)</summary>\n\n```diff\n===================================================================\n--- a/src/index.ts\n',
    );
    expect(md).toContain('+new 1\n```\n\n</details>\n');
  });

  it('stays under the limit: the largest diffs fold away first, then lists are cut, each cut said', () => {
    const small = applyResult(
      [finding('src/a.ts', 1)],
      [
        ['src/small.ts', 3],
        ['src/huge.ts', 5000],
      ],
    );
    const md = renderMarkdown(small, OPTIONS);
    expect(md.length).toBeLessThanOrEqual(MARKDOWN_LIMIT);
    expect(md).toContain('+new 2\n```'); // the small diff is kept
    expect(md).toContain('<summary><code>src/huge.ts</code> (+5000 −5000)</summary>\n\n_Diff left out to fit the size limit._');
    expect(md).toContain('> **Shortened** to stay under 65,000 characters: 1 diff folded away.');

    const many = Array.from({ length: 3000 }, (_, i) =>
      finding(`src/file${i}.ts`, i + 1, `Protocol session number ${i} ${'x'.repeat(40)}`),
    );
    const long = renderMarkdown(applyResult(many, [['src/a.ts', 10]]), OPTIONS);
    expect(long.length).toBeLessThanOrEqual(MARKDOWN_LIMIT);
    expect(long).toMatch(/lists cut at \d+ items/);
    expect(long).toMatch(/- … and \d+ more \(left out to fit the size limit\)/);
    expect(renderMarkdown(applyResult(many.slice(0, 10), []), OPTIONS)).not.toContain('Shortened');
  });
});
