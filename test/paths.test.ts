// Paths in reports: relative to the working directory (every format, every diff header), SARIF relative to the git
// root with uriBaseId. Run from a parent folder, the printed dry-run diff applies with `git apply`.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { FIXTURES_DIR, REPO_ROOT, scratchDir } from './helpers/server-process';

const cli = (cwd: string, ...args: string[]) =>
  spawnSync(process.execPath, [path.join(REPO_ROOT, 'bin', 'mcp-migrate.js'), ...args, '--no-color'], { cwd, encoding: 'utf8' });

function git(cwd: string, ...args: string[]): string {
  const run = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`git ${args.join(' ')}: ${run.stderr}`);
  return run.stdout;
}

/** A git repository holding `services/<name>` = a copy of the fixture server, committed. */
function repoWithServer(name: string): { repo: string; server: string } {
  const repo = scratchDir('paths', name);
  const server = path.join(repo, 'services', name);
  fs.cpSync(path.join(FIXTURES_DIR, name), server, { recursive: true });
  git(repo, 'init', '-q');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-qm', 'fixture');
  return { repo, server };
}

describe('paths relative to where you run', () => {
  it('from a parent folder, `git apply` takes the printed dry-run diff and gives what apply writes', () => {
    const { repo } = repoWithServer('a-express-shared-server');
    const dry = cli(repo, 'apply', '--dry-run', '--target', '2025-11-25', 'services/a-express-shared-server');
    expect(dry.status).toBe(1);
    expect(dry.stdout).toContain(
      '--- a/services/a-express-shared-server/src/index.ts\n+++ b/services/a-express-shared-server/src/index.ts\n',
    );
    const patch = path.join(repo, '..', `${path.basename(repo)}.patch`);
    fs.writeFileSync(patch, dry.stdout);
    git(repo, 'apply', '--check', patch);
    git(repo, 'apply', patch);
    const patched = git(repo, 'diff');
    git(repo, 'checkout', '--', '.');
    expect(cli(repo, 'apply', '--target', '2025-11-25', 'services/a-express-shared-server').status).toBe(0);
    expect(git(repo, 'diff')).toBe(patched);
    expect(patched).toContain('StreamableHTTPServerTransport');
  });

  it('text, json, github and junit name files from the working directory; from inside the server they are short', () => {
    const { repo, server } = repoWithServer('b-express-stateful');
    const target = 'services/b-express-stateful';
    expect(cli(repo, 'check', target).stdout).toContain(`${target}/src/index.ts\n`);
    const json = JSON.parse(cli(repo, 'check', target, '--format', 'json').stdout);
    expect(json.root).toBe(repo);
    expect(new Set(json.findings.map((f: { file: string }) => f.file))).toEqual(new Set([`${target}/src/index.ts`]));
    expect(cli(repo, 'check', target, '--format', 'github').stdout).toMatch(
      new RegExp(`^::error file=${target}/src/index\\.ts,line=`, 'm'),
    );
    expect(cli(repo, 'check', target, '--format', 'junit').stdout).toContain(`classname="${target}/src/index.ts"`);
    const inside = JSON.parse(cli(server, 'check', '--format', 'json').stdout);
    expect(inside.findings[0].file).toBe('src/index.ts');
    const fromSrc = JSON.parse(cli(path.join(server, 'src'), 'check', '..', '--format', 'json').stdout);
    expect(fromSrc.findings[0].file).toBe('index.ts');
  });

  it('SARIF is relative to the git root with uriBaseId, so results and fingerprints do not depend on the folder scanned', () => {
    const { repo, server } = repoWithServer('b-express-stateful');
    const fromRoot = JSON.parse(cli(repo, 'check', 'services/b-express-stateful', '--format', 'sarif').stdout).runs[0];
    const fromServer = JSON.parse(cli(server, 'check', '.', '--format', 'sarif').stdout).runs[0];
    expect(fromRoot.originalUriBaseIds['%SRCROOT%'].uri).toBe(`${new URL(`file://${repo}/`).href}`);
    expect(fromServer.originalUriBaseIds).toEqual(fromRoot.originalUriBaseIds);
    const where = (run: { results: Array<{ locations: unknown; partialFingerprints: unknown }> }) =>
      run.results.map((r) => [r.locations, r.partialFingerprints]);
    expect(where(fromServer)).toEqual(where(fromRoot));
    expect(fromRoot.results[0].locations[0].physicalLocation.artifactLocation).toEqual({
      uri: 'services/b-express-stateful/src/index.ts',
      uriBaseId: '%SRCROOT%',
    });
  });
});
