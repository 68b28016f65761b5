// freeName: the first of `base`, `base2`, … that no identifier of the files spells — the names ts-morph's
// getDescendantsOfKind(SyntaxKind.Identifier) finds, those in JSDoc (also at the end of a file) included.
import { describe, expect, it } from 'vitest';
import { SyntaxKind } from 'ts-morph';
import { createProject } from '../src/engine/analyze';
import { freeName } from '../src/analysis/endpoints/spans';

function filesOf(texts: Record<string, string>) {
  const project = createProject();
  return Object.entries(texts).map(([name, text]) => project.createSourceFile(`/p/${name}`, text));
}

describe('freeName', () => {
  it('skips names identifiers spell, in code and in JSDoc', () => {
    const files = filesOf({
      'a.ts': 'const server = createMcpServer();\n',
      'b.js': '/** @param {createMcpServer2} factory */\nfunction build(factory) {}\n/** @see createMcpServer3 */\n',
    });
    expect(freeName('createMcpServer', files)).toBe('createMcpServer4');
    expect(freeName('server', files)).toBe('server2');
    expect(freeName('register', files)).toBe('register');
    // Strings and comments that are not JSDoc do not count.
    expect(freeName('other', filesOf({ 'c.ts': "// other\nconst x = 'other';\n" }))).toBe('other');
  });

  it('sees what the ts-morph walk sees', () => {
    const [file] = filesOf({
      'd.ts': [
        '/** Makes one. @param {Options} options @returns {Server} @see {@link createMcpServer} */',
        'export function make(options: Options): Server { return new Server(options?.name ?? `x${options.y}`); }',
        'class C { #hidden = 1; get value() { return this.#hidden; } }',
        '/** @typedef {{ key: string }} Trailing */',
      ].join('\n'),
    });
    const spelled = new Set(file.getDescendantsOfKind(SyntaxKind.Identifier).map((id) => id.getText()));
    for (const name of spelled) expect(freeName(name, [file]), name).not.toBe(name);
    for (const name of ['Makes', 'one', 'hidden', 'string2']) expect(freeName(name, [file])).toBe(spelled.has(name) ? `${name}2` : name);
  });
});
