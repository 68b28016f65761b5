// The CLI as users run it: a real subprocess on bundled fixtures, asserting exit codes and outputs.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { allRuleMetas } from '../src/rules';

const ROOT = path.resolve(__dirname, '..');
const cli = (...args: string[]) =>
  spawnSync(process.execPath, [path.join(ROOT, 'bin', 'mcp-migrate.js'), ...args], { cwd: ROOT, encoding: 'utf8' });
const fixture = (name: string) => path.join('fixtures', 'servers', name);

describe('mcp-migrate CLI', () => {
  it('check fails (1) on a legacy server and lists its findings with file:line', () => {
    const run = cli('check', fixture('a-express-shared-server'), '--no-color');
    expect(run.status).toBe(1);
    expect(run.stdout).toMatch(/src\/index\.ts/);
    expect(run.stdout).toMatch(/\d+:\d+\s+error\s+Legacy HTTP\+SSE transport/);
    expect(run.stdout).toMatch(/1 file scanned, 1 parsed, 1 with findings/);
  });

  it('check passes (0) on an already-stateless server and a stdio server', () => {
    expect(cli('check', fixture('neg-stateless-already')).status).toBe(0);
    expect(cli('check', fixture('neg-stdio')).status).toBe(0);
  });

  it('check --format json follows the contract', () => {
    const run = cli('check', fixture('b-express-stateful'), '--format', 'json');
    const report = JSON.parse(run.stdout);
    expect(report.summary).toMatchObject({ filesScanned: 2, filesWithFindings: 1 });
    const finding = report.findings.find((f: { ruleId: string }) => f.ruleId === 'session-id');
    expect(Object.keys(finding)).toEqual(
      expect.arrayContaining(['ruleId', 'severity', 'file', 'line', 'column', 'endLine', 'endColumn', 'message', 'fix']),
    );
    expect(finding.file, 'relative to the working directory').toBe('fixtures/servers/b-express-stateful/src/index.ts');
  });

  it('--max-warnings turns warnings into a failure', () => {
    // f-session-cart after excluding its error rules still has session-state warnings
    const errors = [
      'legacy-sse-transport',
      'session-id',
      'get-stream',
      'delete-session',
      'last-event-id',
      'shared-server-instance',
      'origin-validation',
    ];
    const skip = errors.flatMap((id) => ['--skip-rule', id]);
    expect(cli('check', fixture('f-session-cart'), ...skip).status).toBe(0);
    expect(cli('check', fixture('f-session-cart'), ...skip, '--max-warnings', '0').status).toBe(1);
  });

  it('apply --dry-run (default target 2026-07-28) prints a diff, writes nothing, and exits 1 while changes are pending', () => {
    const dir = path.join(ROOT, fixture('a-express-shared-server'));
    const before = ['src/index.ts', 'package.json'].map((f) => fs.readFileSync(path.join(dir, f), 'utf8'));
    const run = cli('apply', '--dry-run', '--no-color', fixture('a-express-shared-server'));
    expect(run.status).toBe(1);
    expect(run.stdout).toContain('--- a/fixtures/servers/a-express-shared-server/src/index.ts');
    // It listens on every interface: the app is not made local, and the SDK's Origin guard stands in front of the handler.
    expect(run.stdout).toContain('+const mcpOriginGuard = originValidation(localhostAllowedOrigins());');
    expect(run.stdout).toMatch(
      /\+app\.post\('\/mcp', async \(req, res\) => \{\n(?:\+ {2}\/\/[^\n]*\n)*\+ {2}if \(!mcpOriginGuard\(req, res\)\) return;\n\+ {2}await mcpHandler\(req, res, req\.body\);\n/,
    );
    expect(run.stdout).toContain('--- a/fixtures/servers/a-express-shared-server/package.json');
    expect(run.stdout).toContain('+    "@modelcontextprotocol/server": "^2.4.0"');
    expect(run.stdout).toContain('dry run');
    expect(['src/index.ts', 'package.json'].map((f) => fs.readFileSync(path.join(dir, f), 'utf8'))).toEqual(before);
  });

  it('apply --dry-run --target 2025-11-25 stays on the v1 SDK', () => {
    const run = cli('apply', '--dry-run', '--no-color', '--target', '2025-11-25', fixture('a-express-shared-server'));
    expect(run.status).toBe(1);
    expect(run.stdout).toContain("+app.post('/mcp', async (req, res) => {");
    expect(run.stdout).toContain('+  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });');
    expect(run.stdout).not.toContain('package.json');
  });

  it('apply --dry-run exits 0 when there is nothing to change', () => {
    expect(cli('apply', '--dry-run', fixture('neg-dashboard-sse')).status).toBe(0);
  });

  it('a path that does not exist is a usage error (2) with a clear message', () => {
    const run = cli('check', 'no/such/dir');
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('path not found: no/such/dir');
  });

  it('an unknown rule id is a usage error (2)', () => {
    const run = cli('check', fixture('neg-stdio'), '--rule', 'no-such-rule');
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('unknown rule id: no-such-rule');
  });

  it('rules lists every rule, and the README documents every rule id', () => {
    const run = cli('rules');
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    for (const meta of allRuleMetas) {
      expect(run.stdout).toContain(meta.id);
      expect(readme, `README documents ${meta.id}`).toContain(`\`${meta.id}\``);
    }
  });
});
