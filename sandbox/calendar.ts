/**
 * Dates as the gateway sees them: calendar days in Vietnam (GMT+7), written YYYY-MM-DD. Subscription
 * dates, expiry and the OTP "until the next day" lock all use these.
 */
const GMT7_OFFSET_MS = 7 * 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

export function dayOf(epochMs: number): string {
  return new Date(epochMs + GMT7_OFFSET_MS).toISOString().slice(0, 10);
}

const MONTHS_BY_FREQUENCY: Readonly<Record<string, number>> = {
  MONTHLY: 1,
  BI_MONTHLY: 2,
  QUARTERLY: 3,
  SEMI_ANNUALLY: 6,
};
const DAYS_BY_FREQUENCY: Readonly<Record<string, number>> = { DAILY: 1, WEEKLY: 7, BI_WEEKLY: 14 };

/** The next payment date one `frequency` after `date` (month steps clamp to the month's last day). */
export function addFrequency(date: string, frequency: string): string {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  const days = DAYS_BY_FREQUENCY[frequency];
  if (days !== undefined)
    return new Date(Date.UTC(year, month - 1, day) + days * DAY_MS).toISOString().slice(0, 10);
  const months = MONTHS_BY_FREQUENCY[frequency] ?? 1;
  const lastDay = new Date(Date.UTC(year, month - 1 + months + 1, 0)).getUTCDate();
  return new Date(Date.UTC(year, month - 1 + months, Math.min(day, lastDay))).toISOString().slice(0, 10);
}

/** Whole days from `a` to `b` (negative when b is earlier). */
export function daysBetween(a: string, b: string): number {
  return Math.round((Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / DAY_MS);
}
