/**
 * The next days of scheduled outgoing money against the merchant's disbursement balance, for the dashboard's
 * chart (GET /v1/balance-forecast). Days are GMT+7 calendar days, today first.
 */
import { randomUUID } from 'node:crypto';
import { scheduledRunsBetween } from '../../db/payouts/runs';
import { activeScheduleTotals } from '../../db/payouts/schedules';
import { merchantBalanceWorkflowId, nextOccurrences, type RecurringCalendar } from '../../contracts/payouts';
import { dayOfGmt7, instantOf } from '../../contracts/subscriptions';
import { startWorkflow } from '../workflow-starts';
import type { PayoutDeps } from './payout-runs';

const DAY_MS = 86_400_000;

export interface BalanceForecast {
  currency: 'VND';
  /** null when the gateway did not tell it; `balanceError` says why. */
  balance: number | null;
  balanceAsOf: string | null;
  balanceError: string | null;
  days: Array<{
    date: string;
    outgoing: number;
    /** Scheduled runs, and the occurrences of recurring schedules (`status: 'recurring'`, not yet runs). */
    runs: Array<
      | { runId: string; total: number; status: string }
      | { scheduleId: string; total: number; status: 'recurring' }
    >;
  }>;
}

export async function balanceForecast(
  deps: Pick<PayoutDeps, 'db' | 'temporal' | 'settings'>,
  days: number,
  now = Date.now(),
): Promise<BalanceForecast> {
  const dates = Array.from({ length: days }, (_, index) => dayOfGmt7(now + index * DAY_MS));
  const from = instantOf(dates[0]!, 0);
  const to = from + days * DAY_MS;
  const [balance, runs, schedules] = await Promise.all([
    readBalance(deps),
    scheduledRunsBetween(deps.db, new Date(from), new Date(to)),
    activeScheduleTotals(deps.db),
  ]);
  const byDate = new Map(dates.map((date) => [date, [] as BalanceForecast['days'][number]['runs']]));
  for (const run of runs)
    byDate
      .get(dayOfGmt7(new Date(run.execute_at).getTime()))
      ?.push({ runId: run.run_id, total: Number(run.total_amount), status: run.status });
  // Occurrences still ahead only: one that already happened made its run, counted above once it is scheduled.
  for (const schedule of schedules)
    for (const at of occurrencesBetween(schedule.calendar, Math.max(from, now), to))
      byDate.get(dayOfGmt7(at))?.push({
        scheduleId: schedule.schedule_id,
        total: Number(schedule.total_amount),
        status: 'recurring',
      });
  return {
    currency: 'VND',
    ...balance,
    days: dates.map((date) => {
      const due = byDate.get(date)!;
      return { date, outgoing: due.reduce((sum, run) => sum + run.total, 0), runs: due };
    }),
  };
}

/** A monthly calendar's occurrences in [from, to): at most one a month, so a month more than the days is enough. */
function occurrencesBetween(calendar: RecurringCalendar, from: number, to: number): number[] {
  const months = Math.ceil((to - from) / (28 * DAY_MS)) + 1;
  return nextOccurrences(calendar, from - 1, months)
    .map((at) => Date.parse(at))
    .filter((at) => at < to);
}

/**
 * How long the dashboard waits for the balance: a gateway read takes well under a second; workers that are down
 * or a gateway that does not answer must not hold the forecast, which is shown with the balance unknown.
 */
const BALANCE_WAIT_MS = 5_000;

/** The balance through a short workflow (only workers hold the gateway's keys); unknown, with why, if it fails. */
async function readBalance(
  deps: Pick<PayoutDeps, 'temporal' | 'settings'>,
): Promise<Pick<BalanceForecast, 'balance' | 'balanceAsOf' | 'balanceError'>> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const handle = await startWorkflow(deps.temporal, 'merchantBalance', {
      taskQueue: deps.settings.taskQueue,
      workflowId: merchantBalanceWorkflowId(randomUUID()),
      args: [{}],
      // Nobody reads an answer later than this: the workflow ends rather than read for no one.
      workflowExecutionTimeout: '1 minute',
    });
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no answer within ${BALANCE_WAIT_MS / 1000} seconds`)),
        BALANCE_WAIT_MS,
      );
    });
    const { balance, asOf } = await Promise.race([handle.result(), late]);
    return { balance, balanceAsOf: asOf, balanceError: null };
  } catch (error) {
    const cause = (error as { cause?: { cause?: Error; message?: string } }).cause;
    const message = cause?.cause?.message ?? cause?.message ?? (error as Error).message;
    return {
      balance: null,
      balanceAsOf: null,
      balanceError: `The gateway did not tell the balance: ${message}`,
    };
  } finally {
    clearTimeout(timer);
  }
}
