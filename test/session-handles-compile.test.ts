// Handles that compile: every TypeScript output of the session-handles and low-level-handles transforms type-checks
// (strict) against the v1 SDK and zod in this repository's node_modules — no half-applied handle, no undefined
// `sessionHandleState`.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Project, ts } from 'ts-morph';

const FIXTURES = path.resolve(__dirname, '..', 'fixtures');
const outputs = ['session-handles', 'low-level-handles'].flatMap((transform) =>
  fs
    .readdirSync(path.join(FIXTURES, transform))
    .filter((file) => file.endsWith('.output.ts'))
    .map((file) => path.join(FIXTURES, transform, file)),
);

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
    expect(outputs.map((output) => path.basename(output))).toEqual(
      expect.arrayContaining(['handler-shapes.output.ts', 'named-handlers.output.ts', 'dispatch-table.output.ts']),
    );
  });
  it('every output type-checks (strict)', () => {
    const errors = typeErrorsByFile(outputs);
    expect(errors.size).toBe(outputs.length);
    for (const [file, list] of errors) expect(list, path.basename(file)).toEqual([]);
  });
  it('a refused file references no handle store', () => {
    for (const output of outputs) {
      const text = fs.readFileSync(output, 'utf8');
      if (/sessionHandleState\(/.test(text)) expect(text, path.basename(output)).toMatch(/function sessionHandleState\(/);
    }
  });
});
