/**
 * A run's family: the run a file started (its root) and the retries of failed rows made from it and from its
 * retries (docs/payout-runs.md). The records only; the story is api/payouts/retries.ts.
 */
import type { Knex } from 'knex';
import type { Db } from '../shared/knex';
import type { ItemState } from '../../contracts/payouts';
import { LIVE_ITEM_STATES, type PayoutItemRow, type PayoutRunRow } from './runs';

/** A run is open while it may still pay: a retry of its family waits until none is. */
export const OPEN_RUN_STATUSES = ['draft', 'awaiting_approval', 'running', 'awaiting_funds'] as const;
/** Rows whose final outcome is that nothing was paid: refused at validation, or failed at payment. */
export const RETRYABLE_STATES: readonly ItemState[] = ['FAILED', 'INELIGIBLE'];

export const rootOf = (run: Pick<PayoutRunRow, 'run_id' | 'root_run_id'>) => run.root_run_id ?? run.run_id;

/** A run, locked until the caller's transaction ends: changes to it take turns. */
export async function lockRun(trx: Knex.Transaction, runId: string): Promise<PayoutRunRow | undefined> {
  return trx('payout_runs').where({ run_id: runId }).forUpdate().first();
}

/** Every run of a family, oldest first. */
export async function familyRuns(db: Db | Knex.Transaction, rootRunId: string): Promise<PayoutRunRow[]> {
  return db('payout_runs')
    .where({ run_id: rootRunId })
    .orWhere({ root_run_id: rootRunId })
    .orderBy('uploaded_at')
    .orderBy('run_id');
}

export async function childRuns(db: Db, runId: string): Promise<PayoutRunRow[]> {
  return db('payout_runs').where({ parent_run_id: runId }).orderBy('uploaded_at').orderBy('run_id');
}

/** The family's run that may still pay, other than its root, if any. */
export async function openRetry(trx: Knex.Transaction, rootRunId: string): Promise<PayoutRunRow | undefined> {
  return trx('payout_runs')
    .where({ root_run_id: rootRunId })
    .whereIn('status', OPEN_RUN_STATUSES as unknown as string[])
    .first();
}

/**
 * A run's rows that failed and are not paid, pending or queued anywhere (an earlier retry may have paid them):
 * exactly what a retry of the run may take.
 */
export async function rowsToRetry(trx: Knex.Transaction, runId: string): Promise<PayoutItemRow[]> {
  return trx('payout_items as item')
    .where('item.run_id', runId)
    .whereIn('item.state', RETRYABLE_STATES as ItemState[])
    .whereNotExists(
      trx('payout_items as live')
        .whereRaw('live.payout_id = item.payout_id')
        .whereIn('live.state', LIVE_ITEM_STATES as ItemState[]),
    )
    .orderBy('item.row_number')
    .select('item.*');
}

/** What a retry draft writes of its run; its batches and items are written as an upload writes them. */
export async function insertDraftRun(
  trx: Knex.Transaction,
  run: Pick<
    PayoutRunRow,
    | 'run_id'
    | 'file_name'
    | 'row_count'
    | 'batch_count'
    | 'workflow_id'
    | 'uploaded_by_key'
    | 'uploaded_by'
    | 'expires_at'
    | 'parent_run_id'
    | 'root_run_id'
  > & { total_amount: number; file_sha256: string },
): Promise<void> {
  // A draft causes no event: it becomes a run awaiting approval (and says so) when it is submitted.
  await trx('payout_runs').insert({ ...run, status: 'draft' });
}

export async function draftItem(
  db: Db | Knex.Transaction,
  runId: string,
  rowNumber: number,
): Promise<PayoutItemRow | undefined> {
  return db('payout_items').where({ run_id: runId, row_number: rowNumber }).first();
}

export type DraftItemPatch = Partial<
  Pick<PayoutItemRow, 'wallet_id' | 'wallet_name' | 'personal_id' | 'description'>
> & { amount?: number };

export async function updateDraftItem(
  trx: Knex.Transaction,
  runId: string,
  rowNumber: number,
  patch: DraftItemPatch,
): Promise<void> {
  await trx('payout_items')
    .where({ run_id: runId, row_number: rowNumber, state: 'QUEUED' })
    .update({ ...patch, updated_at: trx.fn.now() });
}

export async function removeDraftItem(
  trx: Knex.Transaction,
  runId: string,
  rowNumber: number,
): Promise<void> {
  await trx('payout_items').where({ run_id: runId, row_number: rowNumber, state: 'QUEUED' }).delete();
}

/**
 * A submitted draft's batches as its rows now are: counts and totals written again, a batch left without rows
 * removed. Returns the batches that remain, in order.
 */
export async function settleDraftBatches(
  trx: Knex.Transaction,
  runId: string,
): Promise<Array<{ batch_id: string; item_count: number; total_amount: number }>> {
  const sums = (await trx('payout_batches as b')
    .leftJoin('payout_items as i', 'i.batch_id', 'b.batch_id')
    .where('b.run_id', runId)
    .groupBy('b.batch_id', 'b.seq')
    .orderBy('b.seq')
    .select('b.batch_id')
    .count({ item_count: 'i.payout_id' })
    .sum({ total_amount: 'i.amount' })) as Array<{
    batch_id: string;
    item_count: string;
    total_amount: string | null;
  }>;
  const kept = [];
  for (const sum of sums) {
    const itemCount = Number(sum.item_count);
    if (itemCount === 0) {
      await trx('payout_batches').where({ batch_id: sum.batch_id }).delete();
      continue;
    }
    const totalAmount = Number(sum.total_amount ?? 0);
    await trx('payout_batches')
      .where({ batch_id: sum.batch_id })
      .update({ item_count: itemCount, total_amount: totalAmount, updated_at: trx.fn.now() });
    kept.push({ batch_id: sum.batch_id, item_count: itemCount, total_amount: totalAmount });
  }
  return kept;
}

/** The submitted draft's own figures, before its status moves (setRunStatus moves it, with its event). */
export async function recordSubmission(
  trx: Knex.Transaction,
  runId: string,
  figures: Pick<
    PayoutRunRow,
    'row_count' | 'batch_count' | 'expires_at' | 'required_approvers' | 'approver_roles'
  > & {
    total_amount: number;
    file_sha256: string;
  },
): Promise<void> {
  await trx('payout_runs')
    .where({ run_id: runId, status: 'draft' })
    .update({ ...figures, uploaded_at: trx.fn.now(), updated_at: trx.fn.now() });
}

/** Every row of every run of a family, for the combined reconciliation. */
export async function familyItems(db: Db, rootRunId: string): Promise<PayoutItemRow[]> {
  return db('payout_items as i')
    .join('payout_runs as r', 'r.run_id', 'i.run_id')
    .where('r.run_id', rootRunId)
    .orWhere('r.root_run_id', rootRunId)
    .orderBy('r.uploaded_at')
    .orderBy('i.row_number')
    .select('i.*');
}

/**
 * The rows of a batch whose payout id another run of the same family holds paid, pending or queued: none,
 * unless a record was forced past the database's own guard (createBatch refuses the batch then).
 */
export async function liveElsewhereInFamily(
  db: Db,
  batchId: string,
): Promise<Array<{ payoutId: string; runId: string; state: ItemState }>> {
  const rows = (await db.raw(
    `select mine.payout_id, other.run_id, other.state
       from payout_items mine
       join payout_runs own on own.run_id = mine.run_id
       join payout_runs kin on coalesce(kin.root_run_id, kin.run_id) = coalesce(own.root_run_id, own.run_id)
       join payout_items other on other.run_id = kin.run_id and other.payout_id = mine.payout_id
      where mine.batch_id = ? and other.run_id <> mine.run_id and other.state = any(?)`,
    [batchId, [...LIVE_ITEM_STATES]],
  )) as { rows: Array<{ payout_id: string; run_id: string; state: ItemState }> };
  return rows.rows.map((row) => ({ payoutId: row.payout_id, runId: row.run_id, state: row.state }));
}
