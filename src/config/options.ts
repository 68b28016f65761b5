// Every option of `check` and `apply`, once: the CLI builds its yargs options from this table, the configuration
// loader validates keys and values with it and hands each command only its own keys, and the published JSON schema
// (schema/mcp-migrate.config.schema.json) is generated from it.
import { REPORT_FORMATS } from '../report/options';
import { DEFAULT_TARGET, TARGETS } from '../engine/targets';

export type Command = 'check' | 'apply';
export type OptionKind = 'string' | 'boolean' | 'integer' | 'string[]';

export interface OptionSpec {
  name: string;
  commands: readonly Command[];
  kind: OptionKind;
  describe: string;
  alias?: string;
  choices?: readonly string[];
  default?: string | boolean | number | string[];
  /** Smallest allowed value (integers). */
  minimum?: number;
  /** May be set in the configuration file (default: yes). */
  inConfig?: boolean;
  /** A file path: in the configuration file it is relative to that file's folder. */
  isPath?: boolean;
}

const BOTH: readonly Command[] = ['check', 'apply'];

export const OPTION_SPECS: readonly OptionSpec[] = [
  { name: 'format', alias: 'f', commands: BOTH, kind: 'string', choices: REPORT_FORMATS, default: 'text', describe: 'Report format' },
  {
    name: 'output',
    alias: 'o',
    commands: BOTH,
    kind: 'string',
    inConfig: false,
    describe: 'Write the report to this file (its folder is created) instead of stdout',
  },
  {
    name: 'color',
    commands: BOTH,
    kind: 'boolean',
    inConfig: false,
    describe: 'Colour the text report (default: on a terminal, unless NO_COLOR is set; FORCE_COLOR forces it)',
  },
  {
    name: 'gitignore',
    commands: BOTH,
    kind: 'boolean',
    default: true,
    describe: 'Honour .gitignore (--no-gitignore to scan ignored files)',
  },
  { name: 'include', commands: BOTH, kind: 'string[]', default: [], describe: 'Only files matching this glob (repeatable)' },
  { name: 'exclude', commands: BOTH, kind: 'string[]', default: [], describe: 'Skip files matching this glob (repeatable)' },
  { name: 'rule', commands: BOTH, kind: 'string[]', default: [], describe: 'Run only this rule id (repeatable)' },
  { name: 'skip-rule', commands: BOTH, kind: 'string[]', default: [], describe: 'Do not run this rule id (repeatable)' },
  {
    name: 'max-file-size',
    commands: BOTH,
    kind: 'integer',
    minimum: 1,
    default: 1_000_000,
    describe: 'Skip files larger than this many bytes',
  },
  {
    name: 'max-warnings',
    commands: ['check'],
    kind: 'integer',
    minimum: -1,
    default: -1,
    describe: 'Also fail when warnings exceed this count (-1: never)',
  },
  {
    name: 'baseline',
    commands: ['check'],
    kind: 'string',
    isPath: true,
    describe: 'Leave out the findings recorded in this baseline file; only new ones fail',
  },
  {
    name: 'baseline-write',
    commands: ['check'],
    kind: 'string',
    inConfig: false,
    describe: "Record today's findings in this baseline file (then check against it)",
  },
  {
    name: 'dry-run',
    alias: 'n',
    commands: ['apply'],
    kind: 'boolean',
    default: false,
    inConfig: false,
    describe: 'Write nothing; print the unified diff; exit 1 when changes are pending',
  },
  { name: 'unsafe', commands: ['apply'], kind: 'boolean', default: false, describe: 'Also apply unsafe fixes (e.g. binding 127.0.0.1)' },
  {
    name: 'allow-dirty',
    commands: ['apply'],
    kind: 'boolean',
    default: false,
    inConfig: false,
    describe: 'Write even when the files to change have uncommitted git changes',
  },
  {
    name: 'target',
    commands: ['apply'],
    kind: 'string',
    choices: TARGETS,
    default: DEFAULT_TARGET,
    describe: 'Protocol revision to migrate to: 2026-07-28 (v2 SDK packages, createMcpHandler) or 2025-11-25 (stay on the v1 SDK)',
  },
  {
    name: 'legacy',
    commands: ['apply'],
    kind: 'string',
    choices: ['stateless', 'reject'],
    default: 'stateless',
    describe: '2026-07-28 target: serve 2025-era clients statelessly, or reject them',
  },
  {
    name: 'endpoint',
    commands: ['apply'],
    kind: 'string',
    default: '/mcp',
    describe: 'Endpoint path for servers that only had the legacy HTTP+SSE transport',
  },
];

export function specsFor(command: Command): OptionSpec[] {
  return OPTION_SPECS.filter((spec) => spec.commands.includes(command));
}

export const CONFIG_SPECS: readonly OptionSpec[] = OPTION_SPECS.filter((spec) => spec.inConfig !== false);

/** The JSON schema of the configuration file (also what `package.json`'s `"mcp-migrate"` key holds). */
export function configSchema(): Record<string, unknown> {
  const properties: Record<string, unknown> = { $schema: { type: 'string', description: 'This schema' } };
  for (const spec of CONFIG_SPECS) {
    const property: Record<string, unknown> = { description: `${spec.describe} (${spec.commands.join(', ')})` };
    if (spec.kind === 'string[]') Object.assign(property, { type: 'array', items: { type: 'string' } });
    else property.type = spec.kind;
    if (spec.choices) property.enum = [...spec.choices];
    if (spec.minimum !== undefined) property.minimum = spec.minimum;
    if (spec.default !== undefined) property.default = spec.default;
    properties[spec.name] = property;
  }
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: 'https://unpkg.com/mcp-migrate/schema/mcp-migrate.config.schema.json',
    title: 'mcp-migrate configuration',
    description:
      'mcp-migrate.config.json, or the "mcp-migrate" key of package.json. Keys are the long option names; a key only the other command has is ignored; a flag on the command line wins.',
    type: 'object',
    additionalProperties: false,
    properties,
  };
}
