// The lock check: a locked package that stays installed and wants, as a peer, a range the migrated manifest leaves
// makes `npm install` stop (ERESOLVE). fixtures/locked-peers/<case>/ holds a migrated package.json beside the lock the
// project had before the move; each case's README says what npm does with it.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { lockedPeerConflicts } from '../src/engine/locked-peers';
import { manifestFindings } from '../src/engine/manifests';
import { REPO_ROOT, scratchDir } from './helpers/server-process';

const FIXTURES = path.join(REPO_ROOT, 'fixtures', 'locked-peers');
const made: string[] = [];
afterAll(() => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
});

function conflictsOf(fixture: string) {
  const dir = path.join(FIXTURES, fixture);
  return lockedPeerConflicts(JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')), dir);
}

describe('lockedPeerConflicts', () => {
  it('follows what a moved package had locked: npm keeps it until the new tree drops it', () => {
    expect(conflictsOf('carried-by-moved-package')).toEqual([
      {
        locked: { name: 'chat-sdk', version: '4.1.2', source: 'package-lock.json' },
        peer: 'zod',
        peerRange: '^3.23.8',
        declared: '^4.2.0',
      },
      {
        locked: { name: 'chat-sdk-utils', version: '1.0.3', source: 'package-lock.json' },
        peer: 'zod',
        peerRange: '^3.23.8',
        declared: '^4.2.0',
      },
    ]);
  });

  it('ignores what only a package the manifest no longer names pulled in, and peer ranges the new range meets', () => {
    expect(conflictsOf('dropped-with-old-sdk')).toEqual([]);
  });

  it('reports packages pinned to one version (nested copies that resolve the peer from the root too), not one a range lets npm move', () => {
    expect(conflictsOf('direct-dependency').map((c) => `${c.locked.name}@${c.locked.version} ${c.peer} ${c.peerRange}`)).toEqual([
      'form-kit@2.3.1 zod ^3.22.0',
      'form-kit@1.9.0 zod ^3.20.0',
    ]);
  });

  it('reads the installed node_modules when there is no lock, and finds nothing when there is neither', () => {
    const dir = scratchDir('locked-peers');
    made.push(dir);
    const manifest = { name: 'x', dependencies: { zod: '^4.2.0', 'form-kit': '2.3.1' } };
    expect(lockedPeerConflicts(manifest, dir)).toEqual([]);
    const write = (rel: string, json: object) => {
      fs.mkdirSync(path.join(dir, rel), { recursive: true });
      fs.writeFileSync(path.join(dir, rel, 'package.json'), JSON.stringify(json));
    };
    write('node_modules/zod', { name: 'zod', version: '3.25.76' });
    write('node_modules/form-kit', { name: 'form-kit', version: '2.3.1', peerDependencies: { zod: '^3.22.0' } });
    write('node_modules/@scope/accepts-both', { name: '@scope/accepts-both', version: '1.0.0', peerDependencies: { zod: '^3 || ^4' } });
    expect(lockedPeerConflicts(manifest, dir)).toEqual([
      { locked: { name: 'form-kit', version: '2.3.1', source: 'node_modules' }, peer: 'zod', peerRange: '^3.22.0', declared: '^4.2.0' },
    ]);
  });
});

describe('check on a manifest that cannot install beside its lock', () => {
  it('is a v2-peer-ranges error at the peer, naming the locked package, its version and both ranges', () => {
    const root = path.join(FIXTURES, 'direct-dependency');
    const findings = manifestFindings(root, [path.join(root, 'src', 'server.ts')]);
    expect(findings.map((f) => [f.ruleId, f.severity, f.file, f.line, f.fix])).toEqual([
      ['v2-peer-ranges', 'error', 'package.json', 9, 'manual'],
      ['v2-peer-ranges', 'error', 'package.json', 9, 'manual'],
    ]);
    expect(findings[0].message).toBe(
      'zod ^4.2.0 cannot install beside the locked form-kit 2.3.1 (package-lock.json), which wants zod ^3.22.0 as a peer: npm install stops with ERESOLVE.',
    );
  });

  it('says nothing about a manifest that names no v2 package', () => {
    const dir = scratchDir('locked-peers');
    made.push(dir);
    for (const file of ['package-lock.json', 'package.json'])
      fs.copyFileSync(path.join(FIXTURES, 'direct-dependency', file), path.join(dir, file));
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
    delete manifest.dependencies['@modelcontextprotocol/server'];
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify(manifest, null, 2));
    expect(manifestFindings(dir, [path.join(dir, 'src', 'server.ts')])).toEqual([]);
  });
});
