// Fixtures (issue 10's real-world shapes) that the engine does not migrate correctly yet. Each entry names the reason;
// the suites skip them, so they can be switched on by deleting the entry once the engine handles the shape.

/** Fixture servers the end-to-end suites skip, per target: name → why. */
export const KNOWN_FAILING_E2E: Record<'2025-11-25' | '2026-07-28', Record<string, string>> = {
  '2025-11-25': {},
  '2026-07-28': {},
};

/** Transform fixtures (`<transform>/<target>/<case>`) whose committed output is the correct migration the engine does not produce yet. */
export const KNOWN_FAILING_TRANSFORMS: Record<string, string> = {};
