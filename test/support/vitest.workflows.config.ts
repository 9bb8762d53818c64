import { defineConfig } from 'vitest/config';
import suite from '../../vitest.config';

// The fast layer alone (test/workflows/): the suite's settings with a setup that starts no database and no
// dev server. `npm test` runs the same files with the suite. (mergeConfig would add to the suite's
// include and globalSetup lists, not replace them.)
export default defineConfig({
  ...suite,
  root: new URL('../..', import.meta.url).pathname,
  test: {
    ...suite.test,
    include: ['test/workflows/**/*.test.ts'],
    globalSetup: ['test/support/workflows-setup.ts'],
  },
});
