import { defineConfig } from 'vitest/config';
import PlainCountReporter from './test/support/plain-count-reporter';

// PAYRUN_CANARY swaps the suite for the one deliberately failing test (`npm run test:canary`), with the
// same setup, so CI can prove that a failing test still fails the run.
const canary = process.env.PAYRUN_CANARY === '1';

export default defineConfig({
  test: {
    include: canary ? ['test/canary/*.canary.ts'] : ['test/**/*.test.ts'],
    // The fast layer runs after the suite, on its own (`npm run test:workflows`): beside the stack tests its
    // time-skipping servers sometimes stopped skipping, and every later test of the file timed out.
    exclude: ['**/node_modules/**', 'test/**/*.workflow.test.ts'],
    // Temporal workers use native threads; separate processes keep them from interfering.
    pool: 'forks',
    // No plain count for the canary: CI's checker took its `0 passed, 1 failed` as the count of the
    // whole CI run and recorded two green landings as runs that executed no test.
    reporters: canary ? ['default'] : ['default', new PlainCountReporter('suite')],
    maxWorkers: 2,
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // expect.poll waits as long as eventually() does (test/support/wait.ts): its 1 s default fails a
    // browser test whenever the machine is busy.
    expect: { requireAssertions: true, poll: { timeout: 30_000, interval: 100 } },
  },
});
