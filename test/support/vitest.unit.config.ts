import { defineConfig } from 'vitest/config';

// Pure unit suites (gateway protocol, parsers): no database, no Temporal, no global setup.
export default defineConfig({
  test: {
    root: new URL('../..', import.meta.url).pathname,
    include: ['test/gateway/**/*.test.ts', 'test/unit/**/*.test.ts'],
    pool: 'forks',
  },
});
