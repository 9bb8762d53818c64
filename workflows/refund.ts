import { proxyActivities, sleep } from '@temporalio/workflow';
import type { Duration } from '@temporalio/common';
import type { PaymentActivities } from '../activities/payments';
import { durationMs } from './durations';

export const refundWorkflowId = (refundId: string) => `refund/${refundId}`;

export type RefundStatus = 'created' | 'pending' | 'succeeded' | 'failed' | 'needs_attention';
export type RefundItemStatus = 'pending' | 'succeeded' | 'failed';

export interface RefundTiming {
  gatewayAttemptTimeout: Duration;
  /** First wait before api/refund/query when the refund (or one of its items) is pending; doubles. */
  firstCheck: Duration;
  maxInterval: Duration;
  /** Still pending after this: an operator looks at it. */
  giveUpAfter: Duration;
}

export interface RefundInput {
  refundId: string;
  timing: RefundTiming;
}

export interface RefundOutcome {
  status: RefundStatus;
  resultCode?: number;
  message?: string;
}

const records = proxyActivities<PaymentActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

/**
 * One refund, already reserved against the payment by the API (the sum of refunds never exceeds the
 * paid amount): api/refund → if it or one of its transGroup items is pending, api/refund/query with
 * growing waits until final. The gateway sends no refund IPN (none is shown), so this only polls.
 * Activities record every answer; a failed refund (or item) gives its reserved amount back.
 */
export async function refund(input: RefundInput): Promise<RefundOutcome> {
  const { refundId, timing } = input;
  const gateway = proxyActivities<PaymentActivities>({
    startToCloseTimeout: timing.gatewayAttemptTimeout,
    retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes' },
  });
  let outcome: RefundOutcome = await gateway.createRefund({ refundId });
  let interval = durationMs(timing.firstCheck);
  let waited = 0;
  while (outcome.status === 'pending' && waited < durationMs(timing.giveUpAfter)) {
    await sleep(interval);
    waited += interval;
    interval = Math.min(interval * 2, durationMs(timing.maxInterval));
    outcome = await gateway.queryRefund({ refundId });
  }
  if (outcome.status === 'pending') {
    await records.markRefundNeedsAttention({ refundId });
    return { ...outcome, status: 'needs_attention' };
  }
  return outcome;
}
