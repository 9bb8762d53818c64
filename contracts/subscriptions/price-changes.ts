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
import { cycleDate, firstCycleOnOrAfter, type Frequency } from './billing-calendar';

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

/**
 * A plan's price change handed to one of its subscriptions by the planPriceChange workflow: the same order
 * as the update's, as a signal (a workflow cannot send an update). The subscription takes a given
 * priceChangeId once: a second delivery (a restarted page) changes nothing.
 */
export const planPriceChangeSignal = defineSignal<[PriceChangeOrder]>('planPriceChange');

/** One workflow per plan price change, its id from the change's: a retried request starts nothing twice. */
export const planPriceChangeWorkflowId = (planPriceChangeId: string) =>
  `plan-price-change/${planPriceChangeId}`;

/** The price change of one subscription made by a plan's change: one per (change, subscription), always the same. */
export const planSubscriptionPriceChangeId = (planPriceChangeId: string, subscriptionId: string) =>
  `${planPriceChangeId}.${subscriptionId}`;

/** Where a plan's change stands: `applying` until every subscription it reaches took it or refused it. */
export type PlanPriceChangeStatus = 'applying' | 'done';

export interface PlanPriceChangeInput {
  planPriceChangeId: string;
  /** Carried by continue-as-new: the last subscription handed the change (subscriptions go in id order). */
  after?: string;
  /** Carried by continue-as-new: every page was handed over; only the answers are awaited. */
  handedOut?: boolean;
  /** Subscriptions per page (default 200) and pages per run (default 10): smaller in tests of paging. */
  pageSize?: number;
  pagesPerRun?: number;
}

/** A subscription a page hands the change to, with its price change row (made before the signal). */
export interface PlanPriceChangeTarget {
  subscriptionId: string;
  workflowId: string;
  order: PriceChangeOrder;
}

export interface PlanPriceChangeProgress {
  total: number;
  /** Accepted by the subscription's workflow (awaiting authorization, authorized, applied, …). */
  applied: number;
  /** Refused by the subscription's workflow (ended meanwhile, expiring first, …). */
  failed: number;
  /** Handed over, not yet answered by the subscription's workflow. */
  waiting: number;
}

export interface PlanPriceChangeActivities {
  /**
   * The next page of the plan's subscriptions the change reaches (after `after`, in id order), each with its
   * row made once (a page read again makes none twice); `targets` are those whose workflow has not answered.
   */
  planPriceChangePage(input: {
    planPriceChangeId: string;
    after?: string;
    limit: number;
  }): Promise<{ targets: PlanPriceChangeTarget[]; last?: string }>;
  /** A subscription whose workflow could not be told (it ended): its row refused with the reason. */
  refusePlanPriceChange(input: { priceChangeId: string; reason: string }): Promise<void>;
  planPriceChangeProgress(input: { planPriceChangeId: string }): Promise<PlanPriceChangeProgress>;
  finishPlanPriceChange(input: { planPriceChangeId: string }): Promise<PlanPriceChangeProgress>;
}

/** What of a subscription's record decides whether a dated change reaches it. */
export interface PriceableSchedule {
  anchor_date: string | null;
  anchor_cycle: number | null;
  frequency: Frequency;
  next_cycle: number | null;
  expiry_date: string | null;
}

/** The subscription's first cycle on or after `day`; null before it has an anchor (it is still authorizing). */
export function firstCycleDateFrom(row: PriceableSchedule, day: string): string | null {
  if (!row.anchor_date) return null;
  const anchor = {
    anchorDate: row.anchor_date,
    anchorCycle: row.anchor_cycle ?? 1,
    frequency: row.frequency,
  };
  return cycleDate(anchor, firstCycleOnOrAfter(anchor, row.next_cycle ?? 1, day));
}

/** A change from `day` reaches a subscription still billed then: one expiring first is left alone. */
export function reachedFrom(row: PriceableSchedule, day: string): boolean {
  const first = firstCycleDateFrom(row, day);
  return first !== null && (!row.expiry_date || first < row.expiry_date);
}
