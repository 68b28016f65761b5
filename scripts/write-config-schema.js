#!/usr/bin/env node
// Writes schema/mcp-migrate.config.schema.json from the option table (src/config/options.ts), after `npm run build`.
// test/cli-options.test.ts fails while the committed file and the table disagree.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { configSchema } = require('../dist/src/config/options');

const file = path.join(__dirname, '..', 'schema', 'mcp-migrate.config.schema.json');
fs.mkdirSync(path.dirname(file), { recursive: true });
fs.writeFileSync(file, `${JSON.stringify(configSchema(), null, 2)}\n`);
