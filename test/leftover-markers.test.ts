// What apply leaves unmigrated, on whole projects (fixtures/mark-leftovers/<case>/input/): every marker names the
// construct and why it was not rewritten, code that is not an endpoint (clients, test helpers) gets none, and a
// construct that belongs to a stopped endpoint leaves the word to that endpoint's one marker. `output/` holds every
// file apply changes, as it must read (a case without one must not change); `case.json` names the target and what
// the case pins. UPDATE=1 rewrites the outputs.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { apply } from '../src/engine/apply';
import type { Target } from '../src/engine/targets';
import { scratchDir } from './helpers/server-process';

const CASES = path.resolve(__dirname, '..', 'fixtures', 'mark-leftovers');
const UPDATE = process.env.UPDATE === '1';

function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)))
    .sort();
}

const read = (dir: string, file: string) => fs.readFileSync(path.join(dir, file), 'utf8');

describe('markers apply leaves', () => {
  for (const name of fs.readdirSync(CASES).sort()) {
    const caseDir = path.join(CASES, name);
    const { target, why } = JSON.parse(read(caseDir, 'case.json')) as { target: Target; why: string };
    it(`${name}: ${why}`, () => {
      const input = path.join(caseDir, 'input');
      const output = path.join(caseDir, 'output');
      const dir = scratchDir('mark-leftovers', name);
      fs.cpSync(input, dir, { recursive: true });
      const options = { paths: [dir], cwd: dir, target, allowDirty: true, gitignore: false };
      const result = apply(options);
      expect(result.problems).toEqual([]);
      // (the report names, for every file it changed, the rules of what changed it: a marker's rule if only a marker)
      for (const change of result.changes) expect(change.ruleIds, change.file).not.toEqual([]);
      const changed = filesUnder(dir).filter((file) => read(dir, file) !== read(input, file));
      if (UPDATE) {
        fs.rmSync(output, { recursive: true, force: true });
        for (const file of changed) {
          fs.mkdirSync(path.dirname(path.join(output, file)), { recursive: true });
          fs.copyFileSync(path.join(dir, file), path.join(output, file));
        }
      }
      expect(changed).toEqual(filesUnder(output));
      for (const file of changed) expect(read(dir, file), file).toBe(read(output, file));
      expect(apply(options).changes, 'a second apply changes nothing').toEqual([]);
    });
  }
});
