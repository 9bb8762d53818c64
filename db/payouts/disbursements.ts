import type { Knex } from 'knex';
import type { Db } from '../shared/knex';
import { insertOwningOrderIds } from '../shared/gateway-order-ids';
import { applyListFilter, pageOf, type ListFilter } from '../shared/list-filter';
import { isFinalDisbursementStatus, type DisbursementStatus } from '../../contracts/payouts';
import type { DisbursementSnapshot, EventType } from '../../platform/event-catalogue';
import { recordEvent, updateRecordingEvents, updateWhileStatusIn, type MayMove } from '../events/events';

export interface DisbursementRow {
  disbursement_id: string;
  order_id: string;
  workflow_id: string;
  request_type: string;
  amount: string;
  receiver_label: string;
  description: string;
  status: DisbursementStatus | 'queued';
  result_code: number | null;
  message: string | null;
  trans_id: string | null;
  created_by_key: string;
  created_by: string;
  created_at: Date;
  updated_at: Date;
  /** The desk's chunk that claimed it (migration 0038); null for a payout with a workflow of its own from the start. */
  desk_chunk?: string | null;
  /** The desk that holds it (migration 0038) until it is settled there or a workflow of its own takes it over. */
  desk_id?: string | null;
}

const EVENTS: Partial<Record<DisbursementRow['status'], EventType & `disbursement.${string}`>> = {
  succeeded: 'disbursement.succeeded',
  failed: 'disbursement.failed',
};

export async function findDisbursement(db: Db, disbursementId: string): Promise<DisbursementRow | undefined> {
  return db('disbursements').where({ disbursement_id: disbursementId }).first();
}

/** One page of disbursement ids, newest first. */
export async function listDisbursementIds(
  db: Db,
  filter: ListFilter,
): Promise<{ rows: string[]; nextOffset: number | null }> {
  const query = applyListFilter(db('disbursements').select('disbursement_id'), filter, {
    created: 'created_at',
    status: 'status',
    ids: ['disbursement_id', 'order_id'],
    tiebreak: 'disbursement_id',
  });
  const page = pageOf((await query) as Array<Pick<DisbursementRow, 'disbursement_id'>>, filter);
  return { rows: page.rows.map((row) => row.disbursement_id), nextOffset: page.nextOffset };
}

/**
 * Inserts the disbursement once, owning the gateway orderIds it will send (its id, and `-chk` for the wallet
 * check); false when the disbursement id exists already.
 */
export const insertDisbursement = (
  db: Db,
  row: Pick<DisbursementRow, 'disbursement_id' | 'order_id'> & Readonly<Record<string, unknown>>,
): Promise<boolean> => {
  const owner = { kind: 'disbursement', objectId: row.disbursement_id } as const;
  return insertOwningOrderIds(db, 'disbursements', 'disbursement_id', row, [
    { orderId: row.order_id, ...owner },
    { orderId: `${row.order_id}-chk`, ...owner },
  ]);
};

export async function findDisbursementByOrderId(
  db: Db,
  orderId: string,
): Promise<DisbursementRow | undefined> {
  return db('disbursements').where({ order_id: orderId }).first();
}

type StatusWrite = Parameters<typeof recordDisbursementStatus>[1];

/** The columns a status write sets: the status, what the gateway said with it, and when. */
const statusPatch = (db: Db | Knex.Transaction, input: StatusWrite) => ({
  status: input.status,
  // A desk payout's sealed receiver is needed until its outcome is known, and kept no longer (migration 0038).
  ...(isFinalDisbursementStatus(input.status) ? { desk_receiver: null } : {}),
  ...(input.resultCode !== undefined ? { result_code: input.resultCode } : {}),
  ...(input.message !== undefined ? { message: input.message } : {}),
  ...(input.transId !== undefined ? { trans_id: input.transId } : {}),
  updated_at: db.fn.now(),
});

/** The one way a disbursement's status changes: forward only, with the event its arrival causes. */
export async function recordDisbursementStatus(
  db: Db | Knex.Transaction,
  input: {
    disbursementId: string;
    status: DisbursementStatus;
    resultCode?: number;
    message?: string;
    transId?: string;
  },
  /** The disbursement's transition table (contracts/payouts/disbursements.ts): forward only. */
  mayMove: MayMove,
): Promise<void> {
  await updateRecordingEvents<DisbursementRow>(
    db,
    'disbursements',
    { disbursement_id: input.disbursementId },
    statusPatch(db, input),
    async (trx, before, after) => {
      const type = EVENTS[after.status];
      if (type && before.status !== after.status)
        await recordEvent(trx, type, after.disbursement_id, disbursementSnapshot(after));
    },
    { column: 'status', mayMove },
  );
}

/**
 * Writes a status only while the record is in one of `from` (the status the write moves it on from):
 * false, and nothing written, otherwise. Activities that record their own step use it, so an attempt that
 * runs again after an earlier one recorded the answer never takes the record back or repeats its event.
 *
 * The condition is the UPDATE's own WHERE, so the check and the write are one statement: a concurrent
 * writer's move is waited for and then seen (PostgreSQL re-reads the row it waited on), and a step
 * without an event (checking_wallet, checking_balance, paying) costs one round trip, no transaction. A
 * step with an event writes it in the same transaction as the move, and only when this write made it.
 */
export async function advanceDisbursementStatus(
  db: Db,
  input: StatusWrite,
  from: readonly DisbursementRow['status'][],
): Promise<boolean> {
  // A record never moves to where it is (the table has no loops), so `from` without `to` loses nothing
  // and makes every write that happens a change of status.
  const movable = from.filter((status) => status !== input.status);
  const move = (trx: Db | Knex.Transaction) =>
    updateWhileStatusIn(
      trx,
      'disbursements',
      { disbursement_id: input.disbursementId },
      movable,
      statusPatch(db, input),
    );
  const type = EVENTS[input.status];
  if (!type) return (await move(db)) > 0;
  return db.transaction(async (trx) => {
    const [after] = (await move(trx).returning('*')) as DisbursementRow[];
    if (!after) return false;
    await recordEvent(trx, type, after.disbursement_id, disbursementSnapshot(after));
    return true;
  });
}

/** The public fields of the record that its events carry (platform/event-catalogue.ts). */
export const disbursementSnapshot = (row: DisbursementRow): DisbursementSnapshot => ({
  disbursementId: row.disbursement_id,
  status: row.status,
  requestType: row.request_type,
  amount: Number(row.amount),
  receiverLabel: row.receiver_label,
  resultCode: row.result_code,
  message: row.message,
  transId: row.trans_id,
});
