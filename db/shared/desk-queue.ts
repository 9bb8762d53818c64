/** What the desks' queues (disbursements, payments, subscriptions) share: a chunk's claim of the items queued for its desk. */
import type { Db } from './knex';

export interface DeskQueue {
  table: 'disbursements' | 'payments' | 'subscriptions';
  idColumn: 'disbursement_id' | 'payment_id' | 'subscription_id';
  /** The status of an item no chunk has started. */
  queuedStatus: string;
}

/**
 * Up to `limit` items queued for this desk that no chunk holds, oldest first, now held by `chunkId` (the claim
 * also sets `updated_at`). SKIP LOCKED: chunks side by side never wait on each other's claims and never take the
 * same item.
 */
export async function claimQueued<Row extends { created_at: Date }>(
  db: Db,
  queue: DeskQueue,
  desk: { deskWorkflowId: string; chunkId: string },
  limit: number,
): Promise<Row[]> {
  const { table, idColumn } = queue;
  const { rows } = await db.raw<{ rows: Row[] }>(
    `update ${table} set desk_chunk = ?, updated_at = now()
      where ${idColumn} in (
        select ${idColumn} from ${table}
         where desk_id = ? and desk_chunk is null and status = ?
         order by created_at
         limit ? for update skip locked)
      returning *`,
    [desk.chunkId, desk.deskWorkflowId, queue.queuedStatus, limit],
  );
  return rows.sort((a, b) => a.created_at.getTime() - b.created_at.getTime());
}

/** PostgreSQL bounds a NOTIFY payload under 8,000 bytes: ids go in groups that fit. */
const PAYLOAD_LIMIT = 7_000;

/**
 * Announces answered items on a desk's channel (LISTEN/NOTIFY): the API process whose create call waits for one
 * hears it. The payload is the ids, comma-separated (ids never hold a comma).
 */
export async function announceIds(db: Db, channel: string, ids: readonly string[]): Promise<void> {
  let group: string[] = [];
  let length = 0;
  const send = async () => {
    if (group.length > 0) await db.raw('select pg_notify(?, ?)', [channel, group.join(',')]);
    group = [];
    length = 0;
  };
  for (const id of ids) {
    if (length + id.length + 1 > PAYLOAD_LIMIT) await send();
    group.push(id);
    length += id.length + 1;
  }
  await send();
}
