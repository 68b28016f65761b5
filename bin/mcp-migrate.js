#!/usr/bin/env node
'use strict';
// Entry point: the compiled CLI lives in dist/ (built by `npm run build`, which `npm ci` runs via `prepare`).
// A reader that stops early (`| head`) is not an error.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});
const args = process.argv.slice(2);
// `--version` alone answers before the argument parser is even loaded (CI scripts call it to log what runs).
if (args.length === 1 && args[0] === '--version') {
  process.stdout.write(`${require('../package.json').version}\n`);
} else {
  // V8 lets a heap grow to up to four times what survived the last full collection; for `apply`, whose live set is
  // mostly the loaded code of TypeScript, ts-morph and jscodeshift (about 65 MB), that was most of its peak RSS. Growing
  // it by 30% at a time costs a few more collections: `apply --dry-run` on the 10k bench tree peaked at 503 MB before,
  // 325-338 MB after, at 76-84 s of user CPU either way. (Set here, it holds for every thread the run starts.)
  require('node:v8').setFlagsFromString('--heap-growing-percent=30');
  // V8's code for TypeScript and the other large modules, kept between runs (dist/src/engine/compile-cache.js).
  require('../dist/src/engine/compile-cache.js').installCompileCache();
  require('../dist/src/cli/main.js')
    .main(args)
    .then((code) => {
      process.exitCode = code;
    });
}
