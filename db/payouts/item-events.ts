/**
 * The events of payout rows reaching their outcome (`payout_item.succeeded`, `payout_item.failed`), written
 * in the transaction that writes the outcome: a row's outcome and its event commit together or not at all,
 * and the writes that call this move a row into a final state only from a state that is not final, so each
 * outcome is written, and its event emitted, once — whichever path finished the row (a batch's query, the
 * follow-up of pending items, a reconciliation after a crash, a batch failed before payment).
 */
import type { Knex } from 'knex';
import type { ItemState } from '../../contracts/payouts';
import type { PayoutItemSnapshot } from '../../platform/event-catalogue';
import { recordEvents } from '../events/events';

/** payrun's explanation of a failed row's code, handed in by the caller (db/ knows no gateway table). */
export type ExplainFailure = (resultCode: number | null) => { en: string; vi: string };

/** The columns of a row an outcome's event needs, as an update's `returning` gives them. */
export interface FinishedItem {
  run_id: string;
  payout_id: string;
  row_number: number;
  amount: string | number;
  wallet_id: string;
  state: ItemState;
  result_code: number | null;
  message: string | null;
  trans_id: string | null;
}

export const ITEM_RETURNING = [
  'run_id',
  'payout_id',
  'row_number',
  'amount',
  'wallet_id',
  'state',
  'result_code',
  'message',
  'trans_id',
] as const;

const SUCCEEDED: ReadonlySet<ItemState> = new Set(['SUCCEEDED']);
const FAILED: ReadonlySet<ItemState> = new Set(['FAILED', 'INELIGIBLE']);

/** `wallet ****5678`: the last four digits, the masking every list and event uses. */
const walletLabel = (walletId: string) => `wallet ****${walletId.replace(/\D/g, '').slice(-4)}`;

/** Records the event of every row of `items` that has just reached an outcome (others are passed over). */
export async function recordItemOutcomes(
  trx: Knex.Transaction,
  batchId: string,
  items: readonly FinishedItem[],
  explain: ExplainFailure,
): Promise<void> {
  const finished = items.filter((item) => SUCCEEDED.has(item.state) || FAILED.has(item.state));
  if (!finished.length) return;
  const batch = (await trx('payout_batches as b')
    .join('payout_runs as r', 'r.run_id', 'b.run_id')
    .where('b.batch_id', batchId)
    .first('b.order_id', 'r.run_id', trx.raw('coalesce(r.root_run_id, r.run_id) as root_run_id'))) as
    { order_id: string; run_id: string; root_run_id: string } | undefined;
  if (!batch) throw new Error(`Batch ${batchId} has no record`);
  const snapshotOf = (item: FinishedItem): PayoutItemSnapshot => ({
    runId: item.run_id,
    rootRunId: batch.root_run_id,
    itemNo: Number(item.row_number),
    payoutId: item.payout_id,
    orderId: batch.order_id,
    amount: Number(item.amount),
    receiverLabel: walletLabel(item.wallet_id),
    state: item.state,
    resultCode: item.result_code,
    message: item.message,
    reason: FAILED.has(item.state) ? explain(item.result_code) : null,
    transId: item.trans_id,
  });
  const events = (states: ReadonlySet<ItemState>) =>
    finished
      .filter((item) => states.has(item.state))
      .map((item) => ({ objectId: item.payout_id, snapshot: snapshotOf(item) }));
  await recordEvents(trx, 'payout_item.succeeded', events(SUCCEEDED));
  await recordEvents(trx, 'payout_item.failed', events(FAILED));
}
