// JUnit XML for CI test-report widgets: a suite per file, one test case per finding (a <failure> for errors and
// warnings; info findings pass, with the finding as output), one per file problem (<error>, or <skipped> for a file
// passed over), and a suite of passing cases for the rules that found nothing, so the report is never empty.
// The shape is the Jenkins JUnit schema's (test/schemas/jenkins-junit.xsd checks it in the tests).
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

/** The engine's finding for a file that did not parse: its `parse` problem is not counted a second time. */
const PARSE_ERROR_RULE = 'parse-error';

interface Case {
  name: string;
  classname: string;
  /** The child element, if any: failure, error, skipped or system-out. */
  body?: string;
  outcome: 'pass' | 'failure' | 'error' | 'skipped';
}

interface Suite {
  name: string;
  cases: Case[];
}

export function renderJunit(input: AnyResult, options: ReportOptions): string {
  const result = sortResult(input);
  const findingsByFile = new Map(groupBy(result.findings, (f) => f.file));
  const parseErrors = new Set(result.findings.filter((f) => f.ruleId === PARSE_ERROR_RULE).map((f) => f.file));
  const problems = result.problems.filter((p) => !(p.kind === 'parse' && parseErrors.has(p.file)));
  const problemsByFile = new Map(groupBy(problems, (p) => p.file));
  const files = [...new Set([...findingsByFile.keys(), ...problemsByFile.keys()])].sort(compareStrings);
  const suites: Suite[] = files.map((file) => ({
    name: file,
    cases: [...(findingsByFile.get(file) ?? []).map(findingCase), ...(problemsByFile.get(file) ?? []).map(problemCase)],
  }));

  const ruleIdsWithFindings = new Set(result.findings.map((f) => f.ruleId));
  const quietRules = [...new Set(options.rules.map((r) => r.id).filter((id) => !ruleIdsWithFindings.has(id)))].sort(compareStrings);
  const passing = quietRules.map((id): Case => ({ name: id, classname: `${TOOL_NAME}.rules`, outcome: 'pass' }));
  if (suites.length === 0 && passing.length === 0) passing.push({ name: TOOL_NAME, classname: TOOL_NAME, outcome: 'pass' });
  if (passing.length > 0) suites.push({ name: `${TOOL_NAME}.rules`, cases: passing });

  const all = suites.flatMap((s) => s.cases);
  const time = (result.summary.durationMs / 1000).toFixed(3);
  const out = ['<?xml version="1.0" encoding="UTF-8"?>', `<testsuites name="${TOOL_NAME}" ${counts(all)} time="${time}">`];
  for (const suite of suites) {
    out.push(`  <testsuite name="${xmlAttr(suite.name)}" ${counts(suite.cases)} skipped="${count(suite.cases, 'skipped')}">`);
    for (const c of suite.cases) {
      const attrs = `name="${xmlAttr(c.name)}" classname="${xmlAttr(c.classname)}"`;
      if (c.body === undefined) out.push(`    <testcase ${attrs}/>`);
      else out.push(`    <testcase ${attrs}>`, `      ${c.body}`, '    </testcase>');
    }
    out.push('  </testsuite>');
  }
  out.push('</testsuites>');
  return `${out.join('\n')}\n`;
}

function count(cases: Case[], outcome: Case['outcome']): number {
  return cases.filter((c) => c.outcome === outcome).length;
}

function counts(cases: Case[]): string {
  return `tests="${cases.length}" failures="${count(cases, 'failure')}" errors="${count(cases, 'error')}"`;
}

function findingCase(f: Finding): Case {
  const name = `${f.ruleId} at ${f.line}:${f.column}`;
  if (f.severity === 'info')
    return { name, classname: f.file, outcome: 'pass', body: `<system-out>${xmlText(findingBody(f))}</system-out>` };
  return {
    name,
    classname: f.file,
    outcome: 'failure',
    body: `<failure message="${xmlAttr(f.message)}" type="${xmlAttr(f.ruleId)}">${xmlText(findingBody(f))}</failure>`,
  };
}

function problemCase(p: FileProblem): Case {
  const name = `${TOOL_NAME} ${p.kind}`;
  if (!PROBLEM_IS_ERROR.has(p.kind))
    return { name, classname: p.file, outcome: 'skipped', body: `<skipped>${xmlText(`${p.kind}: ${p.message}`)}</skipped>` };
  return {
    name,
    classname: p.file,
    outcome: 'error',
    body: `<error message="${xmlAttr(p.message)}" type="${xmlAttr(p.kind)}">${xmlText(`${p.file}: ${p.kind}: ${p.message}`)}</error>`,
  };
}

function findingBody(f: Finding): string {
  const lines = [`${f.file}:${f.line}:${f.column}`, `${f.severity} ${f.ruleId}: ${f.message}`];
  if (f.hint) lines.push(`hint: ${f.hint}`);
  for (const r of f.related ?? []) lines.push(`also ${r.file}:${r.line}:${r.column}: ${r.message}`);
  return lines.join('\n');
}
