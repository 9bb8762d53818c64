import { condition, patched, setHandler } from '@temporalio/workflow';
import { gatewayOf, recordsOf } from '../shared/activity-profiles';
import type { PaymentActivities } from '../../contracts/payments';
import {
  refundAnsweredUpdate,
  refundTransition,
  type RefundInput,
  type RefundOutcome,
} from '../../contracts/payments';
import { waitForNotificationOrAsk, waitOrAskThenAttend, type AskSchedule } from '../shared/wait-or-ask';
import { awaitApproval } from '../approvals/await-approval';
import { whileHeld } from '../holds/while-held';

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
  // The refund call's wait for the first answer. A handler adds no command (only an update that is sent
  // does), so runs started before it replay unchanged.
  let recorded = false;
  setHandler(refundAnsweredUpdate, () => condition(() => recorded));
  // Before the gateway is asked: a refund held for approvers sends nothing unless they approve. Inputs
  // without `approval` (every run started before it existed) never wait, so their replay is unchanged.
  if (input.approval) {
    const approval = await awaitApproval(input.approval);
    if (approval !== 'approved') {
      await records.recordRefundNotApproved({ refundId, status: approval });
      recorded = true;
      return { status: approval, message: `The approval was ${approval}; nothing was refunded.` };
    }
  }
  // Stopped before it is sent while refunds are held (the activity tells its amount); resumed as the
  // same refund when released.
  let outcome: RefundOutcome = await whileHeld({ kind: 'refund', objectId: refundId }, ({ releasedHold }) =>
    gateway.createRefund({ refundId, ...(releasedHold && { releasedHold }) }),
  );
  recorded = true;
  if (outcome.status !== 'pending') return outcome;
  const ask = async () => {
    outcome = await gateway.queryRefund({ refundId });
    return outcome.status === 'pending' ? undefined : outcome;
  };
  const schedule: AskSchedule = {
    firstWait: timing.firstCheck,
    growth: 2,
    maxWait: timing.maxInterval,
    giveUpAfterWaiting: timing.giveUpAfter,
  };
  // Since the strict gateway an operator is told and payrun goes on asking: a refund's outcome is only
  // ever learnt from the gateway. Runs from before stopped at needs_attention.
  if (patched('refund-asks-after-attention')) {
    const heard = await waitOrAskThenAttend(noNotification, ask, schedule, () =>
      records.markRefundNeedsAttention({ refundId }),
    );
    if (heard.decided) return heard.decided;
    return { ...outcome, status: 'needs_attention' };
  }
  const asked = await waitForNotificationOrAsk<RefundOutcome>(noNotification, ask, schedule);
  if (asked.decided) return asked.decided;
  await records.markRefundNeedsAttention({ refundId });
  return { ...outcome, status: refundTransition(outcome.status, 'needs_attention') };
}
