import { randomBytes } from 'node:crypto';
import { ApplicationFailure, Context } from '@temporalio/activity';
import {
  batchExistenceEvidence,
  GatewayResultError,
  isAlreadySubmitted,
  itemFailureReason,
  NOT_SENT_REASON,
  isGatewayError,
  type GatewayClient,
} from '../../gateway';
import type { Db } from '../../db/shared/knex';
import {
  applyItemUpdates,
  batchItems,
  cancelRunItems,
  getBatch,
  getRun,
  itemCounts,
  recordBatchTotals,
  recordRunDecision,
  releaseUnpaidItems,
  resumeRunOnceFunded,
  setBatchStatus,
  setRunStatus,
  type ItemUpdate,
  type PayoutBatchRow,
  type PayoutItemRow,
} from '../../db/payouts/runs';
import { liveElsewhereInFamily } from '../../db/payouts/retries';
import {
  canMoveRun,
  type BatchStatusRecord,
  type BatchSync,
  type BatchUpload,
  type DecisionRecord,
  type GatewayBatchTotals,
  type ItemState,
  type PayoutActivities,
  type PayoutBatchResult,
  type Reconciliation,
  type RunStatus,
  type RunStatusRecord,
  type StateCounts,
  type StateTotals,
} from '../../contracts/payouts';
import { requestIdFor } from '../../gateway/ids';
import { asActivityFailure, askForEvidence, callGateway, lookupId } from '../shared/gateway-calls';
import { bindActivities } from '../shared/bind';
import { stopIfHeld } from '../holds/holds';
import { watchBeforeBatch } from './balance-watch';
import { checkScheduledRun, readMerchantBalance } from './scheduled-runs';

export interface PayoutActivityDeps {
  db: Db;
  gateway: GatewayClient;
  /** Where the gateway sends batch notifications: payrun's receiver, from configuration. */
  batchIpnUrl: string;
}

const PAGE_SIZE = 50;
const GATEWAY_STATES = new Set<ItemState>(['ELIGIBLE', 'INELIGIBLE', 'SUCCEEDED', 'FAILED', 'PENDING']);

export const createPayoutActivities = (deps: PayoutActivityDeps): PayoutActivities =>
  bindActivities(deps, {
    initiateBatch,
    createBatch,
    syncBatchItems,
    checkBalance,
    payBatch,
    recordBatchStatus,
    recordRunStatus,
    recordDecision,
    checkScheduledRun,
    readMerchantBalance,
    reconcileRun,
  });

async function loadBatch(db: Db, batchId: string) {
  const batch = await getBatch(db, batchId);
  if (!batch) throw new Error(`Batch ${batchId} has no record`);
  return batch;
}

/** Writes the run's record forward only (its transition table). */
const recordRun = (db: Db, runId: string, status: RunStatus, extra: Parameters<typeof setRunStatus>[3]) =>
  setRunStatus(db, runId, status, extra, canMoveRun);

/** Whether batch/query shows this batch (its count and total) at the gateway. */
const batchExists = (gateway: GatewayClient, orderId: string, amount: number, count: number) =>
  askForEvidence(
    gateway,
    'batch.query',
    { requestId: lookupId(orderId), orderId, pageSize: 1, pageNum: 1 },
    (body) => batchExistenceEvidence(body, { orderId, amount, count }),
  );

/**
 * batch init (gateway/README assumption 1) issues the mToken. It moves nothing, so every attempt sends a
 * requestId of its own: the spec gives no way to read an mToken again, and a repeated init of a batch not
 * created yet issues a new one. 41 means the orderId was used by a batch/create already: not ours to init.
 */
export async function initiateBatch(
  { db, gateway, batchIpnUrl }: PayoutActivityDeps,
  { batchId }: { batchId: string },
): Promise<{ mToken: string }> {
  const batch = await loadBatch(db, batchId);
  const result = await callGateway(gateway, 'batch.init', {
    requestId: requestIdFor(batch.order_id, `init${nonce()}`),
    orderId: batch.order_id,
    amount: Number(batch.total_amount),
    orderInfo: `Payout batch ${batch.seq} of run ${batch.run_id}`,
    ipnUrl: batchIpnUrl,
    redirectUrl: '',
    extraData: '',
  });
  if (isAlreadySubmitted(result.classification.outcome))
    throw ApplicationFailure.nonRetryable(
      `batch init for ${batchId} answered ${result.resultCode}: the orderId ${batch.order_id} is already used ` +
        'at the gateway, so this batch cannot be created under it',
      'order_id_taken',
      { resultCode: result.resultCode, orderId: batch.order_id },
    );
  const mToken = (result.body as { mToken?: string }).mToken;
  // A 0 without an mToken is a broken answer; another init issues a new one.
  if (!mToken) throw new Error(`batch init for ${batchId} answered ${result.resultCode} without an mToken`);
  return { mToken };
}

/**
 * batch/create. It moves nothing (pay does), so each attempt has a requestId of its own, and the orderId
 * keeps it at most once: 41 means a batch exists under it, which counts as created only when batch/query
 * shows this batch's count and total. The gateway checks the merchant balance against the batch total
 * here too: a short balance (1100) creates nothing, and after a top-up the same batch is created again.
 */
export async function createBatch(
  { db, gateway, batchIpnUrl }: PayoutActivityDeps,
  { batchId, mToken }: { batchId: string; mToken: string; attempt?: number },
): Promise<BatchUpload> {
  const batch = await loadBatch(db, batchId);
  await refusePaidElsewhereInFamily(db, batchId);
  const items = await batchItems(db, batchId);
  const amount = items.reduce((sum, item) => sum + Number(item.amount), 0);
  // Warned before the gateway can refuse the batch for want of funds (balance.low); it moves nothing.
  await watchBeforeBatch({ db, gateway }, amount);
  try {
    const result = await gateway.call('batch.create', {
      mToken,
      orderId: batch.order_id,
      requestId: requestIdFor(batch.order_id, `create${nonce()}`),
      requestType: 'batchWallet',
      description: `Payout batch ${batch.seq} of run ${batch.run_id}`,
      amount,
      ipnUrl: batchIpnUrl,
      disbursements: items.map(disbursementOf),
    });
    if (isAlreadySubmitted(result.classification.outcome)) {
      const exists = await batchExists(gateway, batch.order_id, amount, items.length);
      if (exists.state === 'unknown')
        throw ApplicationFailure.nonRetryable(
          `batch/create for ${batchId} answered ${result.resultCode}, and batch/query does not show this batch: ` +
            `${exists.reason}`,
          'order_id_taken',
          { resultCode: result.resultCode, orderId: batch.order_id },
        );
    }
    return { outcome: 'accepted', amount };
  } catch (error) {
    if (error instanceof GatewayResultError && error.outcome === 'merchant_balance_short')
      return { outcome: 'insufficient_funds', amount };
    throw isGatewayError(error) ? asActivityFailure(error) : error;
  }
}

/**
 * The workflow's own guard against paying a row twice across a retry family (docs/payout-runs.md): before a
 * batch's rows reach the gateway, none of them may be paid, pending or queued in another run of its family.
 * The database already forbids it (one live item per payout id); this holds even where a record was forced
 * past that. It reads committed rows on every attempt, so a worker that crashed and retries checks again;
 * and a retry is made only of a reconciled run's failed rows, whose final states never move back
 * (applyItemUpdates), so what it checks cannot change between the check and batch/pay. A refused batch
 * fails before payment: nothing is sent, its rows end failed, and the reconciliation names them.
 */
async function refusePaidElsewhereInFamily(db: Db, batchId: string) {
  const clashes = await liveElsewhereInFamily(db, batchId);
  if (clashes.length)
    throw ApplicationFailure.nonRetryable(
      `Batch ${batchId} holds payout ids that another run of its family paid or is paying: ` +
        clashes.map((clash) => `${clash.payoutId} (${clash.state} in ${clash.runId})`).join(', '),
      'paid_elsewhere_in_family',
      { clashes },
    );
}

/** One item of batch/create, as uploaded. */
const disbursementOf = (item: PayoutItemRow) => ({
  id: item.payout_id,
  method: { walletId: item.wallet_id, walletName: item.wallet_name, personalId: item.personal_id },
  amount: Number(item.amount),
  description: item.description,
  ...(item.store_id ? { storeId: item.store_id } : {}),
});

/**
 * Reads every page of batch/query and records each item's state. An answer that is not this batch's
 * (a refused query, another batch's totals, one payrun's client rejects) records nothing and reads as
 * "not known yet" (`validating`); only the workflow's waits decide how long that may last.
 */
export async function syncBatchItems(
  { db, gateway }: PayoutActivityDeps,
  { batchId, mustKnow }: { batchId: string; mustKnow?: true },
): Promise<BatchSync> {
  const batch = await loadBatch(db, batchId);
  const updates: ItemUpdate[] = [];
  let totals: GatewayBatchTotals | undefined;
  for (let pageNum = 1, totalPages = 1; pageNum <= totalPages; pageNum++) {
    Context.current().heartbeat({ pageNum });
    const body = await readPage(gateway, batch, pageNum, mustKnow);
    if (!body) return { validating: true, counts: await itemCounts(db, { batch_id: batchId }) };
    totalPages = Number(body.totalPages ?? 1);
    totals = gatewayTotals(body);
    updates.push(...itemUpdatesOf(body));
  }
  await applyItemUpdates(db, batchId, updates, itemFailureReason);
  if (totals) await recordBatchTotals(db, batchId, totals);
  return {
    validating: updates.length === 0,
    counts: await itemCounts(db, { batch_id: batchId }),
    gatewayTotals: totals,
  };
}

/**
 * One page of batch/query when the answer is this batch's; nothing while it tells nothing (7000: the
 * gateway is still validating, no item states yet). With `mustKnow` (the workflow knows the stage is
 * reached: the notification came, or an earlier read showed it), an answer that tells nothing is asked
 * again rather than taken for the stale counts on record.
 */
async function readPage(
  gateway: GatewayClient,
  batch: PayoutBatchRow,
  pageNum: number,
  mustKnow: true | undefined,
): Promise<Record<string, unknown> | undefined> {
  const { order_id: orderId } = batch;
  const expected = { orderId, amount: Number(batch.total_amount), count: Number(batch.item_count) };
  let body: Record<string, unknown> | undefined;
  const evidence = await askForEvidence(
    gateway,
    'batch.query',
    { requestId: lookupId(orderId), orderId, pageSize: PAGE_SIZE, pageNum },
    (answer) => {
      body = answer;
      return batchExistenceEvidence(answer, expected);
    },
  );
  if (mustKnow && evidence.state !== 'decided')
    throw new Error(
      `batch/query for ${batch.batch_id} (page ${pageNum}) told nothing: ` +
        `${evidence.state === 'unknown' ? evidence.reason : 'still validating'}; asking again`,
    );
  return evidence.state === 'decided' ? body : undefined;
}

/** The items of one batch/query page in a state the gateway decides; any other entry is passed over. */
function itemUpdatesOf(body: Record<string, unknown>): ItemUpdate[] {
  const entries = (body.disbursements as Array<Record<string, unknown>> | undefined) ?? [];
  return entries
    .filter((entry) => GATEWAY_STATES.has(String(entry.state) as ItemState))
    .map((entry) => ({
      payoutId: String(entry.id),
      state: String(entry.state) as ItemState,
      resultCode:
        entry.resultCode === undefined || entry.resultCode === null ? null : Number(entry.resultCode),
      message: entry.message === undefined ? null : String(entry.message),
      transId: entry.transId === undefined || entry.transId === null ? null : String(entry.transId),
    }));
}

export async function checkBalance(
  { db, gateway }: PayoutActivityDeps,
  { batchId }: { batchId: string },
): Promise<{ balance: number }> {
  const batch = await loadBatch(db, batchId);
  const id = lookupId(batch.order_id);
  const result = await callGateway(gateway, 'disbursement.balance', { requestId: id, orderId: id });
  return { balance: Number((result.body as { amount?: number }).amount ?? 0) };
}

/**
 * batch/pay moves the money: each pay attempt (a new one only after the operator topped up or resumed)
 * has its own requestId, the same on every retry of that attempt. 40 (this attempt's answer was lost) and
 * 41 (the batch was paid under another requestId) are "accepted earlier": the result notification or
 * batch/query tells what happened, and the workflow asks an operator when neither shows a payment.
 */
export async function payBatch(
  { db, gateway }: PayoutActivityDeps,
  { batchId, attempt, releasedHold }: { batchId: string; attempt: number; releasedHold?: string },
): Promise<{ outcome: 'accepted' | 'insufficient_funds' }> {
  // A first attempt sends nothing while batch payments are held; a retry may be a call already sent.
  await stopIfHeld(db, 'batch_payment', releasedHold);
  const batch = await loadBatch(db, batchId);
  try {
    await gateway.call('batch.pay', {
      orderId: batch.order_id,
      requestId: requestIdFor(batch.order_id, `pay${attempt}`),
    });
    return { outcome: 'accepted' };
  } catch (error) {
    if (error instanceof GatewayResultError && error.outcome === 'merchant_balance_short')
      return { outcome: 'insufficient_funds' };
    throw asActivityFailure(error);
  }
}

/** A batch waiting for funds pauses its run; the run shows it until no batch waits any more. */
export async function recordBatchStatus({ db }: PayoutActivityDeps, input: BatchStatusRecord): Promise<void> {
  if (input.status === 'failed')
    await releaseUnpaidItems(db, input.batchId, input.reason, () => NOT_SENT_REASON);
  await setBatchStatus(db, input.batchId, input.status, input.reason ?? null, input.resultCode);
  if (input.status === 'awaiting_funds')
    await recordRun(db, input.runId, 'awaiting_funds', { status_reason: input.reason ?? null });
  else await resumeRunOnceFunded(db, input.runId, canMoveRun);
}

export async function recordRunStatus({ db }: PayoutActivityDeps, input: RunStatusRecord): Promise<void> {
  // A run that ends unpaid (rejected, expired, cancelled before its time) frees its payout ids.
  const ended = input.status === 'rejected' || input.status === 'expired' || input.status === 'cancelled';
  if (ended) await cancelRunItems(db, input.runId);
  await recordRun(db, input.runId, input.status, {
    status_reason: input.reason ?? null,
    ...(ended ? { completed_at: new Date() } : {}),
    ...(input.executeAt ? { execute_at: new Date(input.executeAt) } : {}),
  });
}

export async function recordDecision({ db }: PayoutActivityDeps, input: DecisionRecord): Promise<void> {
  await recordRunDecision(db, input.runId, input);
}

/**
 * Uploaded = succeeded + failed + ineligible + pending, each side counted from payrun's records,
 * and the same against the gateway's own batch totals. Any difference is named, never hidden.
 */
export async function reconcileRun(
  { db }: PayoutActivityDeps,
  { runId, batches }: { runId: string; batches: PayoutBatchResult[] },
): Promise<Reconciliation> {
  const run = await getRun(db, runId);
  if (!run) throw new Error(`Run ${runId} has no record`);
  const byState = await itemCounts(db, { run_id: runId });
  const uploaded = { count: Number(run.row_count), amount: Number(run.total_amount) };
  const accounted = sumOf(byState, ['SUCCEEDED', 'FAILED', 'INELIGIBLE', 'PENDING']);
  const gatewaySide = gatewaySideOf(batches);
  const differences = differencesOf(uploaded, accounted, gatewaySide, byState);
  const reconciliation: Reconciliation = {
    balanced: differences.length === 0,
    uploaded,
    accounted,
    byState,
    gateway: gatewaySide,
    differences,
  };
  await recordRun(db, runId, reconciliation.balanced ? 'reconciled' : 'needs_attention', {
    status_reason: differences.join(' ') || null,
    reconciliation,
    completed_at: new Date(),
  });
  return reconciliation;
}

const sumOf = (byState: StateCounts, states: ItemState[]): StateTotals =>
  states.reduce(
    (total, state) => ({
      count: total.count + (byState[state]?.count ?? 0),
      amount: total.amount + (byState[state]?.amount ?? 0),
    }),
    { count: 0, amount: 0 },
  );

/** The gateway's totals of every batch of the run, added up. */
const gatewaySideOf = (batches: PayoutBatchResult[]): Reconciliation['gateway'] =>
  batches.reduce(
    (total, batch) => ({
      count: total.count + (batch.gatewayTotals?.totalUploadedCount ?? 0),
      amount: total.amount + (batch.gatewayTotals?.totalUploadedAmount ?? 0),
      succeeded: total.succeeded + (batch.gatewayTotals?.totalSucceedCount ?? 0),
      succeededAmount: total.succeededAmount + (batch.gatewayTotals?.totalSucceedAmount ?? 0),
    }),
    { count: 0, amount: 0, succeeded: 0, succeededAmount: 0 },
  );

function differencesOf(
  uploaded: StateTotals,
  accounted: StateTotals,
  gatewaySide: Reconciliation['gateway'],
  byState: StateCounts,
): string[] {
  const succeeded = byState.SUCCEEDED ?? { count: 0, amount: 0 };
  const differences: string[] = [];
  if (accounted.count !== uploaded.count || accounted.amount !== uploaded.amount) {
    differences.push(
      `Uploaded ${uploaded.count} rows / ${uploaded.amount} VND, but items in final or pending states add up to ` +
        `${accounted.count} rows / ${accounted.amount} VND (${uploaded.count - accounted.count} rows, ` +
        `${uploaded.amount - accounted.amount} VND unaccounted).`,
    );
  }
  if (gatewaySide.count !== uploaded.count || gatewaySide.amount !== uploaded.amount) {
    differences.push(
      `The gateway reports ${gatewaySide.count} rows / ${gatewaySide.amount} VND uploaded; payrun uploaded ` +
        `${uploaded.count} rows / ${uploaded.amount} VND.`,
    );
  }
  if (gatewaySide.succeeded !== succeeded.count || gatewaySide.succeededAmount !== succeeded.amount) {
    differences.push(
      `The gateway reports ${gatewaySide.succeeded} paid / ${gatewaySide.succeededAmount} VND; payrun recorded ` +
        `${succeeded.count} / ${succeeded.amount} VND.`,
    );
  }
  if (byState.PENDING) differences.push(`${byState.PENDING.count} items are still pending at the gateway.`);
  return differences;
}

/** A requestId part of its own for a call that creates nothing (init, create). */
const nonce = () => randomBytes(4).toString('hex');

function gatewayTotals(body: Record<string, unknown>): GatewayBatchTotals {
  const n = (name: string) => Number(body[name] ?? 0);
  return {
    totalUploadedCount: n('totalUploadedCount'),
    totalUploadedAmount: n('totalUploadedAmount'),
    totalSucceedCount: n('totalSucceedCount'),
    totalSucceedAmount: n('totalSucceedAmount'),
    totalErrorCount: n('totalErrorCount'),
    totalErrorAmount: n('totalErrorAmount'),
    totalPendingCount: n('totalPendingCount'),
    totalPendingAmount: n('totalPendingAmount'),
  };
}
