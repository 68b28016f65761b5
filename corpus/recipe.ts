// The recipe format of corpus/recipes/<owner>+<name>.json (documented in corpus/README.md) and its validation.

export type LegacyClient = 'sse' | 'streamable';

export interface RecipeStart {
  /** Shell command that starts the server; `{port}` is replaced by a free port on 127.0.0.1. */
  command: string;
  /** Extra environment (dummy credentials…); `{port}` is replaced in the values too. */
  env: Record<string, string>;
  /** Folder the command runs in, relative to the repository root (default: `app`). */
  cwd?: string;
  /** Seconds to wait for the port to accept connections (default 30). */
  bootTimeout?: number;
  /** The port the app always listens on, for an app that cannot be told one (instead of `{port}`). */
  port?: number;
}

export interface RecipeTool {
  name: string;
  arguments: Record<string, unknown>;
  /** Text the tool's result must contain. */
  expectText?: string;
  /** The result must be `isError` (a tool that needs a service absent here still makes a full round trip). */
  expectError?: boolean;
}

export interface Recipe {
  /** `<owner>+<name>`: the recipe's file name and the folder under DIR. */
  id: string;
  repo: string;
  commit: string;
  family: string;
  framework: string;
  scan: string;
  app: string;
  runnable: boolean;
  why?: string;
  install: string;
  build?: string;
  typecheck?: string;
  start?: RecipeStart;
  legacy?: { client: LegacyClient; path: string };
  endpoint: string;
  headers: Record<string, string>;
  /** The tools to call, in order: `tool`, then `moreTools` (a tool that uses the request context, a prompt's neighbour). */
  tools: RecipeTool[];
  /** Seconds each of install, build and typecheck may take (default 600). */
  stepTimeout: number;
  notes?: string;
}

export const DEFAULT_INSTALL = 'npm install --no-audit --no-fund';

const KNOWN_KEYS = new Set([
  'repo',
  'commit',
  'family',
  'framework',
  'scan',
  'app',
  'runnable',
  'why',
  'install',
  'build',
  'typecheck',
  'start',
  'legacy',
  'endpoint',
  'headers',
  'tool',
  'moreTools',
  'stepTimeout',
  'notes',
]);

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

function isStringRecord(value: unknown): value is Record<string, string> {
  return isObject(value) && Object.values(value).every((v) => typeof v === 'string');
}

/** A relative path that stays inside the repository. */
function isInsidePath(value: unknown): value is string {
  return typeof value === 'string' && !value.startsWith('/') && !value.split(/[\\/]/).includes('..');
}

/** Reads one recipe; throws one error listing every problem found (the file name first). */
export function parseRecipe(id: string, raw: unknown): Recipe {
  const problems: string[] = [];
  const need = (ok: boolean, problem: string) => {
    if (!ok) problems.push(problem);
  };
  if (!isObject(raw)) throw new Error(`${id}: a recipe is a JSON object`);
  for (const key of Object.keys(raw)) need(KNOWN_KEYS.has(key), `unknown key "${key}"`);
  const r = raw;
  need(/^[\w.-]+\+[\w.-]+$/.test(id), 'the file name must be <owner>+<name>.json');
  need(typeof r.repo === 'string' && r.repo.replace('/', '+') === id, `"repo" must be "${id.replace('+', '/')}"`);
  need(typeof r.commit === 'string' && /^[0-9a-f]{40}$/.test(r.commit), '"commit" must be a 40-hex commit');
  for (const key of ['family', 'framework'] as const) need(typeof r[key] === 'string' && r[key] !== '', `"${key}" must be a string`);
  for (const key of ['scan', 'app'] as const)
    need(r[key] === undefined || isInsidePath(r[key]), `"${key}" must be a path inside the repository`);
  for (const key of ['install', 'build', 'typecheck', 'why', 'notes'] as const) {
    need(r[key] === undefined || (typeof r[key] === 'string' && r[key] !== ''), `"${key}" must be a non-empty string`);
  }
  need(r.runnable === undefined || typeof r.runnable === 'boolean', '"runnable" must be true or false');
  const runnable = r.runnable !== false;
  need(runnable || typeof r.why === 'string', '"why" must say why a recipe is not runnable');
  need(r.headers === undefined || isStringRecord(r.headers), '"headers" must map names to strings');
  need(r.endpoint === undefined || (typeof r.endpoint === 'string' && r.endpoint.startsWith('/')), '"endpoint" must start with /');
  need(
    r.stepTimeout === undefined || (typeof r.stepTimeout === 'number' && r.stepTimeout > 0),
    '"stepTimeout" must be a positive number of seconds',
  );

  const start = r.start;
  if (start !== undefined) {
    const ok =
      isObject(start) &&
      typeof start.command === 'string' &&
      (start.env === undefined || isStringRecord(start.env)) &&
      (start.cwd === undefined || isInsidePath(start.cwd)) &&
      (start.bootTimeout === undefined || (typeof start.bootTimeout === 'number' && start.bootTimeout > 0)) &&
      (start.port === undefined || (typeof start.port === 'number' && Number.isInteger(start.port) && start.port > 0));
    need(ok, '"start" must be { command, env?, cwd?, bootTimeout?, port? } with string env values');
    const usesPort = ok && ((start.command as string).includes('{port}') || JSON.stringify(start.env ?? {}).includes('{port}'));
    need(!ok || usesPort !== (start.port !== undefined), '"start" must use {port}, or name the fixed "port" its app always listens on');
  }
  const legacy = r.legacy;
  if (legacy !== undefined) {
    need(
      isObject(legacy) && (legacy.client === 'sse' || legacy.client === 'streamable') && typeof legacy.path === 'string',
      `"legacy" must be { client: 'sse' | 'streamable', path }`,
    );
  }
  const tools = [r.tool, ...(Array.isArray(r.moreTools) ? r.moreTools : [])].filter((tool) => tool !== undefined);
  need(r.moreTools === undefined || Array.isArray(r.moreTools), '"moreTools" must be an array of tools');
  for (const tool of tools) {
    need(
      isObject(tool) &&
        typeof tool.name === 'string' &&
        (tool.arguments === undefined || isObject(tool.arguments)) &&
        (tool.expectText === undefined || typeof tool.expectText === 'string') &&
        (tool.expectError === undefined || typeof tool.expectError === 'boolean'),
      '"tool" and each of "moreTools" must be { name, arguments?, expectText?, expectError? }',
    );
  }
  if (runnable) {
    need(start !== undefined, 'a runnable recipe needs "start"');
    need(legacy !== undefined, 'a runnable recipe needs "legacy"');
    need(r.endpoint !== undefined, 'a runnable recipe needs "endpoint"');
  }
  if (problems.length > 0) throw new Error(`${id}: ${problems.join('; ')}`);

  const s = start as Json | undefined;
  return {
    id,
    repo: r.repo as string,
    commit: r.commit as string,
    family: r.family as string,
    framework: r.framework as string,
    scan: (r.scan as string | undefined) ?? '.',
    app: (r.app as string | undefined) ?? '.',
    runnable,
    why: r.why as string | undefined,
    install: (r.install as string | undefined) ?? DEFAULT_INSTALL,
    build: r.build as string | undefined,
    typecheck: r.typecheck as string | undefined,
    start: s && {
      command: s.command as string,
      env: (s.env as Record<string, string> | undefined) ?? {},
      cwd: s.cwd as string | undefined,
      bootTimeout: s.bootTimeout as number | undefined,
      port: s.port as number | undefined,
    },
    legacy: legacy as Recipe['legacy'],
    endpoint: (r.endpoint as string | undefined) ?? '/mcp',
    headers: (r.headers as Record<string, string> | undefined) ?? {},
    tools: (tools as Json[]).map((t) => ({
      name: t.name as string,
      arguments: (t.arguments as Record<string, unknown> | undefined) ?? {},
      expectText: t.expectText as string | undefined,
      expectError: t.expectError === true,
    })),
    stepTimeout: (r.stepTimeout as number | undefined) ?? 600,
    notes: r.notes as string | undefined,
  };
}

/** `{port}` replaced in a start command or env value. */
export function withPort(text: string, port: number): string {
  return text.replaceAll('{port}', String(port));
}
