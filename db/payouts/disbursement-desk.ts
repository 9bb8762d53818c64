/** The disbursement desk's queue (migration 0038): claimed by chunks, handed to workflows of their own. */
import type { Db } from '../shared/knex';
import { claimQueued } from '../shared/desk-queue';
import type { DisbursementReceiver } from '../../contracts/payouts';
import type { CodecKeyring } from '../../platform/payload-codec';
import { openSecret, sealSecret } from '../../platform/sealed-secrets';
import type { DisbursementRow } from './disbursements';

export interface DeskDisbursementRow extends DisbursementRow {
  desk_receiver: string;
  desk_id: string;
}

const UNSETTLED: ReadonlyArray<DisbursementRow['status']> = [
  'queued',
  'checking_wallet',
  'checking_balance',
  'paying',
  'pending',
];

/** Up to `limit` of this desk's queued items no chunk holds, oldest first, now held by `chunkId` (db/shared/desk-queue.ts). */
export const claimDeskDisbursements = (
  db: Db,
  desk: { deskWorkflowId: string; chunkId: string },
  limit: number,
): Promise<DeskDisbursementRow[]> =>
  claimQueued<DeskDisbursementRow>(
    db,
    { table: 'disbursements', idColumn: 'disbursement_id', queuedStatus: 'queued' },
    desk,
    limit,
  );

/**
 * What an earlier attempt of the chunk claimed and left unsettled and not handed over: a retried chunk
 * (its worker lost) takes these again first, and `disburse` resumes each from its record.
 */
export async function unsettledOfChunk(db: Db, chunkId: string): Promise<DeskDisbursementRow[]> {
  return db('disbursements')
    .where({ desk_chunk: chunkId })
    .whereNotNull('desk_id')
    .whereIn('status', UNSETTLED)
    .orderBy('created_at');
}

/**
 * Payouts of this desk claimed by a chunk and left unsettled, with nothing written on them since `since`: a chunk
 * nothing retries any more left them (its desk was terminated), and they go on in workflows of their own.
 */
export const staleDeskClaims = (
  db: Db,
  deskWorkflowId: string,
  since: Date,
  limit: number,
): Promise<DeskDisbursementRow[]> =>
  db('disbursements')
    .where({ desk_id: deskWorkflowId })
    .whereNotNull('desk_chunk')
    .whereIn('status', UNSETTLED)
    .where('updated_at', '<', since)
    .orderBy('created_at')
    .limit(limit);

/** Payouts a chunk claimed and could not make (their receiver did not open): queued again for a later chunk. */
export async function releaseDeskClaims(db: Db, disbursementIds: readonly string[]): Promise<void> {
  if (disbursementIds.length === 0) return;
  await db('disbursements')
    .whereIn('disbursement_id', disbursementIds)
    .where({ status: 'queued' })
    .update({ desk_chunk: null });
}

/**
 * The desk lets go: the payout's own workflow (its record's workflow_id) takes its notifications from now on,
 * and the console links to it.
 */
export async function handOverDeskDisbursement(db: Db, disbursementId: string): Promise<void> {
  await db('disbursements').where({ disbursement_id: disbursementId }).update({ desk_id: null });
}

/**
 * A desk payout's receiver at rest: no workflow input holds it, so its record does, sealed with the payload
 * codec's keyring (the protection that input has in Temporal). The context ties it to its own record.
 */
const receiverContext = (disbursementId: string) => `disbursement-receiver/${disbursementId}`;

export const sealDeskReceiver = (
  receiver: DisbursementReceiver,
  keyring: CodecKeyring,
  disbursementId: string,
) => sealSecret(JSON.stringify(receiver), keyring, receiverContext(disbursementId));

export const openDeskReceiver = (row: DeskDisbursementRow, keyring: CodecKeyring): DisbursementReceiver =>
  JSON.parse(
    openSecret(row.desk_receiver, keyring, receiverContext(row.disbursement_id)),
  ) as DisbursementReceiver;
