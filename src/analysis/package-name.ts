// The package a module specifier names. Kept apart from sdk-modules.ts, which needs the framework adapters (and so
// ts-morph): the stages of a scan that run before any parsing (manifest findings) use it too, and `check` loads no
// parser on its own thread when workers analyse.

/** `@scope/name/sub` → `@scope/name`; `zod/v4` → `zod`. */
export function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}
