// Which v1 SDK a project runs, read from the nearest package.json that declares it (and the package-lock.json beside
// it): whether `McpServer.registerTool(name, { description, inputSchema, annotations }, cb)` exists there. It came in
// @modelcontextprotocol/sdk 1.12.0; the v2 packages always have it.
import * as fs from 'node:fs';
import * as path from 'node:path';
import semver from 'semver';

const SDK = '@modelcontextprotocol/sdk';
const V2_SERVER = '@modelcontextprotocol/server';
const REGISTER_TOOL_SINCE = '1.12.0';

interface Manifest {
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  /** package-lock.json v2/v3 */
  packages?: Record<string, { version?: string }>;
}

/** Why `registerTool` may be missing in the project of this file (undefined: it is there, or nothing says otherwise). */
export function registerToolMissing(filePath: string): string | undefined {
  for (let dir = path.dirname(filePath); ; dir = path.dirname(dir)) {
    const manifest = readJson(path.join(dir, 'package.json'));
    const dependencies = manifest && { ...manifest.peerDependencies, ...manifest.devDependencies, ...manifest.dependencies };
    if (dependencies?.[V2_SERVER]) return undefined;
    const range = dependencies?.[SDK];
    if (typeof range === 'string') {
      const locked = readJson(path.join(dir, 'package-lock.json'))?.packages?.[`node_modules/${SDK}`]?.version;
      if (locked && semver.valid(locked)) {
        return semver.lt(locked, REGISTER_TOOL_SINCE)
          ? `package-lock.json installs ${SDK} ${locked}, which has no registerTool (1.12.0+)`
          : undefined;
      }
      // A range we cannot read (a tag, a git URL, a workspace) gets the benefit of the doubt.
      if (semver.validRange(range) && !semver.intersects(range, `>=${REGISTER_TOOL_SINCE}`)) {
        return `package.json pins ${SDK} "${range}", which has no registerTool (1.12.0+)`;
      }
      return undefined;
    }
    if (path.dirname(dir) === dir) return undefined;
  }
}

/** The range the nearest package.json above the file that declares `name` gives it (dependencies of any kind). */
export function declaredRange(filePath: string, name: string): string | undefined {
  for (let dir = path.dirname(filePath); ; dir = path.dirname(dir)) {
    const manifest = readJson(path.join(dir, 'package.json'));
    const range = manifest && { ...manifest.peerDependencies, ...manifest.devDependencies, ...manifest.dependencies }[name];
    if (typeof range === 'string') return range;
    if (path.dirname(dir) === dir) return undefined;
  }
}

function readJson(file: string): Manifest | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as Manifest;
  } catch {
    return undefined;
  }
}
