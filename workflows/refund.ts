import { gatewayOf, recordsOf } from './activity-profiles';
import type { PaymentActivities } from '../activities/payments';
import { transition, type RefundInput, type RefundOutcome } from './refund-definitions';
import { waitForNotificationOrAsk } from './wait-or-ask';

const records = recordsOf<PaymentActivities>();

/** The gateway sends no refund notification (none is shown): the waits end only to ask. */
const noNotification = () => undefined;

/**
 * One refund, already reserved against the payment by the API (the sum of refunds never exceeds the
 * paid amount): api/refund → if it or one of its transGroup items is pending, api/refund/query with
 * growing waits until final. Activities record every answer; a failed refund (or item) gives its
 * reserved amount back.
 */
export async function refund(input: RefundInput): Promise<RefundOutcome> {
  const { refundId, timing } = input;
  const gateway = gatewayOf<PaymentActivities>(timing.gatewayAttemptTimeout);
  let outcome: RefundOutcome = await gateway.createRefund({ refundId });
  if (outcome.status !== 'pending') return outcome;
  const asked = await waitForNotificationOrAsk<RefundOutcome>(
    noNotification,
    async () => {
      outcome = await gateway.queryRefund({ refundId });
      return outcome.status === 'pending' ? undefined : outcome;
    },
    {
      firstWait: timing.firstCheck,
      growth: 2,
      maxWait: timing.maxInterval,
      giveUpAfterWaiting: timing.giveUpAfter,
    },
  );
  if (asked.decided) return asked.decided;
  await records.markRefundNeedsAttention({ refundId });
  return { ...outcome, status: transition(outcome.status, 'needs_attention') };
}
