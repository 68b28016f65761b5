// The idempotency inference behind `idempotency-hint`: the hints and the evidence the report shows, per tool.
import * as path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { check } from '../src/engine/check';

const fixture = (name: string) => path.resolve(__dirname, '..', 'fixtures', 'idempotency-hints', name);

async function findingsByTool(file: string) {
  const result = await check({ paths: [fixture(file)], cwd: process.cwd(), rules: ['idempotency-hint'] });
  const byTool = new Map<string, { message: string; fix: string; data?: Record<string, unknown> }>();
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
    expect(tools.get('set_setting')?.data?.hints).toEqual({ readOnlyHint: false, idempotentHint: true, destructiveHint: false });
    expect(tools.get('set_setting')?.message).toContain('idempotent: sets `settings[key]`');
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
    expect(tools.get('sync')?.data).toBeUndefined();
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
