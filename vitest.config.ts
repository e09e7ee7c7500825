import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    setupFiles: ['./test/support/isolate-home.ts'],
    reporters: ['default', './test/support/tally-reporter.ts'],
  },
});
