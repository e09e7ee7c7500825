import type { Reporter, TestModule } from 'vitest/node';

/**
 * Prints the plain closing line `N passed, N failed[, N skipped]` that CI reads (Vitest's own summary is not a
 * recognised format).
 */
export default class TallyReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const mod of testModules) {
      let sawTest = false;
      for (const test of mod.children.allTests()) {
        sawTest = true;
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else skipped++;
      }
      // A file that failed to load has no tests but must still count as a failure.
      if (!sawTest && mod.state() === 'failed') failed++;
    }
    failed += unhandledErrors.length;
    process.stdout.write(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
  }
}
