// The baseline: `check --baseline-write FILE` records today's findings, `check --baseline FILE` leaves the recorded
// ones out of the result (and so of the gate) and reports entries nothing matches any more as stale. Entries are keyed
// by file (relative to the baseline file's folder, so the baseline works from any working directory), rule id and a
// line-independent fingerprint, with a count: edits that move code keep matching, a second identical finding is new.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CheckResult, Finding, StaleBaselineEntry } from '../model';
import { UsageError } from './errors';
import { messageFingerprint } from './fingerprint';
import { compareFindings } from '../report/sort';

export const BASELINE_VERSION = 1;

export interface BaselineEntry {
  file: string;
  ruleId: string;
  fingerprint: string;
  /** For the people reviewing the file; matching uses the fingerprint. */
  message: string;
  count: number;
}

export interface BaselineFile {
  version: typeof BASELINE_VERSION;
  tool: 'mcp-migrate';
  findings: BaselineEntry[];
}

const toPosix = (p: string): string => p.split(path.sep).join('/');

function keyOf(entry: Pick<BaselineEntry, 'file' | 'ruleId' | 'fingerprint'>): string {
  return `${entry.file}\u0000${entry.ruleId}\u0000${entry.fingerprint}`;
}

/** Each finding with the baseline key it would have in a baseline file at `baselinePath`. */
function keyed(result: CheckResult, baselinePath: string): Array<{ finding: Finding; entry: BaselineEntry }> {
  const dir = path.dirname(baselinePath);
  return [...result.findings].sort(compareFindings).map((finding) => ({
    finding,
    entry: {
      file: toPosix(path.relative(dir, path.resolve(result.root, finding.file))),
      ruleId: finding.ruleId,
      fingerprint: messageFingerprint(finding),
      message: finding.message,
      count: 1,
    },
  }));
}

/** The baseline of `result`'s findings, for a file at `baselinePath` (absolute). */
export function baselineOf(result: CheckResult, baselinePath: string): BaselineFile {
  const entries = new Map<string, BaselineEntry>();
  for (const { entry } of keyed(result, baselinePath)) {
    const known = entries.get(keyOf(entry));
    if (known) known.count += 1;
    else entries.set(keyOf(entry), entry);
  }
  const findings = [...entries.values()].sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0));
  return { version: BASELINE_VERSION, tool: 'mcp-migrate', findings };
}

export function writeBaseline(baseline: BaselineFile, baselinePath: string): void {
  fs.mkdirSync(path.dirname(baselinePath), { recursive: true });
  fs.writeFileSync(baselinePath, `${JSON.stringify(baseline, null, 2)}\n`);
}

export function readBaseline(baselinePath: string): BaselineFile {
  let data: unknown;
  try {
    data = JSON.parse(fs.readFileSync(baselinePath, 'utf8'));
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new UsageError(`${baselinePath}: cannot read the baseline (${reason}); write one with --baseline-write`);
  }
  const file = data as Partial<BaselineFile>;
  const valid =
    file?.version === BASELINE_VERSION &&
    Array.isArray(file.findings) &&
    file.findings.every(
      (e) =>
        typeof e?.file === 'string' &&
        typeof e.ruleId === 'string' &&
        typeof e.fingerprint === 'string' &&
        typeof e.message === 'string' &&
        Number.isInteger(e.count) &&
        e.count > 0,
    );
  if (!valid)
    throw new UsageError(`${baselinePath}: not an mcp-migrate baseline (version ${BASELINE_VERSION}); write one with --baseline-write`);
  return file as BaselineFile;
}

/** `result` without the findings the baseline knows, with a `baseline` summary (stale entries included). */
export function applyBaseline(result: CheckResult, baseline: BaselineFile, baselinePath: string): CheckResult {
  const left = new Map(baseline.findings.map((e) => [keyOf(e), { ...e }]));
  const fresh: Finding[] = [];
  let old = 0;
  for (const { finding, entry } of keyed(result, baselinePath)) {
    const known = left.get(keyOf(entry));
    if (known && known.count > 0) {
      known.count -= 1;
      old += 1;
    } else {
      fresh.push(finding);
    }
  }
  const dir = path.dirname(baselinePath);
  const stale: StaleBaselineEntry[] = [...left.values()]
    .filter((e) => e.count > 0)
    .map((e) => ({ ...e, file: toPosix(path.relative(result.root, path.resolve(dir, e.file))) }));
  const findingsByRule: Record<string, number> = {};
  for (const f of fresh) findingsByRule[f.ruleId] = (findingsByRule[f.ruleId] ?? 0) + 1;
  return {
    ...result,
    findings: fresh,
    summary: { ...result.summary, findingsByRule, filesWithFindings: new Set(fresh.map((f) => f.file)).size },
    baseline: { file: baselinePath, old, new: fresh.length, stale },
  };
}
