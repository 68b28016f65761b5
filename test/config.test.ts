// The configuration file: data only, every key a CLI option, flags win, and a malformed file is exit 2 with the exact problem.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config/load';
import { REPO_ROOT, scratchDir } from './helpers/server-process';

const cli = (cwd: string, ...args: string[]) =>
  spawnSync(process.execPath, [path.join(REPO_ROOT, 'bin', 'mcp-migrate.js'), ...args], { cwd, encoding: 'utf8' });
const fixture = (name: string) => path.join(REPO_ROOT, 'fixtures', 'servers', name);

function workspace(config?: string): string {
  const dir = scratchDir('config');
  if (config !== undefined) fs.writeFileSync(path.join(dir, 'mcp-migrate.config.json'), config);
  return dir;
}

describe('configuration file', () => {
  it('names the exact problem: bad JSON (line and column), unknown key, wrong type, value not allowed', () => {
    expect(() => parseConfig('{\n  "target": "2026-07-28",\n}\n', 'c.json')).toThrow(/c\.json: not valid JSON at line 3, column 1/);
    expect(() => parseConfig('{ "targte": "2026-07-28" }', 'c.json')).toThrow('c.json: unknown key "targte"');
    expect(() => parseConfig('{ "rule": "session-id" }', 'c.json')).toThrow('c.json: "rule" must be an array of strings, got "session-id"');
    expect(() => parseConfig('{ "unsafe": "yes" }', 'c.json')).toThrow('c.json: "unsafe" must be a boolean, got "yes"');
    expect(() => parseConfig('{ "target": "2025-11-26" }', 'c.json')).toThrow(
      'c.json: "target" must be one of 2025-11-25, 2026-07-28, got "2025-11-26"',
    );
    expect(() => parseConfig('[]', 'c.json')).toThrow('c.json: the configuration must be a JSON object');
    expect(parseConfig('{ "$schema": "x", "skip-rule": ["idempotency-hint"], "max-warnings": 0 }', 'c.json')).toEqual({
      'skip-rule': ['idempotency-hint'],
      'max-warnings': 0,
    });
  });

  it('a malformed file stops the CLI with exit 2 and the message, before any work', () => {
    const dir = workspace('{ "format": "xml" }');
    const run = cli(dir, 'check', fixture('neg-stdio'));
    expect(run.status).toBe(2);
    expect(run.stderr.trim()).toBe(
      'mcp-migrate: mcp-migrate.config.json: "format" must be one of text, json, markdown, sarif, github, junit, gitlab, got "xml"',
    );
    expect(run.stdout).toBe('');
  });

  it('its values act as defaults and a command-line flag wins', () => {
    const dir = workspace(JSON.stringify({ format: 'json', rule: ['local-bind'] }));
    const fromConfig = JSON.parse(cli(dir, 'check', fixture('f-session-cart')).stdout);
    expect(Object.keys(fromConfig.summary.findingsByRule)).toEqual(['local-bind']);
    const overridden = JSON.parse(cli(dir, 'check', fixture('f-session-cart'), '--rule', 'session-state').stdout);
    expect(Object.keys(overridden.summary.findingsByRule)).toEqual(['session-state']);
  });

  it('--config FILE reads another file; a JavaScript config is never loaded', () => {
    const dir = workspace();
    fs.writeFileSync(path.join(dir, 'mcp-migrate.config.js'), "require('fs').writeFileSync('executed', 'yes');\n");
    fs.writeFileSync(path.join(dir, 'ci.json'), JSON.stringify({ 'max-warnings': 0, rule: ['local-bind'] }));
    const run = cli(dir, 'check', fixture('f-session-cart'), '--config', 'ci.json');
    expect(run.status, 'the local-bind warning is over max-warnings 0').toBe(1);
    expect(fs.existsSync(path.join(dir, 'executed'))).toBe(false);
  });
});
