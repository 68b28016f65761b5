// `check` on a v2 project whose package.json does not declare what its code imports: a v2 package, or the zod the v2
// packages require. npm install does not bring it for the package; at best the code gets another package's copy.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { check } from '../src/engine/check';
import { scratchDir } from './helpers/server-process';

const made: string[] = [];
afterAll(() => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
});

const SERVER = `import { McpServer } from '@modelcontextprotocol/server';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { z } from 'zod';

export function build(): McpServer {
  const server = new McpServer({ name: 'shelves', version: '1.0.0' });
  server.registerTool('count', { inputSchema: z.object({ shelf: z.string() }) }, async ({ shelf }) => ({
    content: [{ type: 'text', text: shelf }],
  }));
  return server;
}
export const transport = NodeStreamableHTTPServerTransport;
`;

function project(files: Record<string, object | string>): string {
  const root = scratchDir('manifest-imports');
  made.push(root);
  for (const [file, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  }
  return root;
}

async function undeclared(root: string): Promise<Array<[string, number, string]>> {
  const result = await check({ paths: [root], cwd: root });
  return result.findings.filter((f) => f.ruleId === 'v2-peer-ranges').map((f) => [f.file, f.line, f.message]);
}

describe('check: a v2 package or zod the code imports and no package.json declares', () => {
  it('is a v2-peer-ranges error on the manifest, naming the importing file and what requires it', async () => {
    const root = project({
      'package.json': { name: 'shelves', type: 'module', dependencies: { '@modelcontextprotocol/server': '^2.4.0' } },
      'src/server.ts': SERVER,
    });
    const found = await undeclared(root);
    expect(found.map(([file, line]) => [file, line])).toEqual([
      ['package.json', 4],
      ['package.json', 4],
    ]);
    expect(found[0][2]).toBe(
      "src/server.ts imports @modelcontextprotocol/node, which this package.json does not declare: npm install does not bring it for this package, so the code gets another package's copy, if any (pnpm gives none).",
    );
    expect(found[1][2]).toMatch(
      /^src\/server\.ts imports zod, which .* \(pnpm gives none\); @modelcontextprotocol\/server@2\.\d+\.\d+ requires zod \^4\.2\.0 \(typed dependency\)\.$/,
    );
  });

  it('says nothing when the package declares them, or a package.json above it does (a workspace root)', async () => {
    const declared = project({
      'package.json': {
        name: 'shelves',
        dependencies: { '@modelcontextprotocol/server': '^2.4.0', '@modelcontextprotocol/node': '^2.1.2', zod: '^4.2.0' },
      },
      'src/server.ts': SERVER,
    });
    expect(await undeclared(declared)).toEqual([]);
    const workspace = project({
      'package.json': {
        name: 'repo',
        private: true,
        workspaces: ['shelves'],
        dependencies: { zod: '^4.2.0', '@modelcontextprotocol/node': '^2.1.2' },
      },
      'shelves/package.json': { name: 'shelves', dependencies: { '@modelcontextprotocol/server': '^2.4.0' } },
      'shelves/src/server.ts': SERVER,
    });
    expect(await undeclared(workspace)).toEqual([]);
  });

  it('says nothing about a v1 project that gets zod through the SDK (nothing requires it yet)', async () => {
    const root = project({
      'package.json': { name: 'shelves', dependencies: { '@modelcontextprotocol/sdk': '^1.32.2' } },
      'src/server.ts': `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';\nimport { z } from 'zod';\nexport const s = new McpServer({ name: 'a', version: '1' });\nexport const q = z.string();\n`,
    });
    expect(await undeclared(root)).toEqual([]);
  });
});
