/**
 * Run by CI before the suite (`npm run test:canary`), never by `npm test`: this test fails on purpose,
 * through the same configuration and global setup as the suite, and the runner must then exit non-zero.
 * If it ever exits 0, no green run proves anything, and CI stops.
 */
import { expect, test } from 'vitest';

test('a deliberately failing assertion', () => {
  expect('the runner reports this failure').toBe('a passing run');
});
