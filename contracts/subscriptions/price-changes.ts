/**
 * Dated price changes of a FIXED subscription, as the workflow, the API and the tests share them. Pure code.
 *
 * The gateway charges a FIXED subscription exactly the `recurringAmount` the customer authorized, never
 * more (document 2: subscriptionInfo.type, subscription/pay), and has no call that changes it. So every
 * new price, lower or higher, takes a new authorization by the customer (gateway/README.md): its token is
 * kept until the change's cycle, when it replaces the old one. Until then, and for a customer who never
 * authorizes, cycles charge the amount authorized before (charge_old) or nothing (flag). The charging
 * activity refuses anything above the authorized amount as well.
 */
import { defineSignal, defineUpdate } from '@temporalio/workflow';

/** What a customer who has not authorized a price rise by its date gets: the old price, or no charge. */
export const IF_NOT_REAUTHORIZED = ['charge_old', 'flag'] as const;
export type IfNotReauthorized = (typeof IF_NOT_REAUTHORIZED)[number];

/** The flag a subscription carries while a flagged price rise keeps it from being charged. */
export const PRICE_CHANGE_UNAUTHORIZED = 'price_change_unauthorized';

/** Reminders of an unauthorized price rise, this many days before it takes effect. */
export const REAUTHORIZATION_REMINDER_DAYS = [7, 1] as const;

/** The gateway order of the customer's n-th new authorization: `<subscription>-p<n>` (fits 50 as `-c` does). */
export const reauthorizationOrderId = (subscriptionId: string, n: number) => `${subscriptionId}-p${n}`;

/** A price change as the workflow holds it until it is applied or superseded. */
export interface ScheduledPriceChange {
  priceChangeId: string;
  newAmount: number;
  /** The first cycle due on or after this day (GMT+7, YYYY-MM-DD) charges the new amount. */
  effectiveDate: string;
  ifNotReauthorized: IfNotReauthorized;
  /** The gateway order of the customer's new authorization (`<subscription>-p<n>`). */
  reauthorizationOrderId: string;
  /** The customer authorized the new amount; its token waits for the change's cycle. */
  authorized?: boolean;
  /** Reminder days already sent (REAUTHORIZATION_REMINDER_DAYS). */
  remindersSent?: number[];
  /** charge_old / flag has been recorded once for this change (not again each cycle). */
  fallbackRecorded?: boolean;
}

export type PriceChangeStatus =
  | 'scheduled'
  | 'awaiting_authorization'
  | 'authorized'
  | 'applied'
  | 'charged_old'
  | 'flagged'
  | 'superseded'
  | 'refused';

/** What one cycle charges, given the amount authorized now and the open price change. */
export interface CycleAmountDecision {
  /** VND to charge; 0 with fallback `flag` (the cycle is not charged). */
  charge: number;
  /** The change's cycle has come and the customer authorized it: its token takes over now. */
  applies?: true;
  /** The change's cycle has come without the customer's authorization: what the operator chose. */
  fallback?: IfNotReauthorized;
}

/** Never above `authorized` unless the customer authorized the new amount (then exactly it). */
export function decideCycleAmount(input: {
  authorized: number;
  dueDate: string;
  open?: Pick<ScheduledPriceChange, 'newAmount' | 'effectiveDate' | 'ifNotReauthorized' | 'authorized'>;
}): CycleAmountDecision {
  const { authorized, dueDate, open } = input;
  if (!open || dueDate < open.effectiveDate) return { charge: authorized };
  if (open.authorized) return { charge: open.newAmount, applies: true };
  if (open.ifNotReauthorized === 'flag') return { charge: 0, fallback: 'flag' };
  return { charge: authorized, fallback: 'charge_old' };
}

export interface PriceChangeOrder {
  priceChangeId: string;
  newAmount: number;
  effectiveDate: string;
  ifNotReauthorized: IfNotReauthorized;
}

export interface PriceChangeAccepted {
  priceChangeId: string;
  /** The customer's link to authorize the new amount, when the gateway gave one. */
  payUrl?: string;
}

/** A dated price change for a FIXED subscription; it supersedes any change not yet applied. */
export const priceChangeUpdate = defineUpdate<PriceChangeAccepted, [PriceChangeOrder]>('priceChange');

/** The customer's answer to a new authorization (IPN of the `-p<n>` order). */
export const reauthorizationSignal =
  defineSignal<[{ orderId: string; resultCode: number; message?: string; callbackToken?: string }]>(
    'subscriptionReauthorized',
  );
