// `apply` analyses first (the same two-stage selection as `check`), then edits: on a generated monorepo, where half the
// ordinary files mention a weak marker, `apply --dry-run` changes only candidate files (and the manifests of their
// packages), and what it analyses is the candidates plus the few files imports link to them.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { apply } from '../src/engine/apply';
import { scan } from '../src/engine/scan';
import { isCandidate, mayContainMcpCode } from '../src/engine/prefilter';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { makeTree } = require('../bench/tree.js') as { makeTree(root: string, options: object): number };

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-migrate-apply-candidates-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const SOURCE = /\.(?:[cm]?[jt]s|[jt]sx)$/;

it('apply --dry-run on the bench tree touches only candidate files', { timeout: 300_000 }, () => {
  // Three servers, three copies each (the third inside an API service), among ~300 ordinary files.
  makeTree(root, { files: 300, copies: 3, seed: 5, servers: ['a-express-shared-server', 'b-router-mounted', 'c-auth-middleware'] });
  const all = fs
    .readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && SOURCE.test(entry.name))
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'));
  const text = (rel: string) => fs.readFileSync(path.join(root, rel), 'utf8');
  const prefiltered = all.filter((rel) => mayContainMcpCode(text(rel)));
  const candidates = prefiltered.filter((rel) => isCandidate(text(rel)));
  const weakOnly = prefiltered.filter((rel) => !isCandidate(text(rel)));

  const analysed = scan({ paths: [root], cwd: root }).sources.map((source) => source.relPath);
  expect(analysed).toEqual(expect.arrayContaining(candidates));
  // The few ordinary files linked to candidates (the CORS helper of a service an MCP server lives in), not the others.
  expect(analysed.length - candidates.length).toBeGreaterThan(0);
  expect(analysed.length - candidates.length).toBeLessThan(weakOnly.length / 10);

  const result = apply({ paths: [root], cwd: root, dryRun: true });
  const changed = result.changes.map((change) => change.file);
  expect(changed.length).toBeGreaterThan(0);
  for (const file of changed) {
    if (path.posix.basename(file) === 'package.json') {
      const dir = `${path.posix.dirname(file)}/`;
      expect(
        candidates.some((candidate) => candidate.startsWith(dir)),
        `${file} owns a candidate`,
      ).toBe(true);
    } else {
      expect(candidates, file).toContain(file);
    }
  }
});
