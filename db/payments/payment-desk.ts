/** The payment desk's queue (migration 0039): creates claimed by chunks, payments handed to workflows of their own. */
import type { Db } from '../shared/knex';
import { announceIds, claimQueued } from '../shared/desk-queue';
import type { PaymentRow } from './payments';

export interface DeskPaymentRow extends PaymentRow {
  desk_id: string;
}

/** Up to `limit` of this desk's queued items no chunk holds, oldest first, now held by `chunkId` (db/shared/desk-queue.ts). */
export const claimDeskPayments = (
  db: Db,
  desk: { deskWorkflowId: string; chunkId: string },
  limit: number,
): Promise<DeskPaymentRow[]> =>
  claimQueued<DeskPaymentRow>(
    db,
    { table: 'payments', idColumn: 'payment_id', queuedStatus: 'created' },
    desk,
    limit,
  );

/**
 * What an earlier attempt of the chunk claimed and did not answer: a retried chunk (its worker lost) makes
 * these creates again first; the gateway answers a create it already has 40, which `createPayment` settles.
 */
export const unansweredOfChunk = (db: Db, chunkId: string): Promise<DeskPaymentRow[]> =>
  db('payments')
    .where({ desk_chunk: chunkId, status: 'created' })
    .whereNotNull('desk_id')
    .orderBy('created_at');

/**
 * Payments the desk holds, created before `since` and still waiting for their result, and creates a chunk
 * claimed before then and never answered (its desk was terminated, say, so no retry of that chunk takes them back):
 * their own workflow takes over (it asks the gateway with growing waits, or sends the create, answered 40 if
 * the gateway has it).
 */
export const overdueDeskPayments = (
  db: Db,
  deskWorkflowId: string,
  since: Date,
  limit: number,
): Promise<DeskPaymentRow[]> =>
  db('payments')
    .where({ desk_id: deskWorkflowId })
    .where((overdue) => {
      void overdue
        .where((waiting) => {
          void waiting.whereIn('status', ['awaiting_customer', 'pending']).where('created_at', '<', since);
        })
        // Claimed (the claim sets updated_at) that long ago: a create in flight is never taken from its chunk.
        .orWhere((stale) => {
          void stale.where({ status: 'created' }).whereNotNull('desk_chunk').where('updated_at', '<', since);
        });
    })
    .orderBy('created_at')
    .limit(limit);

/**
 * The desk lets go: the payment's own workflow (its record's workflow_id) takes its notifications from now on,
 * and the console links to it.
 */
export async function handOverDeskPayment(db: Db, paymentId: string): Promise<void> {
  await db('payments').where({ payment_id: paymentId }).update({ desk_id: null });
}

/**
 * The channel a chunk announces answered creates on (LISTEN/NOTIFY): the API process whose create call waits for
 * one hears it. The payload is the answered payment ids, comma-separated (ids never hold a comma).
 */
export const PAYMENT_ANSWERED_CHANNEL = 'payrun_payment_answered';

export const announcePaymentsAnswered = (db: Db, paymentIds: readonly string[]): Promise<void> =>
  announceIds(db, PAYMENT_ANSWERED_CHANNEL, paymentIds);
