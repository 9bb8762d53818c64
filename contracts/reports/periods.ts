/**
 * Report periods. A finance team in Vietnam closes its days at midnight in Hanoi, whatever the server's
 * clock says, so every period is a run of whole GMT+7 days, weeks start on Monday, and a period is
 * turned into UTC instants only at the edge (the database compares timestamps).
 */
export const PERIOD_KINDS = ['day', 'week', 'month', 'custom'] as const;
export type PeriodKind = (typeof PERIOD_KINDS)[number];

/** A custom period spans at most this many days: one report stays one bounded read. */
export const MAX_PERIOD_DAYS = 366;

const GMT7_OFFSET_MS = 7 * 3_600_000;
const DAY_MS = 86_400_000;

export interface Period {
  kind: PeriodKind;
  /** First day, GMT+7, YYYY-MM-DD. */
  from: string;
  /** Last day (inclusive), GMT+7, YYYY-MM-DD. */
  to: string;
  /** The first instant of `from` in GMT+7. */
  startsAt: Date;
  /** The first instant after `to` in GMT+7 (exclusive). */
  endsAt: Date;
}

/** Days since the epoch of a YYYY-MM-DD (a checked calendar day). */
const dayNumber = (day: string): number => Date.parse(`${day}T00:00:00Z`) / DAY_MS;
const dayText = (n: number): string => new Date(n * DAY_MS).toISOString().slice(0, 10);

/** The GMT+7 day an instant falls on. */
export function gmt7Day(instant: Date): string {
  return new Date(instant.getTime() + GMT7_OFFSET_MS).toISOString().slice(0, 10);
}

/** The first instant of a GMT+7 day. */
export function startOfGmt7Day(day: string): Date {
  return new Date(dayNumber(day) * DAY_MS - GMT7_OFFSET_MS);
}

/** Every day from `from` to `to`, both included. */
export function daysBetween(from: string, to: string): string[] {
  const days: string[] = [];
  for (let n = dayNumber(from); n <= dayNumber(to); n += 1) days.push(dayText(n));
  return days;
}

export function periodOf(kind: Exclude<PeriodKind, 'custom'>, date: string): Period {
  const n = dayNumber(date);
  if (kind === 'day') return periodFrom('day', date, date);
  if (kind === 'week') {
    // 1970-01-01 was a Thursday: (n + 3) % 7 is 0 on Mondays.
    const monday = n - ((n + 3) % 7);
    return periodFrom('week', dayText(monday), dayText(monday + 6));
  }
  const first = `${date.slice(0, 8)}01`;
  const [year, month] = [Number(date.slice(0, 4)), Number(date.slice(5, 7))];
  const last = dayText(Date.UTC(year, month, 0) / DAY_MS);
  return periodFrom('month', first, last);
}

export function periodFrom(kind: PeriodKind, from: string, to: string): Period {
  return {
    kind,
    from,
    to,
    startsAt: startOfGmt7Day(from),
    endsAt: startOfGmt7Day(dayText(dayNumber(to) + 1)),
  };
}

/** Days in a custom period, for the MAX_PERIOD_DAYS rule. */
export const periodDays = (from: string, to: string): number => dayNumber(to) - dayNumber(from) + 1;
