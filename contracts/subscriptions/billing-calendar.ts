/**
 * Subscription calendar arithmetic, pure (no clock, no I/O): the workflow, the API and the tests
 * share it. Dates are calendar days in Vietnam (GMT+7) written YYYY-MM-DD, as the gateway's
 * nextPaymentDate and expiryDate are.
 *
 * Cycle dates are always computed from the ANCHOR (the first billing day), never by adding to the
 * previous date: MONTHLY from Jan 31 bills Feb 28 (29 in a leap year), then Mar 31, not Mar 28.
 */
import type { SubscriptionFrequency } from '../../gateway/limits';

export type Frequency = SubscriptionFrequency;

const DAY_MS = 24 * 60 * 60 * 1000;
const GMT7_OFFSET_MS = 7 * 60 * 60 * 1000;
const DAYS: Partial<Record<Frequency, number>> = { DAILY: 1, WEEKLY: 7, BI_WEEKLY: 14 };
const MONTHS: Partial<Record<Frequency, number>> = {
  MONTHLY: 1,
  BI_MONTHLY: 2,
  QUARTERLY: 3,
  SEMI_ANNUALLY: 6,
};

const DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;

/** True for a real calendar date written YYYY-MM-DD. */
export function isCalendarDate(text: string): boolean {
  const match = DATE_PATTERN.exec(text);
  if (!match) return false;
  const [, y, m, d] = match.map(Number) as [number, number, number, number];
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

function parts(date: string): [number, number, number] {
  if (!isCalendarDate(date)) throw new RangeError(`not a YYYY-MM-DD date: ${date}`);
  return date.split('-').map(Number) as [number, number, number];
}

const format = (epochMs: number) => new Date(epochMs).toISOString().slice(0, 10);

export function addDays(date: string, days: number): string {
  const [y, m, d] = parts(date);
  return format(Date.UTC(y, m - 1, d) + days * DAY_MS);
}

/** `date` plus `months`, clamped to the last day of the target month. */
export function addMonths(date: string, months: number): string {
  const [y, m, d] = parts(date);
  const lastDay = new Date(Date.UTC(y, m - 1 + months + 1, 0)).getUTCDate();
  return format(Date.UTC(y, m - 1 + months, Math.min(d, lastDay)));
}

/** The date `periods` frequencies after `anchor` (periods ≥ 0), computed from the anchor itself. */
export function periodsAfter(anchor: string, frequency: Frequency, periods: number): string {
  if (!Number.isInteger(periods) || periods < 0) throw new RangeError(`periods must be ≥ 0: ${periods}`);
  const days = DAYS[frequency];
  if (days !== undefined) return addDays(anchor, days * periods);
  return addMonths(anchor, (MONTHS[frequency] ?? 1) * periods);
}

/** Where a subscription's cycles start: cycle `anchorCycle` falls on `anchorDate`. */
export interface BillingAnchor {
  anchorDate: string;
  anchorCycle: number;
  frequency: Frequency;
}

/** The due date of cycle `cycle` (cycle ≥ anchorCycle). */
export const cycleDate = (anchor: BillingAnchor, cycle: number): string =>
  periodsAfter(anchor.anchorDate, anchor.frequency, cycle - anchor.anchorCycle);

/** Whole days from `a` to `b` (negative when b is earlier). */
export function daysBetween(a: string, b: string): number {
  const [ay, am, ad] = parts(a);
  const [by, bm, bd] = parts(b);
  return Math.round((Date.UTC(by, bm - 1, bd) - Date.UTC(ay, am - 1, ad)) / DAY_MS);
}

/** The GMT+7 calendar day of an instant. */
export const dayOfGmt7 = (epochMs: number): string => format(epochMs + GMT7_OFFSET_MS);

/** The instant of `hour`:00 GMT+7 on `date`. */
export function instantOf(date: string, hour: number): number {
  const [y, m, d] = parts(date);
  return Date.UTC(y, m - 1, d, hour) - GMT7_OFFSET_MS;
}

/** The spec's tolerance: a sent nextPaymentDate more than 2 days from the gateway's own is ignored. */
export const NEXT_DATE_TOLERANCE_DAYS = 2;

/**
 * The nextPaymentDate the gateway will keep after a charge made on `chargedOn`: ours when it lies
 * within 2 days of the gateway's calculation (last payment date + one frequency), else its own.
 */
export function gatewayNextPaymentDate(chargedOn: string, frequency: Frequency, sent: string): string {
  const calculated = periodsAfter(chargedOn, frequency, 1);
  return Math.abs(daysBetween(calculated, sent)) <= NEXT_DATE_TOLERANCE_DAYS ? sent : calculated;
}

/** The first cycle ≥ `from` whose due date is on or after `day` (cycles skipped while paused). */
export function firstCycleOnOrAfter(anchor: BillingAnchor, from: number, day: string): number {
  let cycle = Math.max(from, anchor.anchorCycle);
  while (cycleDate(anchor, cycle) < day) cycle += 1;
  return cycle;
}
