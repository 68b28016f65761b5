// referencesOf finds references with the project's own program (not ts-morph's language service): it must return
// what ts-morph's findReferencesAsNodes returns — the same nodes, in the same order — for every identifier it may be
// asked about. Compared here on every identifier of the fixture servers' files and of a few shapes written for it.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SyntaxKind, type Node, type Project } from 'ts-morph';
import { createProject } from '../src/engine/analyze';
import { PROGRAM_REFERENCES, referencesOf } from '../src/analysis/references';

const SERVERS = path.join(__dirname, '..', 'fixtures', 'servers');
const SOURCE = /\.(?:[cm]?[jt]s|tsx)$/;

function projectOf(files: Array<{ absPath: string; text: string }>): Project {
  const project = createProject(files);
  for (const file of files) project.createSourceFile(file.absPath, file.text, { overwrite: true });
  return project;
}

/** Identifiers whose references differ, with both answers (`file:start` of each reference). */
function differences(project: Project): string[] {
  const at = (node: Node) => `${node.getSourceFile().getBaseName()}:${node.getStart()}`;
  const found: string[] = [];
  for (const file of project.getSourceFiles()) {
    for (const id of file.getDescendantsOfKind(SyntaxKind.Identifier)) {
      const expected = id.findReferencesAsNodes().map(at).join(' ');
      const actual = referencesOf(id).map(at).join(' ');
      if (actual !== expected) found.push(`${at(id)} ${id.getText()}: ${actual} instead of ${expected}`);
    }
  }
  return found;
}

describe('referencesOf', () => {
  it("uses the program's find-references with the pinned ts-morph (else the comparisons below would prove nothing)", () => {
    expect(PROGRAM_REFERENCES).toBe(true);
  });

  it('answers as ts-morph does on the fixture servers', () => {
    for (const server of fs.readdirSync(SERVERS, { withFileTypes: true }).filter((entry) => entry.isDirectory())) {
      const dir = path.join(SERVERS, server.name);
      const files = fs
        .readdirSync(dir, { recursive: true, encoding: 'utf8' })
        .filter((file) => SOURCE.test(file) && !file.includes('node_modules'))
        .map((file) => ({ absPath: path.join(dir, file), text: fs.readFileSync(path.join(dir, file), 'utf8') }));
      expect(differences(projectOf(files)), server.name).toEqual([]);
    }
  });

  it('answers as ts-morph does on imports, re-exports, requires, defaults and JSDoc', () => {
    const project = projectOf([
      {
        absPath: '/p/store.ts',
        text: [
          'export const sessions = new Map<string, object>();',
          'export default function makeStore() { return sessions; }',
          'export { sessions as allSessions };',
          'namespace Registry { export const entries = sessions; }',
          'export { Registry };',
        ].join('\n'),
      },
      {
        absPath: '/p/app.ts',
        text: [
          "import makeStore, { sessions, allSessions as every } from './store';",
          "import * as store from './store';",
          '/** @see sessions */',
          'function handle(id: string) { sessions.set(id, {}); every.get(id); store.sessions.delete(id); return makeStore(); }',
          'class Server { #clients = new Set<string>(); add(id: string) { this.#clients.add(id); handle(id); } }',
          'export { handle, Server };',
        ].join('\n'),
      },
      {
        absPath: '/p/legacy.cjs',
        text: [
          "const { handle } = require('./app');",
          "const tools = require('./tools.cjs');",
          'module.exports = { run: (id) => handle(id), tools };',
        ].join('\n'),
      },
      { absPath: '/p/tools.cjs', text: 'exports.list = () => [];\nmodule.exports.count = 0;\n' },
    ]);
    expect(differences(project)).toEqual([]);
  });
});
