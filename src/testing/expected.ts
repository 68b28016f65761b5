// What `apply --target 2025-11-25` should write, computed in memory: scan a directory, migrate the sources with
// `migrateSources` (CRLF files normalised to LF first, exactly as `apply` does), and turn each output back into file
// content (BOM and CRLF restored). Tests compare files on disk against this, byte for byte. Only the v1 target: the
// 2026-07-28 path also rewrites package.json manifests, which this does not model; tests that use it pin the target.
import { migrateSources, type MigrateOptions } from '../engine/apply';
import { scan, type ScanOptions } from '../engine/scan';
import { writeSourceText } from '../engine/read-source';

/** The target `expectedMigration` models; tests that compare against it pass `--target` with this value. */
export const EXPECTED_TARGET = '2025-11-25' as const;

export interface ExpectedFile {
  relPath: string;
  absPath: string;
  /** The file as it is now (what `readSource` decoded, BOM and line breaks restored). */
  original: string;
  /** The file after a complete `apply`. Equal to `original` when nothing changes. */
  migrated: string;
}

export function expectedMigration(
  options: Partial<ScanOptions> & { paths: string[]; cwd: string },
  migrate: MigrateOptions = {},
): Map<string, ExpectedFile> {
  const scanned = scan(options);
  const sources = scanned.sources.map((loaded) => {
    const crlf = loaded.source.eol === '\r\n' && !loaded.source.mixedEol;
    return { absPath: loaded.absPath, relPath: loaded.relPath, text: crlf ? loaded.text.replace(/\r\n/g, '\n') : loaded.text };
  });
  const target = migrate.target ?? EXPECTED_TARGET;
  if (target !== EXPECTED_TARGET) throw new Error(`expectedMigration models --target ${EXPECTED_TARGET} only, not ${target}`);
  const migration = migrateSources(sources, { endpoint: '/mcp', ...migrate, target });
  const files = new Map<string, ExpectedFile>();
  for (const [index, source] of sources.entries()) {
    const loaded = scanned.sources[index];
    const output = migration.outputs.get(source.relPath)!;
    files.set(source.relPath, {
      relPath: source.relPath,
      absPath: source.absPath,
      original: writeSourceText(loaded.text, { ...loaded.source, eol: '\n' }),
      migrated:
        output === source.text ? writeSourceText(loaded.text, { ...loaded.source, eol: '\n' }) : writeSourceText(output, loaded.source),
    });
  }
  return files;
}
