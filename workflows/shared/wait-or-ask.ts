import type { Duration } from '@temporalio/common';
import { condition } from '@temporalio/workflow';
import { backoffMs, durationMs } from '../../contracts/shared';

/** When to ask the gateway while a notification has not come. */
export interface AskSchedule {
  /** The first wait for the notification before asking. */
  firstWait: Duration;
  /** Each later wait is the previous one times this (default 1: a steady rhythm). */
  growth?: number;
  /** No wait grows past this. */
  maxWait?: Duration;
  /**
   * An instant (workflow time, ms) after which the answer is final as it is: waits end there, and an
   * undecided answer after it ends the wait.
   */
  giveUpAt?: number;
  /** Give up once the waits add up to this (the answers' own time not counted); the last wait is cut to fit. */
  giveUpAfterWaiting?: Duration;
  /** Give up at the first undecided answer once this much workflow time has passed since the start. */
  giveUpAfter?: Duration;
  /** Give up after this many undecided answers. */
  maxAsks?: number;
}

/**
 * Notifications that decide nothing (a "still pending") but are worth acting on: each one wakes the
 * wait, `handle` runs, and the same wait starts over without asking the gateway.
 */
export interface UndecidedNews {
  arrived: () => boolean;
  handle: () => Promise<void>;
}

export type WaitOutcome<T> =
  { decided: T; source: 'notification' | 'gateway' } | { decided: undefined; source: 'gave_up' };

/**
 * The one way payrun learns an outcome the gateway reports by notification: wait for it, and when it is
 * late ask the gateway, again and again by `schedule`. A lost notification delays an outcome, never
 * loses it. `ask` answers the decided outcome, or undefined while the gateway has not decided.
 *
 * The timers and activities it makes are part of every history of the processes that use it: a change
 * to the order of waits and asks needs `patched()` (docs/workflow-versioning.md).
 */
export async function waitForNotificationOrAsk<T>(
  notified: () => T | undefined,
  ask: (attempt: number) => Promise<T | undefined>,
  schedule: AskSchedule,
  news?: UndecidedNews,
): Promise<WaitOutcome<T>> {
  const started = Date.now();
  const backoff = { first: schedule.firstWait, growth: schedule.growth ?? 1, max: schedule.maxWait };
  const waitBudget =
    schedule.giveUpAfterWaiting === undefined ? Infinity : durationMs(schedule.giveUpAfterWaiting);
  const timeBudget = schedule.giveUpAfter === undefined ? Infinity : durationMs(schedule.giveUpAfter);
  let waited = 0;
  for (let attempt = 1; ; attempt++) {
    const wait = backoffMs(backoff, attempt);
    const left = Math.min(
      schedule.giveUpAt === undefined ? Infinity : schedule.giveUpAt - Date.now(),
      waitBudget - waited,
    );
    const thisWait = left === Infinity ? wait : Math.max(1, Math.min(wait, left));
    const woken = await condition(() => notified() !== undefined || news?.arrived() === true, thisWait);
    // A notification already here is the answer, even when the timer fired in the same activation.
    if (notified() !== undefined) return { decided: notified()!, source: 'notification' };
    if (woken && news) {
      await news.handle();
      attempt--;
      continue;
    }
    waited += thisWait;
    const answer = await ask(attempt);
    if (answer !== undefined) return { decided: answer, source: 'gateway' };
    const gaveUp =
      (schedule.giveUpAt !== undefined && Date.now() >= schedule.giveUpAt) ||
      waited >= waitBudget ||
      (schedule.maxAsks !== undefined && attempt >= schedule.maxAsks) ||
      Date.now() - started >= timeBudget;
    if (gaveUp) return { decided: undefined, source: 'gave_up' };
  }
}

/**
 * After an operator was told that no outcome came (needs_attention), payrun keeps asking where the gateway
 * can be asked: this often, this long. An answer learnt then moves the record on from needs_attention.
 */
export const ASK_AFTER_ATTENTION = { every: '6 hours', for: '30 days' } as const satisfies Record<
  string,
  Duration
>;

/**
 * `waitForNotificationOrAsk`, then, when it ends undecided, `attend` (record needs_attention with the
 * reason) and go on asking every ASK_AFTER_ATTENTION.every for ASK_AFTER_ATTENTION.for. A refused or
 * unknown answer never ends the wait: only a decided outcome or the end of the asking does.
 */
export async function waitOrAskThenAttend<T>(
  notified: () => T | undefined,
  ask: (attempt: number) => Promise<T | undefined>,
  schedule: AskSchedule,
  attend: () => Promise<void>,
  news?: UndecidedNews,
): Promise<WaitOutcome<T> & { attended: boolean }> {
  const first = await waitForNotificationOrAsk(notified, ask, schedule, news);
  if (first.decided !== undefined) return { ...first, attended: false };
  await attend();
  const later = await waitForNotificationOrAsk(
    notified,
    ask,
    { firstWait: ASK_AFTER_ATTENTION.every, giveUpAfterWaiting: ASK_AFTER_ATTENTION.for },
    news,
  );
  return { ...later, attended: true };
}
