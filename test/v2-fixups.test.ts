// The v2 fix-ups (transforms/v2): fixtures/<id>/<case>.input.<ext> must become <case>.output.<ext> (a case without an
// output must not change); every output parses and a second run changes nothing. Then the type-check they exist for:
// against the v2 packages and zod 4 (this repository's node_modules), each TypeScript input that the fix-up changes has
// an error and its output has none. UPDATE=1 rewrites the expected outputs.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import jscodeshift from 'jscodeshift';
import { Project, ts } from 'ts-morph';
import { fixups, type FixupModule } from '../transforms/v2';
import { parserFor } from '../transforms/lib/context';
import { createProject, syntaxError } from '../src/engine/analyze';

const FIXTURES = path.resolve(__dirname, '..', 'fixtures');
const UPDATE = process.env.UPDATE === '1';

function run(fixup: FixupModule, filePath: string, source: string): string {
  if (!fixup.mayApply(source)) return source;
  const j = jscodeshift.withParser(parserFor(filePath));
  return fixup.run({ path: filePath, source }, { j, jscodeshift: j, stats: () => undefined, report: () => undefined }, {}) ?? source;
}

function casesOf(fixup: FixupModule): Array<{ input: string; output: string }> {
  const dir = path.join(FIXTURES, fixup.id);
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => /\.input\.\w+$/.test(f))
    .sort()
    .map((f) => ({ input: path.join(dir, f), output: path.join(dir, f.replace('.input.', '.output.')) }));
}

/**
 * Errors of each file, type-checked together against this repository's node_modules (v2 packages, zod 4) without the
 * v1 SDK, which the migrated manifest no longer lists (the gate resolves it the same way).
 */
function typeErrors(files: string[]): Map<string, string[]> {
  const project = new Project({
    resolutionHost: (host, getOptions) => ({
      resolveModuleNames: (names, containingFile) =>
        names.map((name) =>
          /^@modelcontextprotocol\/sdk(?:\/|$)/.test(name) && !containingFile.includes('/node_modules/')
            ? undefined
            : ts.resolveModuleName(name, containingFile, getOptions(), host).resolvedModule,
        ),
    }),
    compilerOptions: {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.Preserve,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      strict: true,
      skipLibCheck: true,
      noEmit: true,
      types: ['node'],
    },
  });
  const sourceFiles = files.map((file) => project.addSourceFileAtPath(file));
  const errors = new Map<string, string[]>();
  for (const sourceFile of sourceFiles) {
    errors.set(
      sourceFile.getFilePath(),
      sourceFile
        .getPreEmitDiagnostics()
        .map((d) => `TS${d.getCode()} ${ts.flattenDiagnosticMessageText(d.getMessageText() as never, ' ')}`),
    );
  }
  return errors;
}

describe('v2 fix-ups', () => {
  for (const fixup of fixups) {
    const cases = casesOf(fixup);
    describe(fixup.id, () => {
      it('has fixtures, including one that must not change', () => {
        expect(cases.length).toBeGreaterThanOrEqual(2);
        expect(cases.some((c) => !fs.existsSync(c.output))).toBe(true);
      });
      for (const { input, output: outputPath } of cases) {
        it(path.basename(input).replace(/\.input\.\w+$/, ''), () => {
          const source = fs.readFileSync(input, 'utf8');
          const output = run(fixup, input, source);
          if (UPDATE && output !== source) fs.writeFileSync(outputPath, output);
          if (UPDATE && output === source && fs.existsSync(outputPath)) fs.unlinkSync(outputPath);
          const expected = fs.existsSync(outputPath) ? fs.readFileSync(outputPath, 'utf8') : source;
          expect(output).toBe(expected);
          expect(syntaxError(createProject().createSourceFile(input, output, { overwrite: true }))).toBeUndefined();
          expect(run(fixup, input, output), 'a second run changes nothing').toBe(output);
        });
      }
    });
  }

  // legacy-transport-types removes a deprecated dependency (`@modelcontextprotocol/server-legacy`, which type-checks),
  // not an error: its changed cases must name no legacy module any more instead.
  const DEPENDENCY_FIXUPS = new Set(['legacy-transport-types']);

  it('each changed TypeScript case fails the type-check before its fix-up and passes after it', () => {
    const pairs = fixups
      .flatMap((fixup) => casesOf(fixup).map((c) => ({ ...c, removesDependency: DEPENDENCY_FIXUPS.has(fixup.id) })))
      .filter(
        (c) =>
          /\.ts$/.test(c.input) && fs.existsSync(c.output) && !/mcp-migrate:|@mcp-codemod-error/.test(fs.readFileSync(c.output, 'utf8')),
      );
    expect(pairs.length).toBeGreaterThanOrEqual(fixups.length);
    const errors = typeErrors(pairs.flatMap((c) => [c.input, c.output]));
    for (const { input, output, removesDependency } of pairs) {
      if (removesDependency)
        expect(fs.readFileSync(output, 'utf8'), path.relative(FIXTURES, output)).not.toMatch(
          /from ['"]@modelcontextprotocol\/(?:server-legacy|sdk\/server\/sse)/,
        );
      else expect(errors.get(input)!.length, `${path.relative(FIXTURES, input)} has the error its fix-up removes`).toBeGreaterThan(0);
      expect(errors.get(output), path.relative(FIXTURES, output)).toEqual([]);
    }
  });
});
