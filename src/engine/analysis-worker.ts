// A pool worker (see analysis-pool.ts): analyses the chunks of plans the main thread sends and sends back what
// `check` reports. Nothing of a chunk's projects outlives the chunk. The engine is loaded once the compile cache is
// installed (the cache serves each thread that loads ts-morph: compile-cache.ts).
import { parentPort } from 'node:worker_threads';
import { installCompileCache } from './compile-cache';
import type { ChunkRequest, ChunkResult } from './analysis-pool';

installCompileCache();
const { allRules } = require('../rules') as typeof import('../rules');
const { analyzePlans } = require('./analyze-plans') as typeof import('./analyze-plans');

parentPort!.on('message', ({ plans, ruleIds, maxFileBytes }: ChunkRequest) => {
  let result: ChunkResult;
  try {
    const rules = ruleIds ? allRules.filter((rule) => ruleIds.includes(rule.meta.id)) : allRules;
    const { analysis, dropped } = analyzePlans(plans, rules, maxFileBytes);
    result = { files: analysis.files, dropped };
  } catch (error) {
    result = { error: (error as Error)?.stack ?? String(error) };
  }
  parentPort!.postMessage(result);
});
