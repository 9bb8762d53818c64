import { hoursAsDuration, type Config } from '../../platform/config';
import { DEFAULT_PAYOUT_TIMING } from '../../contracts/payouts';
import type { PayoutSettings } from './payout-runs';

export function payoutSettingsFrom(
  config: Config,
): PayoutSettings & { uploadLimit: string; uploadConcurrency: number } {
  return {
    maxRows: config.PAYOUT_MAX_ROWS,
    batchSize: config.PAYOUT_BATCH_SIZE,
    parallelBatches: config.PAYOUT_PARALLEL_BATCHES,
    approvalTtlHours: config.PAYOUT_APPROVAL_TTL_HOURS,
    payeeChangedWindowDays: config.PAYEE_CHANGED_WINDOW_DAYS,
    balanceWatchIntervalSeconds: config.BALANCE_WATCH_INTERVAL,
    scheduleCheckAhead: config.PAYOUT_SCHEDULE_CHECK_AHEAD,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    uploadLimit: config.PAYOUT_UPLOAD_LIMIT,
    uploadConcurrency: config.PAYOUT_UPLOAD_CONCURRENCY,
    timing: {
      ...DEFAULT_PAYOUT_TIMING,
      ipnTimeout: `${config.PAYOUT_IPN_TIMEOUT_SECONDS} seconds`,
      gatewayAttemptTimeout: `${config.PAYOUT_GATEWAY_ATTEMPT_SECONDS} seconds`,
    },
    disbursement: {
      ipnTimeout: `${config.DISBURSEMENT_IPN_TIMEOUT_SECONDS} seconds`,
      resultWait: hoursAsDuration(config.DISBURSEMENT_RESULT_WAIT_HOURS),
      // pay's server-side rate limit counts queued activities only: with a limit, pay stays on its queue.
      inWorkflowTask:
        config.GATEWAY_RATE_LIMITS['disbursement.pay'] === undefined && !config.STEPS_AS_QUEUED_ACTIVITIES,
      // The desk pays in an activity of its own, where pay's queue (and its rate limit) is not used.
      desk:
        config.DISBURSEMENT_DESK &&
        config.GATEWAY_RATE_LIMITS['disbursement.pay'] === undefined &&
        !config.STEPS_AS_QUEUED_ACTIVITIES,
    },
  };
}
