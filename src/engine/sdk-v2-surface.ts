// The v1 → v2 SDK surface (imports, `.tool()` → `registerTool`, `extra.*` → `ctx.*`, error classes, package.json)
// is the official `@modelcontextprotocol/codemod`'s job: we run its runner, unchanged, on a scratch copy of the
// working texts, read the results back, and fold its diagnostics into our report. Nothing here re-implements it.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export interface SurfaceInput {
  /** Source texts by POSIX path relative to the scan root. */
  files: Map<string, string>;
  /** package.json texts by path relative to the scan root (may start with `../`). */
  manifests: Map<string, string>;
}

export interface SurfaceDiagnostic {
  file: string;
  line: number;
  level: 'error' | 'warning' | 'info';
  message: string;
}

export interface SurfaceResult {
  files: Map<string, string>;
  manifests: Map<string, string>;
  diagnostics: SurfaceDiagnostic[];
  /** Manifest-level warnings (e.g. a zod range below the v2 floor), by manifest path. */
  manifestWarnings: Array<{ manifest: string; message: string }>;
}

/** Current versions of the v2 packages (what this release was tested with), for manifests the codemod edits. */
export const V2_VERSIONS: Record<string, string> = {
  '@modelcontextprotocol/server': '^2.4.0',
  '@modelcontextprotocol/client': '^2.4.0',
  '@modelcontextprotocol/core': '^2.4.0',
  '@modelcontextprotocol/node': '^2.1.2',
  '@modelcontextprotocol/express': '^2.0.2',
  '@modelcontextprotocol/hono': '^2.0.2',
  '@modelcontextprotocol/fastify': '^2.0.1',
  '@modelcontextprotocol/server-legacy': '^2.3.1',
};

type Codemod = typeof import('@modelcontextprotocol/codemod');

export function migrateSdkSurface(input: SurfaceInput): SurfaceResult {
  const codemod = require('@modelcontextprotocol/codemod') as Codemod;
  const migration = codemod.getMigration('v1-to-v2');
  if (!migration) throw new Error('the official codemod has no v1-to-v2 migration');
  const depth = Math.max(0, ...[...input.manifests.keys()].map((p) => p.split('/').filter((s) => s === '..').length));
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-migrate-v2-'));
  const root = path.join(scratch, ...Array.from({ length: depth }, (_, i) => `up${i}`));
  try {
    // The codemod reads ESM imports only; CommonJS files go through it with their SDK requires spelled as imports.
    const bridged = new Set<string>();
    for (const [rel, text] of [...input.files, ...input.manifests]) {
      const target = path.resolve(root, rel);
      fs.mkdirSync(path.dirname(target), { recursive: true });
      const esm = input.files.has(rel) ? requiresToImports(text) : undefined;
      if (esm !== undefined) bridged.add(rel);
      fs.writeFileSync(target, esm ?? text);
    }
    const result = codemod.run(migration, { targetDir: root, dryRun: false });
    const read = (rel: string) => {
      const text = fs.readFileSync(path.resolve(root, rel), 'utf8');
      return bridged.has(rel) ? importsToRequires(text) : text;
    };
    const toRel = (abs: string) => path.relative(root, abs).split(path.sep).join('/');
    return {
      files: new Map([...input.files.keys()].map((rel) => [rel, read(rel)])),
      manifests: new Map([...input.manifests.keys()].map((rel) => [rel, pinV2Versions(read(rel), input.manifests.get(rel)!)])),
      diagnostics: result.diagnostics.map((d) => ({ file: toRel(d.file), line: d.line, level: d.level as SurfaceDiagnostic['level'], message: d.message })),
      manifestWarnings: (result.packageJsonChanges ?? []).flatMap((change) => (change.warnings ?? []).map((message) => ({ manifest: toRel(change.packageJsonPath), message }))),
    };
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/** The codemod writes the ranges it knows; raise added v2 packages to the current releases, keeping the layout. */
function pinV2Versions(after: string, before: string): string {
  if (after === before) return after;
  let text = after;
  for (const [name, version] of Object.entries(V2_VERSIONS)) {
    if (before.includes(`"${name}"`)) continue;
    text = text.replace(new RegExp(`("${name.replace(/[/.]/g, '\\$&')}"\\s*:\\s*)"[^"]*"`), `$1"${version}"`);
  }
  return text;
}

const TOP_REQUIRE = /^([ \t]*)(?:const|let|var)\s+(\{[^}]*\}|[\w$]+)\s*=\s*require\((['"])([^'"]+)\3\);?[ \t]*$/gm;

/**
 * In a CommonJS file that requires the v1 SDK: every top-level `const { A, B: C } = require('m')` becomes
 * `import { A, B as C } from 'm'` (and `const x = require('m')` becomes `import * as x from 'm'`), so the codemod
 * sees the SDK and zod as it would in an ES module. Undefined when the file is not such a file.
 */
export function requiresToImports(text: string): string | undefined {
  if (/^\s*import\s/m.test(text) || !/require\((['"])@modelcontextprotocol\/sdk\//.test(text)) return undefined;
  return text.replace(TOP_REQUIRE, (_all, indent: string, binding: string, quote: string, specifier: string) => {
    const names = binding.startsWith('{')
      ? `{ ${binding.slice(1, -1).split(',').map((part) => part.trim()).filter(Boolean).map((part) => part.replace(/\s*:\s*/, ' as ')).join(', ')} }`
      : `* as ${binding}`;
    return `${indent}import ${names} from ${quote}${specifier}${quote};`;
  });
}

/** The way back, for every import the codemod left or added in a bridged CommonJS file. */
export function importsToRequires(text: string): string {
  return text.replace(/^([ \t]*)import\s+(\{[^}]*\}|\*\s+as\s+[\w$]+)\s+from\s+(['"])([^'"]+)\3;?[ \t]*$/gm, (_all, indent: string, names: string, quote: string, specifier: string) => {
    const binding = names.startsWith('{')
      ? `{ ${names.slice(1, -1).split(',').map((part) => part.trim()).filter(Boolean).map((part) => part.replace(/^type\s+/, '').replace(/\s+as\s+/, ': ')).join(', ')} }`
      : names.replace(/^\*\s+as\s+/, '');
    return `${indent}const ${binding} = require(${quote}${specifier}${quote});`;
  });
}
