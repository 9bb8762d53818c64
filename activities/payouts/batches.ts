import { randomBytes } from 'node:crypto';
import { ApplicationFailure, Context } from '@temporalio/activity';
import {
  batchExistenceEvidence,
  GatewayResultError,
  isAlreadySubmitted,
  isGatewayError,
  type GatewayClient,
} from '../../gateway';
import type { Db } from '../../db/shared/knex';
import {
  applyItemUpdates,
  batchItems,
  cancelRunItems,
  releaseUnpaidItems,
  getBatch,
  itemCounts,
  setBatchStatus,
  setRunStatus,
  type ItemUpdate,
} from '../../db/payouts/runs';
import {
  canMoveRun,
  type Actor,
  type BatchStatus,
  type GatewayBatchTotals,
  type ItemState,
  type PayoutBatchResult,
  type RunStatus,
  type StateCounts,
} from '../../contracts/payouts';
import { requestIdFor } from '../../contracts/shared';
import { asActivityFailure, askForEvidence, callGateway, lookupId } from '../shared/gateway-calls';

export interface PayoutActivityDependencies {
  db: Db;
  gateway: GatewayClient;
  /** Where the gateway sends batch notifications: payrun's receiver, from configuration. */
  batchIpnUrl: string;
}

const PAGE_SIZE = 50;
const GATEWAY_STATES = new Set<ItemState>(['ELIGIBLE', 'INELIGIBLE', 'SUCCEEDED', 'FAILED', 'PENDING']);

export interface BatchSync {
  /** The gateway is still validating the batch (no item states yet). */
  validating: boolean;
  counts: StateCounts;
  gatewayTotals?: GatewayBatchTotals;
}

export interface Reconciliation {
  balanced: boolean;
  uploaded: { count: number; amount: number };
  accounted: { count: number; amount: number };
  byState: StateCounts;
  gateway: { count: number; amount: number; succeeded: number; succeededAmount: number };
  differences: string[];
}

async function loadBatch(db: Db, batchId: string) {
  const batch = await getBatch(db, batchId);
  if (!batch) throw new Error(`Batch ${batchId} has no record`);
  return batch;
}

export function createPayoutActivities({ db, gateway, batchIpnUrl }: PayoutActivityDependencies) {
  /** Writes the run's record forward only (its transition table). */
  const recordRun = (runId: string, status: RunStatus, extra: Parameters<typeof setRunStatus>[3]) =>
    setRunStatus(db, runId, status, extra, canMoveRun);

  /** Whether batch/query shows this batch (its count and total) at the gateway. */
  const batchExists = (orderId: string, amount: number, count: number) =>
    askForEvidence(
      gateway,
      'batch.query',
      { requestId: lookupId(orderId), orderId, pageSize: 1, pageNum: 1 },
      (body) => batchExistenceEvidence(body, { orderId, amount, count }),
    );

  return {
    /**
     * batch init (gateway/README assumption 1) issues the mToken. It moves nothing, so every attempt sends a
     * requestId of its own: the spec gives no way to read an mToken again, and a repeated init of a batch not
     * created yet issues a new one. 41 means the orderId was used by a batch/create already: not ours to init.
     */
    async initiateBatch({ batchId }: { batchId: string }): Promise<{ mToken: string }> {
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
          'OrderIdTaken',
          { resultCode: result.resultCode, orderId: batch.order_id },
        );
      const mToken = (result.body as { mToken?: string }).mToken;
      // A 0 without an mToken is a broken answer; another init issues a new one.
      if (!mToken)
        throw new Error(`batch init for ${batchId} answered ${result.resultCode} without an mToken`);
      return { mToken };
    },

    /**
     * batch/create. It moves nothing (pay does), so each attempt has a requestId of its own, and the orderId
     * keeps it at most once: 41 means a batch exists under it, which counts as created only when batch/query
     * shows this batch's count and total. The gateway checks the merchant balance against the batch total
     * here too: a short balance (1100) creates nothing, and after a top-up the same batch is created again.
     */
    async createBatch({
      batchId,
      mToken,
    }: {
      batchId: string;
      mToken: string;
      attempt?: number;
    }): Promise<{ outcome: 'accepted' | 'insufficient_funds'; amount: number }> {
      const batch = await loadBatch(db, batchId);
      const items = await batchItems(db, batchId);
      const amount = items.reduce((sum, item) => sum + Number(item.amount), 0);
      try {
        const result = await gateway.call('batch.create', {
          mToken,
          orderId: batch.order_id,
          requestId: requestIdFor(batch.order_id, `create${nonce()}`),
          requestType: 'batchWallet',
          description: `Payout batch ${batch.seq} of run ${batch.run_id}`,
          amount,
          ipnUrl: batchIpnUrl,
          disbursements: items.map((item) => ({
            id: item.payout_id,
            method: { walletId: item.wallet_id, walletName: item.wallet_name, personalId: item.personal_id },
            amount: Number(item.amount),
            description: item.description,
            ...(item.store_id ? { storeId: item.store_id } : {}),
          })),
        });
        if (isAlreadySubmitted(result.classification.outcome)) {
          const exists = await batchExists(batch.order_id, amount, items.length);
          if (exists.state === 'unknown')
            throw ApplicationFailure.nonRetryable(
              `batch/create for ${batchId} answered ${result.resultCode}, and batch/query does not show this batch: ` +
                `${exists.reason}`,
              'OrderIdTaken',
              { resultCode: result.resultCode, orderId: batch.order_id },
            );
        }
        return { outcome: 'accepted', amount };
      } catch (error) {
        if (error instanceof GatewayResultError && error.outcome === 'merchant_balance_short')
          return { outcome: 'insufficient_funds', amount };
        throw isGatewayError(error) ? asActivityFailure(error) : error;
      }
    },

    /**
     * Reads every page of batch/query and records each item's state. An answer that is not this batch's
     * (a refused query, another batch's totals, one payrun's client rejects) records nothing and reads as
     * "not known yet" (`validating`); only the workflow's waits decide how long that may last.
     */
    async syncBatchItems({ batchId, mustKnow }: { batchId: string; mustKnow?: true }): Promise<BatchSync> {
      const batch = await loadBatch(db, batchId);
      const expected = {
        orderId: batch.order_id,
        amount: Number(batch.total_amount),
        count: Number(batch.item_count),
      };
      const notKnown = async (): Promise<BatchSync> => ({
        validating: true,
        counts: await itemCounts(db, { batch_id: batchId }),
      });
      const updates: ItemUpdate[] = [];
      let totals: GatewayBatchTotals | undefined;
      for (let pageNum = 1, totalPages = 1; pageNum <= totalPages; pageNum++) {
        Context.current().heartbeat({ pageNum });
        let body: Record<string, unknown> | undefined;
        const evidence = await askForEvidence(
          gateway,
          'batch.query',
          { requestId: lookupId(batch.order_id), orderId: batch.order_id, pageSize: PAGE_SIZE, pageNum },
          (answer) => {
            body = answer;
            return batchExistenceEvidence(answer, expected);
          },
        );
        // 7000: the gateway is still validating (no item states yet). With `mustKnow` (the workflow knows the
        // stage is reached: the notification came, or an earlier read showed it), an answer that tells nothing
        // is asked again rather than taken for the stale counts on record.
        if (mustKnow && evidence.state !== 'decided')
          throw new Error(
            `batch/query for ${batchId} (page ${pageNum}) told nothing: ` +
              `${evidence.state === 'unknown' ? evidence.reason : 'still validating'}; asking again`,
          );
        if (evidence.state !== 'decided' || !body) return notKnown();
        totalPages = Number(body.totalPages ?? 1);
        totals = gatewayTotals(body);
        for (const entry of (body.disbursements as Array<Record<string, unknown>> | undefined) ?? []) {
          const state = String(entry.state) as ItemState;
          if (!GATEWAY_STATES.has(state)) continue;
          updates.push({
            payoutId: String(entry.id),
            state,
            resultCode:
              entry.resultCode === undefined || entry.resultCode === null ? null : Number(entry.resultCode),
            message: entry.message === undefined ? null : String(entry.message),
            transId: entry.transId === undefined || entry.transId === null ? null : String(entry.transId),
          });
        }
      }
      await applyItemUpdates(db, batchId, updates);
      if (totals) await setBatchStatus(db, batchId, batch.status, batch.status_reason, totals);
      return {
        validating: updates.length === 0,
        counts: await itemCounts(db, { batch_id: batchId }),
        gatewayTotals: totals,
      };
    },

    async checkBalance({ batchId }: { batchId: string }): Promise<{ balance: number }> {
      const batch = await loadBatch(db, batchId);
      const id = lookupId(batch.order_id);
      const result = await callGateway(gateway, 'disbursement.balance', { requestId: id, orderId: id });
      return { balance: Number((result.body as { amount?: number }).amount ?? 0) };
    },

    /**
     * batch/pay moves the money: each pay attempt (a new one only after the operator topped up or resumed)
     * has its own requestId, the same on every retry of that attempt. 40 (this attempt's answer was lost) and
     * 41 (the batch was paid under another requestId) are "accepted earlier": the result notification or
     * batch/query tells what happened, and the workflow asks an operator when neither shows a payment.
     */
    async payBatch({
      batchId,
      attempt,
    }: {
      batchId: string;
      attempt: number;
    }): Promise<{ outcome: 'accepted' | 'insufficient_funds' }> {
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
    },

    async recordBatchStatus(input: {
      runId: string;
      batchId: string;
      status: BatchStatus;
      reason?: string;
      /** The gateway's code, when the gateway's refusal ended the batch. */
      resultCode?: number;
    }): Promise<void> {
      if (input.status === 'failed') await releaseUnpaidItems(db, input.batchId, input.reason);
      await setBatchStatus(
        db,
        input.batchId,
        input.status,
        input.reason ?? null,
        undefined,
        input.resultCode,
      );
      // A batch waiting for funds pauses its run; the run shows it until the batch moves on.
      if (input.status === 'awaiting_funds') {
        await recordRun(input.runId, 'awaiting_funds', { status_reason: input.reason ?? null });
      } else {
        await db('payout_runs')
          .where({ run_id: input.runId, status: 'awaiting_funds' })
          .whereNotExists(db('payout_batches').where({ run_id: input.runId, status: 'awaiting_funds' }))
          .update({ status: 'running', status_reason: null, updated_at: db.fn.now() });
      }
    },

    async recordRunStatus(input: { runId: string; status: RunStatus; reason?: string }): Promise<void> {
      if (input.status === 'rejected' || input.status === 'expired') await cancelRunItems(db, input.runId);
      await recordRun(input.runId, input.status, {
        status_reason: input.reason ?? null,
        ...(input.status === 'rejected' || input.status === 'expired' ? { completed_at: new Date() } : {}),
      });
    },

    async recordDecision(input: {
      runId: string;
      decision: 'approve' | 'reject';
      by: Actor;
      note?: string;
    }): Promise<void> {
      await db('payout_runs')
        .where({ run_id: input.runId })
        .update({
          decided_by_key: input.by.keyId,
          decided_by: input.by.name,
          decided_at: db.fn.now(),
          decision_note: input.note ?? null,
          updated_at: db.fn.now(),
        });
    },

    /**
     * Uploaded = succeeded + failed + ineligible + pending, each side counted from payrun's records,
     * and the same against the gateway's own batch totals. Any difference is named, never hidden.
     */
    async reconcileRun({
      runId,
      batches,
    }: {
      runId: string;
      batches: PayoutBatchResult[];
    }): Promise<Reconciliation> {
      const run = await db('payout_runs').where({ run_id: runId }).first();
      const byState = await itemCounts(db, { run_id: runId });
      const sum = (states: ItemState[]) =>
        states.reduce(
          (total, state) => ({
            count: total.count + (byState[state]?.count ?? 0),
            amount: total.amount + (byState[state]?.amount ?? 0),
          }),
          { count: 0, amount: 0 },
        );
      const uploaded = { count: Number(run.row_count), amount: Number(run.total_amount) };
      const accounted = sum(['SUCCEEDED', 'FAILED', 'INELIGIBLE', 'PENDING']);
      const gatewaySide = batches.reduce(
        (total, batch) => ({
          count: total.count + (batch.gatewayTotals?.totalUploadedCount ?? 0),
          amount: total.amount + (batch.gatewayTotals?.totalUploadedAmount ?? 0),
          succeeded: total.succeeded + (batch.gatewayTotals?.totalSucceedCount ?? 0),
          succeededAmount: total.succeededAmount + (batch.gatewayTotals?.totalSucceedAmount ?? 0),
        }),
        { count: 0, amount: 0, succeeded: 0, succeededAmount: 0 },
      );
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
      if (byState.PENDING)
        differences.push(`${byState.PENDING.count} items are still pending at the gateway.`);
      const reconciliation: Reconciliation = {
        balanced: differences.length === 0,
        uploaded,
        accounted,
        byState,
        gateway: gatewaySide,
        differences,
      };
      await recordRun(runId, reconciliation.balanced ? 'reconciled' : 'needs_attention', {
        status_reason: differences.join(' ') || null,
        reconciliation,
        completed_at: new Date(),
      });
      return reconciliation;
    },
  };
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

export type PayoutActivities = ReturnType<typeof createPayoutActivities>;
