/**
 * sdk-import-types — a type written as `import("@modelcontextprotocol/sdk/shared/auth.js").OAuthClientInformationFull`
 * names the v1 SDK without an import declaration, so the official codemod leaves it, and once the migrated manifest
 * drops `@modelcontextprotocol/sdk` it no longer resolves (TS2307). Each one points at the v2 package the codemod's
 * own import mapping gives that name (client or server as the file's v2 imports say, as the codemod decides), under
 * the name it has there (`ResourceTemplate` → `ResourceTemplateType`), when that package exports it; a name v2
 * removed or does not export (`ErrorCode`) is left for the type-check to report.
 */
import { spawnSync } from 'node:child_process';
import type { API, FileInfo } from 'jscodeshift';
import { compiledEngineModule, createContext, print, type TransformContext, type TransformOptions } from '../lib/context';
import type { AnyNode } from '../lib/ast';
import { inlinePlaceholder } from '../lib/emit';
import type { ProjectType, V2Home } from '../../src/engine/v2-homes';

export const id = 'sdk-import-types';

const V1_SDK = '@modelcontextprotocol/sdk/';

export function mayApply(text: string): boolean {
  return /\bimport\s*\(\s*['"]@modelcontextprotocol\/sdk\//.test(text);
}

export default function transform(file: FileInfo, api: API, options: TransformOptions = {}): string | undefined {
  const context = createContext(file, api, { ...options, findings: [] }, []);
  const { j, root } = context;
  const sites = root
    .find(j.TSImportType)
    .nodes()
    .map((node) => {
      const argument = (node as unknown as AnyNode).argument as AnyNode;
      const literal = (argument.type === 'TSLiteralType' ? argument.literal : argument) as AnyNode;
      return { node: node as unknown as AnyNode, literal, first: leftmost((node as unknown as AnyNode).qualifier as AnyNode | null) };
    })
    .filter((site) => typeof site.literal.value === 'string' && site.literal.value.startsWith(V1_SDK) && site.first);
  if (sites.length === 0) return undefined;
  const homes = v2Homes(
    sites.map((site) => ({ module: site.literal.value as string, name: site.first!.name as string })),
    projectTypeOf(context),
  );
  let changed = false;
  sites.forEach((site, index) => {
    const home = homes[index];
    if (!home) return;
    const quote = ((site.literal.extra as AnyNode | undefined)?.raw as string | undefined)?.[0] ?? "'";
    site.node.argument = j.identifier(inlinePlaceholder(context, `${quote}${home.module}${quote}`));
    site.first!.name = home.name;
    changed = true;
  });
  return changed ? print(context) : undefined;
}

/**
 * The v2 home of each v1 name (src/engine/v2-homes.ts). Under the plain jscodeshift CLI, whose babel hook cannot load
 * ts-morph (the official codemod runs on it), the compiled engine answers in a child process (`npm run build` first).
 */
function v2Homes(names: V2Home[], projectType: ProjectType): Array<V2Home | null | undefined> {
  let engine: typeof import('../../src/engine/v2-homes') | undefined;
  try {
    engine = require('../../src/engine/v2-homes') as typeof import('../../src/engine/v2-homes');
  } catch {
    engine = undefined;
  }
  if (engine) return names.map(({ module, name }) => engine.v2HomeOf(module, name, projectType));
  const script = `const { v2HomeOf } = require(${JSON.stringify(compiledEngineModule('v2-homes.js'))});
const { names, projectType } = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));
process.stdout.write(JSON.stringify(names.map((n) => v2HomeOf(n.module, n.name, projectType) ?? null)));`;
  const result = spawnSync(process.execPath, ['-e', script], { input: JSON.stringify({ names, projectType }), encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`could not read the v2 packages' exports (run \`npm run build\` first): ${result.stderr}`);
  return JSON.parse(result.stdout) as Array<V2Home | null>;
}

/** `A` of `import("…").A.B`. */
function leftmost(qualifier: AnyNode | null): AnyNode | undefined {
  let node = qualifier;
  while (node?.type === 'TSQualifiedName') node = node.left as AnyNode;
  return node?.type === 'Identifier' ? node : undefined;
}

/** Client or server code, as the file's v2 imports (the codemod's rewrites) say; `unknown` is the codemod's server default. */
function projectTypeOf(context: TransformContext): ProjectType {
  const { j, root } = context;
  const packages = root
    .find(j.ImportDeclaration)
    .nodes()
    .map((node) => /^@modelcontextprotocol\/([\w-]+)/.exec(node.source.value as string)?.[1])
    .filter((name): name is string => !!name && name !== 'sdk' && name !== 'core');
  const client = packages.includes('client');
  const server = packages.some((name) => name !== 'client');
  return client && server ? 'both' : client ? 'client' : server ? 'server' : 'unknown';
}
