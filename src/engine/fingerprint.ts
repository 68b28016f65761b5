// Fingerprints that survive edits which only move lines: they hash what a finding says, never where it is.
import { createHash } from 'node:crypto';
import type { Finding } from '../model';

function sha256(parts: string[], length: number): string {
  return createHash('sha256').update(parts.join('\u0000')).digest('hex').slice(0, length);
}

/** Rule id and message: the baseline's key within a file (the file is kept beside it, so moving files is visible). */
export function messageFingerprint(finding: Pick<Finding, 'ruleId' | 'message'>): string {
  return sha256([finding.ruleId, finding.message], 16);
}

/**
 * One fingerprint per finding, unique within the list: a hash of rule id, file (as `fileOf` names it) and message,
 * plus the ordinal among identical triples in list order. For SARIF `partialFingerprints` and GitLab `fingerprint`.
 */
export function locatedFingerprints(findings: readonly Finding[], fileOf: (finding: Finding) => string): string[] {
  const seen = new Map<string, number>();
  return findings.map((f) => {
    const hash = sha256([f.ruleId, fileOf(f), f.message], 32);
    const n = (seen.get(hash) ?? 0) + 1;
    seen.set(hash, n);
    return `${hash}:${n}`;
  });
}
