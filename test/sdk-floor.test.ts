// The v1 SDK range the 2025-11-25 endpoint needs: a pin below the first release whose session-less transport serves
// the requests after initialize (1.10.2) is raised; one at or above it is left alone.
import { describe, expect, it } from 'vitest';
import { raiseSdkRange, sdkFloor } from '../src/engine/sdk-floor';

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
});
