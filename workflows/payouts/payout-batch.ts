import { condition, patched, setHandler } from '@temporalio/workflow';
import { gatewayOf, pageReaderOf, recordsOf } from '../shared/activity-profiles';
import {
  batchNotificationSignal,
  batchStatusQuery,
  resumeSignal,
  type BatchStatus,
  type PayoutBatchInput,
  type PayoutBatchResult,
  type PayoutActivities,
} from '../../contracts/payouts';
import { durationMs } from '../../contracts/shared';
import { waitForNotificationOrAsk, waitOrAskThenAttend, type AskSchedule } from '../shared/wait-or-ask';

const records = recordsOf<PayoutActivities>();

/**
 * One gateway batch (≤ 1000 items): init → create → 8003 → balance → pay → result → every page of
 * batch/query → follow PENDING items to a final state. Items never pass through workflow history:
 * activities read and write them in PostgreSQL by batch id.
 */
export async function payoutBatch(input: PayoutBatchInput): Promise<PayoutBatchResult> {
  const { batchId, runId, timing } = input;
  // Gateway calls: retried with backoff on transport failures and "retry later" answers; the same
  // requestId is re-sent on every attempt, so a lost response never becomes a second order.
  const gateway = gatewayOf<PayoutActivities>(timing.gatewayAttemptTimeout);
  // Reading every page of a batch takes longer; it heartbeats after each page instead.
  const reader = pageReaderOf<PayoutActivities>(timing.gatewayAttemptTimeout);
  // Runs from before the strict gateway waited without end for a batch the gateway never showed as
  // created or paid; since, an operator is told after pendingGiveUpAfter and payrun goes on asking.
  const askOperator = patched('batch-unconfirmed-stage-asks-operator');
  let status: BatchStatus = 'queued';
  let created = false;
  let paidNotices = 0;
  let resumeRequested = false;

  setHandler(batchStatusQuery, () => status);
  setHandler(batchNotificationSignal, (notice) => {
    // Duplicated, late and reordered notifications only ever move these flags forward.
    if (notice.stage === 'created') created = true;
    else paidNotices += 1;
  });
  setHandler(resumeSignal, () => {
    if (status === 'awaiting_funds' || (askOperator && status === 'needs_attention')) resumeRequested = true;
  });

  const setStatus = async (next: BatchStatus, reason?: string) => {
    status = next;
    await records.recordBatchStatus({ runId, batchId, status: next, reason });
  };

  const schedule: AskSchedule = { firstWait: timing.ipnTimeout, growth: 2, maxWait: '30 minutes' };
  /**
   * Waits for a notification, or asks the gateway when it is late: a lost IPN delays, never loses. With
   * `attention`, a stage the gateway has not confirmed after pendingGiveUpAfter is an operator's to look at,
   * and payrun goes on asking (a resume, where `resumable`, ends the wait too).
   */
  const waitOrAsk = async (
    arrived: () => boolean,
    stillWaiting: () => Promise<boolean>,
    attention?: string,
    resumable = false,
  ) => {
    const notified = () => (arrived() || (resumable && resumeRequested) ? true : undefined);
    const ask = async () => ((await stillWaiting()) ? undefined : true);
    if (!askOperator || attention === undefined) return waitForNotificationOrAsk(notified, ask, schedule);
    const waited = { ...schedule, giveUpAfterWaiting: timing.pendingGiveUpAfter };
    return waitOrAskThenAttend(notified, ask, waited, () => setStatus('needs_attention', attention));
  };

  await setStatus('initiating');
  const { mToken } = await gateway.initiateBatch({ batchId });

  await setStatus('creating');
  for (let attempt = 1; ; attempt++) {
    const upload = await gateway.createBatch({ batchId, mToken, attempt });
    if (upload.outcome === 'accepted') break;
    await setStatus(
      'awaiting_funds',
      `The merchant balance is short of the ${upload.amount} VND this batch uploads; the gateway created ` +
        'nothing. Top up, then resume the run.',
    );
    await condition(() => resumeRequested);
    resumeRequested = false;
    await setStatus('creating');
  }

  await setStatus('validating');
  await waitOrAsk(
    () => created,
    async () => (await reader.syncBatchItems({ batchId })).validating,
    `The gateway has not shown batch ${batchId} as created after ${String(timing.pendingGiveUpAfter)} ` +
      '(no 8003 notification, and batch/query does not list its items). payrun keeps asking.',
  );
  // The stage is reached (notified or shown): the counts must be the gateway's, not the ones on record.
  let sync = await reader.syncBatchItems({ batchId, mustKnow: true });
  const eligible = sync.counts.ELIGIBLE ?? { count: 0, amount: 0 };

  if (eligible.count > 0) {
    let payAttempt = 0;
    const payUntilAccepted = async () => {
      for (;;) {
        payAttempt += 1;
        await setStatus('checking_balance');
        const { balance } = await gateway.checkBalance({ batchId });
        const short = balance < eligible.amount;
        const outcome = short ? 'insufficient_funds' : (await paying(payAttempt)).outcome;
        if (outcome === 'accepted') return;
        await setStatus(
          'awaiting_funds',
          `The merchant balance (${balance} VND) is short of the ${eligible.amount} VND this batch needs. ` +
            'Top up, then resume the run.',
        );
        await condition(() => resumeRequested);
        resumeRequested = false;
      }
    };
    await payUntilAccepted();

    // A resume after an operator was told the payment is unconfirmed sends batch/pay again (a new attempt,
    // so a new requestId): the gateway pays a batch once, and answers 41 for one it already paid.
    for (;;) {
      await setStatus('awaiting_result');
      await waitOrAsk(
        () => paidNotices > 0,
        async () => (await reader.syncBatchItems({ batchId })).counts.ELIGIBLE !== undefined,
        `batch/pay was sent for ${batchId}, but after ${String(timing.pendingGiveUpAfter)} the gateway still ` +
          'shows its items as eligible, not paid (the pay may have been refused and its answer lost). Check the ' +
          'merchant balance, then resume the run: payrun sends batch/pay again, which the gateway refuses for ' +
          'a batch it already paid.',
        true,
      );
      if (!resumeRequested) break;
      resumeRequested = false;
      await payUntilAccepted();
    }
    sync = await reader.syncBatchItems({ batchId, mustKnow: true });

    let interval = durationMs(timing.pendingFirstCheck);
    let waited = 0;
    while (sync.counts.PENDING && waited < durationMs(timing.pendingGiveUpAfter)) {
      await setStatus('settling', `${sync.counts.PENDING.count} items are still pending at the gateway.`);
      const seen = paidNotices;
      await condition(() => paidNotices > seen, interval);
      waited += interval;
      interval = Math.min(interval * 2, durationMs(timing.pendingMaxInterval));
      sync = await reader.syncBatchItems({ batchId });
    }
  }

  const final: BatchStatus = sync.counts.PENDING ? 'needs_attention' : 'completed';
  await setStatus(
    final,
    final === 'needs_attention'
      ? `${sync.counts.PENDING?.count} items were still pending when we stopped waiting.`
      : undefined,
  );
  return { batchId, status: final, counts: sync.counts, gatewayTotals: sync.gatewayTotals };

  async function paying(attempt: number) {
    await setStatus('paying');
    return gateway.payBatch({ batchId, attempt });
  }
}
