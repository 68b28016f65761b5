// Reading a project's package files: package.json (and lock) contents, and the workspace root a package belongs to.
import * as fs from 'node:fs';
import * as path from 'node:path';

/** A JSON file's content, or undefined when it is missing or not JSON. */
export function readJson<T>(file: string): T | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

/**
 * The nearest folder above `dir` that declares workspaces (npm and yarn `workspaces`, pnpm-workspace.yaml, lerna.json):
 * its install brings the packages of the folders below it. A package.json above that declares none is another project.
 */
export function workspaceRootAbove(dir: string): string | undefined {
  for (let above = path.dirname(dir); path.dirname(above) !== above; above = path.dirname(above)) {
    if (readJson<{ workspaces?: unknown }>(path.join(above, 'package.json'))?.workspaces) return above;
    if (['pnpm-workspace.yaml', 'lerna.json'].some((file) => fs.existsSync(path.join(above, file)))) return above;
  }
  return undefined;
}
