/**
 * Balance warnings (issue 36): a threshold per currency balance, and a watcher that reads the balances on
 * a timer and before each payout batch is created, telling `balance.low` once per crossing and
 * `balance.recovered` once it is over. Pure code: the workflow, the activities, db/ and the API share it.
 */

/** The one watcher of the merchant's balances. */
export const BALANCE_WATCH_WORKFLOW_ID = 'balance-watch/merchant';
export const balanceWatchWorkflowId = (name: string) => `balance-watch/${name}`;

export interface BalanceWatchInput {
  /** How long the watcher sleeps between two readings (BALANCE_WATCH_INTERVAL, in seconds). */
  intervalSeconds: number;
  /** Readings made by earlier runs of the watcher (continue-as-new). */
  readings?: number;
}

/** What a reading of one currency found: whether it is low, and whether that changed (an event was told). */
export interface BalanceReading {
  currency: string;
  balance: number;
  threshold: number;
  low: boolean;
  told: 'balance.low' | 'balance.recovered' | null;
}

export interface BalanceWatchActivities {
  /** Reads every balance with a threshold and records each crossing with its event. */
  watchBalances(): Promise<BalanceReading[]>;
}
