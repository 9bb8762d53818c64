import { defineConfig } from 'vitest/config';
import suite from '../../vitest.config';
import PlainCountReporter from './plain-count-reporter';

// The fast layer alone (test/<capability>/*.workflow.test.ts): the suite's settings with a setup that starts no database and no
// dev server. `npm test` runs it after the suite. (mergeConfig would add to the suite's
// include and globalSetup lists, not replace them.)
export default defineConfig({
  ...suite,
  root: new URL('../..', import.meta.url).pathname,
  test: {
    ...suite.test,
    include: ['test/**/*.workflow.test.ts'],
    exclude: ['**/node_modules/**'],
    globalSetup: ['test/support/workflows-setup.ts'],
    // One file at a time: a time-skipping server starved of CPU at the wrong moment stopped skipping time
    // for the rest of its file (docs/testing.md, "Known gap").
    maxWorkers: 1,
    reporters: ['default', new PlainCountReporter('workflows')],
  },
});
