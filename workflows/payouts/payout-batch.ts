/**
 * One gateway batch (≤ 1000 items): init → create → 8003 → balance → pay → result → every page of
 * batch/query → follow PENDING items to a final state. Items never pass through workflow history:
 * activities read and write them in PostgreSQL by batch id.
 *
 * Every activity, timer and `patched()` below is part of stored histories: moving a call, or evaluating a
 * `patched()` at another point, breaks their replay (docs/workflow-versioning.md).
 */
import { condition, patched, setHandler, workflowInfo } from '@temporalio/workflow';
import { decisionGate, type DecisionGate } from '../shared/decision-gate';
import { gatewayOf, pageReaderOf, recordsOf } from '../shared/activity-profiles';
import {
  BATCH_ASK_GROWTH,
  batchNotificationSignal,
  batchStatusQuery,
  resumeSignal,
  type BatchStatus,
  type BatchSync,
  type PayoutActivities,
  type PayoutBatchInput,
  type PayoutBatchResult,
  type StateTotals,
} from '../../contracts/payouts';
import { durationMs } from '../../contracts/shared';
import { waitForNotificationOrAsk, waitOrAskThenAttend, type AskSchedule } from '../shared/wait-or-ask';
import { whileHeld } from '../holds/while-held';

const records = recordsOf<PayoutActivities>();

export async function payoutBatch(input: PayoutBatchInput): Promise<PayoutBatchResult> {
  const batch = openBatch(input);
  listen(batch);
  await setStatus(batch, 'initiating');
  const { mToken } = await batch.gateway.initiateBatch({ batchId: input.batchId });
  await createUntilAccepted(batch, mToken);
  let sync = await awaitValidation(batch);
  const eligible = sync.counts.ELIGIBLE ?? { count: 0, amount: 0 };
  if (eligible.count > 0) sync = await payAndSettle(batch, eligible);
  return finish(batch, sync);
}

// ---- one batch and what its steps share

type Gateway = ReturnType<typeof gatewayOf<PayoutActivities>>;

interface Batch {
  readonly input: PayoutBatchInput;
  /**
   * Gateway calls: retried with backoff on transport failures and "retry later" answers; the same
   * requestId is re-sent on every attempt, so a lost response never becomes a second order.
   */
  readonly gateway: Gateway;
  /** Reading every page of a batch takes longer; it heartbeats after each page instead. */
  readonly reader: Gateway;
  /**
   * Runs from before the strict gateway waited without end for a batch the gateway never showed as
   * created or paid; since, an operator is told after pendingGiveUpAfter and payrun goes on asking.
   */
  readonly askOperator: boolean;
  status: BatchStatus;
  created: boolean;
  paidNotices: number;
  resumeRequested: boolean;
  /** Admits a resume only with the API's proof, made for this batch's run (the run passes it on). */
  readonly gate: DecisionGate;
  /** Each pay attempt has a requestId of its own. */
  payAttempt: number;
}

function openBatch(input: PayoutBatchInput): Batch {
  const { gatewayAttemptTimeout } = input.timing;
  return {
    input,
    gateway: gatewayOf<PayoutActivities>(gatewayAttemptTimeout),
    reader: pageReaderOf<PayoutActivities>(gatewayAttemptTimeout),
    askOperator: patched('batch-unconfirmed-stage-asks-operator'),
    gate: decisionGate(
      { type: 'payout_batch', id: input.batchId },
      { subject: workflowInfo().parent?.workflowId ?? workflowInfo().workflowId },
    ),
    status: 'queued',
    created: false,
    paidNotices: 0,
    resumeRequested: false,
    payAttempt: 0,
  };
}

function listen(batch: Batch) {
  setHandler(batchStatusQuery, () => batch.status);
  setHandler(batchNotificationSignal, (notice) => {
    // Duplicated, late and reordered notifications only ever move these flags forward.
    if (notice.stage === 'created') batch.created = true;
    else batch.paidNotices += 1;
  });
  setHandler(resumeSignal, async (resume) => {
    // Resumes taken before proofs existed replay without the check (their histories have no marker). A
    // refused one is in the audit log and in the batch's refusals; the batch goes on waiting.
    if (patched('resume-carries-proof')) {
      if (!(await batch.gate.admits({ action: 'resume', by: resume.by }, resume.proof))) return;
    }
    if (batch.status === 'awaiting_funds' || (batch.askOperator && batch.status === 'needs_attention'))
      batch.resumeRequested = true;
  });
}

async function setStatus(batch: Batch, next: BatchStatus, reason?: string) {
  batch.status = next;
  const { runId, batchId } = batch.input;
  await records.recordBatchStatus({ runId, batchId, status: next, reason });
}

/** Waits for an operator's resume (after a top-up), and takes it. */
async function awaitResume(batch: Batch) {
  await condition(() => batch.resumeRequested);
  batch.resumeRequested = false;
}

/**
 * Waits for a notification, or asks the gateway when it is late: a lost IPN delays, never loses. With
 * `attention`, a stage the gateway has not confirmed after pendingGiveUpAfter is an operator's to look at,
 * and payrun goes on asking (a resume, where `resumable`, ends the wait too).
 */
async function waitOrAsk(
  batch: Batch,
  arrived: () => boolean,
  stillWaiting: () => Promise<boolean>,
  attention?: string,
  resumable = false,
) {
  const { timing } = batch.input;
  const schedule: AskSchedule = { firstWait: timing.ipnTimeout, ...BATCH_ASK_GROWTH };
  const notified = () => (arrived() || (resumable && batch.resumeRequested) ? true : undefined);
  const ask = async () => ((await stillWaiting()) ? undefined : true);
  if (!batch.askOperator || attention === undefined) return waitForNotificationOrAsk(notified, ask, schedule);
  const waited = { ...schedule, giveUpAfterWaiting: timing.pendingGiveUpAfter };
  return waitOrAskThenAttend(notified, ask, waited, () => setStatus(batch, 'needs_attention', attention));
}

// ---- the steps

/** batch/create; a short merchant balance creates nothing, and the batch waits for a top-up. */
async function createUntilAccepted(batch: Batch, mToken: string) {
  const { batchId } = batch.input;
  await setStatus(batch, 'creating');
  for (let attempt = 1; ; attempt++) {
    const upload = await batch.gateway.createBatch({ batchId, mToken, attempt });
    if (upload.outcome === 'accepted') return;
    await setStatus(
      batch,
      'awaiting_funds',
      `The merchant balance is short of the ${upload.amount} VND this batch uploads; the gateway created ` +
        'nothing. Top up, then resume the run.',
    );
    await awaitResume(batch);
    await setStatus(batch, 'creating');
  }
}

/** The 8003 notification, or batch/query showing the items; then the gateway's counts. */
async function awaitValidation(batch: Batch): Promise<BatchSync> {
  const { batchId, timing } = batch.input;
  await setStatus(batch, 'validating');
  await waitOrAsk(
    batch,
    () => batch.created,
    async () => (await batch.reader.syncBatchItems({ batchId })).validating,
    `The gateway has not shown batch ${batchId} as created after ${String(timing.pendingGiveUpAfter)} ` +
      '(no 8003 notification, and batch/query does not list its items). payrun keeps asking.',
  );
  // The stage is reached (notified or shown): the counts must be the gateway's, not the ones on record.
  return batch.reader.syncBatchItems({ batchId, mustKnow: true });
}

async function payAndSettle(batch: Batch, eligible: StateTotals): Promise<BatchSync> {
  await payUntilAccepted(batch, eligible);
  await awaitPayment(batch, eligible);
  const sync = await batch.reader.syncBatchItems({ batchId: batch.input.batchId, mustKnow: true });
  return followPending(batch, sync);
}

/** Checks the balance and pays; while the balance is short (here or at the gateway), waits for a top-up. */
async function payUntilAccepted(batch: Batch, eligible: StateTotals) {
  const { batchId } = batch.input;
  for (;;) {
    batch.payAttempt += 1;
    await setStatus(batch, 'checking_balance');
    const { balance } = await batch.gateway.checkBalance({ batchId });
    const short = balance < eligible.amount;
    const outcome = short ? 'insufficient_funds' : (await pay(batch, eligible)).outcome;
    if (outcome === 'accepted') return;
    await setStatus(
      batch,
      'awaiting_funds',
      `The merchant balance (${balance} VND) is short of the ${eligible.amount} VND this batch needs. ` +
        'Top up, then resume the run.',
    );
    await awaitResume(batch);
  }
}

async function pay(batch: Batch, eligible: StateTotals) {
  await setStatus(batch, 'paying');
  const { batchId } = batch.input;
  // Stopped before batch/pay while batch payments are held; the same attempt is sent when released.
  return whileHeld(
    { kind: 'batch_payment', amountVnd: eligible.amount, objectId: batchId },
    ({ releasedHold }) =>
      batch.gateway.payBatch({ batchId, attempt: batch.payAttempt, ...(releasedHold && { releasedHold }) }),
  );
}

/**
 * The result notification, or batch/query showing the items paid. A resume after an operator was told the
 * payment is unconfirmed sends batch/pay again (a new attempt, so a new requestId): the gateway pays a
 * batch once, and answers 41 for one it already paid.
 */
async function awaitPayment(batch: Batch, eligible: StateTotals) {
  const { batchId, timing } = batch.input;
  for (;;) {
    await setStatus(batch, 'awaiting_result');
    await waitOrAsk(
      batch,
      () => batch.paidNotices > 0,
      async () => (await batch.reader.syncBatchItems({ batchId })).counts.ELIGIBLE !== undefined,
      `batch/pay was sent for ${batchId}, but after ${String(timing.pendingGiveUpAfter)} the gateway still ` +
        'shows its items as eligible, not paid (the pay may have been refused and its answer lost). Check the ' +
        'merchant balance, then resume the run: payrun sends batch/pay again, which the gateway refuses for ' +
        'a batch it already paid.',
      true,
    );
    if (!batch.resumeRequested) return;
    batch.resumeRequested = false;
    await payUntilAccepted(batch, eligible);
  }
}

/** Reads PENDING items again, at growing intervals (or on a notification), until none is left or time is up. */
async function followPending(batch: Batch, first: BatchSync): Promise<BatchSync> {
  const { batchId, timing } = batch.input;
  let sync = first;
  let interval = durationMs(timing.pendingFirstCheck);
  let waited = 0;
  while (sync.counts.PENDING && waited < durationMs(timing.pendingGiveUpAfter)) {
    await setStatus(
      batch,
      'settling',
      `${sync.counts.PENDING.count} items are still pending at the gateway.`,
    );
    const seen = batch.paidNotices;
    await condition(() => batch.paidNotices > seen, interval);
    waited += interval;
    interval = Math.min(interval * 2, durationMs(timing.pendingMaxInterval));
    sync = await batch.reader.syncBatchItems({ batchId });
  }
  return sync;
}

async function finish(batch: Batch, sync: BatchSync): Promise<PayoutBatchResult> {
  const final: BatchStatus = sync.counts.PENDING ? 'needs_attention' : 'completed';
  await setStatus(
    batch,
    final,
    final === 'needs_attention'
      ? `${sync.counts.PENDING?.count} items were still pending when we stopped waiting.`
      : undefined,
  );
  return {
    batchId: batch.input.batchId,
    status: final,
    counts: sync.counts,
    gatewayTotals: sync.gatewayTotals,
  };
}
