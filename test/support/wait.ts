/**
 * The one way a test waits for something to happen: `eventually(check)` retries `check` until it stops
 * throwing (an `expect` inside it, or an Error that says what is still missing) and returns its value.
 * It waits on what a user could observe (a record, an answer, a notification), never for a fixed time,
 * and one limit holds for the whole suite, so a slower machine is one edit away.
 */
import { vi } from 'vitest';

/** How long any test waits to observe an outcome before it fails. */
export const WAIT_LIMIT_MS = 30_000;
const RETRY_INTERVAL_MS = 50;

export interface EventuallyOptions {
  /** Overrides the suite's limit, for the rare wait that is long by nature (a whole process starting). */
  timeout?: number;
  /**
   * Runs before each retry (not before the first check): time-skipping tests move workflow time on here,
   * so timers fire while the test waits for their effect.
   */
  between?: () => Promise<unknown>;
}

export function eventually<T>(check: () => T | Promise<T>, options: EventuallyOptions = {}): Promise<T> {
  let first = true;
  return vi.waitFor(
    async () => {
      if (!first) await options.between?.();
      first = false;
      return check();
    },
    { timeout: options.timeout ?? WAIT_LIMIT_MS, interval: RETRY_INTERVAL_MS },
  );
}
