// The idempotency inference behind `idempotency-hint`: the hints and the evidence the report shows, per tool.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { check } from '../src/engine/check';
import { migrateSources } from '../src/engine/migrate';
import { migrateSdkSurface } from '../src/engine/sdk-v2-surface';
import { idempotencyHint } from '../src/rules/idempotency-hint';
import { ruleCases } from './helpers/rule-cases';

const fixture = (name: string) => path.resolve(__dirname, '..', 'fixtures', 'idempotency-hints', name);

async function findingsByTool(file: string) {
  const result = await check({ paths: [fixture(file)], cwd: process.cwd(), rules: ['idempotency-hint'] });
  const byTool = new Map<string, { message: string; fix: string; hint?: string; data?: Record<string, unknown> }>();
  for (const finding of result.findings) {
    const name = /Tool `([^`]+)`/.exec(finding.message)?.[1];
    if (name) byTool.set(name, finding);
  }
  return byTool;
}

describe('tool effect inference', () => {
  let tools: Awaited<ReturnType<typeof findingsByTool>>;
  beforeAll(async () => {
    tools = await findingsByTool('registration-forms.input.ts');
  });

  it('marks handlers that only read as read-only, naming what they read', () => {
    expect(tools.get('forecast')?.data?.hints).toEqual({ readOnlyHint: true });
    expect(tools.get('forecast')?.message).toContain('read-only: reads `forecasts`, no writes');
    expect(tools.get('ping_weather')?.data?.hints).toEqual({ readOnlyHint: true });
    // reverse()/sort() on the result of split() or a spread copy mutate a copy, not shared state
    expect(tools.get('reverse_words')?.data?.hints).toEqual({ readOnlyHint: true });
    // `rest -= 1` rebinds the handler's own `let rest = from`; `steps.push` fills a fresh local array
    expect(tools.get('count_down')?.data?.hints).toEqual({ readOnlyHint: true });
  });

  it('marks set-by-key writes idempotent and deletes destructive', () => {
    // an overwrite replaces what was there: destructive (false would mean "only additive updates")
    expect(tools.get('set_setting')?.data?.hints).toEqual({ readOnlyHint: false, idempotentHint: true, destructiveHint: true });
    expect(tools.get('set_setting')?.message).toContain('idempotent: overwrites `settings[key]`');
    expect(tools.get('forget_city')?.data?.hints).toEqual({ readOnlyHint: false, idempotentHint: true, destructiveHint: true });
    expect(tools.get('forget_city')?.message).toContain('deletes from `forecasts`');
    expect(tools.get('save_report')?.data?.hints).toEqual({ readOnlyHint: false, idempotentHint: true, destructiveHint: true });
    expect(tools.get('save_report')?.message).toContain('overwrites a file (writeFile)');
  });

  it('marks appends as not idempotent', () => {
    expect(tools.get('log_event')?.data?.hints).toEqual({ readOnlyHint: false, idempotentHint: false, destructiveHint: false });
    expect(tools.get('log_event')?.message).toContain('not idempotent: appends to `audit` (push)');
  });

  it('adds nothing for an unknown effect and says why', () => {
    expect(tools.get('sync')?.fix).toBe('manual');
    expect(tools.get('sync')?.data).toEqual({ unsure: ['calls `mystery.frobnicate`, whose effect is unknown'] });
    expect(tools.get('sync')?.hint).toContain('cannot tell what this handler changes');
    expect(tools.get('sync')?.message).toContain('retry-unsafe: review: calls `mystery.frobnicate`, whose effect is unknown');
  });

  it('leaves tools the author annotated alone', () => {
    expect(tools.has('author_hinted')).toBe(false);
  });

  it('reports low-level tool literals whose handler it cannot see as manual', async () => {
    const low = await findingsByTool('low-level.input.ts');
    expect(low.get('lookup')?.fix).toBe('manual');
    expect(low.get('lookup')?.message).toContain('retry-unsafe: review');
    expect(low.has('already')).toBe(false);
  });
});

// The rule fixtures state the hint each tool must get after `-- ` on its marker: `{ readOnlyHint: … }` or `unsure`.
describe('hints stated in the rule fixtures', () => {
  for (const ruleCase of ruleCases().filter((c) => c.ruleId === 'idempotency-hint' && !c.valid)) {
    const stated = statedHints(ruleCase.path);
    if (stated.size === 0) continue;
    it(ruleCase.name, async () => {
      const result = await check({ paths: [ruleCase.path], cwd: process.cwd(), rules: ['idempotency-hint'], gitignore: false });
      const byLine = new Map(result.findings.map((f) => [`${f.file}:${f.line}`, f]));
      for (const [line, expected] of stated) {
        const finding = byLine.get(line);
        if (expected === 'unsure') {
          expect(finding?.fix, line).toBe('manual');
          expect((finding?.data?.unsure as string[] | undefined)?.length, line).toBeGreaterThan(0);
          expect(finding?.data?.hints, line).toBeUndefined();
        } else expect(finding?.data?.hints, `${line}: ${finding?.message}`).toEqual(expected);
      }
    });
  }
});

function statedHints(target: string): Map<string, Record<string, boolean> | 'unsure'> {
  const stated = new Map<string, Record<string, boolean> | 'unsure'>();
  const files = fs.statSync(target).isDirectory() ? fs.readdirSync(target).map((f) => path.join(target, f)) : [target];
  const root = fs.statSync(target).isDirectory() ? target : path.dirname(target);
  for (const file of files.filter((f) => /\.[cm]?[jt]s$/.test(f))) {
    fs.readFileSync(file, 'utf8')
      .split('\n')
      .forEach((text, index) => {
        const spec = /expect: idempotency-hint -- (.+)$/.exec(text)?.[1].trim();
        if (!spec) return;
        const key = `${path.relative(root, file)}:${index + 1}`;
        stated.set(key, spec === 'unsure' ? 'unsure' : (JSON.parse(spec.replace(/(\w+):/g, '"$1":')) as Record<string, boolean>));
      });
  }
  return stated;
}

describe('.tool() registrations and the SDK that has registerTool', () => {
  const oldSdk = path.resolve(__dirname, '..', 'fixtures', 'rules', 'idempotency-hint', 'invalid-sdk-without-register-tool');
  const sourcesOf = (file: string) => [{ absPath: file, relPath: path.basename(file), text: fs.readFileSync(file, 'utf8') }];

  it('says when the project pins an SDK from before registerTool', async () => {
    const [finding] = (await check({ paths: [oldSdk], cwd: process.cwd(), rules: ['idempotency-hint'], gitignore: false })).findings;
    expect(finding.fix).toBe('auto');
    expect(finding.data?.registerToolMissing).toBe(
      'package.json pins @modelcontextprotocol/sdk "1.10.2", which has no registerTool (1.12.0+)',
    );
    expect(finding.message).toContain('On --target 2025-11-25 apply leaves it');
  });

  it('on 2025-11-25 leaves such a project as it is (no positional hints), on 2026-07-28 moves it to registerTool', () => {
    const sources = sourcesOf(path.join(oldSdk, 'server.ts'));
    const v1 = migrateSources(sources, { target: '2025-11-25', rules: [idempotencyHint] }).outputs.get('server.ts');
    expect(v1).toBe(sources[0].text);
    const v2 = migrateSources(sources, { target: '2026-07-28', rules: [idempotencyHint] }).outputs.get('server.ts');
    expect(v2).toContain("server.registerTool('started', { annotations: { readOnlyHint: true } }, async () =>");
  });

  // Both targets write the same registerTool calls; after the official v1→v2 codemod (which the 2026-07-28 target runs
  // once the endpoint moves to v2) every tool still has its annotations in the config, never in an input schema.
  for (const target of ['2025-11-25', '2026-07-28'] as const) {
    it(`positional annotations land in registerTool's annotations on ${target}`, () => {
      const rel = 'positional-annotations.input.ts';
      const migrated = migrateSources(sourcesOf(fixture(rel)), { target, rules: [idempotencyHint] }).outputs.get(rel)!;
      const output =
        target === '2026-07-28' ? migrateSdkSurface({ files: new Map([[rel, migrated]]), manifests: new Map() }).files.get(rel)! : migrated;
      expect(output).not.toMatch(/\.tool\(\s*'/);
      expect(output).not.toMatch(/inputSchema: (?:z\.object\()?\{[^}]*(?:readOnlyHint|title)/);
      for (const [name, annotations] of [
        ['cities', '{ readOnlyHint: true }'],
        ['city_count', "{ readOnlyHint: true, title: 'City count' }"],
        ['has_city', 'READ_ONLY'],
        ['mirror', "{ title: 'Mirror' }"],
      ]) {
        expect(output).toMatch(
          new RegExp(`registerTool\\('${name}', \\{[^\\n]*annotations: ${annotations.replace(/[{}()]/g, '\\$&')} \\}`),
        );
      }
      expect(output).toContain("annotations: { title: 'Add a city', readOnlyHint: false, idempotentHint: false, destructiveHint: false },");
      if (target === '2026-07-28') expect(output).toMatch(/from ['"]@modelcontextprotocol\/server['"]/);
    });
  }
});
