// The v1 SDK range the 2025-11-25 endpoint needs: a pin below the first release whose session-less transport serves
// the requests after initialize (1.10.2) is raised; one at or above it is left alone.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { apply } from '../src/engine/apply';
import { migratedTexts, raiseSdkRange, sdkFloor } from '../src/engine/sdk-floor';
import { scratchDir } from './helpers/server-process';

const STATELESS = `import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';`;
const manifest = (range: string) => JSON.stringify({ dependencies: { '@modelcontextprotocol/sdk': range } }, null, 2);

describe('sdk floor', () => {
  it('the Node transport needs 1.10.2, the Web-standard one 1.25.0', () => {
    expect(sdkFloor([STATELESS])).toBe('1.10.2');
    expect(sdkFloor([STATELESS, `import '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';`])).toBe('1.25.0');
  });

  it('raises 1.10.1, which answers stateless requests after initialize with 400 "Server not initialized"', () => {
    expect(raiseSdkRange(manifest('1.10.1'), sdkFloor([STATELESS])!)).toContain('"@modelcontextprotocol/sdk": "^1.32.2"');
  });

  it('leaves a range whose lowest version serves statelessly', () => {
    expect(raiseSdkRange(manifest('^1.10.2'), sdkFloor([STATELESS])!)).toBeUndefined();
  });

  it('counts a file the migration only marked as asking nothing more of the SDK', () => {
    const original = `${STATELESS}\nconst open = new Map();\n`;
    const marked = `${STATELESS}\n/* mcp-migrate: session-id: left as it was */\nconst open = new Map();\n`;
    const rewritten = `${STATELESS}\nconst transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });\n`;
    expect(migratedTexts([{ original, text: marked }])).toEqual([]);
    expect(migratedTexts([{ original, text: rewritten }])).toEqual([rewritten]);
  });

  it('leaves the SDK range of a project whose endpoint apply only marks', () => {
    // (a stateful endpoint on a server made in the constructor: apply leaves it with a marker, and the old range
    // serves the code as it was)
    const root = scratchDir('sdk-floor', 'marked-only');
    fs.mkdirSync(path.join(root, 'src'));
    const manifest = JSON.stringify({ name: 'hub', dependencies: { '@modelcontextprotocol/sdk': '^1.0.4', express: '^4.21.2' } }, null, 2);
    fs.writeFileSync(path.join(root, 'package.json'), manifest);
    fs.writeFileSync(
      path.join(root, 'src', 'hub.ts'),
      [
        `import express from 'express';`,
        `import { randomUUID } from 'node:crypto';`,
        `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';`,
        STATELESS,
        `export class Hub {`,
        `  private server: McpServer;`,
        `  private open = new Map<string, StreamableHTTPServerTransport>();`,
        `  constructor() {`,
        `    this.server = new McpServer({ name: 'hub', version: '1.0.0' });`,
        `  }`,
        // (made in two places, so it cannot become a factory method: apply only marks the endpoint)
        `  reset() {`,
        `    this.server = new McpServer({ name: 'hub', version: '1.0.1' });`,
        `  }`,
        `  listen(port: number) {`,
        `    const app = express();`,
        `    app.use(express.json());`,
        `    app.post('/mcp', async (req, res) => {`,
        `      const id = req.header('mcp-session-id');`,
        `      let transport = id ? this.open.get(id) : undefined;`,
        `      if (!transport) {`,
        `        transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (sid) => void this.open.set(sid, transport!) });`,
        `        await this.server.connect(transport);`,
        `      }`,
        `      await transport.handleRequest(req, res, req.body);`,
        `    });`,
        `    app.listen(port, '127.0.0.1');`,
        `  }`,
        `}`,
        ``,
      ].join('\n'),
    );
    const result = apply({ paths: [root], cwd: root, dryRun: true, target: '2025-11-25' });
    expect(result.changes.map((c) => c.file)).toEqual(['src/hub.ts']);
    expect(result.changes[0].diff).toContain('mcp-migrate: ');
    expect(result.manual.some((m) => m.file === 'package.json')).toBe(false);
  });
});
