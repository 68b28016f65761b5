// `check` parses only candidates and the files imports link to them; these tests hold it to the findings of the
// engine that parsed every file passing the pre-filter into one project, on every fixture tree, on shapes where the
// link to a candidate runs through ordinary files, and on a generated monorepo (bench/tree.js). More trees (a copy of
// real repositories, say) can be added with MCP_MIGRATE_SAME_FINDINGS_TREES=dir1:dir2.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { check } from '../src/engine/check';
import { discover } from '../src/engine/discover';
import { isReadProblem, readSource } from '../src/engine/read-source';
import { mayContainMcpCode } from '../src/engine/prefilter';
import { analyzeSources } from '../src/engine/analyze';
import { allRules } from '../src/rules';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { makeTree } = require('../bench/tree.js') as { makeTree(root: string, options: object): number };

const FIXTURES = path.resolve(__dirname, '..', 'fixtures');

/** The engine before two-stage selection: every file that passes the pre-filter, analysed in one project. */
function everyPrefilteredFile(root: string) {
  const { files } = discover({ paths: [root], cwd: root, gitignore: true, include: [], exclude: [] });
  const sources = files.flatMap((file) => {
    const read = readSource(file.absPath);
    return isReadProblem(read) || !mayContainMcpCode(read.text) ? [] : [{ ...file, text: read.text }];
  });
  const analysis = analyzeSources(sources, allRules);
  return {
    findings: analysis.files.flatMap((file) => file.findings),
    suppressions: analysis.files.flatMap((file) => file.suppressions),
  };
}

async function expectSameFindings(root: string): Promise<void> {
  const result = await check({ paths: [root], cwd: root });
  const reference = everyPrefilteredFile(root);
  expect(result.findings).toEqual(reference.findings);
  expect(result.suppressions).toEqual(reference.suppressions);
}

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-migrate-same-findings-'));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

function writeTree(name: string, files: Record<string, string>): string {
  const root = path.join(scratch, name);
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
  return root;
}

const SSE_SERVER = `import express from 'express';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';

export const router = express.Router();
const server = new McpServer({ name: 'notes', version: '1.0.0' });
const transports: Record<string, SSEServerTransport> = {};
router.get('/sse', async (_req, res) => {
  const transport = new SSEServerTransport('/messages', res);
  transports[transport.sessionId] = transport;
  await server.connect(transport);
});
router.post('/messages', async (req, res) => {
  await transports[String(req.query.sessionId)].handlePostMessage(req, res, req.body);
});
`;

const ORIGIN_CHECK = `export function checkOrigin(req: { headers: { origin?: string } }, res: { status(code: number): { end(): void } }, next: () => void) {
  if (req.headers.origin && req.headers.origin !== 'http://localhost:3000') return res.status(403).end();
  next();
}
`;

describe('check finds what analysing every pre-filtered file found', () => {
  // (every fixture, about 300 files, analysed twice, once as one project: minutes on a loaded 2-core machine)
  it('on all fixtures as one tree', async () => {
    await expectSameFindings(FIXTURES);
  }, 300_000);

  for (const group of ['servers', 'rules']) {
    for (const name of fs.readdirSync(path.join(FIXTURES, group)).sort()) {
      const root = path.join(FIXTURES, group, name);
      if (!fs.statSync(root).isDirectory()) continue;
      it(`on fixtures/${group}/${name}`, async () => {
        await expectSameFindings(root);
      });
    }
  }

  it('when the app that mounts the MCP router listens, and checks Origin, in ordinary files', async () => {
    await expectSameFindings(
      writeTree('mounted', {
        'src/mcp.ts': SSE_SERVER,
        'src/app.ts': `import express from 'express';\nimport { router } from './mcp';\nimport { checkOrigin } from './origin';\nconst app = express();\napp.use(checkOrigin, router);\napp.listen(3000);\n`,
        'src/origin.ts': ORIGIN_CHECK,
        'src/other.ts': `import { checkOrigin } from './origin';\nexport const sessionId = 'unrelated';\nvoid checkOrigin;\n`,
      }),
    );
  });

  it('when the only Origin check is linked to the server through a file that imports both', async () => {
    await expectSameFindings(
      writeTree('origin-beside', {
        'src/mcp.ts': SSE_SERVER,
        'src/util.ts': `export const sessionIdHeader = 'x-session';\n`,
        'src/wiring.ts': `import { sessionIdHeader } from './util';\nimport { checkOrigin } from './origin';\nexport const listen = (app: { listen(port: number): void }) => app.listen(Number(sessionIdHeader.length));\nvoid checkOrigin;\n`,
        'src/origin.ts': ORIGIN_CHECK,
        'src/uses-util.ts': `import { router } from './mcp';\nimport { sessionIdHeader } from './util';\nvoid router; void sessionIdHeader;\n`,
      }),
    );
  });

  it('when two servers are linked only through a file that imports what each of them imports', async () => {
    await expectSameFindings(
      writeTree('two-servers', {
        'a/server.ts': `import { helperA } from '../shared/a';\n${SSE_SERVER}void helperA;\n`,
        'b/server.ts': `import { helperB } from '../shared/b';\n${SSE_SERVER}void helperB;\n`,
        'shared/a.ts': `export const helperA = (req: { headers: { origin?: string } }) => req.headers.origin === 'http://localhost';\n`,
        'shared/b.ts': `export const helperB = 'sessionId';\n`,
        'shared/both.ts': `import { helperA } from './a';\nimport { helperB } from './b';\nexport const sessionIds = [helperA, helperB];\n`,
      }),
    );
  });

  it('when the SDK class reaches an ordinary file through a re-export', async () => {
    await expectSameFindings(
      writeTree('re-export', {
        'src/sdk.ts': `export { SSEServerTransport as Legacy } from '@modelcontextprotocol/sdk/server/sse.js';\n`,
        'src/use.ts': `import { Legacy } from './sdk';\nexport function open(res: never) {\n  const t = new Legacy('/messages', res);\n  return t.sessionId;\n}\n`,
        'src/cjs.js': `const { Legacy } = require('./sdk');\nmodule.exports = (res) => new Legacy('/messages', res).sessionId;\n`,
      }),
    );
  });

  it('on a generated monorepo with MCP servers inside API services', async () => {
    const root = path.join(scratch, 'monorepo');
    makeTree(root, { files: 400, copies: 1, seed: 3 });
    await expectSameFindings(root);
  });

  for (const root of (process.env.MCP_MIGRATE_SAME_FINDINGS_TREES ?? '').split(path.delimiter).filter(Boolean)) {
    it(`on ${root}`, { timeout: 3_600_000 }, async () => {
      await expectSameFindings(path.resolve(root));
    });
  }
});
