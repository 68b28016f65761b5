import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // The JSON results let .ci/run print a plain "N passed, N failed" closing line.
    reporters: ['default', ['json', { outputFile: '.tmp/vitest-results.json' }]],
  },
});
