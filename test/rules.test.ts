// Every rule against its fixtures (fixtures/rules/<rule-id>/): valid cases stay silent, invalid cases report
// exactly the lines marked `// expect: <rule-id>`.
import * as fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { check } from '../src/engine/check';
import { allRules } from '../src/rules';
import { ruleCases } from './helpers/rule-cases';

const cases = ruleCases();

describe('rule fixtures', () => {
  for (const rule of allRules) {
    const own = cases.filter((c) => c.ruleId === rule.meta.id);
    it(`${rule.meta.id} has valid and invalid fixtures`, () => {
      expect(
        own.some((c) => c.valid),
        'at least one valid-* case',
      ).toBe(true);
      expect(
        own.some((c) => !c.valid),
        'at least one invalid-* case',
      ).toBe(true);
    });
    for (const ruleCase of own) {
      it(`${rule.meta.id} / ${ruleCase.name}`, async () => {
        const result = await check({ paths: [ruleCase.path], cwd: process.cwd(), rules: [rule.meta.id], gitignore: false });
        expect(result.problems).toEqual([]);
        const found = result.findings
          .filter((f) => f.ruleId === rule.meta.id)
          .map((f) => `${f.file}:${f.line}`)
          .sort();
        if (ruleCase.valid) {
          expect(found, 'a valid case produces no finding').toEqual([]);
          expect(ruleCase.expected).toEqual([]);
        } else {
          expect(ruleCase.expected.length, 'an invalid case marks its expected findings').toBeGreaterThan(0);
          expect(found).toEqual(ruleCase.expected);
        }
      });
    }
  }

  it('every fixture directory names a known rule', () => {
    const known = new Set(allRules.map((r) => r.meta.id));
    for (const ruleCase of cases) expect(known.has(ruleCase.ruleId), ruleCase.ruleId).toBe(true);
    void fs;
  });
});
