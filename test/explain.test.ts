// `explain <rule-id>` and SARIF help come from the rule metadata and one example per rule; every example is real:
// the detector reports the rule on `before` and not on `after`. Every helpUri lands on an anchor in the README.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { allRuleMetas } from '../src/rules';
import { RULE_EXAMPLES, type RuleExample } from '../src/rules/examples';
import { ruleHelpText, ruleHelpUri } from '../src/report/rule-help';
import { renderReport } from '../src/report';
import { check } from '../src/engine/check';
import { REPO_ROOT, scratchDir } from './helpers/server-process';

const cli = (...args: string[]) =>
  spawnSync(process.execPath, [path.join(REPO_ROOT, 'bin', 'mcp-migrate.js'), ...args], { encoding: 'utf8' });

async function ruleIdsIn(code: string, name: string, example: RuleExample): Promise<string[]> {
  const dir = scratchDir('explain', name);
  for (const [file, text] of Object.entries({ ...example.project, [example.file ?? 'example.ts']: code }))
    fs.writeFileSync(path.join(dir, file), text);
  return (await check({ paths: [dir], cwd: dir })).findings.map((f) => f.ruleId);
}

describe('rule examples', () => {
  it('every rule has one', () => {
    expect(Object.keys(RULE_EXAMPLES).sort()).toEqual(allRuleMetas.map((m) => m.id).sort());
  });

  for (const meta of allRuleMetas) {
    it(`${meta.id}: reported on "before", silent on "after"`, async () => {
      const example = RULE_EXAMPLES[meta.id];
      expect(await ruleIdsIn(example.before, `${meta.id}-before`, example)).toContain(meta.id);
      expect(await ruleIdsIn(example.after, `${meta.id}-after`, example)).not.toContain(meta.id);
    });
  }
});

describe('explain', () => {
  it('prints doc, hint, example, sources and the README link: the same text as SARIF help', () => {
    const run = cli('explain', 'legacy-sse-transport');
    expect(run.status).toBe(0);
    const meta = allRuleMetas.find((m) => m.id === 'legacy-sse-transport')!;
    expect(run.stdout).toBe(ruleHelpText(meta));
    for (const part of [meta.doc, `What to do: ${meta.hint}`, 'Before:\n    import express', 'After:\n', meta.sources[0]]) {
      expect(run.stdout).toContain(part);
    }
    const sarif = JSON.parse(
      renderReport(
        {
          root: REPO_ROOT,
          findings: [],
          suppressions: [],
          problems: [],
          summary: { filesScanned: 0, filesParsed: 0, filesWithFindings: 0, findingsByRule: {}, durationMs: 0, filesSkipped: 0 },
        },
        'sarif',
        { color: false, rules: [...allRuleMetas], toolVersion: '0' },
      ),
    );
    const rule = sarif.runs[0].tool.driver.rules.find((r: { id: string }) => r.id === 'legacy-sse-transport');
    expect(rule.help.text).toBe(run.stdout);
    expect(rule.helpUri).toBe(ruleHelpUri('legacy-sse-transport'));
  });

  it('an unknown id is exit 2 with a suggestion', () => {
    const run = cli('explain', 'sesion-id');
    expect(run.status).toBe(2);
    expect(run.stderr).toBe('mcp-migrate: unknown rule id: sesion-id (did you mean session-id?)\n');
  });

  it("every rule's helpUri anchor exists in the README", () => {
    const readme = fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
    for (const meta of allRuleMetas) {
      const anchor = ruleHelpUri(meta.id).split('#')[1];
      expect(readme, meta.id).toContain(`<a id="${anchor}"></a>`);
    }
  });
});
