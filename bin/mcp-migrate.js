#!/usr/bin/env node
'use strict';
// Entry point: the compiled CLI lives in dist/ (built by `npm run build`, which `npm ci` runs via `prepare`).
// A reader that stops early (`| head`) is not an error.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});
require('../dist/src/cli/main.js')
  .main(process.argv.slice(2))
  .then((code) => {
    process.exitCode = code;
  });
