import type { Scheduler } from './scheduler';

/**
 * Transactions waiting for their final outcome (7000/7002 payouts, PENDING batch items, remittances
 * awaiting capture). Each settles on its own timer, or all at once through the admin API.
 */
export interface PendingSettlements {
  /** `settle` applies the final outcome and returns how many transactions it settled. */
  add(key: string, delayMs: number, settle: () => number): void;
  /** Settles one now; false when nothing is pending under `key`. */
  settleNow(key: string): boolean;
  settleAll(): number;
  keys(): string[];
}

export function createPendingSettlements(scheduler: Scheduler): PendingSettlements {
  const waiting = new Map<string, { settle: () => number; cancel: () => void }>();

  function run(key: string): number {
    const entry = waiting.get(key);
    if (!entry) return 0;
    waiting.delete(key);
    entry.cancel();
    return entry.settle();
  }

  return {
    add(key, delayMs, settle) {
      const cancel = scheduler.after(delayMs, () => void run(key));
      waiting.set(key, { settle, cancel });
    },
    settleNow: (key) => waiting.has(key) && (run(key), true),
    settleAll: () => [...waiting.keys()].reduce((count, key) => count + run(key), 0),
    keys: () => [...waiting.keys()],
  };
}
