// The analysis project (createProject) keeps the type checker's symbol answers and its list of source files for as
// long as its program stands: once the project's files change, both must follow the new program.
import { describe, expect, it } from 'vitest';
import { SyntaxKind } from 'ts-morph';
import { createProject } from '../src/engine/analyze';

describe('analysis project', () => {
  it('answers getSymbol from the current program after its files change', () => {
    const project = createProject();
    // (scripts: the name in a.ts is b.ts's global, whose symbol a new program makes anew)
    project.createSourceFile('/p/b.ts', 'var shared = 1;\n');
    const use = project.createSourceFile('/p/a.ts', 'var copy = shared;\n');
    const reference = use.getDescendantsOfKind(SyntaxKind.Identifier).find((id) => id.getText() === 'shared')!;
    // (a declaration of the current tree of b.ts, and its text)
    const declared = () =>
      reference
        .getSymbol()
        ?.getDeclarations()
        .map((d) => d.compilerNode.getSourceFile() === project.getSourceFileOrThrow('/p/b.ts').compilerNode && d.getText());
    expect(declared()).toEqual(['shared = 1']);
    expect(reference.getSymbol()).toBe(reference.getSymbol());
    project.createSourceFile('/p/b.ts', 'var before = 0;\nvar shared = 2;\n', { overwrite: true });
    expect(declared()).toEqual(['shared = 2']);
  });

  it('lists its source files anew once a file is added or removed', () => {
    const project = createProject();
    project.createSourceFile('/p/a.ts', 'export const a = 1;\n');
    expect(project.getSourceFiles().map((f) => f.getBaseName())).toEqual(['a.ts']);
    const b = project.createSourceFile('/p/b.ts', 'export const b = 1;\n');
    expect(project.getSourceFiles().map((f) => f.getBaseName())).toEqual(['a.ts', 'b.ts']);
    project.removeSourceFile(b);
    expect(project.getSourceFiles().map((f) => f.getBaseName())).toEqual(['a.ts']);
  });
});
