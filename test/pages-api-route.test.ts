// Next.js Pages Router: the default export of a file under pages/api/ is the route (every method on its path, Node's
// request and response). apply migrates such an endpoint like a node:http listener, instead of leaving a marker that
// says nothing reaches the handler.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { expect, it } from 'vitest';
import { apply } from '../src/engine/apply';
import { scratchDir } from './helpers/server-process';

const ROUTE = `import type { NextApiRequest, NextApiResponse } from "next";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";

const glossary = new McpServer({ name: "glossary", version: "1.0.0" });
glossary.registerTool("define", { description: "a definition", annotations: { readOnlyHint: true } }, async () => ({
  content: [{ type: "text", text: "idempotent: the same again changes nothing" }],
}));

export default async function handler(req: NextApiRequest, res: NextApiResponse) {
  if (req.method !== "POST") {
    res.status(405).end();
    return;
  }
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  res.on("close", () => transport.close());
  await glossary.connect(transport);
  await transport.handleRequest(req, res, req.body);
}
`;

it.each(['2025-11-25', '2026-07-28'] as const)('migrates a pages/api route with a shared server (%s)', (target) => {
  const root = scratchDir('pages-api', target);
  fs.mkdirSync(path.join(root, 'pages', 'api'), { recursive: true });
  fs.writeFileSync(
    path.join(root, 'package.json'),
    JSON.stringify({ name: 'glossary', dependencies: { '@modelcontextprotocol/sdk': '^1.32.2' } }),
  );
  fs.writeFileSync(path.join(root, 'pages', 'api', 'mcp.ts'), ROUTE);
  const result = apply({ paths: [root], cwd: root, dryRun: true, target });
  const route = result.changes.find((c) => c.file === 'pages/api/mcp.ts');
  expect(route?.diff).not.toContain('mcp-migrate: shared-server-instance:');
  expect(route?.diff).toContain('+function createMcpServer()');
  expect(route?.diff).toMatch(
    target === '2025-11-25' ? /\+ {2}if \(rejectForeignOrigin\(req, res\)\) return;/ : /\+ {2}if \(!mcpOriginGuard\(req, res\)\) return;/,
  );
  expect(route?.diff).toContain('req.body');
  expect(result.manual.filter((m) => m.file === 'pages/api/mcp.ts' && m.ruleId !== 'per-request-transport')).toEqual([]);
  expect(result.endpoints?.map((e) => e.file)).toEqual(['pages/api/mcp.ts']);
});

it('follows the @/ alias to the module-level server and keeps the auth check before it', () => {
  const root = scratchDir('pages-api', 'alias');
  fs.mkdirSync(path.join(root, 'pages', 'api'), { recursive: true });
  fs.mkdirSync(path.join(root, 'lib'), { recursive: true });
  fs.writeFileSync(
    path.join(root, 'package.json'),
    JSON.stringify({ name: 'glossary', dependencies: { '@modelcontextprotocol/sdk': '^1.32.2' } }),
  );
  fs.writeFileSync(
    path.join(root, 'lib', 'glossary.ts'),
    [
      `import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";`,
      `export const glossary = new McpServer({ name: "glossary", version: "1.0.0" });`,
      `glossary.registerTool("define", { description: "a definition", annotations: { readOnlyHint: true } }, async () => ({`,
      `  content: [{ type: "text", text: "idempotent" }],`,
      `}));`,
      ``,
    ].join('\n'),
  );
  fs.writeFileSync(
    path.join(root, 'pages', 'api', 'mcp.ts'),
    [
      `import type { NextApiRequest, NextApiResponse } from "next";`,
      `import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";`,
      `import { glossary } from "@/lib/glossary";`,
      `import { sessionOf } from "@/lib/auth";`,
      ``,
      `export default async function handler(req: NextApiRequest, res: NextApiResponse) {`,
      `  const session = await sessionOf(req.headers.authorization);`,
      `  if (!session) {`,
      `    res.status(401).end("Unauthorized");`,
      `    return;`,
      `  }`,
      `  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });`,
      `  await glossary.connect(transport);`,
      `  await transport.handleRequest(req, res, req.body);`,
      `}`,
      ``,
    ].join('\n'),
  );
  const result = apply({ paths: [root], cwd: root, dryRun: true, target: '2025-11-25' });
  expect(result.changes.map((c) => c.file).sort()).toEqual(['lib/glossary.ts', 'pages/api/mcp.ts']);
  const route = result.changes.find((c) => c.file === 'pages/api/mcp.ts')!.diff;
  expect(route).toContain('+import { createMcpServer } from "@/lib/glossary";');
  expect(route).toMatch(/\n {3}const session = await sessionOf\(req\.headers\.authorization\);\n {3}if \(!session\) \{/);
  expect(route).toContain('+  const server = createMcpServer();');
  expect(result.manual.filter((m) => m.ruleId !== 'per-request-transport')).toEqual([]);
});
