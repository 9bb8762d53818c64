import type { Currency } from './options';

/**
 * Every money movement the sandbox performed, one entry per order (or batch item). A pending
 * movement is updated in place when it settles, so "at most one entry per orderId/itemId" is the
 * no-double-payment check, and summing `succeeded` entries reconciles against the balances.
 */
export type LedgerKind =
  | 'disbursement'
  | 'batch-item'
  | 'remittance'
  | 'buy'
  /** Money in from a customer (documents 1 and 2): one-time, POS, terminal, token, first charges. */
  | 'payment'
  | 'subscription-charge'
  | 'refund'
  /** card/settle of a terminal: amount = the card payments it settled. */
  | 'settlement';
export type LedgerOutcome = 'succeeded' | 'failed' | 'pending';

export interface LedgerEntry {
  orderId: string;
  itemId?: string;
  kind: LedgerKind;
  /** Major units of `currency` (VND for payouts, the foreign currency sold for a buy). */
  amount: number;
  currency: Currency;
  outcome: LedgerOutcome;
  resultCode: number;
  /** ISO time of the movement; `settledAt` when a pending movement reached its final outcome. */
  at: string;
  settledAt?: string;
  requestId: string;
  transId?: number;
  /** VND credited by a buy. */
  exchangeAmount?: number;
  /** Payments: how the customer paid; refunds: the refunded payment's orderId. */
  method?: string;
  refundOf?: string;
}

export interface Ledger {
  record(entry: Omit<LedgerEntry, 'at'>): LedgerEntry;
  settle(entry: LedgerEntry, outcome: Exclude<LedgerOutcome, 'pending'>, resultCode: number): void;
  entries(): LedgerEntry[];
}

export function createLedger(now: () => number): Ledger {
  const entries: LedgerEntry[] = [];
  return {
    record(entry) {
      const recorded: LedgerEntry = { ...entry, at: new Date(now()).toISOString() };
      entries.push(recorded);
      return recorded;
    },
    settle(entry, outcome, resultCode) {
      entry.outcome = outcome;
      entry.resultCode = resultCode;
      entry.settledAt = new Date(now()).toISOString();
    },
    entries: () => entries.map((entry) => ({ ...entry })),
  };
}

/** The most entries recorded within any `windowMs`: how a rate limit looked from the gateway's side. */
export function mostWithin(entries: readonly LedgerEntry[], windowMs: number): number {
  const times = entries.map((entry) => Date.parse(entry.at)).sort((a, b) => a - b);
  let most = 0;
  for (let first = 0, last = 0; last < times.length; last += 1) {
    while (times[last]! - times[first]! >= windowMs) first += 1;
    most = Math.max(most, last - first + 1);
  }
  return most;
}
