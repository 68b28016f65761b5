// Transform fixtures (@next/codemod style, with Rector's rule): fixtures/<transform-id>/<case>.input.<ext> must become
// <case>.output.<ext>; a case without an output must not change. Every output must parse, and a second run on the
// output must change nothing (OpenRewrite's two-cycle rule). UPDATE=1 rewrites the expected outputs.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import jscodeshift from 'jscodeshift';
import { transforms, type TransformModule } from '../transforms';
import { parserFor, type TransformOptions } from '../transforms/lib/context';
import { analyzeSources, createProject, syntaxError } from '../src/engine/analyze';
import { allRules } from '../src/rules';
import { TARGETS } from '../src/engine/targets';
import { KNOWN_FAILING_TRANSFORMS } from './helpers/known-failing';

const FIXTURES = path.resolve(__dirname, '..', 'fixtures');
const UPDATE = process.env.UPDATE === '1';

function run(transform: TransformModule, filePath: string, source: string, options: TransformOptions = {}): string {
  const analysis = analyzeSources([{ absPath: filePath, relPath: path.basename(filePath), text: source }], allRules);
  const findings = (analysis.files[0]?.findings ?? []).filter((f) => transform.rules.includes(f.ruleId));
  if (findings.length === 0) return source;
  const j = jscodeshift.withParser(parserFor(filePath));
  const output = transform.run(
    { path: filePath, source },
    { j, jscodeshift: j, stats: () => undefined, report: () => undefined },
    { findings, ...options },
  );
  return output ?? source;
}

/**
 * A transform's cases: `fixtures/<id>/*.input.*`, or per target in `fixtures/<id>/<target>/`. A case's
 * `<name>.options.json`, when there is one, holds the other transform options the engine would pass (the engine's
 * choices, such as `agentsHandlerModule`).
 */
function casesOf(transform: TransformModule): Array<{ dir: string; input: string; target?: string }> {
  const dir = path.join(FIXTURES, transform.id);
  if (!fs.existsSync(dir)) return [];
  const inputs = (folder: string, target?: string) =>
    fs
      .readdirSync(folder)
      .filter((f) => /\.input\.\w+$/.test(f))
      .sort()
      .map((input) => ({ dir: folder, input, target }));
  const targets = TARGETS.filter((t) => fs.existsSync(path.join(dir, t)));
  return [...inputs(dir), ...targets.flatMap((t) => inputs(path.join(dir, t), t))];
}

for (const transform of transforms) {
  const cases = casesOf(transform);
  describe(`transform ${transform.id}`, () => {
    it('has fixtures, including one that must not change', () => {
      expect(cases.length).toBeGreaterThanOrEqual(2);
      expect(cases.some((c) => !fs.existsSync(path.join(c.dir, c.input.replace('.input.', '.output.'))))).toBe(true);
    });
    for (const { dir, input, target } of cases) {
      const name = `${target ? `${target}/` : ''}${input.replace(/\.input\.\w+$/, '')}`;
      const knownFailing = KNOWN_FAILING_TRANSFORMS[`${transform.id}/${name}`];
      (knownFailing ? it.skip : it)(knownFailing ? `${name} (known failing: ${knownFailing})` : name, () => {
        const inputPath = path.join(dir, input);
        const outputPath = path.join(dir, input.replace('.input.', '.output.'));
        const source = fs.readFileSync(inputPath, 'utf8');
        const optionsPath = path.join(dir, input.replace(/\.input\.\w+$/, '.options.json'));
        const options: TransformOptions = {
          ...(fs.existsSync(optionsPath) ? (JSON.parse(fs.readFileSync(optionsPath, 'utf8')) as TransformOptions) : {}),
          target,
        };
        const output = run(transform, inputPath, source, options);
        if (UPDATE && output !== source) fs.writeFileSync(outputPath, output);
        if (UPDATE && output === source && fs.existsSync(outputPath)) fs.unlinkSync(outputPath);
        const expected = fs.existsSync(outputPath) ? fs.readFileSync(outputPath, 'utf8') : source;
        expect(output).toBe(expected);
        expect(syntaxError(createProject().createSourceFile(inputPath, output, { overwrite: true }))).toBeUndefined();
        expect(run(transform, inputPath, output, options), 'a second run changes nothing').toBe(output);
      });
    }
  });
}
