import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  DEFAULT_MAX_FILE_BYTES,
  formatBytes,
  isReadProblem,
  readSource,
  writeSourceText,
  type SourceText,
} from '../src/engine/read-source';

let tmp: string;

beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-migrate-read-'));
});

afterEach(() => {
  for (const name of fs.readdirSync(tmp)) fs.chmodSync(path.join(tmp, name), 0o644);
  fs.rmSync(tmp, { recursive: true, force: true });
});

function file(name: string, content: string | Buffer): string {
  const abs = path.join(tmp, name);
  fs.writeFileSync(abs, content);
  return abs;
}

function readOk(abs: string, maxBytes?: number): SourceText {
  const result = readSource(abs, maxBytes === undefined ? undefined : { maxBytes });
  if (isReadProblem(result)) throw new Error(`unexpected problem: ${result.problem.message}`);
  return result;
}

/** What the writer would put on disk for unchanged text. */
function roundTrip(abs: string): Buffer {
  const source = readOk(abs);
  return Buffer.from(writeSourceText(source.text, source), 'utf8');
}

describe('readSource', () => {
  it('reads a plain LF file', () => {
    const abs = file('a.ts', 'const a = 1;\nconst b = "é";\n');
    expect(readSource(abs)).toEqual({ text: 'const a = 1;\nconst b = "é";\n', bom: false, eol: '\n', bytes: 29, mixedEol: false });
  });

  it('strips and reports a UTF-8 BOM', () => {
    const abs = file('bom.ts', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('export {};\n')]));
    const source = readOk(abs);
    expect(source.bom).toBe(true);
    expect(source.text).toBe('export {};\n');
    expect(source.text.charCodeAt(0)).not.toBe(0xfeff);
    expect(source.bytes).toBe(14);
  });

  it('detects CRLF from the first line break and keeps the text as is', () => {
    const source = readOk(file('crlf.ts', 'a;\r\nb;\r\n'));
    expect(source).toMatchObject({ eol: '\r\n', text: 'a;\r\nb;\r\n', mixedEol: false });
    expect(readOk(file('lf-first.ts', 'a;\nb;\r\n'))).toMatchObject({ eol: '\n', mixedEol: true });
    expect(readOk(file('crlf-mixed.ts', 'a;\r\nb;\nc;\r\n'))).toMatchObject({ eol: '\r\n', mixedEol: true });
    expect(readOk(file('one-line.ts', 'a;'))).toMatchObject({ eol: '\n', mixedEol: false });
    expect(readOk(file('empty.ts', ''))).toEqual({ text: '', bom: false, eol: '\n', bytes: 0, mixedEol: false });
  });

  it('reports a file with a NUL byte in its first 8000 bytes as binary', () => {
    const result = readSource(file('bin.js', Buffer.from([0x61, 0x62, 0x00, 0x63])));
    expect(result).toEqual({ problem: { kind: 'binary', message: 'binary file (NUL byte at offset 2); skipped' } });
    // A NUL beyond the sniffed prefix is not looked for.
    const late = Buffer.concat([Buffer.alloc(9000, 0x61), Buffer.from([0x00])]);
    expect(isReadProblem(readSource(file('late.js', late)))).toBe(false);
  });

  it('reports invalid UTF-8', () => {
    const result = readSource(file('latin1.ts', Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a])));
    expect(result).toEqual({ problem: { kind: 'encoding', message: 'not valid UTF-8' } });
    expect(readSource(file('truncated.ts', Buffer.from([0x61, 0xe2, 0x82])))).toEqual({
      problem: { kind: 'encoding', message: 'not valid UTF-8' },
    });
  });

  it('skips a file over the limit without reading it', () => {
    const abs = file('big.js', Buffer.alloc(1_500_000, 0x61));
    expect(readSource(abs)).toEqual({
      problem: { kind: 'too-large', message: 'file is 1.5 MB, over the 1 MB limit; skipped (raise with --max-file-size)' },
    });
    expect(readSource(abs, { maxBytes: 2_000_000 })).toMatchObject({ bytes: 1_500_000 });
    expect(readSource(file('small.js', 'x'.repeat(2048)), { maxBytes: 1000 })).toEqual({
      problem: { kind: 'too-large', message: 'file is 2 kB, over the 1 kB limit; skipped (raise with --max-file-size)' },
    });
    // Exactly at the limit is fine.
    expect(isReadProblem(readSource(file('edge.js', 'x'.repeat(1000)), { maxBytes: 1000 }))).toBe(false);
    expect(DEFAULT_MAX_FILE_BYTES).toBe(1_000_000);
  });

  it('checks the size before reading (a sparse huge file is refused at once)', () => {
    const abs = path.join(tmp, 'sparse.js');
    const fd = fs.openSync(abs, 'w');
    fs.ftruncateSync(fd, 3_000_000_000); // 3 GB, larger than a Buffer can hold on some Node builds
    fs.closeSync(fd);
    expect(readSource(abs)).toEqual({
      problem: { kind: 'too-large', message: 'file is 3000 MB, over the 1 MB limit; skipped (raise with --max-file-size)' },
    });
  });

  it('refuses a FIFO without blocking', (context) => {
    const fifo = path.join(tmp, 'pipe.ts');
    try {
      execFileSync('mkfifo', [fifo]);
    } catch {
      context.skip();
    }
    expect(readSource(fifo)).toEqual({ problem: { kind: 'unreadable', message: 'cannot read file (not a regular file)' } });
  });

  it('reports unreadable files with the OS error code', (context) => {
    expect(readSource(path.join(tmp, 'missing.ts'))).toEqual({ problem: { kind: 'unreadable', message: 'cannot read file (ENOENT)' } });
    expect(readSource(tmp)).toEqual({ problem: { kind: 'unreadable', message: 'cannot read file (EISDIR)' } });

    const abs = file('locked.ts', 'x');
    fs.chmodSync(abs, 0o000);
    let chmodEffective = true;
    try {
      fs.readFileSync(abs);
      chmodEffective = false; // running as root
    } catch {
      // expected for ordinary users
    }
    if (process.platform === 'win32' || !chmodEffective) context.skip();
    expect(readSource(abs)).toEqual({ problem: { kind: 'unreadable', message: 'cannot read file (EACCES)' } });
  });
});

describe('writeSourceText', () => {
  const cases: Record<string, Buffer> = {
    lf: Buffer.from('import x from "y";\n\nexport const a = 1;\n'),
    crlf: Buffer.from('import x from "y";\r\n\r\nexport const a = 1;\r\n'),
    bom: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('export const a = "ü";\n')]),
    'bom+crlf': Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('a;\r\nb;\r\n')]),
    'mixed crlf-first': Buffer.from('a;\r\nb;\nc;\r\n'),
    'mixed lf-first': Buffer.from('a;\nb;\r\nc;\n'),
    'no trailing newline': Buffer.from('a;\r\nb;'),
    'second bom kept as text': Buffer.from([0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf, 0x61]),
  };
  for (const [name, bytes] of Object.entries(cases)) {
    it(`round-trips a ${name} file byte for byte`, () => {
      const abs = file('f.ts', bytes);
      expect(roundTrip(abs).equals(bytes)).toBe(true);
    });
  }

  it('converts inserted LF lines to CRLF without doubling existing CRLF', () => {
    expect(writeSourceText('a;\r\nnew;\nb;\r\n', { bom: false, eol: '\r\n' })).toBe('a;\r\nnew;\r\nb;\r\n');
    expect(writeSourceText('a;\nb;\n', { bom: false, eol: '\r\n' })).toBe('a;\r\nb;\r\n');
    expect(writeSourceText('a;\nb;\n', { bom: false, eol: '\n' })).toBe('a;\nb;\n');
    expect(writeSourceText('a;\n', { bom: true, eol: '\r\n' })).toBe('\uFEFFa;\r\n');
  });

  it('leaves line breaks alone for a file with mixed line breaks', () => {
    expect(writeSourceText('a;\r\nb;\nnew;\n', { bom: false, eol: '\r\n', mixedEol: true })).toBe('a;\r\nb;\nnew;\n');
  });
});

describe('formatBytes', () => {
  it('uses decimal units', () => {
    expect(formatBytes(1)).toBe('1 byte');
    expect(formatBytes(999)).toBe('999 bytes');
    expect(formatBytes(1000)).toBe('1 kB');
    expect(formatBytes(1_500_000)).toBe('1.5 MB');
    expect(formatBytes(1_000_000)).toBe('1 MB');
  });
});
