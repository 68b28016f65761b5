// The official codemod cannot tell a schema object from a raw shape behind a name; mcp-migrate follows the name.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { withoutAnsweredSchemaMarkers } from '../src/engine/schema-markers';
import { scratchDir } from './helpers/server-process';

const made: string[] = [];
afterAll(() => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
});

const MARKER =
  '/* @mcp-codemod-error Could not verify `inputSchema` is a schema object. Raw shapes are deprecated in v2 — pass a Standard Schema object (e.g. z.object({ … })); no change is needed if it already is one. */';

describe('schema markers of the official codemod', () => {
  it('drops the marker where the value is built by zod in another file, and keeps it for a raw shape', () => {
    const dir = scratchDir('schema-markers');
    made.push(dir);
    fs.mkdirSync(path.join(dir, 'src'), { recursive: true });
    fs.writeFileSync(
      path.join(dir, 'src', 'tools.ts'),
      "import { z } from 'zod';\nconst base = z.object({ city: z.string() });\nconst schema = base.extend({ days: z.number() });\n" +
        'export const forecast = { name: "forecast", schema };\nexport const rawShape = { city: z.string() };\nexport const citySchema = z.object({ city: z.string() });\n',
    );
    const original =
      "import { forecast, rawShape, citySchema } from './tools.js';\nexport function register(server: any) {\n" +
      "  server.registerTool('forecast', { inputSchema: forecast.schema }, async () => ({ content: [] }));\n" +
      "  server.registerTool('raw', { inputSchema: rawShape }, async () => ({ content: [] }));\n" +
      "  server.registerTool('city', { inputSchema: citySchema }, async () => ({ content: [] }));\n}\n";
    const absPath = path.join(dir, 'src', 'index.ts');
    fs.writeFileSync(absPath, original);
    const migrated = original.replace(/^( {2})server\.registerTool/gm, `$1${MARKER}\n$1server.registerTool`);
    const diagnostic = (line: number) => ({ file: 'src/index.ts', line, level: 'warning' as const, message: MARKER.slice(22, -3) });
    const result = withoutAnsweredSchemaMarkers(migrated, absPath, [diagnostic(3), diagnostic(4), diagnostic(5)]);
    expect(result.text.match(/@mcp-codemod-error/g)).toHaveLength(1);
    expect(result.text).toContain(`${MARKER}\n  server.registerTool('raw'`);
    expect(result.diagnostics.map((d) => d.line)).toEqual([4]);
  });
});
