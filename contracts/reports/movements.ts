/**
 * One movement of money, whatever its kind, as the period report lists it. Each kind's records keep their
 * own statuses; a report needs one question answered of every row — did money move, not, or not yet —
 * so `outcome` is that answer and `status` the record's own word.
 */
export const MOVEMENT_KINDS = [
  'payout_item',
  'disbursement',
  'remittance',
  'payment',
  'saved_method_payment',
  'subscription_charge',
  'refund',
] as const;
export type MovementKind = (typeof MOVEMENT_KINDS)[number];

export const MOVEMENT_OUTCOMES = ['succeeded', 'failed', 'pending'] as const;
export type MovementOutcome = (typeof MOVEMENT_OUTCOMES)[number];

/** Money leaves the merchant (payouts, refunds) or reaches it (payments, charges). */
export type MovementDirection = 'out' | 'in';

export const DIRECTION_OF: Readonly<Record<MovementKind, MovementDirection>> = {
  payout_item: 'out',
  disbursement: 'out',
  remittance: 'out',
  refund: 'out',
  payment: 'in',
  saved_method_payment: 'in',
  subscription_charge: 'in',
};

export interface Movement {
  kind: MovementKind;
  direction: MovementDirection;
  /** The record: run/payout id, disbursement id, payment id… */
  id: string;
  /** When the order was made (payout items: when their run was approved). */
  at: string;
  amount: number;
  currency: 'VND';
  /** The receiver or customer, masked per role as every list masks it; null when payrun has none. */
  counterparty: string | null;
  status: string;
  outcome: MovementOutcome;
  orderId: string;
  /** Payout items share their batch's orderId; this is the item's id inside it. */
  itemId: string | null;
  /** The requestId that moved the money, where payrun derives or records it; null otherwise. */
  requestId: string | null;
  transId: string | null;
  resultCode: number | null;
  message: string | null;
  /** payrun's own words for the result code (its result-code table); null for successes. */
  reason: string | null;
}

export interface OutcomeTotals {
  count: number;
  amount: number;
}

export type KindTotals = Record<MovementOutcome, OutcomeTotals>;

export interface MovementTotals {
  /** Money that left: succeeded outgoing movements. */
  out: OutcomeTotals;
  /** Money that arrived: succeeded incoming movements. */
  in: OutcomeTotals;
  failed: OutcomeTotals;
  pending: OutcomeTotals;
  byKind: Record<MovementKind, KindTotals>;
}

const zero = (): OutcomeTotals => ({ count: 0, amount: 0 });
const zeroKind = (): KindTotals => ({ succeeded: zero(), failed: zero(), pending: zero() });

const add = (totals: OutcomeTotals, amount: number) => {
  totals.count += 1;
  totals.amount += amount;
};

export function totalsOf(movements: readonly Movement[]): MovementTotals {
  const byKind = Object.fromEntries(MOVEMENT_KINDS.map((kind) => [kind, zeroKind()])) as Record<
    MovementKind,
    KindTotals
  >;
  const totals: MovementTotals = { out: zero(), in: zero(), failed: zero(), pending: zero(), byKind };
  for (const movement of movements) {
    add(byKind[movement.kind][movement.outcome], movement.amount);
    if (movement.outcome === 'succeeded') add(totals[movement.direction], movement.amount);
    else add(totals[movement.outcome], movement.amount);
  }
  return totals;
}
