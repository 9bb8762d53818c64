/**
 * Revenue arithmetic, pure: a cycle amount normalised to a month, and the months a range covers.
 *
 * MRR normalises by the number of cycles in an average month (365 days / 12): DAILY × 365/12, WEEKLY ×
 * 52/12, BI_WEEKLY × 26/12, MONTHLY × 1, BI_MONTHLY ÷ 2, QUARTERLY ÷ 3, SEMI_ANNUALLY ÷ 6, rounded to
 * the VND once per total (never per subscription, so totals add up exactly as the sum of the unrounded parts).
 */
import type { Frequency } from './billing-calendar';

export const CYCLES_PER_MONTH: Readonly<Record<Frequency, number>> = {
  DAILY: 365 / 12,
  WEEKLY: 52 / 12,
  BI_WEEKLY: 26 / 12,
  MONTHLY: 1,
  BI_MONTHLY: 1 / 2,
  QUARTERLY: 1 / 3,
  SEMI_ANNUALLY: 1 / 6,
};

/** The month's worth of one cycle amount, unrounded. */
export const monthlyValue = (amount: number, frequency: Frequency) => amount * CYCLES_PER_MONTH[frequency];

/** `YYYY-MM` of every month from the month of `from` to the month of `to` (days written YYYY-MM-DD). */
export function monthsBetween(from: string, to: string): string[] {
  const months: string[] = [];
  let [year, month] = from.slice(0, 7).split('-').map(Number) as [number, number];
  const last = to.slice(0, 7);
  for (;;) {
    const label = `${year}-${String(month).padStart(2, '0')}`;
    if (label > last) return months;
    months.push(label);
    month += 1;
    if (month > 12) {
      month = 1;
      year += 1;
    }
  }
}
