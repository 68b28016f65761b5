#!/usr/bin/env node
// Build step (after tsc): writes dist/rule-catalog.json, the rules' metadata as data, so that `mcp-migrate rules` and
// `mcp-migrate explain` answer without loading the rules' code (and ts-morph with it).
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { allRuleMetas } = require('../dist/src/rules');

fs.writeFileSync(path.join(__dirname, '..', 'dist', 'rule-catalog.json'), `${JSON.stringify(allRuleMetas, null, 2)}\n`);
