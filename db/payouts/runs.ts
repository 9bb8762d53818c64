import type { Knex } from 'knex';
import type { Db } from '../shared/knex';
import type { BatchStatus, ItemState, RunStatus, StateCounts } from '../../contracts/payouts';
import type { EventType, PayoutRunSnapshot } from '../../platform/event-catalogue';
import { recordEvent, updateRecordingEvents, type MayMove } from '../events/events';
import { isoOrNull } from '../shared/values';

export interface PayoutRunRow {
  run_id: string;
  status: RunStatus;
  status_reason: string | null;
  file_name: string;
  row_count: number;
  total_amount: string;
  batch_count: number;
  workflow_id: string;
  uploaded_by_key: string;
  uploaded_by: string;
  uploaded_at: Date;
  expires_at: Date;
  decided_by_key: string | null;
  decided_by: string | null;
  decided_at: Date | null;
  decision_note: string | null;
  reconciliation: unknown;
  completed_at: Date | null;
  updated_at: Date;
}

export interface PayoutBatchRow {
  batch_id: string;
  run_id: string;
  seq: number;
  order_id: string;
  workflow_id: string;
  item_count: number;
  total_amount: string;
  status: BatchStatus;
  status_reason: string | null;
  gateway_totals: unknown;
  updated_at: Date;
}

export interface PayoutItemRow {
  run_id: string;
  batch_id: string;
  payout_id: string;
  row_number: number;
  wallet_id: string;
  wallet_name: string;
  personal_id: string | null;
  amount: string;
  description: string;
  store_id: string | null;
  state: ItemState;
  result_code: number | null;
  message: string | null;
  trans_id: string | null;
  updated_at: Date;
}

/** States in which a payout id is spoken for: paid, being paid, or waiting to be. */
export const LIVE_ITEM_STATES: readonly ItemState[] = ['QUEUED', 'ELIGIBLE', 'SUCCEEDED', 'PENDING'];

/** Payout ids that a run already holds (paid or in flight), with that run's id. */
export async function findLivePayoutIds(db: Db, payoutIds: readonly string[]): Promise<Map<string, string>> {
  const taken = new Map<string, string>();
  for (let start = 0; start < payoutIds.length; start += 5000) {
    const rows: Array<{ payout_id: string; run_id: string }> = await db('payout_items')
      .select('payout_id', 'run_id')
      .whereIn('payout_id', payoutIds.slice(start, start + 5000))
      .whereIn('state', LIVE_ITEM_STATES as ItemState[]);
    for (const row of rows) taken.set(row.payout_id, row.run_id);
  }
  return taken;
}

export async function getRun(db: Db | Knex.Transaction, runId: string): Promise<PayoutRunRow | undefined> {
  return db('payout_runs').where({ run_id: runId }).first();
}

export async function getBatch(db: Db, batchId: string): Promise<PayoutBatchRow | undefined> {
  return db('payout_batches').where({ batch_id: batchId }).first();
}

/** The batch a gateway notification names (its orderId is the batch's). */
export async function findBatchByOrderId(db: Db, orderId: string): Promise<PayoutBatchRow | undefined> {
  return db('payout_batches').where({ order_id: orderId }).first();
}

export async function listBatches(db: Db, runId: string): Promise<PayoutBatchRow[]> {
  return db('payout_batches').where({ run_id: runId }).orderBy('seq');
}

export async function batchItems(db: Db, batchId: string): Promise<PayoutItemRow[]> {
  return db('payout_items').where({ batch_id: batchId }).orderBy('row_number');
}

type CountRow = { state: ItemState; count: string; amount: string };
const toCounts = (rows: CountRow[]): StateCounts =>
  Object.fromEntries(
    rows.map((row) => [row.state, { count: Number(row.count), amount: Number(row.amount) }]),
  );

export async function itemCountsByBatch(db: Db, runId: string): Promise<Map<string, StateCounts>> {
  const rows: Array<CountRow & { batch_id: string }> = await db('payout_items')
    .select('batch_id', 'state')
    .count({ count: '*' })
    .sum({ amount: 'amount' })
    .where({ run_id: runId })
    .groupBy('batch_id', 'state');
  const byBatch = new Map<string, CountRow[]>();
  for (const row of rows) byBatch.set(row.batch_id, [...(byBatch.get(row.batch_id) ?? []), row]);
  return new Map([...byBatch].map(([batchId, list]) => [batchId, toCounts(list)]));
}

export async function itemCounts(
  db: Db,
  where: { run_id?: string; batch_id?: string },
): Promise<StateCounts> {
  const rows: CountRow[] = await db('payout_items')
    .select('state')
    .count({ count: '*' })
    .sum({ amount: 'amount' })
    .where(where)
    .groupBy('state');
  return toCounts(rows);
}

const RUN_EVENTS: Partial<Record<RunStatus, EventType & `payout_run.${string}`>> = {
  awaiting_approval: 'payout_run.awaiting_approval',
  awaiting_funds: 'payout_run.awaiting_funds',
  reconciled: 'payout_run.reconciled',
  needs_attention: 'payout_run.needs_attention',
};

/** The event a run's arrival in `status` causes (within the caller's transaction), if any. */
export async function recordRunEvent(trx: Knex.Transaction, run: PayoutRunRow): Promise<void> {
  const type = RUN_EVENTS[run.status];
  if (type) await recordEvent(trx, type, run.run_id, payoutRunSnapshot(run));
}

export async function setRunStatus(
  db: Db,
  runId: string,
  status: RunStatus,
  extra: Partial<Pick<PayoutRunRow, 'status_reason' | 'reconciliation' | 'completed_at'>>,
  /** The run's transition table (contracts/payouts/runs.ts): forward only. */
  mayMove: MayMove,
): Promise<void> {
  await updateRecordingEvents<PayoutRunRow>(
    db,
    'payout_runs',
    { run_id: runId },
    {
      status,
      status_reason: extra.status_reason ?? null,
      ...(extra.reconciliation !== undefined ? { reconciliation: JSON.stringify(extra.reconciliation) } : {}),
      ...(extra.completed_at ? { completed_at: extra.completed_at } : {}),
      updated_at: db.fn.now(),
    },
    async (trx, before, after) => {
      if (before.status !== after.status) await recordRunEvent(trx, after);
    },
    { column: 'status', mayMove },
  );
}

export async function setBatchStatus(
  db: Db,
  batchId: string,
  status: BatchStatus,
  reason: string | null,
  gatewayTotals?: unknown,
  resultCode?: number,
): Promise<void> {
  await db('payout_batches')
    .where({ batch_id: batchId })
    .update({
      status,
      status_reason: reason,
      ...(resultCode !== undefined ? { result_code: resultCode } : {}),
      ...(gatewayTotals !== undefined ? { gateway_totals: JSON.stringify(gatewayTotals) } : {}),
      updated_at: db.fn.now(),
    });
}

export interface ItemUpdate {
  payoutId: string;
  state: ItemState;
  resultCode: number | null;
  message: string | null;
  transId: string | null;
}

/**
 * Writes the gateway's view of a batch's items. Idempotent: re-applying a page changes nothing, and
 * a final state (SUCCEEDED, FAILED, INELIGIBLE) is never moved back by a stale answer.
 */
export async function applyItemUpdates(
  db: Db,
  batchId: string,
  updates: readonly ItemUpdate[],
): Promise<void> {
  if (!updates.length) return;
  await db.transaction(async (trx) => {
    for (let start = 0; start < updates.length; start += 500) {
      const chunk = updates.slice(start, start + 500);
      await trx.raw(
        `update payout_items as item
            set state = incoming.state, result_code = incoming.result_code, message = incoming.message,
                trans_id = incoming.trans_id, updated_at = now()
           from (select * from jsonb_to_recordset(?::jsonb)
                 as x(payout_id text, state text, result_code int, message text, trans_id text)) as incoming
          where item.batch_id = ? and item.payout_id = incoming.payout_id
            and item.state not in ('SUCCEEDED', 'FAILED', 'INELIGIBLE', 'CANCELLED')
            and item.state is distinct from incoming.state`,
        [
          JSON.stringify(
            chunk.map((update) => ({
              payout_id: update.payoutId,
              state: update.state,
              result_code: update.resultCode,
              message: update.message,
              trans_id: update.transId,
            })),
          ),
          batchId,
        ],
      );
    }
  });
}

/** Batch statuses in which no payment was ever requested from the gateway. */
const BEFORE_PAYMENT: readonly BatchStatus[] = [
  'queued',
  'initiating',
  'creating',
  'validating',
  'checking_balance',
  'awaiting_funds',
];

/**
 * A batch that failed before payment paid nobody: its items become FAILED (with the reason), which
 * frees their payout ids for a new file. After a payment request they stay as they are — they may
 * have been paid — and the reconciliation names them.
 */
export async function releaseUnpaidItems(db: Db, batchId: string, reason: string | undefined): Promise<void> {
  await db.transaction(async (trx) => {
    const batch = await trx('payout_batches').where({ batch_id: batchId }).forUpdate().first('status');
    if (!batch || !BEFORE_PAYMENT.includes(batch.status)) return;
    await trx('payout_items')
      .where({ batch_id: batchId })
      .whereIn('state', ['QUEUED', 'ELIGIBLE'])
      .update({
        state: 'FAILED',
        message: `Not paid: the batch failed before payment${reason ? ` (${reason})` : ''}.`.slice(0, 1000),
        updated_at: trx.fn.now(),
      });
  });
}

export async function cancelRunItems(db: Db, runId: string): Promise<void> {
  await db('payout_items')
    .where({ run_id: runId, state: 'QUEUED' })
    .update({ state: 'CANCELLED', updated_at: db.fn.now() });
}

/** The public fields of the record that its events carry (platform/event-catalogue.ts). */
export const payoutRunSnapshot = (row: PayoutRunRow): PayoutRunSnapshot => ({
  runId: row.run_id,
  status: row.status,
  statusReason: row.status_reason,
  fileName: row.file_name,
  rowCount: Number(row.row_count),
  totalAmount: Number(row.total_amount),
  batchCount: Number(row.batch_count),
  uploadedAt: row.uploaded_at.toISOString(),
  completedAt: isoOrNull(row.completed_at),
});
