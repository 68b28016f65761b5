// Rule fixtures, RuleTester-style: fixtures/rules/<rule-id>/<case>.<ext> (or a <case>/ directory for cross-file
// shapes). `valid-*` cases must produce no finding of the rule; `invalid-*` cases mark every expected finding with
// a trailing `// expect: <rule-id>` comment on the line where the finding starts, and nothing else may be found.
import * as fs from 'node:fs';
import * as path from 'node:path';

export const RULE_FIXTURES = path.resolve(__dirname, '..', '..', 'fixtures', 'rules');
const SOURCE = /\.(?:ts|tsx|mts|cts|js|jsx|mjs|cjs)$/;
const EXPECT = /(?:\/\/|\/\*)\s*expect:\s*([\w-]+(?:\s*,\s*[\w-]+)*)/;

export interface RuleCase {
  ruleId: string;
  name: string;
  /** File or directory to scan. */
  path: string;
  valid: boolean;
  /** Expected `file:line` keys (file relative to the case path's root). */
  expected: string[];
}

function sourceFiles(target: string): string[] {
  if (fs.statSync(target).isFile()) return [target];
  return fs
    .readdirSync(target, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && SOURCE.test(e.name))
    .map((e) => path.join(e.parentPath ?? (e as unknown as { path: string }).path, e.name));
}

export function ruleCases(): RuleCase[] {
  if (!fs.existsSync(RULE_FIXTURES)) return [];
  const cases: RuleCase[] = [];
  for (const ruleId of fs.readdirSync(RULE_FIXTURES).sort()) {
    const dir = path.join(RULE_FIXTURES, ruleId);
    if (!fs.statSync(dir).isDirectory()) continue;
    for (const entry of fs.readdirSync(dir).sort()) {
      if (!/^(?:valid|invalid)-/.test(entry)) continue;
      const target = path.join(dir, entry);
      const root = fs.statSync(target).isDirectory() ? target : dir;
      const expected: string[] = [];
      for (const file of sourceFiles(target)) {
        fs.readFileSync(file, 'utf8')
          .split('\n')
          .forEach((line, index) => {
            const match = EXPECT.exec(line);
            if (
              match &&
              match[1]
                .split(',')
                .map((s) => s.trim())
                .includes(ruleId)
            ) {
              expected.push(`${path.relative(root, file).split(path.sep).join('/')}:${index + 1}`);
            }
          });
      }
      cases.push({ ruleId, name: entry, path: target, valid: entry.startsWith('valid-'), expected: expected.sort() });
    }
  }
  return cases;
}
