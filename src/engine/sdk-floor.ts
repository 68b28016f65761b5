// 2025-11-25: the code the endpoint transform writes needs a v1 SDK that has it — StreamableHTTPServerTransport
// serving statelessly since 1.10.2 (1.10.0 and 1.10.1 answer every request after initialize on a fresh session-less
// transport with 400 "Server not initialized"), WebStandardStreamableHTTPServerTransport since 1.25.0. A manifest whose range still allows an older
// SDK is raised to the version this release is tested with; the type-check gate then resolves the SDK as that
// install would.
import semver from 'semver';
import { installedPackage } from './v2-dependencies';
import { MARKER_PATTERN } from './markers';

export const V1_SDK = '@modelcontextprotocol/sdk';
/** The v1 SDK range this release writes (what it is tested with). */
export const V1_TESTED_RANGE = '^1.32.2';

const FLOORS: Array<[RegExp, string]> = [
  [/@modelcontextprotocol\/sdk\/server\/webStandardStreamableHttp(?:\.js)?['"]/, '1.25.0'],
  [/@modelcontextprotocol\/sdk\/server\/streamableHttp(?:\.js)?['"]/, '1.10.2'],
];

/** The lowest SDK version the texts need (the highest floor among the modules they import), if any. */
export function sdkFloor(texts: Iterable<string>): string | undefined {
  let floor: string | undefined;
  for (const text of texts) {
    for (const [module, version] of FLOORS) {
      if (module.test(text) && (!floor || semver.gt(version, floor))) floor = version;
    }
  }
  return floor;
}

/**
 * The migrated texts that need the SDK to have what they use: each file's new text, unless the migration only added
 * markers to it (an endpoint left as it was asks nothing more of the SDK than the code already did).
 */
export function migratedTexts(files: Iterable<{ original: string; text: string }>): string[] {
  const bare = (text: string) => text.replace(new RegExp(`[ \\t]*${MARKER_PATTERN.source}[ \\t]*\\r?\\n?`, 'g'), '');
  return [...files].filter((file) => file.text !== file.original && bare(file.text) !== bare(file.original)).map((file) => file.text);
}

/**
 * The manifest with its SDK range raised when that range allows a version below `floor`; undefined when it needs no
 * change (or does not depend on the SDK). Only the range's text changes: the file keeps its formatting.
 */
export function raiseSdkRange(manifest: string, floor: string): string | undefined {
  return raiseDependencyRange(manifest, V1_SDK, floor, V1_TESTED_RANGE);
}

/**
 * The manifest with `name` added to its dependencies at `range` when no dependency section names it; else undefined.
 * The file keeps its indentation (and key order: the name goes where it sorts when the section is sorted).
 */
export function addDependency(manifest: string, name: string, range: string): string | undefined {
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(manifest) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const sections = ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies'];
  if (sections.some((section) => (json[section] as Record<string, string> | undefined)?.[name])) return undefined;
  const deps = { ...((json.dependencies as Record<string, string> | undefined) ?? {}) };
  const keys = Object.keys(deps);
  const sorted = keys.every((key, i) => i === 0 || keys[i - 1].localeCompare(key) <= 0);
  deps[name] = range;
  json.dependencies = sorted ? Object.fromEntries(Object.entries(deps).sort(([a], [b]) => a.localeCompare(b))) : deps;
  const indent = /^[ \t]+(?=")/m.exec(manifest)?.[0] ?? '  ';
  return JSON.stringify(json, null, indent) + (manifest.endsWith('\n') ? '\n' : '');
}

/** The manifest with `name`'s range set to `range` when it allows a version below `floor`; else undefined. */
export function raiseDependencyRange(manifest: string, name: string, floor: string, range: string): string | undefined {
  let json: { dependencies?: Record<string, string>; devDependencies?: Record<string, string> };
  try {
    json = JSON.parse(manifest);
  } catch {
    return undefined;
  }
  const current = json.dependencies?.[name] ?? json.devDependencies?.[name];
  if (!current) return undefined;
  const lowest = semver.validRange(current) ? semver.minVersion(current) : null;
  if (lowest && !semver.lt(lowest, floor)) return undefined;
  const pattern = new RegExp(`("${name.replace(/[/.]/g, '\\$&')}"\\s*:\\s*)"${current.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"`);
  return pattern.test(manifest) ? manifest.replace(pattern, `$1"${range}"`) : undefined;
}

/**
 * The raised SDK's own dependencies that none of the raised manifests declares: the project has them only through
 * the SDK, so the next install brings the versions the tested SDK wants (zod 3.24 under SDK 1.10.1 becomes zod 4). The
 * type-check gate resolves them from mcp-migrate's copy with the SDK, as one set: mixing the tested SDK's types with
 * the old zod cost minutes and gigabytes in the compiler, and is not what the install gives.
 */
export function sdkCompanions(manifests: Iterable<string>): string[] {
  const sdk = installedPackage(V1_SDK, __dirname);
  const declared = new Set<string>();
  for (const text of manifests) {
    try {
      const json = JSON.parse(text) as Record<string, Record<string, string> | undefined>;
      for (const section of ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies'])
        for (const name of Object.keys(json[section] ?? {})) declared.add(name);
    } catch {
      // not JSON: declares nothing
    }
  }
  return Object.keys(sdk?.json.dependencies ?? {}).filter((name) => !declared.has(name));
}
