// The monorepo `npm run bench` measures: packages of ordinary TypeScript (API services, web front ends, libraries)
// whose code mentions the pre-filter's weak markers as real web apps do — session ids, `text/event-stream`
// notification feeds, `.listen(`, request handlers named `handleRequest`, CORS code reading `headers.origin`, event
// stores — plus copies of every fixture server (about 1% of the files). A third of those copies live inside an API
// service and import its CORS helper, as an MCP endpoint added to an existing app would. Deterministic for a seed.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const FIXTURE_SERVERS = path.join(__dirname, '..', 'fixtures', 'servers');
const SOURCE_FILE = /\.(?:[cm]?[jt]s|[jt]sx)$/;

/** mulberry32: a small seeded PRNG, so every run measures the same tree. */
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const NOUNS = ['order', 'invoice', 'user', 'account', 'report', 'ticket', 'shipment', 'product', 'review', 'payment', 'team', 'project'];
const pascal = (word) => word[0].toUpperCase() + word.slice(1);

// ---- ordinary modules: each returns its body; `imports` are prepended by the package writer ----------------------

function model(noun, n, rnd) {
  const T = pascal(noun);
  return `/** ${T} records as the API and the database see them (${n}). */
export interface ${T}${n} {
  id: string;${rnd() < 0.35 ? '\n  /** The login session that last changed it. */\n  sessionId?: string;' : ''}
  createdAt: Date;
  updatedAt: Date;
  ownerId: string;
  status: 'draft' | 'active' | 'archived';
  tags: string[];
  amountCents: number;
}

export interface ${T}${n}Page {
  items: ${T}${n}[];
  nextCursor?: string;
  total: number;
}

export function is${T}${n}(value: unknown): value is ${T}${n} {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return typeof record.id === 'string' && typeof record.ownerId === 'string' && Array.isArray(record.tags);
}

export function compare${T}${n}(a: ${T}${n}, b: ${T}${n}): number {
  if (a.createdAt.getTime() !== b.createdAt.getTime()) return a.createdAt.getTime() - b.createdAt.getTime();
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
`;
}

function service(noun, n, rnd) {
  const T = pascal(noun);
  const session = rnd() < 0.6;
  const events = rnd() < 0.12;
  return `export class ${T}Service${n} {
  private readonly cache = new Map<string, { value: unknown; expires: number }>();
${events ? `  private readonly eventStore: Array<{ type: string; at: number; payload: unknown }> = [];\n` : ''}
  constructor(private readonly db: { query(sql: string, params: unknown[]): Promise<unknown[]> }) {}

  async find(id: string${session ? ', sessionId?: string' : ''}): Promise<unknown | undefined> {
    const cached = this.cache.get(id);
    if (cached && cached.expires > Date.now()) return cached.value;
    const [row] = await this.db.query('select * from ${noun}s where id = $1', [id]);
${session ? `    if (sessionId) await this.db.query('update sessions set last_seen = now() where session_id = $1', [sessionId]);\n` : ''}    this.cache.set(id, { value: row, expires: Date.now() + 30_000 });
    return row;
  }

  async list(ownerId: string, limit = 50): Promise<unknown[]> {
    const rows = await this.db.query('select * from ${noun}s where owner_id = $1 order by created_at limit $2', [ownerId, limit]);
    return rows.filter((row) => row !== null);
  }

  async archive(id: string): Promise<void> {
    await this.db.query("update ${noun}s set status = 'archived' where id = $1", [id]);
    this.cache.delete(id);
${events ? `    this.eventStore.push({ type: '${noun}.archived', at: Date.now(), payload: { id } });\n` : ''}  }
}
`;
}

function route(noun, n, rnd) {
  const T = pascal(noun);
  const feed = rnd() < 0.4;
  const session = rnd() < 0.5;
  return `import { Router, type Request, type Response } from 'express';

export const ${noun}Routes${n} = Router();

${noun}Routes${n}.get('/${noun}s/:id', async (req: Request, res: Response) => {
${session ? `  const sessionId = req.cookies?.sessionId as string | undefined;\n  if (!sessionId) return res.status(401).json({ error: 'login required' });\n` : ''}  const id = String(req.params.id);
  if (!/^[a-z0-9-]{8,}$/.test(id)) return res.status(400).json({ error: 'bad id' });
  res.json({ id, kind: '${T}' });
});

${noun}Routes${n}.post('/${noun}s', async (req: Request, res: Response) => {
  const body = req.body as Record<string, unknown>;
  if (typeof body.name !== 'string') return res.status(422).json({ error: 'name is required' });
  res.status(201).json({ id: crypto.randomUUID(), name: body.name });
});
${
  feed
    ? `
// Live updates for the dashboard: one event per change.
${noun}Routes${n}.get('/${noun}s/feed', (req: Request, res: Response) => {
  res.setHeader('Content-Type', 'text/event-stream');
  res.setHeader('Cache-Control', 'no-cache');
  const timer = setInterval(() => res.write(\`data: \${JSON.stringify({ at: Date.now() })}\\n\\n\`), 5000);
  req.on('close', () => clearInterval(timer));
});
`
    : ''
}`;
}

function handler(noun, n) {
  const T = pascal(noun);
  return `export interface ${T}Command${n} {
  type: 'create' | 'update' | 'delete';
  id: string;
  payload?: Record<string, unknown>;
}

/** Dispatches queue messages to the ${noun} store. */
export class ${T}Handler${n} {
  private handled = 0;

  async handleRequest(command: ${T}Command${n}): Promise<{ ok: boolean; error?: string }> {
    this.handled += 1;
    switch (command.type) {
      case 'create':
      case 'update':
        return command.payload ? { ok: true } : { ok: false, error: 'payload required' };
      case 'delete':
        return { ok: true };
      default:
        return { ok: false, error: 'unknown command' };
    }
  }

  get count(): number {
    return this.handled;
  }
}
`;
}

function cors(n) {
  return `import type { NextFunction, Request, Response } from 'express';

const allowed${n} = new Set((process.env.ALLOWED_ORIGINS ?? 'http://localhost:5173').split(','));

/** Rejects browser requests from origins we do not serve. */
export function checkOrigin(req: Request, res: Response, next: NextFunction): void {
  const origin = req.headers.origin;
  if (origin && !allowed${n}.has(origin)) {
    res.status(403).json({ error: 'origin not allowed' });
    return;
  }
  next();
}
`;
}

function server(n) {
  return `import express from 'express';
import { checkOrigin } from './cors';

export const app${n} = express();
app${n}.use(express.json());
app${n}.use(checkOrigin);

const port = Number(process.env.PORT ?? 8080);
app${n}.listen(port, () => console.log(\`service ${n} on \${port}\`));
`;
}

function util(noun, n, rnd) {
  const bus = rnd() < 0.3;
  return `/** Small helpers for ${noun} values (${n}). */${
    bus
      ? `
export function onChange${n}(bus: { listen(topic: string, fn: (payload: unknown) => void): () => void }, fn: () => void) {
  return bus.listen('${noun}.changed', () => fn());
}
`
      : ''
  }
export function chunk${n}<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

export function formatCents${n}(cents: number, currency = 'EUR'): string {
  return new Intl.NumberFormat('en', { style: 'currency', currency }).format(cents / 100);
}

export const slug${n} = (text: string): string =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

export function retry${n}<T>(fn: () => Promise<T>, attempts = 3): Promise<T> {
  return fn().catch((error) => (attempts > 1 ? retry${n}(fn, attempts - 1) : Promise.reject(error)));
}
`;
}

function component(noun, n, rnd) {
  const T = pascal(noun);
  const live = rnd() < 0.3;
  const session = rnd() < 0.4;
  return `import { useEffect, useState } from 'react';

export function ${T}List${n}({ ownerId }: { ownerId: string }) {
  const [items, setItems] = useState<Array<{ id: string; name: string }>>([]);
${session ? `  const sessionId = localStorage.getItem('sessionId');\n` : ''}  useEffect(() => {
    let cancelled = false;
    fetch(\`/api/${noun}s?owner=\${ownerId}\`${session ? ", { headers: { 'x-session': sessionId ?? '' } }" : ''})
      .then((r) => r.json())
      .then((data) => !cancelled && setItems(data.items));
${live ? `    const source = new EventSource('/api/${noun}s/feed'); // text/event-stream\n    source.onmessage = () => setItems((current) => [...current]);\n    return () => {\n      cancelled = true;\n      source.close();\n    };\n` : '    return () => {\n      cancelled = true;\n    };\n'}  }, [ownerId]);
  return (
    <ul className="${noun}-list">
      {items.map((item) => (
        <li key={item.id}>{item.name}</li>
      ))}
    </ul>
  );
}
`;
}

function spec(noun, n, rnd) {
  return `import { describe, expect, it } from 'vitest';
${rnd() < 0.3 ? `\nconst sessionId = 'test-session-${n}';\nvoid sessionId;\n` : ''}
describe('${noun} ${n}', () => {
  it('sorts by creation date', () => {
    const a = { id: 'a', createdAt: new Date(1) };
    const b = { id: 'b', createdAt: new Date(2) };
    expect([b, a].sort((x, y) => x.createdAt.getTime() - y.createdAt.getTime())[0].id).toBe('a');
  });

  it('rejects an empty name', () => {
    expect(() => {
      if (''.length === 0) throw new Error('name is required');
    }).toThrow('name is required');
  });
});
`;
}

/** Filler that makes module sizes vary like real ones (documented helpers, no markers). */
function helpers(noun, n, count) {
  let out = '';
  for (let i = 0; i < count; i++) {
    out += `
/**
 * Normalises a ${noun} field before it is stored (${n}.${i}): trims, collapses whitespace and caps the length so
 * that indexes stay small. Returns undefined for values that are empty after normalisation.
 */
export function normalise${pascal(noun)}${n}x${i}(value: string | undefined, max = ${64 + i * 8}): string | undefined {
  if (value === undefined) return undefined;
  const cleaned = value.trim().replace(/\\s+/g, ' ');
  return cleaned.length === 0 ? undefined : cleaned.slice(0, max);
}
`;
  }
  return out;
}

// ---- packages -----------------------------------------------------------------------------------------------------

const LAYOUTS = {
  api: [
    ['models', model, 18],
    ['services', service, 22],
    ['routes', route, 22],
    ['handlers', handler, 12],
    ['utils', util, 10],
    ['test', spec, 14],
  ],
  web: [
    ['components', component, 45],
    ['models', model, 15],
    ['utils', util, 20],
    ['test', spec, 18],
  ],
  lib: [
    ['models', model, 30],
    ['utils', util, 35],
    ['handlers', handler, 10],
    ['test', spec, 23],
  ],
};

function writePackage(root, name, layout, rnd, files) {
  const dir = path.join(root, 'packages', name);
  const written = [];
  const emit = (rel, text) => {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
    written.push(rel);
    files.count += 1;
  };
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: `@acme/${name}`, private: true }, null, 2) + '\n');
  if (layout === 'api') {
    emit('src/cors.ts', cors(files.count));
    emit('src/server.ts', server(files.count));
  }
  for (const [folder, template, count] of LAYOUTS[layout]) {
    for (let i = 0; i < count; i++) {
      const noun = NOUNS[Math.floor(rnd() * NOUNS.length)];
      const n = files.count;
      const ext = template === component ? 'tsx' : 'ts';
      const rel = `src/${folder}/${noun}-${n}${template === spec ? '.test' : ''}.${ext}`;
      // One to three imports of modules written before in this package, so the package has an import graph.
      const imports = [];
      for (let k = Math.floor(rnd() * 3) + 1; k > 0 && written.length > 0; k--) {
        const target = written[Math.floor(rnd() * written.length)];
        let specifier = path.posix.relative(path.posix.dirname(rel), target.replace(/\.tsx?$/, ''));
        if (!specifier.startsWith('.')) specifier = `./${specifier}`;
        imports.push(`import * as dep${k} from '${specifier}';\nvoid dep${k};\n`);
      }
      const body = template(noun, n, rnd) + helpers(noun, n, 2 + Math.floor(rnd() * 12));
      emit(rel, imports.join('') + body);
    }
  }
  return written;
}

/** Copies every fixture server `copies` times; every third copy goes inside an API package and imports its CORS helper. */
function writeMcpServers(root, apiPackages, copies, servers, files) {
  let placed = 0;
  for (let copy = 0; copy < copies; copy++) {
    for (const name of servers) {
      const from = path.join(FIXTURE_SERVERS, name);
      const embedded = placed % 3 === 2;
      const to = embedded
        ? path.join(root, 'packages', apiPackages[placed % apiPackages.length], 'src', `mcp-${name}-${copy}`)
        : path.join(root, 'packages', `mcp-${name}-${copy}`);
      placed += 1;
      fs.cpSync(from, to, { recursive: true, filter: (source) => !source.endsWith('fixture.json') });
      for (const file of sourceFilesUnder(to)) {
        files.count += 1;
        if (!embedded || !/\.ts$/.test(file)) continue;
        // The app's CORS helper, as an MCP endpoint added to an existing service would use it.
        const specifier = path
          .relative(path.dirname(file), path.join(to, '..', 'cors'))
          .split(path.sep)
          .join('/');
        fs.writeFileSync(
          file,
          `import { checkOrigin as appOriginCheck } from '${specifier}';\nvoid appOriginCheck;\n` + fs.readFileSync(file, 'utf8'),
        );
      }
    }
  }
}

function fixtureServers() {
  return fs
    .readdirSync(FIXTURE_SERVERS)
    .filter((name) => fs.existsSync(path.join(FIXTURE_SERVERS, name, 'fixture.json')))
    .sort();
}

function sourceFilesUnder(dir) {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && SOURCE_FILE.test(entry.name))
    .map((entry) => path.join(entry.parentPath ?? entry.path, entry.name));
}

/**
 * Writes the tree under `root`: about `files` source files, `copies` copies of the fixture servers among them (all of
 * them, or the ones named in `servers`).
 * Returns the number of source files written.
 */
function makeTree(root, { files = 10_000, copies = 3, seed = 15, servers = fixtureServers() } = {}) {
  const rnd = random(seed);
  const counter = { count: 0 };
  const apiPackages = [];
  const mcpFiles = copies * servers.reduce((sum, name) => sum + sourceFilesUnder(path.join(FIXTURE_SERVERS, name)).length, 0);
  for (let p = 0; counter.count < files - mcpFiles; p++) {
    const layout = p % 5 === 0 ? 'lib' : p % 5 < 3 ? 'api' : 'web';
    const name = `${layout}-${p}`;
    if (layout === 'api') apiPackages.push(name);
    writePackage(root, name, layout, rnd, counter);
  }
  writeMcpServers(root, apiPackages, copies, servers, counter);
  return counter.count;
}

module.exports = { makeTree };
