// `node dist/src/engine/detect-file-cli.js <path>`: run the detector on one file (source on stdin) and print its
// findings as JSON. Transforms use it when they run under the plain `jscodeshift -t` CLI, in a fresh process:
// jscodeshift's babel require hook would otherwise try to compile ts-morph.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { analyzeSources } from './analyze';
import { allRules } from '../rules';

const filePath = path.resolve(process.argv[2] ?? 'stdin.ts');
const text = fs.readFileSync(0, 'utf8');
const analysis = analyzeSources([{ absPath: filePath, relPath: path.basename(filePath), text }], allRules);
process.stdout.write(JSON.stringify(analysis.files[0]?.findings ?? []));
