// resolveHandler on `a.b`: the member of an object literal it denotes, including one declared under a computed name
// (which resolveHandler cannot read without the checker), and nothing for a member no object literal declares.
import { describe, expect, it } from 'vitest';
import { Node, SyntaxKind } from 'ts-morph';
import { createProject } from '../src/engine/analyze';
import { resolveHandler } from '../src/analysis/routes';

function handlerOf(files: Record<string, string>, access: string): string | undefined {
  const project = createProject();
  for (const [name, text] of Object.entries(files)) project.createSourceFile(`/p/${name}`, text);
  const node = project
    .getSourceFileOrThrow('/p/app.ts')
    .getDescendantsOfKind(SyntaxKind.PropertyAccessExpression)
    .find((candidate) => candidate.getText() === access);
  const handler = resolveHandler(node);
  if (!handler) return undefined;
  return Node.isMethodDeclaration(handler) ? handler.getName() : handler.getText();
}

describe('resolveHandler on a property access', () => {
  it('finds methods and function properties of object literals, also imported ones', () => {
    const handlers = [
      'export const handlers = {',
      '  stream(req, res) {},',
      '  post: async (req, res) => {},',
      "  'quoted': function (req, res) {},",
      '};',
    ].join('\n');
    const app = [
      "import { handlers } from './handlers';",
      'app.get("/sse", handlers.stream);',
      'app.post("/mcp", handlers.post);',
      'app.put("/mcp", handlers.quoted);',
      'app.get("/other", res.json);',
    ].join('\n');
    const files = { 'handlers.ts': handlers, 'app.ts': app };
    expect(handlerOf(files, 'handlers.stream')).toBe('stream');
    expect(handlerOf(files, 'handlers.post')).toBe('async (req, res) => {}');
    expect(handlerOf(files, 'handlers.quoted')).toBe('function (req, res) {}');
    expect(handlerOf(files, 'res.json')).toBeUndefined();
  });

  it('finds members declared under a computed name', () => {
    const app = [
      "const STREAM = 'stream';",
      'const handlers = { [STREAM]: (req, res) => {}, ["post"]: (req, res) => {} };',
      'app.get("/sse", handlers.stream);',
      'app.post("/mcp", handlers.post);',
    ].join('\n');
    expect(handlerOf({ 'app.ts': app }, 'handlers.stream')).toBe('(req, res) => {}');
    expect(handlerOf({ 'app.ts': app }, 'handlers.post')).toBe('(req, res) => {}');
  });
});
