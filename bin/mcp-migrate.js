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
  require('../dist/src/cli/main.js')
    .main(args)
    .then((code) => {
      process.exitCode = code;
    });
}
