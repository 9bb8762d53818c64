import { sleep } from '@temporalio/workflow';
import { gatewayOf, recordsOf } from './activity-profiles';
import type { PaymentActivities } from '../activities/payments';
import { durationMs } from './durations';
import { transition, type RefundInput, type RefundOutcome } from './refund-definitions';

const records = recordsOf<PaymentActivities>();

/**
 * One refund, already reserved against the payment by the API (the sum of refunds never exceeds the
 * paid amount): api/refund → if it or one of its transGroup items is pending, api/refund/query with
 * growing waits until final. The gateway sends no refund IPN (none is shown), so this only polls.
 * Activities record every answer; a failed refund (or item) gives its reserved amount back.
 */
export async function refund(input: RefundInput): Promise<RefundOutcome> {
  const { refundId, timing } = input;
  const gateway = gatewayOf<PaymentActivities>(timing.gatewayAttemptTimeout);
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
    return { ...outcome, status: transition(outcome.status, 'needs_attention') };
  }
  return outcome;
}
