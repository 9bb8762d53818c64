/**
 * Recurring payout runs (docs/payout-runs.md, "Recurring runs"): the shapes the API, the occurrence workflow and
 * its activity share, and the ids that keep one occurrence's money apart from every other's.
 */
import type { Duration } from '@temporalio/common';
import type { PayoutRunInput, PayoutTiming } from './runs';

/** Wall-clock time in GMT+7 (the Temporal Schedule's timezone); 'last' is the month's last day. */
export interface RecurringCalendar {
  dayOfMonth: number | 'last';
  hour: number;
  minute: number;
}

/** The Temporal Schedule's timezone: a finance team's "the 25th at 09:00" is Vietnamese time. */
export const RECURRING_TIMEZONE = 'Asia/Ho_Chi_Minh';
const GMT7_OFFSET_MS = 7 * 3600_000;

/** The occurrence workflows' id; the Schedule appends each occurrence's time to it. */
export const recurringPayoutOccurrenceWorkflowId = (scheduleId: string) =>
  `recurring-payout-occurrence/${scheduleId}`;
/** The Temporal Schedule's id: the schedule's own. */
export const payoutScheduleTemporalId = (scheduleId: string) => `payout-schedule/${scheduleId}`;

/** One row of a schedule, checked once when the schedule was saved (the payout file's row rules). */
export interface RecurringRow {
  payoutId: string;
  walletId: string;
  walletName: string;
  personalId: string | null;
  amount: number;
  description: string;
  storeId: string | null;
  payeeId?: string;
}

/** The month of an occurrence in GMT+7, as YYYYMM: the suffix of its payout ids. */
export const occurrenceMonth = (occurrenceAt: string): string =>
  new Date(Date.parse(occurrenceAt) + GMT7_OFFSET_MS).toISOString().slice(0, 7).replace('-', '');

/**
 * A row's payout id in one occurrence. Every occurrence pays fresh ids, so the live-payout-id rule that keeps a
 * payout from being paid twice also keeps this month's occurrence from touching last month's rows. The calendar
 * fires at most once a month, so the month names the occurrence.
 */
export const occurrencePayoutId = (payoutId: string, occurrenceAt: string): string =>
  `${payoutId}-${occurrenceMonth(occurrenceAt)}`;

/** Characters an occurrence adds to each payout id (`-YYYYMM`): a schedule's ids must leave room for them. */
export const OCCURRENCE_SUFFIX_LENGTH = 7;

/** What the API fixed when it created the Schedule: the run settings every occurrence's run starts with. */
export interface RecurringOccurrenceInput {
  scheduleId: string;
  /** The occurrence's time; absent when the Schedule starts it (read from TemporalScheduledStartTime). */
  occurrenceAt?: string;
  parallelBatches: number;
  timing: PayoutTiming;
  batchSize: number;
  approvalTtlHours: number;
  scheduleCheckAhead?: Duration;
}

/** An occurrence that made no run says why (the workflow's result, shown in Temporal's UI). */
export interface SkippedOccurrence {
  runId: null;
  skipped: 'schedule_not_active' | 'payout_in_flight' | 'daily_cap_exceeded';
  reason: string;
  /** daily_cap_exceeded: the run recorded `refused` so the missed occurrence shows (never started, never paid). */
  refusedRunId?: string;
}

export type RecurringOccurrenceResult = { runId: string; created: boolean } | SkippedOccurrence;

export interface RecurringRunActivities {
  /** Records the occurrence's run (or finds the one it already made) and returns its workflow's input. */
  recordRecurringRun(
    input: RecurringOccurrenceInput & { occurrenceAt: string },
  ): Promise<{ runId: string; created: boolean; runInput: PayoutRunInput } | SkippedOccurrence>;
}

/**
 * The day a calendar fires in a month (1-based month). 'last' in February is the 28th, every year: the Temporal
 * Schedule cannot say "last day", so February is given one fixed day, and a leap year's 29th is not used.
 */
export function occurrenceDay(calendar: RecurringCalendar, year: number, month: number): number {
  if (calendar.dayOfMonth !== 'last') return calendar.dayOfMonth;
  if (month === 2) return 28;
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** The next `count` occurrence instants strictly after `after` (ms), as ISO UTC strings. */
export function nextOccurrences(calendar: RecurringCalendar, after: number, count: number): string[] {
  const local = new Date(after + GMT7_OFFSET_MS);
  let year = local.getUTCFullYear();
  let month = local.getUTCMonth() + 1;
  const found: string[] = [];
  while (found.length < count) {
    const day = occurrenceDay(calendar, year, month);
    const at = Date.UTC(year, month - 1, day, calendar.hour, calendar.minute) - GMT7_OFFSET_MS;
    if (at > after) found.push(new Date(at).toISOString());
    month += 1;
    if (month > 12) {
      month = 1;
      year += 1;
    }
  }
  return found;
}
