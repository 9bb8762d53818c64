import type { Reporter, SerializedError, TestModule } from 'vitest/node';

/**
 * Ends a vitest run with one plain line, `<layer>: N passed, N failed, N skipped`. CI reads a run's
 * closing line to tell a suite that ran from one that ran nothing, and it does not read vitest's own
 * summary. A file that could not load, or an error outside any test, counts as a failure: vitest fails
 * the run for those too, and the line must not say 0 failed when the exit code says otherwise.
 */
export default class PlainCountReporter implements Reporter {
  constructor(private readonly layer: string) {}

  onTestRunEnd(
    testModules: ReadonlyArray<TestModule>,
    unhandledErrors: ReadonlyArray<SerializedError>,
  ): void {
    let passed = 0;
    let failed = unhandledErrors.length;
    let skipped = 0;
    for (const module of testModules) {
      if (module.errors().length > 0) failed += 1;
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed += 1;
        else if (state === 'failed') failed += 1;
        else skipped += 1;
      }
    }
    console.log(`${this.layer}: ${passed} passed, ${failed} failed, ${skipped} skipped`);
  }
}
