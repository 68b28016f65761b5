// The import scanner, the graph it builds and the two-stage selection on top of it.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ImportGraph, localSpecifiers } from '../src/engine/import-graph';
import { plannedSources, readTree } from '../src/engine/read-tree';
import { analyzePlans } from '../src/engine/analyze-plans';
import { allRules } from '../src/rules';
import { planAnalysis, type SelectableFile } from '../src/engine/select';

describe('localSpecifiers', () => {
  it('finds every ESM and CommonJS form, on one line or several', () => {
    const text = [
      `import def, { a, type B } from './named.js';`,
      `import type { T } from "../types";`,
      `import './side-effect';`,
      `import {\n  one,\n  two,\n} from './multi-line';`,
      `export * from './star';`,
      `export { x as y } from './re-export.ts';`,
      `const lazy = await import('./dynamic');`,
      `const cjs = require('./cjs.cjs');`,
      `const spaced = require ( './spaced' );`,
      'import eq = require(`./import-equals`);',
      `/// <reference path="./ambient.d.ts" />`,
      `import('.');`,
      `import up from '..';`,
      `import abs from '/abs/mod';`,
    ].join('\n');
    expect(localSpecifiers(text)).toEqual([
      './named.js',
      '../types',
      './side-effect',
      './multi-line',
      './star',
      './re-export.ts',
      './dynamic',
      './cjs.cjs',
      './spaced',
      './import-equals',
      './ambient.d.ts',
      '.',
      '..',
      '/abs/mod',
    ]);
  });

  it('ignores packages, and keeps what only looks like an import (an extra link is harmless, a missed one is not)', () => {
    const text = [
      `import express from 'express';`,
      `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';`,
      `const fs = require('node:fs');`,
      `// import { old } from './commented-out';`,
      `const help = "run: import x from './in-a-string'";`,
      `const from = './not-after-a-keyword';`,
    ].join('\n');
    expect(localSpecifiers(text)).toEqual(['./commented-out', './in-a-string']);
  });
});

const file = (absPath: string, specifiers: string[] = []) => ({ absPath, specifiers });

describe('ImportGraph', () => {
  it('resolves as TypeScript may: swapped script extensions, extensionless paths, directory indexes, any case', () => {
    const graph = new ImportGraph([
      file('/p/src/main.ts', ['./a.js', './b', './lib', '../README', './c.mjs', '/p/src/Upper']),
      file('/p/src/a.ts'),
      file('/p/src/b.tsx'),
      file('/p/src/lib/index.ts', ['..']),
      file('/p/src/c.mts'),
      file('/p/src/upper.ts'),
      file('/p/src/unrelated.ts'),
      file('/p/src/index.js'),
    ]);
    expect(graph.imports[0]).toEqual([1, 2, 3, 4, 5]);
    expect(graph.imports[3]).toEqual([7]);
    expect(graph.importers[1]).toEqual([0]);
  });

  it('follows path aliases no package name can start with to the nearest project file they can name', () => {
    expect(localSpecifiers(`import { a } from '@/lib/a';\nimport b from '~/b';\nimport c from '#c';\nimport d from '@scope/d';`)).toEqual([
      '@/lib/a',
      '~/b',
      '#c',
    ]);
    const graph = new ImportGraph([
      file('/p/pages/api/mcp.ts', ['@/lib/a', '~/b', '#c', '@/missing']),
      file('/p/lib/a.ts'),
      file('/p/src/b.ts'),
      file('/p/src/c/index.ts'),
    ]);
    expect(graph.imports[0]).toEqual([1, 2, 3]);
  });

  it('groups files linked in either direction, and reaches along one direction', () => {
    // 0 → 1 → 2, 3 → 1, 4 alone
    const graph = new ImportGraph([
      file('/r/a.ts', ['./b']),
      file('/r/b.ts', ['./c']),
      file('/r/c.ts'),
      file('/r/d.ts', ['./b']),
      file('/r/e.ts'),
    ]);
    expect(graph.groups()).toEqual([[0, 1, 2, 3], [4]]);
    expect([...graph.closure([1], 'forward')].sort()).toEqual([1, 2]);
    expect([...graph.closure([1], 'backward')].sort()).toEqual([0, 1, 3]);
    expect(graph.groups(new Set([0, 2, 3]))).toEqual([[0], [2], [3]]);
  });
});

describe('planAnalysis', () => {
  const selectable = (absPath: string, specifiers: string[], candidate: boolean, mentionsOrigin = false): SelectableFile => ({
    absPath,
    specifiers,
    candidate,
    mentionsOrigin,
  });

  it('never parses a group without a candidate', () => {
    expect(planAnalysis([selectable('/r/a.ts', ['./b'], false), selectable('/r/b.ts', [], false)])).toEqual([]);
  });

  it('analyses the candidates, the files that reach them and what those reach; leaves the rest out, probing Origin', () => {
    const files = [
      selectable('/r/mcp.ts', ['./helper'], true), // 0 candidate
      selectable('/r/helper.ts', [], false), // 1 imported by the candidate
      selectable('/r/app.ts', ['./mcp', './config'], false), // 2 mounts the candidate and listens
      selectable('/r/config.ts', [], false), // 3 imported by the app
      selectable('/r/cors.ts', ['./config'], false, true), // 4 linked only through config
      selectable('/r/jobs.ts', ['./config'], false), // 5 likewise
    ];
    expect(planAnalysis(files)).toEqual([{ files: [0, 1, 2, 3], originProbes: [4], rest: [5] }]);
  });

  it('analyses the whole group when the files it needs are linked only through files it would leave out', () => {
    const files = [
      selectable('/r/a/server.ts', ['../shared/a'], true),
      selectable('/r/b/server.ts', ['../shared/b'], true),
      selectable('/r/shared/a.ts', [], false),
      selectable('/r/shared/b.ts', [], false),
      selectable('/r/shared/both.ts', ['./a', './b'], false),
    ];
    expect(planAnalysis(files)).toEqual([{ files: [0, 1, 2, 3, 4], originProbes: [], rest: [] }]);
  });
});

describe('plannedSources', () => {
  const server = "import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';\nimport { cors } from './cors';\n";
  const cors = 'export const cors = (req) => req.headers.origin;\n';
  const tree = (files: Record<string, string>) => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-migrate-planned-'));
    for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(root, name), text);
    return root;
  };

  it('keeps only the candidates read and reads the files to analyse or probe again', () => {
    const root = tree({ 'server.ts': server, 'cors.ts': cors, 'app.ts': "import './cors';\napp.listen(3000);\n" });
    try {
      const read = readTree({ paths: [root], cwd: root });
      expect(read.prefiltered.map((file) => [path.basename(file.absPath), file.source !== undefined])).toEqual([
        ['app.ts', false],
        ['cors.ts', false],
        ['server.ts', true],
      ]);
      const { plans, loaded } = plannedSources(read);
      expect(plans.map((plan) => plan.files.map((file) => [file.relPath, file.text]))).toEqual([
        [
          ['cors.ts', cors],
          ['server.ts', server],
        ],
      ]);
      // app.ts neither mentions Origin nor is needed: it goes by path, read only if a probe of its group validates Origin.
      expect(plans[0].rest).toEqual([{ absPath: path.join(root, 'app.ts'), relPath: 'app.ts' }]);
      expect(loaded.map((file) => [file.relPath, file.source.eol])).toEqual([
        ['cors.ts', '\n'],
        ['server.ts', '\n'],
      ]);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it('leaves out, as a problem, a planned file that can no longer be read', () => {
    const root = tree({ 'server.ts': server, 'cors.ts': cors });
    try {
      const read = readTree({ paths: [root], cwd: root });
      fs.rmSync(path.join(root, 'cors.ts'));
      const { plans } = plannedSources(read);
      expect(plans[0].files.map((file) => file.relPath)).toEqual(['server.ts']);
      expect(read.problems).toEqual([{ file: 'cors.ts', kind: 'unreadable', message: 'cannot read file (ENOENT)' }]);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('analyzePlans', () => {
  const source = (root: string, relPath: string, text: string) => ({ absPath: path.join(root, relPath), relPath, text });

  it('reads the files left out of a plan only when an Origin probe validates Origin, and reports one that is gone', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-migrate-rest-'));
    try {
      fs.writeFileSync(path.join(root, 'jobs.ts'), "import { config } from './config';\nexport const jobs = [config];\n");
      const plan = (probe: string) => ({
        files: [source(root, 'server.ts', "import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';\nimport './config';\n")],
        originProbes: [source(root, 'cors.ts', `import './config';\n${probe}`)],
        rest: [
          { absPath: path.join(root, 'jobs.ts'), relPath: 'jobs.ts' },
          { absPath: path.join(root, 'gone.ts'), relPath: 'gone.ts' },
        ],
      });
      const echoing = analyzePlans(
        [plan("export const cors = (req, res) => res.setHeader('Vary', req.headers.origin);\n")],
        allRules,
        1_000_000,
      );
      expect(echoing.sources.map((file) => file.relPath)).toEqual(['server.ts']);
      expect(echoing.restRead).toEqual([]);
      expect(echoing.dropped).toEqual([]);
      const validating = analyzePlans(
        [plan("export const cors = (req, res) => { if (req.headers.origin !== 'https://a.example') res.status(403).end(); };\n")],
        allRules,
        1_000_000,
      );
      expect(validating.sources.map((file) => file.relPath)).toEqual(['server.ts', 'cors.ts', 'jobs.ts']);
      expect(validating.restRead.map((file) => [file.relPath, file.source.eol])).toEqual([['jobs.ts', '\n']]);
      expect(validating.dropped).toEqual([{ file: 'gone.ts', kind: 'unreadable', message: 'cannot read file (ENOENT)' }]);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
