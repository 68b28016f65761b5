// JUnit XML for CI test-report widgets: one suite, one test case per file with findings or problems
// (a <failure> per error/warning finding), and one passing case per rule that found nothing,
// so the suite is never empty.
import type { AnyResult, FileProblem, Finding } from '../model';
import { TOOL_NAME, groupBy } from './common';
import type { ReportOptions } from './options';
import { compareStrings, sortResult } from './sort';

/** Characters XML 1.0 forbids outright (C0 controls but tab/LF/CR, lone surrogates, U+FFFE/U+FFFF). */
const INVALID_XML =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Escapes element text. Forbidden characters become U+FFFD. */
export function xmlText(s: string): string {
  return s.replace(INVALID_XML, '\ufffd').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Escapes an attribute value (double-quoted); tab, CR and LF are kept as character references. */
export function xmlAttr(s: string): string {
  return xmlText(s).replace(/"/g, '&quot;').replace(/'/g, '&apos;').replace(/\t/g, '&#9;').replace(/\n/g, '&#10;').replace(/\r/g, '&#13;');
}

const PROBLEM_IS_ERROR: ReadonlySet<FileProblem['kind']> = new Set<FileProblem['kind']>([
  'unreadable',
  'encoding',
  'parse',
  'transform',
  'invalid-output',
  'write',
]);

interface Case {
  name: string;
  classname: string;
  file?: string;
  body: string[];
  failures: number;
  errors: number;
  skipped: number;
}

export function renderJunit(input: AnyResult, options: ReportOptions): string {
  const result = sortResult(input);
  const cases: Case[] = [];

  const findingsByFile = new Map(groupBy(result.findings, (f) => f.file));
  const problemsByFile = new Map(groupBy(result.problems, (p) => p.file));
  const files = [...new Set([...findingsByFile.keys(), ...problemsByFile.keys()])].sort(compareStrings);
  for (const file of files) cases.push(fileCase(file, findingsByFile.get(file) ?? [], problemsByFile.get(file) ?? []));

  const ruleIdsWithFindings = new Set(result.findings.map((f) => f.ruleId));
  const quietRules = options.rules.map((r) => r.id).filter((id) => !ruleIdsWithFindings.has(id));
  for (const id of [...new Set(quietRules)].sort(compareStrings)) {
    cases.push({ name: id, classname: `${TOOL_NAME}.rules`, body: [], failures: 0, errors: 0, skipped: 0 });
  }
  if (cases.length === 0) {
    cases.push({ name: TOOL_NAME, classname: TOOL_NAME, body: [], failures: 0, errors: 0, skipped: 0 });
  }

  const total = (k: 'failures' | 'errors' | 'skipped'): number => cases.reduce((n, c) => n + (c[k] > 0 ? 1 : 0), 0);
  const time = (result.summary.durationMs / 1000).toFixed(3);
  const suiteAttrs =
    `name="${TOOL_NAME}" tests="${cases.length}" failures="${total('failures')}" errors="${total('errors')}" ` +
    `skipped="${total('skipped')}" time="${time}"`;

  const out = ['<?xml version="1.0" encoding="UTF-8"?>', `<testsuites ${suiteAttrs}>`, `  <testsuite ${suiteAttrs}>`];
  for (const c of cases) {
    const attrs = `name="${xmlAttr(c.name)}" classname="${xmlAttr(c.classname)}"${c.file ? ` file="${xmlAttr(c.file)}"` : ''}`;
    if (c.body.length === 0) out.push(`    <testcase ${attrs}/>`);
    else out.push(`    <testcase ${attrs}>`, ...c.body, '    </testcase>');
  }
  out.push('  </testsuite>', '</testsuites>');
  return `${out.join('\n')}\n`;
}

function fileCase(file: string, findings: Finding[], problems: FileProblem[]): Case {
  const c: Case = { name: file, classname: TOOL_NAME, file, body: [], failures: 0, errors: 0, skipped: 0 };
  const infos: Finding[] = [];
  for (const f of findings) {
    if (f.severity === 'info') {
      infos.push(f);
      continue;
    }
    c.failures++;
    c.body.push(`      <failure message="${xmlAttr(f.message)}" type="${xmlAttr(f.ruleId)}">${xmlText(findingBody(f))}</failure>`);
  }
  for (const p of problems) {
    if (PROBLEM_IS_ERROR.has(p.kind)) {
      c.errors++;
      c.body.push(
        `      <error message="${xmlAttr(p.message)}" type="${xmlAttr(p.kind)}">${xmlText(`${p.file}: ${p.kind}: ${p.message}`)}</error>`,
      );
    } else {
      c.skipped++;
      c.body.push(`      <skipped message="${xmlAttr(`${p.kind}: ${p.message}`)}"/>`);
    }
  }
  if (infos.length > 0) {
    c.body.push(`      <system-out>${xmlText(infos.map(findingBody).join('\n\n'))}</system-out>`);
  }
  return c;
}

function findingBody(f: Finding): string {
  const lines = [`${f.file}:${f.line}:${f.column}`, `${f.severity} ${f.ruleId}: ${f.message}`];
  if (f.hint) lines.push(`hint: ${f.hint}`);
  for (const r of f.related ?? []) lines.push(`also ${r.file}:${r.line}:${r.column}: ${r.message}`);
  return lines.join('\n');
}
