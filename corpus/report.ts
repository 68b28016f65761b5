// What the runner records per repository, the verdict per repository × target, and the markdown table.

export const TARGETS = ['2025-11-25', '2026-07-28'] as const;
export type Target = (typeof TARGETS)[number];

/** `n/a`: the recipe has no such step; `skipped`: an earlier step failed, so this one was not run. */
export type StepStatus = 'ok' | 'failed' | 'timeout' | 'skipped' | 'n/a';

export interface StepResult {
  status: StepStatus;
  durationMs?: number;
  exitCode?: number | null;
  command?: string;
  /** One line: why it failed, or what it saw (tools listed, status codes). */
  detail?: string;
  /** The step's output, truncated. */
  log?: string;
}

export interface Marker {
  file: string;
  line: number;
  text: string;
}

export interface ApplySummary {
  filesChanged: string[];
  markers: Marker[];
  manual: Array<{ file: string; line: number; ruleId: string; message: string }>;
  problems: unknown[];
  rollbacks: unknown[];
  endpoints: string[];
}

export interface BuildSteps {
  install: StepResult;
  build: StepResult;
  typecheck: StepResult;
  boot: StepResult;
}

export interface BaselineResult extends BuildSteps {
  probe: StepResult;
}

export interface Probes {
  v1: StepResult;
  v2: StepResult;
  methods405: StepResult;
  noSessionId: StepResult;
  foreignOrigin403: StepResult;
}

export type Verdict = 'pass' | 'honest' | 'broken' | 'fail';

export interface TargetResult extends BuildSteps {
  target: Target;
  apply: StepResult & { summary?: ApplySummary };
  check: StepResult & { findingsByRule?: Record<string, number> };
  probes: Probes;
  verdict: Verdict;
  reason: string;
}

export interface RepoResult {
  id: string;
  runnable: boolean;
  framework: string;
  family: string;
  baseline: BaselineResult;
  targets: Partial<Record<Target, TargetResult>>;
  /** The runner itself failed on this repository (the copy could not be made…). */
  error?: string;
}

const PASSED: ReadonlySet<StepStatus> = new Set(['ok', 'n/a']);

/** Installed, built and type-checked (steps the recipe does not have count as passed). */
export function builds(steps: BuildSteps): boolean {
  return steps.install.status === 'ok' && PASSED.has(steps.build.status) && PASSED.has(steps.typecheck.status);
}

/** A marker names its rule and says what to do: `/* mcp-migrate: <rule-id>: <text> *\/` (or the codemod's `/* @mcp-codemod-error <text> *\/`). */
export function namesConstruct(marker: Marker): boolean {
  return /^\/\* (?:mcp-migrate: [a-z][a-z0-9-]*:|@mcp-codemod-error) \S.{8,}/.test(marker.text);
}

export function decideVerdict(
  runnable: boolean,
  baseline: BaselineResult,
  after: Omit<TargetResult, 'verdict' | 'reason'>,
): { verdict: Verdict; reason: string } {
  const failed = (steps: Record<string, StepResult>) =>
    Object.entries(steps)
      .filter(([, step]) => !PASSED.has(step.status))
      .map(([name]) => name);
  const buildSteps = { install: after.install, build: after.build, typecheck: after.typecheck };
  if (builds(baseline) && !builds(after)) {
    return { verdict: 'broken', reason: `built at baseline; after apply: ${failed(buildSteps).join(', ')} failed` };
  }
  const markers = after.apply.summary?.markers ?? [];
  if (markers.length > 0) {
    const vague = markers.filter((marker) => !namesConstruct(marker));
    if (vague.length > 0) return { verdict: 'fail', reason: `${vague.length} marker(s) name no construct` };
    if (builds(after) || !builds(baseline)) return { verdict: 'honest', reason: `${markers.length} marker(s) left` };
  }
  if (after.apply.status !== 'ok') return { verdict: 'fail', reason: `apply ${after.apply.detail ?? after.apply.status}` };
  if (!builds(after)) return { verdict: 'fail', reason: `${failed(buildSteps).join(', ')} failed (as at baseline)` };
  if (!runnable) return { verdict: 'pass', reason: 'no marker; installs and type-checks (not runnable here)' };
  const probeFailures = failed({ boot: after.boot, ...after.probes });
  if (probeFailures.length > 0) return { verdict: 'fail', reason: `no marker, but ${probeFailures.join(', ')} failed` };
  return { verdict: 'pass', reason: 'no marker; every probe passed' };
}

const SYMBOL: Record<StepStatus, string> = { ok: '✓', failed: '✗', timeout: '⏱', skipped: '·', 'n/a': '–' };

function cell(step: StepResult | undefined): string {
  return step ? SYMBOL[step.status] : ' ';
}

function targetColumns(target: Target): string[] {
  const short = target.slice(0, 4);
  const probes = target === '2026-07-28' ? ['v1', 'v2'] : ['v1'];
  return ['files', 'markers', 'check', 'install', 'build', 'tsc', 'boot', ...probes, '405', 'no sid', '403', 'verdict'].map(
    (name) => `${short} ${name}`,
  );
}

function targetCells(result: TargetResult | undefined, target: Target): string[] {
  const width = targetColumns(target).length;
  if (!result) return Array<string>(width).fill(' ');
  const summary = result.apply.summary;
  const probes = target === '2026-07-28' ? [result.probes.v1, result.probes.v2] : [result.probes.v1];
  return [
    summary ? String(summary.filesChanged.length) : cell(result.apply),
    summary ? String(summary.markers.length) : cell(result.apply),
    result.check.exitCode === undefined || result.check.exitCode === null ? cell(result.check) : String(result.check.exitCode),
    cell(result.install),
    cell(result.build),
    cell(result.typecheck),
    cell(result.boot),
    ...probes.map(cell),
    cell(result.probes.methods405),
    cell(result.probes.noSessionId),
    cell(result.probes.foreignOrigin403),
    result.verdict === 'pass' || result.verdict === 'broken' ? `**${result.verdict}**` : result.verdict,
  ];
}

/** Totals for one target: pass count and percentage over runnable apps, broken, honest and fail counts. */
export function totalsLine(results: RepoResult[], target: Target): string {
  const ran = results.filter((repo) => repo.targets[target]);
  const runnable = ran.filter((repo) => repo.runnable);
  const count = (repos: RepoResult[], verdict: Verdict) => repos.filter((repo) => repo.targets[target]?.verdict === verdict).length;
  const passed = count(runnable, 'pass');
  const percent = runnable.length === 0 ? 0 : Math.round((passed / runnable.length) * 100);
  const notRunnable = ran.length - runnable.length;
  return (
    `**${target}**: pass ${passed}/${runnable.length} runnable apps (${percent}%) · broken ${count(ran, 'broken')} · ` +
    `honest ${count(ran, 'honest')} · fail ${count(ran, 'fail')}` +
    (notRunnable > 0
      ? ` · not runnable: ${notRunnable} (pass ${count(
          ran.filter((repo) => !repo.runnable),
          'pass',
        )})`
      : '')
  );
}

/**
 * One markdown table under a title that names the `apply` run (`apply --unsafe` when the unsafe fixes were applied),
 * baseline columns next to the after columns, one row per repository, then the totals.
 */
export function renderTable(results: RepoResult[], targets: readonly Target[], run: { unsafe: boolean }): string {
  const header = ['repo', 'base install', 'base build', 'base tsc', 'base boot', 'base probe', ...targets.flatMap(targetColumns)];
  const rows = results.map((repo) => [
    `${repo.id}${repo.runnable ? '' : ' (not runnable)'}${repo.error ? ' (runner error)' : ''}`,
    cell(repo.baseline.install),
    cell(repo.baseline.build),
    cell(repo.baseline.typecheck),
    cell(repo.baseline.boot),
    cell(repo.baseline.probe),
    ...targets.flatMap((target) => targetCells(repo.targets[target], target)),
  ]);
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [
    `**mcp-migrate apply${run.unsafe ? ' --unsafe' : ''}** (${targets.join(', ')})`,
    '',
    line(header),
    line(header.map(() => '---')),
    ...rows.map(line),
    '',
    ...targets.map((target) => totalsLine(results, target)),
    '',
    '✓ passed · ✗ failed · ⏱ timed out · · not reached · – the recipe has no such step; files = files changed by apply, ' +
      'markers = `/* mcp-migrate:` left, check = `check` exit code after apply',
  ].join('\n');
}
