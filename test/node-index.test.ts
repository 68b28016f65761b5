// The node index walks the compiler's tree and wraps nodes only when asked: what it gives must be what ts-morph's own
// walks give — the same ts-morph nodes, in the same order — on every file of the fixture servers.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Node, SyntaxKind } from 'ts-morph';
import { createProject } from '../src/engine/analyze';
import {
  descendantsOfKind,
  identifiersReferringTo,
  identifiersReferringToAny,
  identifiersUnder,
  memberMayBeDeclared,
  nodesOfKind,
  refersTo,
  refersToAny,
  thisUnder,
} from '../src/analysis/node-index';

const SERVERS = path.join(__dirname, '..', 'fixtures', 'servers');

function fixtureFiles() {
  const project = createProject();
  return fs
    .readdirSync(SERVERS, { recursive: true, encoding: 'utf8' })
    .filter((file) => /\.(?:[cm]?[jt]s|tsx)$/.test(file) && !file.includes('node_modules'))
    .map((file) => project.createSourceFile(path.join(SERVERS, file), fs.readFileSync(path.join(SERVERS, file), 'utf8')));
}

describe('node index', () => {
  const files = fixtureFiles();

  it('gives the nodes of a kind getDescendantsOfKind gives', () => {
    for (const file of files) {
      for (const kind of [SyntaxKind.CallExpression, SyntaxKind.PropertyAccessExpression, SyntaxKind.ObjectLiteralExpression]) {
        const expected: Node[] = file.getDescendantsOfKind(kind);
        const actual: Node[] = nodesOfKind(file, kind);
        expect(actual.length, file.getFilePath()).toBe(expected.length);
        expect(actual.every((node, index) => node === expected[index])).toBe(true);
      }
    }
  });

  it('gives the identifiers under a node getDescendantsOfKind gives, JSDoc included', () => {
    const jsdoc = createProject().createSourceFile('/p/doc.ts', '/** @param {Store} store the {@link Store} */\nfunction use(store) {}\n');
    let selves = 0;
    for (const file of [...files, jsdoc]) {
      for (const node of [file, ...file.getDescendants().filter((n) => Node.isFunctionDeclaration(n) || Node.isArrowFunction(n))]) {
        const expected = node.getDescendantsOfKind(SyntaxKind.Identifier);
        const actual = identifiersUnder(node);
        expect(actual.length, file.getFilePath()).toBe(expected.length);
        expect(actual.every((id, index) => id === expected[index])).toBe(true);
        const self: Node[] = node.getDescendantsOfKind(SyntaxKind.ThisKeyword);
        const selfFound = thisUnder(node);
        expect(selfFound.length === self.length && selfFound.every((found, index) => found === self[index])).toBe(true);
        selves += self.length;
      }
    }
    expect(selves).toBeGreaterThan(50);
  });

  it('gives the descendants of a kind under a node that getDescendantsOfKind gives', () => {
    const kinds = [
      SyntaxKind.CallExpression,
      SyntaxKind.NewExpression,
      SyntaxKind.BinaryExpression,
      SyntaxKind.ObjectLiteralExpression,
      SyntaxKind.PropertyAssignment,
      SyntaxKind.VariableDeclaration,
      SyntaxKind.ReturnStatement,
      SyntaxKind.IfStatement,
      SyntaxKind.PropertyAccessExpression,
    ];
    const jsdoc = createProject().createSourceFile(
      '/p/aug.js',
      '/** @augments {Base.Thing} */\nclass Store extends Object { get() { return f(g()); } }\n',
    );
    let compared = 0;
    for (const file of [...files, jsdoc]) {
      const scopes = [
        file,
        ...file.getDescendants().filter((n) => Node.isBlock(n) || Node.isCallExpression(n) || Node.isClassDeclaration(n)),
      ];
      for (const node of scopes) {
        for (const kind of kinds) {
          const expected: Node[] = node.getDescendantsOfKind(kind);
          const actual: Node[] = descendantsOfKind(node, kind);
          expect(actual.length, `${file.getFilePath()} ${SyntaxKind[kind]}`).toBe(expected.length);
          expect(actual.every((found, index) => found === expected[index])).toBe(true);
          compared += expected.length;
        }
      }
    }
    expect(compared).toBeGreaterThan(10_000);
  });

  it('gives the identifiers whose symbol is a symbol that getSymbol gives, asking only about those spelled like it', () => {
    const project = createProject();
    const tricky = [
      project.createSourceFile(
        '/q/m.ts',
        'export default function make() { return make; }\nexport const __hidden = 1;\nexport { make as other };\n',
      ),
      project.createSourceFile(
        '/q/use.ts',
        [
          "import { default as built, other, __hidden } from './m';",
          "import * as ns from './m';",
          '/** Uses {@link built}. */',
          'export function run(store: { cart: string[] }) {',
          '  const m\\u0061ke = built; const { cart: items, ...rest } = store;',
          '  const meta = import.meta; function Ctor() { return new.target; }',
          '  return [make, ns.default, other, __hidden, items, rest, meta, Ctor, store.cart, { store }, arguments];',
          '}',
        ].join('\n'),
      ),
    ];
    for (const file of [...files, ...tricky]) {
      const bySymbol = new Map<unknown, Node[]>();
      const all = file.getDescendantsOfKind(SyntaxKind.Identifier);
      for (const id of all) {
        const symbol = id.getSymbol();
        bySymbol.set(symbol, [...(bySymbol.get(symbol) ?? []), id]);
      }
      for (const [symbol, expected] of bySymbol) {
        const actual = identifiersReferringTo(file, symbol as never);
        expect(actual.length, `${file.getFilePath()} ${expected[0].getText()}`).toBe(expected.length);
        expect(actual.every((id, index) => id === expected[index])).toBe(true);
        expect(all.filter((id) => refersToAny(id, new Set([symbol as never]))).length).toBe(expected.length);
        if (!symbol) continue;
        expect(all.filter((id) => refersTo(id, symbol as never)).length).toBe(expected.length);
        const any = identifiersReferringToAny(file, new Set([symbol as never]));
        expect(any.length === expected.length && any.every((id, index) => id === expected[index])).toBe(true);
      }
    }
  });

  it('says a member may be declared in the project whenever the type checker finds a declaration of it', () => {
    let ruledOut = 0;
    let declared = 0;
    const check = (project: ReturnType<typeof createProject>) => {
      for (const file of project.getSourceFiles()) {
        for (const access of file.getDescendantsOfKind(SyntaxKind.PropertyAccessExpression)) {
          const name = access.getNameNode();
          const declarations = name.getSymbol()?.getDeclarations() ?? [];
          if (!memberMayBeDeclared(name)) {
            ruledOut += 1;
            expect(
              declarations.map((d) => d.getText()),
              `${file.getFilePath()} ${access.getText()}`,
            ).toEqual([]);
          } else if (declarations.length > 0) declared += 1;
        }
      }
    };
    // (one project per fixture server, as the analysis makes one per import group)
    for (const server of fs.readdirSync(SERVERS, { withFileTypes: true }).filter((entry) => entry.isDirectory())) {
      const dir = path.join(SERVERS, server.name);
      const project = createProject();
      for (const file of fs.readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
        if (/\.(?:[cm]?[jt]s|tsx)$/.test(file) && !file.includes('node_modules'))
          project.createSourceFile(path.join(dir, file), fs.readFileSync(path.join(dir, file), 'utf8'));
      }
      check(project);
    }
    // Declared under a name spelled as a string, through an export alias, by a computed name from a constant, and a
    // private member.
    const project = createProject();
    project.createSourceFile('/r/lib.ts', "function inner() {}\nexport { inner as renamed };\nexport const table = { 'quoted': 1 };\n");
    project.createSourceFile(
      '/r/use.ts',
      [
        "import * as lib from './lib';",
        'const KEY = `k${"eyed"}` as const;',
        'class Box { [KEY] = 1; #secret = 2; peek() { return this.#secret; } }',
        'lib.renamed(); lib.table.quoted; new Box().keyed; new Box().peek(); [].missing;',
      ].join('\n'),
    );
    check(project);
    const use = project.getSourceFileOrThrow('/r/use.ts');
    const named = (text: string) =>
      use
        .getDescendantsOfKind(SyntaxKind.PropertyAccessExpression)
        .find((access) => access.getText() === text)!
        .getNameNode();
    for (const text of ['lib.renamed', 'lib.table.quoted', 'new Box().keyed', 'this.#secret'])
      expect(memberMayBeDeclared(named(text)), text).toBe(true);
    expect(ruledOut).toBeGreaterThan(500);
    expect(declared).toBeGreaterThan(20);
  });
});
