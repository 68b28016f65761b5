#!/usr/bin/env node
'use strict';
// Entry point: the compiled CLI lives in dist/ (built by `npm run build`, which `npm ci` runs via `prepare`).
require('../dist/src/cli/main.js')
  .main(process.argv.slice(2))
  .then((code) => {
    process.exitCode = code;
  });
