// Handles that compile: every TypeScript output of the session-handles transform type-checks (strict) against the
// v1 SDK and zod in this repository's node_modules — no half-applied handle, no undefined `sessionHandleState`.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Project, ts } from 'ts-morph';

const DIR = path.resolve(__dirname, '..', 'fixtures', 'session-handles');
const outputs = fs.readdirSync(DIR).filter((file) => file.endsWith('.output.ts'));

/** Type errors per output file, from one strict program over all of them. */
function typeErrorsByFile(files: string[]): Map<string, string[]> {
  const project = new Project({
    compilerOptions: {
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      types: ['node'],
    },
  });
  const errors = new Map<string, string[]>(files.map((file) => [file, []]));
  for (const file of files) project.addSourceFileAtPath(file);
  for (const diagnostic of project.getPreEmitDiagnostics()) {
    const file = diagnostic.getSourceFile()?.getFilePath();
    const message = ts.flattenDiagnosticMessageText(diagnostic.getMessageText() as string | ts.DiagnosticMessageChain, '\n');
    if (file && errors.has(file)) errors.get(file)!.push(`${diagnostic.getLineNumber()}: ${message}`);
  }
  return errors;
}

describe('session-handles outputs type-check', () => {
  it('has outputs to check, including every handler shape', () => {
    expect(outputs).toEqual(expect.arrayContaining(['handler-shapes.output.ts', 'named-handlers.output.ts']));
  });
  it('every output type-checks (strict)', () => {
    const errors = typeErrorsByFile(outputs.map((output) => path.join(DIR, output)));
    expect(errors.size).toBe(outputs.length);
    for (const [file, list] of errors) expect(list, path.basename(file)).toEqual([]);
  });
  it('a refused file references no handle store', () => {
    for (const output of outputs) {
      const text = fs.readFileSync(path.join(DIR, output), 'utf8');
      if (/sessionHandleState\(/.test(text)) expect(text, output).toMatch(/function sessionHandleState\(/);
    }
  });
});
