/**
 * Dunning schedules: what a subscription does after an insufficient-funds failure. Pure code shared by
 * the workflow (when the retry runs, when notices go out), the API (validation, the default schedule)
 * and the tests.
 *
 * The gateway pauses a subscription at its second insufficient-funds failure (spec 2, status table), so a
 * schedule never asks for more than one retry per cycle: it only says WHEN that retry runs, who is told
 * before it, and what follows the pause.
 */
import { instantOf, dayOfGmt7 } from './billing-calendar';

export const DEFAULT_DUNNING_SCHEDULE_ID = 'default';

/** `afterHours`: the retry that many hours after the failure; `onDayOfMonth`: the next payday at atHour GMT+7. */
export type DunningRetry = { afterHours: number } | { onDayOfMonth: number; atHour: number };

export interface DunningAfterPause {
  /** Ask the gateway for a reactivation link (subscription/manage reactivate) and send it to the customer. */
  sendReactivationLink: boolean;
  /** A reminder with the link every this many days while the customer has not confirmed; 0: none. */
  remindEveryDays: number;
  /** Cancel at the gateway this many days after the pause when not reactivated; 0: never. */
  cancelAfterDays: number;
}

export interface DunningSchedule {
  dunningScheduleId: string;
  name: string;
  retry: DunningRetry;
  /** A notice to the customer this many hours before each charge attempt; 0: none. */
  noticeBeforeAttemptHours: number;
  afterPause: DunningAfterPause;
}

export const DUNNING_LIMITS = {
  afterHours: { min: 1, max: 24 * 27 },
  onDayOfMonth: { min: 1, max: 28 },
  atHour: { min: 0, max: 23 },
  noticeBeforeAttemptHours: { min: 0, max: 24 * 7 },
  remindEveryDays: { min: 0, max: 30 },
  cancelAfterDays: { min: 0, max: 365 },
} as const;

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/**
 * The instant of the retry after a failure at `failedAt`: hours later, or the first `onDayOfMonth` at
 * `atHour` GMT+7 strictly after the failure (the customer's next payday).
 */
export function retryInstant(retry: DunningRetry, failedAt: number): number {
  if ('afterHours' in retry) return failedAt + retry.afterHours * HOUR_MS;
  const [year, month] = dayOfGmt7(failedAt).split('-').map(Number) as [number, number];
  for (let ahead = 0; ahead < 3; ahead++) {
    const y = year + Math.floor((month - 1 + ahead) / 12);
    const m = ((month - 1 + ahead) % 12) + 1;
    const date = `${y}-${String(m).padStart(2, '0')}-${String(retry.onDayOfMonth).padStart(2, '0')}`;
    const at = instantOf(date, retry.atHour);
    if (at > failedAt) return at;
  }
  throw new RangeError('no payday within three months'); // unreachable: days 1–28 exist every month
}

/** When the notice before an attempt at `attemptAt` goes out: never before `now`. */
export const noticeInstant = (schedule: DunningSchedule, attemptAt: number, now: number) =>
  Math.max(now, attemptAt - schedule.noticeBeforeAttemptHours * HOUR_MS);

/** The reminder and cancellation instants after a pause at `pausedAt`, in order. */
export function afterPauseSteps(
  { afterPause }: DunningSchedule,
  pausedAt: number,
): Array<{ at: number; step: 'remind' | 'cancel'; reminder?: number }> {
  const cancelAt = afterPause.cancelAfterDays > 0 ? pausedAt + afterPause.cancelAfterDays * DAY_MS : Infinity;
  const steps: Array<{ at: number; step: 'remind' | 'cancel'; reminder?: number }> = [];
  if (afterPause.remindEveryDays > 0) {
    // Bounded so a schedule that never cancels still has a finite plan (a year of reminders at most).
    for (let n = 1; n <= 365; n++) {
      const at = pausedAt + n * afterPause.remindEveryDays * DAY_MS;
      if (at >= cancelAt) break;
      steps.push({ at, step: 'remind', reminder: n });
    }
  }
  if (cancelAt !== Infinity) steps.push({ at: cancelAt, step: 'cancel' });
  return steps;
}

/** A schedule that does anything after the pause: the workflow follows the pause up itself. */
export const followsUpPause = ({ afterPause }: DunningSchedule) =>
  afterPause.sendReactivationLink || afterPause.remindEveryDays > 0 || afterPause.cancelAfterDays > 0;
