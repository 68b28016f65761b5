// The protocol revisions `apply` can migrate to.
export const TARGETS = ['2025-11-25', '2026-07-28'] as const;
export type Target = (typeof TARGETS)[number];
export const DEFAULT_TARGET: Target = '2026-07-28';
