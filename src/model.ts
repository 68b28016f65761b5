// The one result model shared by the engine, the rules, the transforms and every reporter.
// The JSON reporter serialises these shapes as they are: field names here are a public contract.

export type Severity = 'error' | 'warning' | 'info';

/** How a finding gets fixed: `auto` by default, `unsafe` only with --unsafe, `manual` never by the tool, `none` nothing to fix. */
export type FixKind = 'auto' | 'unsafe' | 'manual' | 'none';

/** 1-based lines and columns; `file` is a POSIX path relative to the scanned root. */
export interface Location {
  file: string;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
}

export interface RelatedLocation extends Location {
  message: string;
}

export interface Finding extends Location {
  ruleId: string;
  severity: Severity;
  message: string;
  /** One short sentence: what to do about it. */
  hint?: string;
  fix: FixKind;
  /** Other sites of the same construct (e.g. the POST route that goes with a GET /sse route). */
  related?: RelatedLocation[];
  /** Rule-specific facts the fixer uses (e.g. the inferred tool annotations); stable only within one version. */
  data?: Record<string, unknown>;
}

/** An inline or file-level ignore comment and what it silenced. */
export interface Suppression extends Location {
  kind: 'next-line' | 'file';
  ruleId: string;
  reason?: string;
  /** How many findings it silenced; 0 means the suppression is unused (reported as `unused-suppression`). */
  used: number;
}

/** A file the run could not handle, with the reason. Nothing is written for it. */
export interface FileProblem {
  file: string;
  kind:
    | 'unreadable'
    | 'binary'
    | 'too-large'
    | 'encoding'
    | 'parse'
    | 'symlink'
    | 'transform'
    | 'invalid-output'
    | 'type-check'
    | 'write'
    | 'dirty';
  message: string;
}

export interface Summary {
  filesScanned: number;
  filesParsed: number;
  filesWithFindings: number;
  findingsByRule: Record<string, number>;
  durationMs: number;
  /** Files that were discovered but passed over (binary, too large, unreadable…). */
  filesSkipped: number;
}

/** A baseline entry that no current finding matches any more: fixed (or reworded), so it can be pruned. */
export interface StaleBaselineEntry {
  file: string;
  ruleId: string;
  /** Line-independent: a hash of the rule id and the message. */
  fingerprint: string;
  message: string;
  /** How many of the entry's findings are gone. */
  count: number;
}

/** What `check --baseline FILE` did: findings it knew are left out of `findings` (and of the gate). */
export interface BaselineSummary {
  /** The baseline file. */
  file: string;
  /** Findings the baseline knew: not in `findings`, never failing the gate. */
  old: number;
  /** Findings the baseline did not know: all of `findings`. */
  new: number;
  stale: StaleBaselineEntry[];
}

export interface CheckResult {
  /** Absolute path of the scanned root; every `file` is relative to it. */
  root: string;
  findings: Finding[];
  suppressions: Suppression[];
  problems: FileProblem[];
  summary: Summary;
  /** Present when a baseline was applied. */
  baseline?: BaselineSummary;
}

export interface FileChange {
  file: string;
  ruleIds: string[];
  /** Unified diff of the change (always filled; printed for --dry-run). */
  diff: string;
}

export interface ManualItem {
  file: string;
  line: number;
  ruleId: string;
  message: string;
}

export interface ServedEndpoint {
  file: string;
  line: number;
  /** The path the endpoint serves, with its router's mount prefix (`/mcp`, `/admin/mcp`); an expression when the path is not a constant. */
  path: string;
}

/** An endpoint whose migration was undone because a part of it failed or broke the type-check. */
export interface RolledBackEndpoint {
  /** The endpoint's id: its file and path (`src/server.ts#/mcp`). */
  endpoint: string;
  reason: string;
}

export interface ApplyResult extends CheckResult {
  dryRun: boolean;
  target: string;
  changes: FileChange[];
  manual: ManualItem[];
  endpoints: ServedEndpoint[];
  /** Endpoints left as they were (with a marker) because their change would have broken the build. */
  rolledBack: RolledBackEndpoint[];
  /** Changed files that were re-parsed but not type-checked, and why (no tsconfig, JavaScript without checkJs, packages not installed). */
  typeUnchecked: Array<{ file: string; reason: string }>;
  /**
   * Set when the 2026-07-28 move did not type-check, or its package.json would not install beside the project's lock,
   * and the project was migrated to `target` (2025-11-25) instead: the errors the v2 move introduced (lines are those
   * of the v2 version of each file, which is not written), and each locked package whose peer range a range of the v2
   * move's manifest leaves (`locked`: name, version, and `package-lock.json`, `npm-shrinkwrap.json` or `node_modules`).
   */
  deferred?: {
    target: string;
    errors: Array<{ relPath: string; line: number; column: number; code: number; message: string; lineText: string }>;
    lockConflicts: Array<{
      manifest: string;
      locked: { name: string; version: string; source: string };
      peer: string;
      peerRange: string;
      declared: string;
    }>;
  };
}

export type AnyResult = CheckResult | ApplyResult;

export function isApplyResult(result: AnyResult): result is ApplyResult {
  return (result as ApplyResult).changes !== undefined;
}
