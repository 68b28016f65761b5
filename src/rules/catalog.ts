// The rules' metadata without their code: dist/rule-catalog.json, written at build time by
// scripts/write-rule-catalog.js from `allRuleMetas`. Reading it does not load ts-morph.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { RuleMeta } from './rule';

export const RULE_CATALOG_FILE = path.join(__dirname, '..', '..', 'rule-catalog.json');

export function ruleCatalog(): RuleMeta[] {
  return JSON.parse(fs.readFileSync(RULE_CATALOG_FILE, 'utf8')) as RuleMeta[];
}
