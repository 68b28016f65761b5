#!/usr/bin/env node
// `npm run bench`: mcp-migrate side by side with what it competes with, on a generated monorepo (bench/tree.js: 10,000
// files, ~49% of them mentioning a weak marker, ~1% fixture-server copies). Each measurement is a separate process,
// run `--runs` times (default 5), the measurements interleaved so that machine noise hits them alike; the figures are
// medians of wall time and of peak resident memory (VmHWM, polled). Ends with one `bench:` line; exits 1 when a target
// is missed. Options: --files=N --copies=N --runs=N --seed=N --keep (leave the tree in the temp dir).
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { makeTree } = require('./tree.js');

const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=')));
const files = Number(args.files ?? 10_000);
const runs = Number(args.runs ?? 5);
const BIN = path.join(__dirname, '..', 'bin', 'mcp-migrate.js');
const AST_GREP = path.join(__dirname, '..', 'node_modules', '.bin', 'ast-grep');
const AST_GREP_CONFIG = path.join(__dirname, 'ast-grep', 'sgconfig.yml');

const TARGETS = {
  /** `check` at least twice as fast as `ast-grep scan` with the four equivalent rules. */
  checkPerAstGrep: 0.5,
  /** `check` within 5× of walking, reading and regex-testing every file in Node. */
  checkPerNodeFloor: 5,
  checkRssMb: 400,
  applyRssMb: 400,
  /** `mcp-migrate --version`, a whole process: the CLI loads no engine for it. */
  versionMs: 300,
};

/** What is measured, in the order each repetition runs them. `exit` lists the exit codes that mean success. */
function measurements(root) {
  return [
    { name: 'check', command: [process.execPath, BIN, 'check', root, '--format', 'json'], exit: [0, 1] },
    { name: 'ast-grep', command: [AST_GREP, 'scan', '--config', AST_GREP_CONFIG, '--json=stream', root], exit: [0, 1] },
    { name: 'node-floor', command: [process.execPath, path.join(__dirname, 'node-floor.js'), root], exit: [0] },
    { name: 'apply', command: [process.execPath, BIN, 'apply', '--dry-run', root, '--format', 'json'], exit: [0, 1] },
    { name: 'version', command: [process.execPath, BIN, '--version'], exit: [0] },
  ];
}

/** Peak resident set of a running process so far (the kernel's high-water mark), in bytes; 0 once it is gone. */
function peakRss(pid) {
  try {
    const match = /^VmHWM:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** CPU time a running process has used so far, user and system, in ms (all its threads); undefined once it is gone. */
function cpuTime(pid) {
  try {
    // (after the command name, which may hold spaces, in parentheses: utime and stime are fields 14 and 15, in ticks)
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return { userMs: Number(fields[11]) * TICK_MS, systemMs: Number(fields[12]) * TICK_MS };
  } catch {
    return undefined;
  }
}
const TICK_MS = 10; // (USER_HZ is 100 on Linux)

/** Runs one command to completion: wall time, peak RSS, CPU time (as last sampled) and the size of what it printed. */
function measure({ name, command, exit }) {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(command[0], command.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
    let rss = 0;
    let cpu = { userMs: 0, systemMs: 0 };
    let output = 0;
    let errors = '';
    const sampler = setInterval(() => {
      rss = Math.max(rss, peakRss(child.pid));
      cpu = cpuTime(child.pid) ?? cpu;
    }, 5);
    child.stdout.on('data', (chunk) => (output += chunk.length));
    child.stderr.on('data', (chunk) => (errors += chunk));
    child.on('error', reject);
    child.on('exit', (code) => {
      clearInterval(sampler);
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      if (!exit.includes(code)) reject(new Error(`${name} exited with ${code}: ${errors.slice(0, 2000)}`));
      else resolve({ ms, rss, ...cpu, output });
    });
  });
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const mb = (bytes) => Math.round(bytes / 1024 / 1024);

async function main() {
  if (!fs.existsSync(AST_GREP)) throw new Error('ast-grep is missing: run npm ci (it is a devDependency, @ast-grep/cli)');
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-migrate-bench-'));
  try {
    const loadBefore = os.loadavg()[0];
    const written = makeTree(root, { files, copies: Number(args.copies ?? 3), seed: Number(args.seed ?? 15) });
    const list = measurements(root);
    const samples = Object.fromEntries(list.map((m) => [m.name, []]));
    // One untimed pass warms the file cache and checks every command works.
    for (const m of list) await measure(m);
    for (let run = 0; run < runs; run++) {
      for (const m of list) samples[m.name].push(await measure(m));
    }
    const results = Object.fromEntries(
      list.map((m) => [
        m.name,
        {
          ms: Math.round(median(samples[m.name].map((s) => s.ms))),
          userMs: Math.round(median(samples[m.name].map((s) => s.userMs))),
          systemMs: Math.round(median(samples[m.name].map((s) => s.systemMs))),
          rssMb: mb(median(samples[m.name].map((s) => s.rss))),
        },
      ]),
    );
    const ratio = (a, b) => Math.round((results[a].ms / results[b].ms) * 100) / 100;
    const line = {
      'check/ast-grep': ratio('check', 'ast-grep'),
      'check/node-floor': ratio('check', 'node-floor'),
      'apply-ms': results.apply.ms,
      'check-rss-mb': results.check.rssMb,
      'apply-rss-mb': results.apply.rssMb,
      files: written,
      cores: os.availableParallelism(),
    };
    const misses = [];
    if (line['check/ast-grep'] > TARGETS.checkPerAstGrep)
      misses.push(`check/ast-grep ${line['check/ast-grep']} > ${TARGETS.checkPerAstGrep}`);
    if (line['check/node-floor'] > TARGETS.checkPerNodeFloor)
      misses.push(`check/node-floor ${line['check/node-floor']} > ${TARGETS.checkPerNodeFloor}`);
    if (line['check-rss-mb'] >= TARGETS.checkRssMb) misses.push(`check peak RSS ${line['check-rss-mb']} MB >= ${TARGETS.checkRssMb}`);
    if (line['apply-rss-mb'] >= TARGETS.applyRssMb) misses.push(`apply peak RSS ${line['apply-rss-mb']} MB >= ${TARGETS.applyRssMb}`);
    if (results.version.ms > TARGETS.versionMs) misses.push(`--version ${results.version.ms} ms > ${TARGETS.versionMs}`);
    // (the 1-minute load average when the bench started and when it ended: on a shared machine, what the times mean)
    const load = [loadBefore, os.loadavg()[0]].map((value) => Math.round(value * 10) / 10);
    console.log(JSON.stringify({ runs, node: process.version, load, targets: TARGETS, results, misses }, null, 2));
    console.log(
      `bench: ${Object.entries(line)
        .map(([key, value]) => `${key}=${value}`)
        .join(' ')}`,
    );
    process.exitCode = misses.length > 0 ? 1 : 0;
  } finally {
    if (args.keep === undefined) fs.rmSync(root, { recursive: true, force: true });
    else console.error(`tree kept in ${root}`);
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 2;
});
