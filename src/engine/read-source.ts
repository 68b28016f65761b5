// Reads one source file for scanning, and writes text back in the file's original encoding details.
//
// Policy (documented in the README):
// - files over `maxBytes` (default 1 MB) are skipped with a `too-large` problem, decided by fstat
//   before anything is read;
// - a NUL byte in the first 8000 bytes means `binary` (the heuristic git and GNU diff use);
// - the bytes must be valid UTF-8 (`encoding` otherwise); a UTF-8 BOM is stripped from `text` and
//   remembered in `bom`;
// - `eol` is the style of the first line break; `writeSourceText` restores both.

import * as fs from 'node:fs';
import type { FileProblem } from '../model';

export interface SourceText {
  /** File contents without the BOM. Line breaks are kept as they are in the file. */
  text: string;
  /** The file started with a UTF-8 byte order mark (EF BB BF). */
  bom: boolean;
  /** The style of the file's first line break (`'\n'` when it has none). */
  eol: '\n' | '\r\n';
  /** Size of the file in bytes, BOM included. */
  bytes: number;
  /**
   * The file mixes CRLF and lone LF line breaks. `writeSourceText` then leaves line breaks alone
   * (converting would rewrite every untouched LF line of the file). Always set by `readSource`;
   * optional so that a hand-built `SourceText` need not carry it.
   */
  mixedEol?: boolean;
}

export type ReadProblem = Omit<FileProblem, 'file'>;

export interface ReadSourceOptions {
  /** Files larger than this are not read; default {@link DEFAULT_MAX_FILE_BYTES}. */
  maxBytes?: number;
}

/** Documented limit: larger files are skipped with a notice (raise with --max-file-size). */
export const DEFAULT_MAX_FILE_BYTES = 1_000_000;

/** How many leading bytes are searched for a NUL byte to call a file binary. */
export const BINARY_SNIFF_BYTES = 8000;

const UTF8_BOM = '\uFEFF';

// `ignoreBOM: true` keeps a BOM in the decoded string; we strip the leading one ourselves, so a
// second BOM (rare, but it happens with concatenated files) survives as text and round-trips.
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Human size with decimal units, as in the limit message: `1.5 MB`, `980 kB`, `12 bytes`. */
export function formatBytes(bytes: number): string {
  const trim = (value: number): string => value.toFixed(1).replace(/\.0$/, '');
  if (bytes >= 1_000_000) return `${trim(bytes / 1_000_000)} MB`;
  if (bytes >= 1_000) return `${trim(bytes / 1_000)} kB`;
  return `${bytes} byte${bytes === 1 ? '' : 's'}`;
}

function tooLarge(size: number, maxBytes: number): { problem: ReadProblem } {
  return {
    problem: {
      kind: 'too-large',
      message: `file is ${formatBytes(size)}, over the ${formatBytes(maxBytes)} limit; skipped (raise with --max-file-size)`,
    },
  };
}

function unreadable(error: unknown): { problem: ReadProblem } {
  const code = (error as NodeJS.ErrnoException | null)?.code ?? 'unknown error';
  return { problem: { kind: 'unreadable', message: `cannot read file (${code})` } };
}

export function isReadProblem(result: SourceText | { problem: ReadProblem }): result is { problem: ReadProblem } {
  return (result as { problem?: ReadProblem }).problem !== undefined;
}

export function readSource(absPath: string, options: ReadSourceOptions = {}): SourceText | { problem: ReadProblem } {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_FILE_BYTES;
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO must not wait for a writer (it is then refused as not a regular
    // file); for regular files the flag changes nothing.
    fd = fs.openSync(absPath, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
  } catch (error) {
    return unreadable(error);
  }
  let buffer: Buffer;
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) {
      return { problem: { kind: 'unreadable', message: `cannot read file (${stat.isDirectory() ? 'EISDIR' : 'not a regular file'})` } };
    }
    if (stat.size > maxBytes) return tooLarge(stat.size, maxBytes);
    buffer = fs.readFileSync(fd);
  } catch (error) {
    return unreadable(error);
  } finally {
    fs.closeSync(fd);
  }
  // The file may have grown between fstat and read.
  if (buffer.length > maxBytes) return tooLarge(buffer.length, maxBytes);

  const nul = buffer.subarray(0, BINARY_SNIFF_BYTES).indexOf(0);
  if (nul !== -1) {
    return { problem: { kind: 'binary', message: `binary file (NUL byte at offset ${nul}); skipped` } };
  }

  const bom = buffer.length >= 3 && buffer[0] === 0xef && buffer[1] === 0xbb && buffer[2] === 0xbf;
  let text: string;
  try {
    text = decoder.decode(bom ? buffer.subarray(3) : buffer);
  } catch {
    return { problem: { kind: 'encoding', message: 'not valid UTF-8' } };
  }

  const firstLf = text.indexOf('\n');
  const eol: SourceText['eol'] = firstLf > 0 && text.charCodeAt(firstLf - 1) === 13 ? '\r\n' : '\n';
  return { text, bom, eol, bytes: buffer.length, mixedEol: hasMixedEol(text, eol, firstLf) };
}

function hasMixedEol(text: string, eol: SourceText['eol'], firstLf: number): boolean {
  if (firstLf === -1) return false;
  if (eol === '\n') return text.includes('\r\n', firstLf);
  return /(^|[^\r])\n/.test(text.slice(firstLf + 1));
}

/**
 * Turns text back into what goes on disk: re-adds the BOM and, for a CRLF file, converts every
 * lone `\n` (typically from inserted code) to `\r\n`. Existing `\r\n` are left as they are, so
 * text read by `readSource` and written back unchanged is byte-for-byte identical. Files with
 * mixed line breaks (`mixedEol`) keep the line breaks of `text` untouched.
 */
export function writeSourceText(text: string, source: Pick<SourceText, 'bom' | 'eol' | 'mixedEol'>): string {
  let out = text;
  if (source.eol === '\r\n' && !source.mixedEol) out = out.replace(/\r?\n/g, '\r\n');
  return source.bom ? UTF8_BOM + out : out;
}
