import { condition, setHandler } from '@temporalio/workflow';
import { gatewayOf, pageReaderOf, recordsOf } from './activity-profiles';
import type { PayoutActivities } from '../activities/payouts';
import {
  batchNotificationSignal,
  batchStatusQuery,
  resumeSignal,
  type BatchStatus,
  type PayoutBatchInput,
  type PayoutBatchResult,
} from './payout-definitions';
import { durationMs } from './durations';
import { waitForNotificationOrAsk } from './wait-or-ask';

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
    if (status === 'awaiting_funds') resumeRequested = true;
  });

  const setStatus = async (next: BatchStatus, reason?: string) => {
    status = next;
    await records.recordBatchStatus({ runId, batchId, status: next, reason });
  };

  /** Waits for a notification, or asks the gateway when it is late: a lost IPN delays, never loses. */
  const waitOrAsk = (arrived: () => boolean, stillWaiting: () => Promise<boolean>) =>
    waitForNotificationOrAsk(
      () => (arrived() ? true : undefined),
      async () => ((await stillWaiting()) ? undefined : true),
      { firstWait: timing.ipnTimeout, growth: 2, maxWait: '30 minutes' },
    );

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
  );
  let sync = await reader.syncBatchItems({ batchId });
  const eligible = sync.counts.ELIGIBLE ?? { count: 0, amount: 0 };

  if (eligible.count > 0) {
    for (let attempt = 1; ; attempt++) {
      await setStatus('checking_balance');
      const { balance } = await gateway.checkBalance({ batchId });
      const short = balance < eligible.amount;
      const outcome = short ? 'insufficient_funds' : (await paying(attempt)).outcome;
      if (outcome === 'accepted') break;
      await setStatus(
        'awaiting_funds',
        `The merchant balance (${balance} VND) is short of the ${eligible.amount} VND this batch needs. ` +
          'Top up, then resume the run.',
      );
      await condition(() => resumeRequested);
      resumeRequested = false;
    }

    await setStatus('awaiting_result');
    await waitOrAsk(
      () => paidNotices > 0,
      async () => (await reader.syncBatchItems({ batchId })).counts.ELIGIBLE !== undefined,
    );
    sync = await reader.syncBatchItems({ batchId });

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
