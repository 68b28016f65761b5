// The configuration: `--config FILE`, or the nearest `mcp-migrate.config.json` — or `package.json` with an
// `"mcp-migrate"` key — from the working directory up to the root of its git work tree. It is data, never code: the
// tool executes nothing from the project it scans. Keys are long option names (src/config/options.ts, published as
// schema/mcp-migrate.config.schema.json); each command takes its own keys and ignores the other's; a flag on the
// command line wins. A malformed file is a usage error (exit 2) naming the exact problem.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { UsageError } from '../engine/errors';
import { CONFIG_SPECS, type Command } from './options';

export const CONFIG_FILE = 'mcp-migrate.config.json';
/** The key of package.json that may hold the configuration instead. */
export const PACKAGE_KEY = 'mcp-migrate';

export type Config = Record<string, string | boolean | number | string[]>;

export interface LoadedConfig {
  /** Absolute path of the file it came from. */
  file: string;
  values: Config;
}

/** `--config FILE` from argv, or the nearest configuration up from `cwd`; undefined when there is none. */
export function loadConfig(argv: string[], cwd: string): LoadedConfig | undefined {
  const flag = argv.findIndex((a) => a === '--config' || a.startsWith('--config='));
  if (flag >= 0) {
    const file = argv[flag].includes('=') ? argv[flag].slice('--config='.length) : argv[flag + 1];
    if (!file || file.startsWith('-')) throw new UsageError('--config needs a file name');
    const absolute = path.resolve(cwd, file);
    const values = parseConfig(readText(absolute, file), file, path.dirname(absolute));
    return { file: absolute, values };
  }
  return findConfig(cwd);
}

function readText(absolute: string, label: string): string {
  try {
    return fs.readFileSync(absolute, 'utf8');
  } catch (error) {
    throw new UsageError(
      `${label}: cannot read the configuration file (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    );
  }
}

/** Walks up from `cwd` to the git work tree's root (or the file system's): the first config file or keyed package.json. */
function findConfig(cwd: string): LoadedConfig | undefined {
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    const file = path.join(dir, CONFIG_FILE);
    if (fs.existsSync(file)) return { file, values: parseConfig(readText(file, label(cwd, file)), label(cwd, file), dir) };
    const manifest = path.join(dir, 'package.json');
    if (fs.existsSync(manifest)) {
      const fromPackage = configInPackage(manifest, label(cwd, manifest));
      if (fromPackage) return { file: manifest, values: fromPackage };
    }
    if (fs.existsSync(path.join(dir, '.git')) || path.dirname(dir) === dir) return undefined;
  }
}

function label(cwd: string, file: string): string {
  return path.relative(cwd, file) || path.basename(file);
}

function configInPackage(manifest: string, name: string): Config | undefined {
  let data: unknown;
  try {
    data = JSON.parse(fs.readFileSync(manifest, 'utf8'));
  } catch {
    return undefined; // a broken package.json is its own tool's problem, not a configuration of ours
  }
  if (typeof data !== 'object' || data === null || !(PACKAGE_KEY in data)) return undefined;
  const section = (data as Record<string, unknown>)[PACKAGE_KEY];
  return validate(section, `${name} "${PACKAGE_KEY}"`, path.dirname(manifest));
}

/** Parses and validates a configuration file's text; `file` names it in messages, `baseDir` anchors path values. */
export function parseConfig(text: string, file: string, baseDir = '.'): Config {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    const position = /position (\d+)/.exec((error as Error).message)?.[1];
    const where = position === undefined ? '' : ` at ${lineColumn(text, Number(position))}`;
    throw new UsageError(`${file}: not valid JSON${where}: ${(error as Error).message}`);
  }
  return validate(data, file, baseDir);
}

function validate(data: unknown, file: string, baseDir: string): Config {
  if (typeof data !== 'object' || data === null || Array.isArray(data))
    throw new UsageError(`${file}: the configuration must be a JSON object`);
  const config: Config = {};
  for (const [key, value] of Object.entries(data as Record<string, unknown>)) {
    if (key === '$schema') continue;
    const spec = CONFIG_SPECS.find((s) => s.name === key);
    if (!spec) throw new UsageError(`${file}: unknown key "${key}" (allowed: ${CONFIG_SPECS.map((s) => s.name).join(', ')})`);
    const ok =
      spec.kind === 'string[]'
        ? Array.isArray(value) && value.every((v) => typeof v === 'string')
        : spec.kind === 'integer'
          ? Number.isInteger(value)
          : typeof value === spec.kind;
    const expected = spec.kind === 'string[]' ? 'an array of strings' : `a${spec.kind === 'integer' ? 'n' : ''} ${spec.kind}`;
    if (!ok) throw new UsageError(`${file}: "${key}" must be ${expected}, got ${JSON.stringify(value)}`);
    if (spec.choices && !spec.choices.includes(value as string))
      throw new UsageError(`${file}: "${key}" must be one of ${spec.choices.join(', ')}, got ${JSON.stringify(value)}`);
    if (spec.minimum !== undefined && (value as number) < spec.minimum)
      throw new UsageError(`${file}: "${key}" must be at least ${spec.minimum}, got ${JSON.stringify(value)}`);
    config[key] = spec.isPath ? path.resolve(baseDir, value as string) : (value as Config[string]);
  }
  return config;
}

/** The keys `command` has; the other command's keys are left out (not an error). */
export function configFor(config: Config | undefined, command: Command): Config {
  const own: Config = {};
  for (const [key, value] of Object.entries(config ?? {})) {
    if (CONFIG_SPECS.find((s) => s.name === key)?.commands.includes(command)) own[key] = value;
  }
  return own;
}

function lineColumn(text: string, offset: number): string {
  const before = text.slice(0, offset).split('\n');
  return `line ${before.length}, column ${before[before.length - 1].length + 1}`;
}
