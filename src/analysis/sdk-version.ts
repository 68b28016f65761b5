// Which v1 SDK a project runs, read from the nearest package.json that declares it (and the package-lock.json beside
// it): whether `McpServer.registerTool(name, { description, inputSchema, annotations }, cb)` exists there. It came in
// @modelcontextprotocol/sdk 1.12.0; the v2 packages always have it.
import * as fs from 'node:fs';
import * as path from 'node:path';

const SDK = '@modelcontextprotocol/sdk';
const V2_SERVER = '@modelcontextprotocol/server';
const REGISTER_TOOL_SINCE: Version = [1, 12, 0];

type Version = [number, number, number];

/** Why `registerTool` may be missing in the project of this file (undefined: it is there, or nothing says otherwise). */
export function registerToolMissing(filePath: string): string | undefined {
  for (let dir = path.dirname(filePath); ; dir = path.dirname(dir)) {
    const manifest = readJson(path.join(dir, 'package.json'));
    const dependencies = manifest && { ...manifest.peerDependencies, ...manifest.devDependencies, ...manifest.dependencies };
    if (dependencies?.[V2_SERVER]) return undefined;
    const range = dependencies?.[SDK];
    if (typeof range === 'string') {
      const locked = readJson(path.join(dir, 'package-lock.json'))?.packages?.[`node_modules/${SDK}`]?.version;
      if (typeof locked === 'string' && below(parseVersion(locked), REGISTER_TOOL_SINCE)) {
        return `package-lock.json installs ${SDK} ${locked}, which has no registerTool (1.12.0+)`;
      }
      if (typeof locked !== 'string' && !admitsRegisterTool(range))
        return `package.json pins ${SDK} "${range}", which has no registerTool (1.12.0+)`;
      return undefined;
    }
    if (path.dirname(dir) === dir) return undefined;
  }
}

interface Manifest {
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  /** package-lock.json v2/v3 */
  packages?: Record<string, { version?: string }>;
}

function readJson(file: string): Manifest | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as Manifest;
  } catch {
    return undefined;
  }
}

function parseVersion(text: string): Version | undefined {
  const match = /(\d+)(?:\.(\d+|[xX*]))?(?:\.(\d+|[xX*]))?/.exec(text);
  if (!match) return undefined;
  const part = (s: string | undefined) => (s === undefined || /[xX*]/.test(s) ? Number.NaN : Number(s));
  return [Number(match[1]), part(match[2]), part(match[3])];
}

function below(version: Version | undefined, bound: Version): boolean {
  if (!version) return false;
  for (let i = 0; i < 3; i++) {
    if (Number.isNaN(version[i]) || version[i] === bound[i]) continue;
    return version[i] < bound[i];
  }
  return false;
}

/** Whether any version the range admits is 1.12.0 or later (ranges we cannot read are given the benefit of the doubt). */
function admitsRegisterTool(range: string): boolean {
  return range.split('||').some((alternative) => {
    const text = alternative.trim();
    if (/^(?:|\*|x|latest|next)$/i.test(text) || !/^[\s\d.xX*^~<>=v-]+$/.test(text)) return true;
    const upper = /<(=?)\s*v?([\d.xX*]+)/.exec(text);
    if (upper) {
      const bound = parseVersion(upper[2]);
      return !!bound && (upper[1] === '=' ? !below(bound, REGISTER_TOOL_SINCE) : below(REGISTER_TOOL_SINCE, bound));
    }
    if (/^>/.test(text)) return true;
    const version = parseVersion(text);
    if (!version) return true;
    if (text.startsWith('^')) return version[0] >= 1;
    // `~1.11.0`, `1.11.x`, `1.11`: this minor only; `1.10.1`: exactly that.
    const minorOnly = text.startsWith('~') || Number.isNaN(version[2]);
    if (Number.isNaN(version[1])) return version[0] >= 1;
    if (minorOnly) return !below([version[0], version[1], Number.NaN], [REGISTER_TOOL_SINCE[0], REGISTER_TOOL_SINCE[1], 0]);
    return !below(version, REGISTER_TOOL_SINCE);
  });
}
