// The configuration file: `mcp-migrate.config.json` in the working directory (or `--config FILE`). It is data, never
// code: the tool does not execute anything from the project it scans. Every key mirrors a CLI option; a flag given
// on the command line wins. A malformed file is a usage error (exit 2) naming the exact problem.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { UsageError } from '../engine/errors';

export const CONFIG_FILE = 'mcp-migrate.config.json';

type Kind = 'string' | 'boolean' | 'number' | 'string[]';

/** Allowed keys, their types and (for enums) their values. */
const SCHEMA: Record<string, { kind: Kind; values?: readonly string[] }> = {
  format: { kind: 'string', values: ['text', 'json', 'markdown', 'sarif', 'github', 'junit'] },
  rule: { kind: 'string[]' },
  'skip-rule': { kind: 'string[]' },
  include: { kind: 'string[]' },
  exclude: { kind: 'string[]' },
  gitignore: { kind: 'boolean' },
  'max-file-size': { kind: 'number' },
  'max-warnings': { kind: 'number' },
  target: { kind: 'string', values: ['2025-11-25', '2026-07-28'] },
  legacy: { kind: 'string', values: ['stateless', 'reject'] },
  unsafe: { kind: 'boolean' },
  endpoint: { kind: 'string' },
};

export type Config = Record<string, string | boolean | number | string[]>;

/** `--config FILE` from argv, or the default file in cwd when it exists; undefined when there is none. */
export function loadConfig(argv: string[], cwd: string): Config | undefined {
  const flag = argv.findIndex((a) => a === '--config' || a.startsWith('--config='));
  let file: string | undefined;
  if (flag >= 0) {
    file = argv[flag].includes('=') ? argv[flag].slice('--config='.length) : argv[flag + 1];
    if (!file) throw new UsageError('--config needs a file name');
  } else if (fs.existsSync(path.join(cwd, CONFIG_FILE))) {
    file = CONFIG_FILE;
  }
  if (!file) return undefined;
  const absolute = path.resolve(cwd, file);
  let text: string;
  try {
    text = fs.readFileSync(absolute, 'utf8');
  } catch (error) {
    throw new UsageError(
      `${file}: cannot read the configuration file (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    );
  }
  return parseConfig(text, file);
}

export function parseConfig(text: string, file: string): Config {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    const position = /position (\d+)/.exec((error as Error).message)?.[1];
    const where = position === undefined ? '' : ` at ${lineColumn(text, Number(position))}`;
    throw new UsageError(`${file}: not valid JSON${where}: ${(error as Error).message}`);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data))
    throw new UsageError(`${file}: the configuration must be a JSON object`);
  const config: Config = {};
  for (const [key, value] of Object.entries(data as Record<string, unknown>)) {
    if (key === '$schema') continue;
    const spec = SCHEMA[key];
    if (!spec) throw new UsageError(`${file}: unknown key "${key}" (allowed: ${Object.keys(SCHEMA).join(', ')})`);
    const ok = spec.kind === 'string[]' ? Array.isArray(value) && value.every((v) => typeof v === 'string') : typeof value === spec.kind;
    if (!ok)
      throw new UsageError(
        `${file}: "${key}" must be ${spec.kind === 'string[]' ? 'an array of strings' : `a ${spec.kind}`}, got ${JSON.stringify(value)}`,
      );
    if (spec.values && !spec.values.includes(value as string))
      throw new UsageError(`${file}: "${key}" must be one of ${spec.values.join(', ')}, got ${JSON.stringify(value)}`);
    config[key] = value as Config[string];
  }
  return config;
}

function lineColumn(text: string, offset: number): string {
  const before = text.slice(0, offset).split('\n');
  return `line ${before.length}, column ${before[before.length - 1].length + 1}`;
}
