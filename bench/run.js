#!/usr/bin/env node
// `npm run bench`: speed and memory of check and apply on a generated corpus, against fixed targets.
// The corpus: N ordinary TypeScript modules (never MCP candidates) plus copies of every fixture server, so the
// pre-filter, the parser and the transforms all get work. Exits 1 when a target is missed.
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { check } = require('../dist/src/engine/scan.js');
const { apply } = require('../dist/src/engine/apply.js');

const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=')));
const plainFiles = Number(args.files ?? 3000);
const serverCopies = Number(args.copies ?? 4);
const TARGETS = {
  // check on the whole corpus (3,000 ordinary files + ~100 MCP candidates with defaults): a CI gate in seconds.
  checkMs: 5000,
  // check, per candidate file actually parsed and analysed.
  checkMsPerCandidate: 40,
  // apply --dry-run, per candidate file (parse, analyse, transform, re-analyse between transforms, diff).
  applyMsPerCandidate: 250,
  // apply --dry-run --target 2026-07-28: also runs the official v1→v2 codemod once per package.
  applyV2MsPerCandidate: 600,
  // peak resident memory of this process.
  peakRssMiB: 1024,
  // `mcp-migrate --version`, a whole process (median of 7): the CLI loads no engine for it.
  versionMs: 300,
};

function makeCorpus() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-migrate-bench-'));
  for (let i = 0; i < plainFiles; i++) {
    const dir = path.join(root, 'src', `pkg${i % 50}`);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(
      path.join(dir, `module${i}.ts`),
      `// ordinary module ${i}\nexport interface Item${i} { id: string; count: number }\n` +
        `export function total${i}(items: Item${i}[]): number {\n  return items.reduce((sum, item) => sum + item.count, 0);\n}\n` +
        `export const LABEL_${i} = 'module ${i}';\n`.repeat(3),
    );
  }
  const fixtures = path.join(__dirname, '..', 'fixtures', 'servers');
  for (let copy = 0; copy < serverCopies; copy++) {
    for (const name of fs.readdirSync(fixtures)) {
      if (!fs.existsSync(path.join(fixtures, name, 'fixture.json'))) continue;
      fs.cpSync(path.join(fixtures, name), path.join(root, 'servers', `${name}-${copy}`), { recursive: true });
    }
  }
  return root;
}

/** Median wall time of `node bin/mcp-migrate.js --version` over 7 runs, and of a bare `node -e 0` for comparison. */
function measureStartup() {
  const { spawnSync } = require('node:child_process');
  const median = (args) => {
    const runs = Array.from({ length: 7 }, () => time(() => spawnSync(process.execPath, args, { stdio: 'ignore' })).ms).sort(
      (a, b) => a - b,
    );
    return Math.round(runs[3]);
  };
  return { versionMs: median([path.join(__dirname, '..', 'bin', 'mcp-migrate.js'), '--version']), bareNodeMs: median(['-e', '0']) };
}

function time(fn) {
  const start = process.hrtime.bigint();
  const value = fn();
  return { value, ms: Number(process.hrtime.bigint() - start) / 1e6 };
}

const root = makeCorpus();
let peakRss = process.memoryUsage().rss;
const sampler = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
}, 20);
try {
  const checked = time(() => check({ paths: [root], cwd: root }));
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
  const candidates = checked.value.summary.filesParsed;
  const applied = time(() => apply({ paths: [root], cwd: root, dryRun: true, target: '2025-11-25' }));
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
  const appliedV2 = time(() => apply({ paths: [root], cwd: root, dryRun: true, target: '2026-07-28' }));
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
  const scanned = checked.value.summary.filesScanned;
  const results = {
    corpus: { filesScanned: scanned, candidatesParsed: candidates, findings: checked.value.findings.length },
    check: {
      ms: Math.round(checked.ms),
      filesPerSecond: Math.round((scanned / checked.ms) * 1000),
      msPerCandidate: Math.round(checked.ms / Math.max(1, candidates)),
    },
    applyDryRun: {
      ms: Math.round(applied.ms),
      changedFiles: applied.value.changes.length,
      msPerCandidate: Math.round(applied.ms / Math.max(1, candidates)),
    },
    applyDryRunV2: {
      ms: Math.round(appliedV2.ms),
      changedFiles: appliedV2.value.changes.length,
      msPerCandidate: Math.round(appliedV2.ms / Math.max(1, candidates)),
    },
    peakRssMiB: Math.round(peakRss / 1024 / 1024),
    startup: measureStartup(),
    node: process.version,
    cpus: os.cpus().length,
  };
  const misses = [];
  if (results.check.ms > TARGETS.checkMs) misses.push(`check ${results.check.ms} ms > ${TARGETS.checkMs}`);
  if (results.check.msPerCandidate > TARGETS.checkMsPerCandidate)
    misses.push(`check ${results.check.msPerCandidate} ms/candidate > ${TARGETS.checkMsPerCandidate}`);
  if (results.applyDryRun.msPerCandidate > TARGETS.applyMsPerCandidate)
    misses.push(`apply ${results.applyDryRun.msPerCandidate} ms/candidate > ${TARGETS.applyMsPerCandidate}`);
  if (results.applyDryRunV2.msPerCandidate > TARGETS.applyV2MsPerCandidate)
    misses.push(`apply (2026-07-28) ${results.applyDryRunV2.msPerCandidate} ms/candidate > ${TARGETS.applyV2MsPerCandidate}`);
  if (results.startup.versionMs > TARGETS.versionMs) misses.push(`--version ${results.startup.versionMs} ms > ${TARGETS.versionMs}`);
  if (results.peakRssMiB > TARGETS.peakRssMiB) misses.push(`peak RSS ${results.peakRssMiB} MiB > ${TARGETS.peakRssMiB}`);
  console.log(JSON.stringify({ targets: TARGETS, results, misses }, null, 2));
  process.exitCode = misses.length > 0 ? 1 : 0;
} finally {
  clearInterval(sampler);
  fs.rmSync(root, { recursive: true, force: true });
}
