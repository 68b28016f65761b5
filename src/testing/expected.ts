// What `apply` should write, computed in memory: scan a directory, migrate the sources with `migrateSources` (CRLF
// files normalised to LF first, exactly as `apply` does), and turn each output back into file content (BOM and CRLF
// restored). Tests compare files on disk against this, byte for byte.
import { migrateSources, type MigrateOptions } from '../engine/apply';
import { scan, type ScanOptions } from '../engine/scan';
import { writeSourceText } from '../engine/read-source';

export interface ExpectedFile {
  relPath: string;
  absPath: string;
  /** The file as it is now (what `readSource` decoded, BOM and line breaks restored). */
  original: string;
  /** The file after a complete `apply`. Equal to `original` when nothing changes. */
  migrated: string;
}

export function expectedMigration(options: Partial<ScanOptions> & { paths: string[]; cwd: string }, migrate: MigrateOptions = {}): Map<string, ExpectedFile> {
  const scanned = scan(options);
  const sources = scanned.sources.map((loaded) => {
    const crlf = loaded.source.eol === '\r\n' && !loaded.source.mixedEol;
    return { absPath: loaded.absPath, relPath: loaded.relPath, text: crlf ? loaded.text.replace(/\r\n/g, '\n') : loaded.text };
  });
  const migration = migrateSources(sources, { endpoint: '/mcp', ...migrate });
  const files = new Map<string, ExpectedFile>();
  for (const [index, source] of sources.entries()) {
    const loaded = scanned.sources[index];
    const output = migration.outputs.get(source.relPath)!;
    files.set(source.relPath, {
      relPath: source.relPath,
      absPath: source.absPath,
      original: writeSourceText(loaded.text, { ...loaded.source, eol: '\n' }),
      migrated: output === source.text ? writeSourceText(loaded.text, { ...loaded.source, eol: '\n' }) : writeSourceText(output, loaded.source),
    });
  }
  return files;
}
