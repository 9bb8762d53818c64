/**
 * How workflows call activities: one timeout-and-retry profile per kind of work, declared once.
 * Retry decisions of gateway failures are made by the activity (activities/shared/gateway-calls.ts); these
 * profiles say how often and how long Temporal tries again with the same requestId.
 */
import { proxyActivities, proxyLocalActivities, type ActivityOptions } from '@temporalio/workflow';
import type { Duration } from '@temporalio/common';
import { GATEWAY_RETRY_BACKOFF } from '../../contracts/shared';

/** Writing payrun's own records: quick, retried until the database answers. */
export const RECORDS: ActivityOptions = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
};

/** A gateway call: each attempt re-sends the same requestId, with growing pauses, until a final answer. */
export const gatewayCalls = (
  attemptTimeout: Duration,
  options: { firstRetry?: Duration; maxRetryInterval?: Duration } = {},
): ActivityOptions => ({
  startToCloseTimeout: attemptTimeout,
  retry: {
    initialInterval: options.firstRetry ?? GATEWAY_RETRY_BACKOFF.first,
    backoffCoefficient: GATEWAY_RETRY_BACKOFF.growth,
    maximumInterval: options.maxRetryInterval ?? GATEWAY_RETRY_BACKOFF.max,
  },
});

/** Proxies of `Activities` with the records profile. */
export const recordsOf = <Activities>() => proxyActivities<Activities>(RECORDS);
/**
 * The records profile as local activities, in the workflow task that decides the write (see
 * gatewayLocallyOf): for writes that follow a local gateway call in the same task, so that the task's
 * one completion carries both.
 */
export const recordsLocallyOf = <Activities>() => {
  const { startToCloseTimeout, retry } = RECORDS;
  return proxyLocalActivities<Activities>({ startToCloseTimeout, retry });
};
/** Proxies of `Activities` with the gateway profile. */
export const gatewayOf = <Activities>(
  attemptTimeout: Duration,
  options?: { firstRetry?: Duration; maxRetryInterval?: Duration },
) => proxyActivities<Activities>(gatewayCalls(attemptTimeout, options));

/**
 * Proxies of `Activities` with the gateway profile, run as local activities: by the worker that holds the
 * workflow task, inside it. No activity task is scheduled, matched, started and completed through the
 * server, and no second workflow task follows: the call costs the history one marker instead of three
 * events and a workflow task (about half the history-store transactions of a one-call step). As at least
 * once as a queued activity: an attempt whose workflow task is lost (the worker died) runs again with the
 * same requestId, so only calls that already resolve a duplicate answer by evidence may run this way. Not
 * for an operation on a queue of its own: the server's rate limit counts queued activities only.
 */
export const gatewayLocallyOf = <Activities>(
  attemptTimeout: Duration,
  options?: { firstRetry?: Duration; maxRetryInterval?: Duration },
) => {
  const { startToCloseTimeout, retry } = gatewayCalls(attemptTimeout, options);
  return proxyLocalActivities<Activities>({ startToCloseTimeout, retry });
};

/**
 * Proxies of `Activities` with the gateway profile on another task queue: an operation's own queue
 * (contracts/shared/gateway-queues.ts), where the rate limit of that operation applies.
 */
export const gatewayOnQueueOf = <Activities>(
  taskQueue: string,
  attemptTimeout: Duration,
  options?: { firstRetry?: Duration; maxRetryInterval?: Duration },
) => proxyActivities<Activities>({ ...gatewayCalls(attemptTimeout, options), taskQueue });

/** Reading every page of a batch takes long: it heartbeats after each page, and may run 30 minutes. */
export const pageReaderOf = <Activities>(heartbeatTimeout: Duration) =>
  proxyActivities<Activities>({
    ...gatewayCalls('30 minutes'),
    heartbeatTimeout,
  });

/** A live quote someone waits for: short, and given up after three tries. */
export const quoteOf = <Activities>() =>
  proxyActivities<Activities>({
    startToCloseTimeout: '20 seconds',
    retry: { initialInterval: '500 milliseconds', maximumAttempts: 3 },
  });

/** One call an operator started and watches (card/settle): a few tries, then the failure is shown. */
export const operatorCallOf = <Activities>() => {
  const profile = gatewayCalls('45 seconds', { maxRetryInterval: '1 minute' });
  return proxyActivities<Activities>({ ...profile, retry: { ...profile.retry, maximumAttempts: 5 } });
};

/** The payout run's records include the reconciliation of a whole run: a longer attempt. */
export const runRecordsOf = <Activities>() =>
  proxyActivities<Activities>({ ...RECORDS, startToCloseTimeout: '1 minute' });
