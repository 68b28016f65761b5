// A pool worker (see analysis-pool.ts): analyses the chunks of plans the main thread sends and sends back what
// `check` reports. Nothing of a chunk's projects outlives the chunk.
import { parentPort } from 'node:worker_threads';
import { allRules } from '../rules';
import { analyzePlans } from './analyze-plans';
import type { ChunkRequest, ChunkResult } from './analysis-pool';

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
