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

export const payoutScheduleWorkflowId = (scheduleId: string) => `payout-schedule/${scheduleId}`;

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
  skipped: 'schedule_not_active' | 'payout_in_flight';
  reason: string;
}

export type RecurringOccurrenceResult = { runId: string; created: boolean } | SkippedOccurrence;

export interface RecurringRunActivities {
  /** Records the occurrence's run (or finds the one it already made) and returns its workflow's input. */
  recordRecurringRun(
    input: RecurringOccurrenceInput & { occurrenceAt: string },
  ): Promise<{ runId: string; created: boolean; runInput: PayoutRunInput } | SkippedOccurrence>;
}
