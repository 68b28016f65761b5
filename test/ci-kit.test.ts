// The CI adoption kit, checked against the schemas its consumers use: action.yml against the Actions metadata schema,
// JUnit against the Jenkins JUnit XSD, GitLab Code Quality against GitLab's documented format.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import Ajv from 'ajv';
import { validateAction } from '@action-validator/core';
import { validateXML } from 'xmllint-wasm';
import { describe, expect, it } from 'vitest';
import { OPTION_SPECS } from '../src/config/options';
import { REPO_ROOT } from './helpers/server-process';

const cli = (...args: string[]) =>
  spawnSync(process.execPath, [path.join(REPO_ROOT, 'bin', 'mcp-migrate.js'), ...args], { cwd: REPO_ROOT, encoding: 'utf8' });
const SERVERS = path.join('fixtures', 'servers');
const ACTION = fs.readFileSync(path.join(REPO_ROOT, 'action.yml'), 'utf8');
const readSchema = (name: string) => fs.readFileSync(path.join(REPO_ROOT, 'test', 'schemas', name), 'utf8');

describe('action.yml (composite GitHub Action)', () => {
  it('is valid against the GitHub Actions metadata schema, and a broken copy is not', () => {
    expect(validateAction(ACTION).errors).toEqual([]);
    expect(validateAction(ACTION.replace(/using: composite/, 'using: node99')).errors.length).toBeGreaterThan(0);
    expect(validateAction(ACTION.replace('      shell: bash\n      run: exit', '      run: exit')).errors.length).toBeGreaterThan(0);
  });

  it('runs the version this package is, with options the CLI has, and uploads SARIF and the summary', () => {
    const { version } = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'));
    expect(ACTION).toMatch(new RegExp(`  version:\\n(?:    .*\\n)*?    default: '${version.replace(/\./g, '\\.')}'\\n`));
    const known = new Set(['dry-run', ...OPTION_SPECS.map((s) => s.name)]);
    const flags = [...ACTION.matchAll(/ --([a-z][a-z-]+)/g)].map((m) => m[1]).filter((f) => !['yes', 'edit-last', 'body-file'].includes(f));
    expect(flags.length).toBeGreaterThan(3);
    for (const flag of flags) expect(known, `--${flag} in action.yml`).toContain(flag);
    expect(ACTION).toContain('uses: github/codeql-action/upload-sarif@v3');
    expect(ACTION).toContain('>> "$GITHUB_STEP_SUMMARY"');
    expect(ACTION).toContain('apply --dry-run $PATHS --format markdown');
  });
});

describe('JUnit (one test case per finding)', () => {
  it('validates against the Jenkins JUnit XSD, with a failure per error finding', async () => {
    const run = cli('check', path.join(SERVERS, 'b-express-stateful'), path.join(SERVERS, 'a-express-shared-server'), '--format', 'junit');
    expect(run.status).toBe(1);
    const json = JSON.parse(
      cli('check', path.join(SERVERS, 'b-express-stateful'), path.join(SERVERS, 'a-express-shared-server'), '--format', 'json').stdout,
    );
    const schema = { fileName: 'jenkins-junit.xsd', contents: readSchema('jenkins-junit.xsd') };
    const valid = await validateXML({ xml: { fileName: 'report.xml', contents: run.stdout }, schema });
    expect(valid.errors).toEqual([]);
    expect(valid.valid).toBe(true);
    const failing = json.findings.filter((f: { severity: string }) => f.severity !== 'info').length;
    expect((run.stdout.match(/<failure /g) ?? []).length).toBe(failing);
    expect(failing).toBeGreaterThan(10);
    // the XSD catches what the old report did: a `file` attribute on a test case
    const broken = await validateXML({
      xml: { fileName: 'report.xml', contents: run.stdout.replace('<testcase ', '<testcase file="x" ') },
      schema,
    });
    expect(broken.valid).toBe(false);
  });
});

describe('GitLab Code Quality', () => {
  const validate = new Ajv({ allErrors: true }).compile(JSON.parse(readSchema('gitlab-code-quality.schema.json')));

  it('validates against the Code Quality format, one issue per finding, paths from the repository root', () => {
    const run = cli('check', path.join(SERVERS, 'b-express-stateful'), '--format', 'gitlab');
    expect(run.status).toBe(1);
    const issues = JSON.parse(run.stdout);
    expect(validate(issues), JSON.stringify(validate.errors)).toBe(true);
    const json = JSON.parse(cli('check', path.join(SERVERS, 'b-express-stateful'), '--format', 'json').stdout);
    expect(issues).toHaveLength(json.findings.length);
    expect(new Set(issues.map((i: { fingerprint: string }) => i.fingerprint)).size).toBe(issues.length);
    expect(issues[0].location.path).toBe('fixtures/servers/b-express-stateful/src/index.ts');
    expect(validate([{ ...issues[0], severity: 'error' }])).toBe(false);
  });

  it('is an empty array for a clean project', () => {
    const run = cli('check', path.join(SERVERS, 'neg-stdio'), '--format', 'gitlab');
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual([]);
  });
});
