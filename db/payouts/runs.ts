import type { Knex } from 'knex';
import type { Db } from '../shared/knex';
import {
  payoutBatchId,
  payoutBatchWorkflowId,
  type BatchStatus,
  type ItemState,
  type RunStatus,
  type StateCounts,
} from '../../contracts/payouts';
import { reserveOrderIds } from '../shared/gateway-order-ids';
import { personKey } from '../../contracts/shared';
import type { KindPolicy } from '../../contracts/approvals';
import type { CapBreach } from '../approvals/approvals';
import type {
  EventType,
  FundsShortSnapshot,
  PayoutRunSnapshot,
  ScheduledCheckFailedSnapshot,
  ScheduledPayoutRunSnapshot,
} from '../../platform/event-catalogue';
import { recordEvent, updateRecordingEvents, type MayMove } from '../events/events';
import { applyListFilter, pageOf, type ListFilter } from '../shared/list-filter';
import { isoOrNull } from '../shared/values';
import { ITEM_RETURNING, recordItemOutcomes, type ExplainFailure, type FinishedItem } from './item-events';

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
  /** What the approval policy asked of the run when it was uploaded (migration 0020). */
  required_approvers: number;
  approver_roles: string[];
  approvals: Array<{ keyId: string; name: string; at?: string }>;
  reconciliation: unknown;
  completed_at: Date | null;
  updated_at: Date;
  /** A retry of failed rows names the run it retries and its family's first run (migration 0023). */
  parent_run_id: string | null;
  root_run_id: string | null;
  /** When a scheduled run pays, and what the check ahead of it warned (migration 0022). */
  execute_at?: Date | null;
  funds_warning?: unknown;
  receivers_warning?: unknown;
  /** The recurring schedule that made the run, and which of its occurrences (migration 0029). */
  schedule_id?: string | null;
  occurrence_at?: Date | null;
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
  /** The directory payee the file named (migration 0024); null when the row typed its receiver. */
  payee_id?: string | null;
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

/** The run an earlier attempt of the same upload request recorded, if any. */
export async function findRunIdByRequestKey(db: Db, requestKey: string): Promise<string | undefined> {
  const row = (await db('payout_runs').where({ request_key: requestKey }).first('run_id')) as
    Pick<PayoutRunRow, 'run_id'> | undefined;
  return row?.run_id;
}

export async function listRuns(
  db: Db,
  filter: ListFilter,
): Promise<{ rows: PayoutRunRow[]; nextOffset: number | null }> {
  const query = applyListFilter(db('payout_runs'), filter, {
    created: 'uploaded_at',
    status: 'status',
    ids: ['run_id', 'file_name'],
    tiebreak: 'run_id',
  });
  return pageOf((await query) as PayoutRunRow[], filter);
}

/** What an upload writes of a new run; the rest of PayoutRunRow has defaults. */
export type NewPayoutRun = Pick<
  PayoutRunRow,
  | 'run_id'
  | 'file_name'
  | 'row_count'
  | 'batch_count'
  | 'workflow_id'
  | 'uploaded_by_key'
  | 'uploaded_by'
  | 'expires_at'
  | 'required_approvers'
  | 'approver_roles'
> & { status: 'awaiting_approval'; total_amount: number; file_sha256: string; request_key: string | null } & {
  schedule_id?: string;
  occurrence_at?: Date;
};

/** A schedule's occurrence over a daily cap: recorded with why, and never given batches, items or a workflow. */
export type RefusedPayoutRun = Omit<NewPayoutRun, 'status'> & { status: 'refused'; status_reason: string };

export type NewPayoutBatch = Pick<
  PayoutBatchRow,
  'batch_id' | 'run_id' | 'seq' | 'order_id' | 'workflow_id' | 'item_count'
> & { status: 'queued'; total_amount: number };

export type NewPayoutItem = Pick<
  PayoutItemRow,
  | 'run_id'
  | 'batch_id'
  | 'payout_id'
  | 'row_number'
  | 'wallet_id'
  | 'wallet_name'
  | 'personal_id'
  | 'description'
  | 'store_id'
  | 'payee_id'
> & { state: 'QUEUED'; amount: number };

/**
 * Writes a new run and the event of its arrival, in the caller's transaction, which writes its batches and
 * items too: a run exists with all its rows or not at all.
 */
export async function insertRun(
  trx: Knex.Transaction,
  run: NewPayoutRun | RefusedPayoutRun,
): Promise<PayoutRunRow> {
  const [row] = (await trx('payout_runs').insert(run).returning('*')) as PayoutRunRow[];
  await recordRunEvent(trx, row!);
  return row!;
}

export async function insertBatches(
  trx: Knex.Transaction,
  batches: readonly NewPayoutBatch[],
): Promise<void> {
  await trx('payout_batches').insert(batches);
}

/** What every run's row (an upload's, a retry's, a schedule's) carries into its payout_items record. */
export interface RunRow {
  rowNumber: number;
  payoutId: string;
  walletId: string;
  walletName: string;
  personalId: string | null;
  amount: number;
  description: string;
  storeId: string | null;
  payeeId?: string | null;
}

export interface RunBatch<R extends RunRow = RunRow> {
  batchId: string;
  seq: number;
  rows: R[];
  totalAmount: number;
}

/** Rows in file order, cut into batches of `size`: batch n of a run is payoutBatchId(runId, n). */
export function batchesOf<R extends RunRow>(runId: string, rows: readonly R[], size: number): RunBatch<R>[] {
  const batches: RunBatch<R>[] = [];
  for (let start = 0; start < rows.length; start += size) {
    const batchRows = rows.slice(start, start + size);
    const seq = batches.length + 1;
    batches.push({
      batchId: payoutBatchId(runId, seq),
      seq,
      rows: batchRows,
      totalAmount: batchRows.reduce((sum, row) => sum + row.amount, 0),
    });
  }
  return batches;
}

/**
 * A run's batches and their rows (QUEUED: their payout ids are the run's from now on), in the run's own
 * transaction. With `reserveOrderIds`, each batch's gateway orderId (its id) is reserved with them, so one
 * orderId names one order; a retry draft reserves its orderIds only when it is submitted.
 */
export async function insertRunBatches(
  trx: Knex.Transaction,
  runId: string,
  batches: readonly RunBatch[],
  options: { reserveOrderIds: boolean },
): Promise<void> {
  if (options.reserveOrderIds)
    await reserveOrderIds(
      trx,
      batches.map((batch) => ({ orderId: batch.batchId, kind: 'payout_batch', objectId: batch.batchId })),
    );
  await insertBatches(
    trx,
    batches.map((batch) => ({
      batch_id: batch.batchId,
      run_id: runId,
      seq: batch.seq,
      order_id: batch.batchId,
      workflow_id: payoutBatchWorkflowId(batch.batchId),
      item_count: batch.rows.length,
      total_amount: batch.totalAmount,
      status: 'queued',
    })),
  );
  for (const batch of batches)
    await insertItems(
      trx,
      batch.rows.map((row) => ({
        run_id: runId,
        batch_id: batch.batchId,
        payout_id: row.payoutId,
        row_number: row.rowNumber,
        wallet_id: row.walletId,
        wallet_name: row.walletName,
        personal_id: row.personalId,
        amount: row.amount,
        description: row.description,
        store_id: row.storeId,
        payee_id: row.payeeId ?? null,
        state: 'QUEUED',
      })),
    );
}

/** In chunks, so a large file stays within the bound parameters one statement may carry. */
export async function insertItems(trx: Knex.Transaction, items: readonly NewPayoutItem[]): Promise<void> {
  for (let start = 0; start < items.length; start += 1000)
    await trx('payout_items').insert(items.slice(start, start + 1000));
}

/**
 * A run whose workflow certainly never started paid nobody: its payout ids are released for another upload
 * and the run ends expired.
 */
export async function abandonUnstartedRun(db: Db, runId: string, reason: string, mayMove: MayMove) {
  await cancelRunItems(db, runId);
  await setRunStatus(db, runId, 'expired', { status_reason: reason }, mayMove);
}

/**
 * A decision on the run: an approval joins the run's approvals (once per key: an activity retried after its
 * answer was lost adds nothing); the decision that settles the run also records who decided and when. The
 * status the decision leads to is written by setRunStatus.
 */
export async function recordRunDecision(
  db: Db,
  runId: string,
  decision: {
    decision?: 'approve' | 'reject';
    by: { keyId: string; name: string };
    note?: string;
    settles?: false;
  },
): Promise<void> {
  const approval = JSON.stringify([{ keyId: decision.by.keyId, name: decision.by.name }]);
  await db('payout_runs')
    .where({ run_id: runId })
    .update({
      ...(decision.decision === 'approve' && {
        approvals: db.raw(
          `case when approvals @> ?::jsonb then approvals
                else approvals || jsonb_build_array(?::jsonb || jsonb_build_object('at', now())) end`,
          [approval, JSON.stringify({ keyId: decision.by.keyId, name: decision.by.name })],
        ),
      }),
      ...(decision.settles !== false && {
        decided_by_key: decision.by.keyId,
        decided_by: decision.by.name,
        decided_at: db.fn.now(),
        decision_note: decision.note ?? null,
      }),
      updated_at: db.fn.now(),
    });
}

/** The runs uploaded today (Asia/Ho_Chi_Minh) that count against the daily caps: not rejected or expired. */
export async function runsCountingToday(
  trx: Knex.Transaction,
): Promise<Array<{ uploaded_by: string; total_amount: string }>> {
  // One lock per day: uploads take turns between reading the sums and recording their run, so two uploads
  // at once cannot both fit under a cap that holds only one of them.
  await trx.raw(
    `select pg_advisory_xact_lock(hashtext('approvals:payout_run'), hashtext(((now() at time zone 'Asia/Ho_Chi_Minh')::date)::text))`,
  );
  return (
    trx('payout_runs')
      .whereRaw(
        `(uploaded_at at time zone 'Asia/Ho_Chi_Minh')::date = (now() at time zone 'Asia/Ho_Chi_Minh')::date`,
      )
      // A draft retry counts from its submission (api/payouts/retries.ts checks the caps then).
      // A refused occurrence (over a cap) never pays, so it takes nothing from the day's caps.
      .whereNotIn('status', ['rejected', 'expired', 'draft', 'refused'])
      .select('uploaded_by', 'total_amount')
  );
}

/** The cap a new run would break, counting today's runs (rejected, expired and refused ones do not count). */
export function runCapBreach(
  today: ReadonlyArray<{ uploaded_by: string; total_amount: string }>,
  maker: string,
  amount: number,
  caps: Pick<KindPolicy, 'perMakerDailyVnd' | 'perMerchantDailyVnd'>,
): CapBreach | undefined {
  const person = personKey(maker);
  const merchant = today.reduce((sum, run) => sum + Number(run.total_amount), 0);
  const byMaker = today
    .filter((run) => personKey(run.uploaded_by) === person)
    .reduce((sum, run) => sum + Number(run.total_amount), 0);
  if (byMaker + amount > caps.perMakerDailyVnd)
    return { cap: 'perMakerDailyVnd', limitVnd: caps.perMakerDailyVnd, requestedTodayVnd: byMaker };
  if (merchant + amount > caps.perMerchantDailyVnd)
    return { cap: 'perMerchantDailyVnd', limitVnd: caps.perMerchantDailyVnd, requestedTodayVnd: merchant };
  return undefined;
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

/** A run's items in file order: all of them, or one page (of one state). */
export async function runItems(
  db: Db | Knex.Transaction,
  runId: string,
  page?: { state?: ItemState; limit: number; offset: number },
): Promise<PayoutItemRow[]> {
  const query = db('payout_items').where({ run_id: runId }).orderBy('row_number');
  if (page) query.limit(page.limit).offset(page.offset);
  if (page?.state) query.where({ state: page.state });
  return query;
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
  scheduled: 'payout_run.scheduled',
  cancelled: 'payout_run.cancelled',
  refused: 'payout_run.refused',
};

/** The event a run's arrival in `status` causes (within the caller's transaction), if any. */
export async function recordRunEvent(trx: Knex.Transaction, run: PayoutRunRow): Promise<void> {
  const type = RUN_EVENTS[run.status];
  if (type === 'payout_run.scheduled' || type === 'payout_run.cancelled')
    await recordEvent(trx, type, run.run_id, scheduledRunSnapshot(run));
  else if (type) await recordEvent(trx, type, run.run_id, payoutRunSnapshot(run));
}

/** The one way a run's status changes: forward only, with the event its arrival causes. */
export async function setRunStatus(
  db: Db | Knex.Transaction,
  runId: string,
  status: RunStatus,
  extra: Partial<Pick<PayoutRunRow, 'status_reason' | 'reconciliation' | 'completed_at' | 'execute_at'>>,
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
      ...(extra.execute_at ? { execute_at: extra.execute_at } : {}),
      updated_at: db.fn.now(),
    },
    async (trx, before, after) => {
      if (before.status !== after.status) await recordRunEvent(trx, after);
    },
    { column: 'status', mayMove },
  );
}

/**
 * A run paused for funds runs again once none of its batches waits for funds. Every step of every batch
 * asks, so a run that is not paused is only read.
 */
export async function resumeRunOnceFunded(db: Db, runId: string, mayMove: MayMove): Promise<void> {
  const run = (await db('payout_runs').where({ run_id: runId }).first('status')) as
    Pick<PayoutRunRow, 'status'> | undefined;
  if (run?.status !== 'awaiting_funds') return;
  await db.transaction(async (trx) => {
    // Locked first: a batch that starts waiting for funds meanwhile pauses the run again after this write.
    const locked = (await trx('payout_runs').where({ run_id: runId }).forUpdate().first('status')) as
      Pick<PayoutRunRow, 'status'> | undefined;
    if (locked?.status !== 'awaiting_funds') return;
    const waiting = await trx('payout_batches')
      .where({ run_id: runId, status: 'awaiting_funds' })
      .first('batch_id');
    if (!waiting) await setRunStatus(trx, runId, 'running', { status_reason: null }, mayMove);
  });
}

/** The one way a batch's status changes. */
export async function setBatchStatus(
  db: Db,
  batchId: string,
  status: BatchStatus,
  reason: string | null,
  resultCode?: number,
): Promise<void> {
  await db('payout_batches')
    .where({ batch_id: batchId })
    .update({
      status,
      status_reason: reason,
      ...(resultCode !== undefined ? { result_code: resultCode } : {}),
      updated_at: db.fn.now(),
    });
}

/** The gateway's own totals of a batch, as its last query reported them; the status stays as it is. */
export async function recordBatchTotals(db: Db, batchId: string, gatewayTotals: unknown): Promise<void> {
  await db('payout_batches')
    .where({ batch_id: batchId })
    .update({ gateway_totals: JSON.stringify(gatewayTotals), updated_at: db.fn.now() });
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
  /** Why a failed row failed, in payrun's words: its event carries it. */
  explain: ExplainFailure,
): Promise<void> {
  if (!updates.length) return;
  await db.transaction(async (trx) => {
    for (let start = 0; start < updates.length; start += 500) {
      const chunk = updates.slice(start, start + 500);
      const moved = await trx.raw<{ rows: FinishedItem[] }>(
        `update payout_items as item
            set state = incoming.state, result_code = incoming.result_code, message = incoming.message,
                trans_id = incoming.trans_id, updated_at = now()
           from (select * from jsonb_to_recordset(?::jsonb)
                 as x(payout_id text, state text, result_code int, message text, trans_id text)) as incoming
          where item.batch_id = ? and item.payout_id = incoming.payout_id
            and item.state not in ('SUCCEEDED', 'FAILED', 'INELIGIBLE', 'CANCELLED')
            and item.state is distinct from incoming.state
          returning ${ITEM_RETURNING.map((column) => `item.${column}`).join(', ')}`,
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
      // Only rows this statement moved come back: a page applied again, or a final row, emits nothing.
      await recordItemOutcomes(trx, batchId, moved.rows, explain);
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
export async function releaseUnpaidItems(
  db: Db,
  batchId: string,
  reason: string | undefined,
  explain: ExplainFailure,
): Promise<void> {
  await db.transaction(async (trx) => {
    const batch = await trx('payout_batches').where({ batch_id: batchId }).forUpdate().first('status');
    if (!batch || !BEFORE_PAYMENT.includes(batch.status)) return;
    const released = (await trx('payout_items')
      .where({ batch_id: batchId })
      .whereIn('state', ['QUEUED', 'ELIGIBLE'])
      .update({
        state: 'FAILED',
        message: `Not paid: the batch failed before payment${reason ? ` (${reason})` : ''}.`.slice(0, 1000),
        updated_at: trx.fn.now(),
      })
      .returning([...ITEM_RETURNING])) as FinishedItem[];
    await recordItemOutcomes(trx, batchId, released, explain);
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

export const scheduledRunSnapshot = (row: PayoutRunRow): ScheduledPayoutRunSnapshot => ({
  ...payoutRunSnapshot(row),
  executeAt: isoOrNull(row.execute_at ?? null),
});

// ---- scheduled runs (docs/payout-runs.md, "Scheduling")

/**
 * What the runs scheduled at or before `executeAt` (other than `runId`) will take from the balance: the money
 * committed ahead of this run, which its own check must count.
 */
export async function scheduledTotalBefore(db: Db, runId: string, executeAt: Date): Promise<number> {
  const row = (await db('payout_runs')
    .where({ status: 'scheduled' })
    .whereNot({ run_id: runId })
    .where('execute_at', '<=', executeAt)
    .sum({ total: 'total_amount' })
    .first()) as { total: string | null } | undefined;
  return Number(row?.total ?? 0);
}

/** The distinct receivers of a run, the first `limit` of them by row (the wallet check's input). */
export async function runReceivers(
  db: Db,
  runId: string,
  limit: number,
): Promise<
  Array<Pick<PayoutItemRow, 'payout_id' | 'row_number' | 'wallet_id' | 'wallet_name' | 'personal_id'>>
> {
  return db('payout_items')
    .distinctOn('wallet_id', 'wallet_name', 'personal_id')
    .select('payout_id', 'row_number', 'wallet_id', 'wallet_name', 'personal_id')
    .where({ run_id: runId })
    .orderBy(['wallet_id', 'wallet_name', 'personal_id', { column: 'row_number', order: 'asc' }])
    .limit(limit);
}

/**
 * Writes a scheduled run's warning and its event once: a retried check finds the warning written and emits
 * nothing again. false: it was written before (or the run is no longer scheduled).
 */
export async function recordScheduledWarning(
  db: Db,
  runId: string,
  warning:
    | { kind: 'funds_short'; details: Omit<FundsShortSnapshot, keyof ScheduledPayoutRunSnapshot> }
    | {
        kind: 'scheduled_check_failed';
        details: Omit<ScheduledCheckFailedSnapshot, keyof ScheduledPayoutRunSnapshot>;
      },
): Promise<boolean> {
  const column = warning.kind === 'funds_short' ? 'funds_warning' : 'receivers_warning';
  return db.transaction(async (trx) => {
    const [row] = (await trx('payout_runs')
      .where({ run_id: runId, status: 'scheduled' })
      .whereNull(column)
      .update({ [column]: JSON.stringify(warning.details), updated_at: trx.fn.now() })
      .returning('*')) as PayoutRunRow[];
    if (!row) return false;
    if (warning.kind === 'funds_short')
      await recordEvent(trx, 'payout_run.funds_short', runId, {
        ...scheduledRunSnapshot(row),
        ...warning.details,
      });
    else
      await recordEvent(trx, 'payout_run.scheduled_check_failed', runId, {
        ...scheduledRunSnapshot(row),
        ...warning.details,
      });
    return true;
  });
}

/** Runs scheduled to pay within [from, to), by time: the forecast's scheduled money. */
export async function scheduledRunsBetween(
  db: Db,
  from: Date,
  to: Date,
): Promise<Array<Pick<PayoutRunRow, 'run_id' | 'status' | 'total_amount'> & { execute_at: Date }>> {
  return db('payout_runs')
    .select('run_id', 'status', 'total_amount', 'execute_at')
    .where({ status: 'scheduled' })
    .where('execute_at', '>=', from)
    .where('execute_at', '<', to)
    .orderBy([{ column: 'execute_at' }, { column: 'run_id' }]);
}
