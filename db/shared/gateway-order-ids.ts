/**
 * One namespace of gateway orderIds (migration 0016): every orderId payrun sends has one owner, a business
 * object of some kind. A create reserves its orderIds in the transaction that writes its record, so two
 * objects, of any kinds, can never send the gateway the same orderId.
 */
import type { Db } from './knex';

/** The owners of orderIds. A subscription owns its charges and manage calls; a remittance its -verify/-buy. */
export type OrderIdOwnerKind =
  | 'payment'
  | 'refund'
  | 'disbursement'
  | 'remittance'
  | 'subscription'
  | 'payout_batch'
  | 'saved_method_binding'
  | 'saved_method_payment';

export interface OrderIdReservation {
  orderId: string;
  kind: OrderIdOwnerKind;
  objectId: string;
}

export interface OrderIdOwner {
  orderId: string;
  kind: OrderIdOwnerKind;
  objectId: string;
  createdAt: Date;
}

/** The orderId belongs to another object: nothing of the reservation was written. */
export class OrderIdTaken extends Error {
  readonly type = 'OrderIdTaken';
  constructor(
    readonly orderId: string,
    /** The kind of the object that owns it. */
    readonly ownerKind: OrderIdOwnerKind,
    readonly wantedBy: { kind: OrderIdOwnerKind; objectId: string },
  ) {
    super(`orderId ${orderId} belongs to a ${ownerKind}; it cannot name a ${wantedBy.kind} too`);
    this.name = 'OrderIdTaken';
  }
}

/**
 * Reserves `rows` for their owners; call it in the transaction that writes the owner's record. An orderId
 * the same (kind, object) already holds is fine (a retried activity, a resumed create); one another object
 * holds throws OrderIdTaken, which should roll the transaction back. Two transactions racing for one orderId:
 * the second waits on the first's row, then sees it and throws.
 */
export async function reserveOrderIds(db: Db, rows: readonly OrderIdReservation[]): Promise<void> {
  const wanted = new Map<string, OrderIdReservation>();
  for (const row of rows) {
    const earlier = wanted.get(row.orderId);
    if (earlier && !sameOwner(earlier, row)) throw new OrderIdTaken(row.orderId, earlier.kind, row);
    wanted.set(row.orderId, earlier ?? row);
  }
  if (wanted.size === 0) return;
  const inserted: Array<{ order_id: string }> = await db('gateway_order_ids')
    .insert(
      [...wanted.values()].map((row) => ({ order_id: row.orderId, kind: row.kind, object_id: row.objectId })),
    )
    .onConflict('order_id')
    .ignore()
    .returning('order_id');
  for (const row of inserted) wanted.delete(row.order_id);
  if (wanted.size === 0) return;
  // Held already: by the same owner (a retry) or by another (refused).
  const owners: Array<{ order_id: string; kind: OrderIdOwnerKind; object_id: string }> = await db(
    'gateway_order_ids',
  )
    .whereIn('order_id', [...wanted.keys()])
    .select('order_id', 'kind', 'object_id');
  for (const owner of owners) {
    const row = wanted.get(owner.order_id)!;
    if (!sameOwner({ orderId: owner.order_id, kind: owner.kind, objectId: owner.object_id }, row))
      throw new OrderIdTaken(row.orderId, owner.kind, row);
  }
}

const sameOwner = (a: OrderIdReservation, b: OrderIdReservation) =>
  a.kind === b.kind && a.objectId === b.objectId;

/** Who owns an orderId, if anyone. */
export async function orderIdOwner(db: Db, orderId: string): Promise<OrderIdOwner | undefined> {
  const row = await db('gateway_order_ids').where({ order_id: orderId }).first();
  return row && { orderId: row.order_id, kind: row.kind, objectId: row.object_id, createdAt: row.created_at };
}

/**
 * A subscription's pause, cancel or reactivation: its orderId (`manageOrderId`) is reserved for the
 * subscription before the gateway hears of it. Idempotent for a retried activity.
 */
export async function reserveManageOrderId(
  db: Db,
  manage: { subscriptionId: string; orderId: string },
): Promise<void> {
  await reserveOrderIds(db, [
    { orderId: manage.orderId, kind: 'subscription', objectId: manage.subscriptionId },
  ]);
}

/**
 * Inserts a record once, with the gateway orderIds it will send, in one transaction: false when a record
 * with that key exists already (nothing written); OrderIdTaken when another object holds one of the
 * orderIds (nothing written either). Given a transaction, it writes in it: a transaction of its own there would
 * be a savepoint, two more round trips on every create, so a refused orderId takes back what it wrote itself.
 */
export async function insertOwningOrderIds(
  db: Db,
  table: string,
  key: string,
  row: Readonly<Record<string, unknown>>,
  orderIds: readonly OrderIdReservation[],
): Promise<boolean> {
  if (!db.isTransaction) return db.transaction((trx) => insertOwning(trx, table, key, row, orderIds));
  try {
    return await insertOwning(db, table, key, row, orderIds);
  } catch (error) {
    // The record did not exist before this call, so the orderIds it holds were reserved by it: both go.
    if (error instanceof OrderIdTaken) {
      await db(table)
        .where({ [key]: row[key] })
        .delete();
      await db('gateway_order_ids')
        .whereIn(
          ['order_id', 'kind', 'object_id'],
          orderIds.map((id) => [id.orderId, id.kind, id.objectId]),
        )
        .delete();
    }
    throw error;
  }
}

async function insertOwning(
  trx: Db,
  table: string,
  key: string,
  row: Readonly<Record<string, unknown>>,
  orderIds: readonly OrderIdReservation[],
): Promise<boolean> {
  const inserted = await trx(table).insert(row).onConflict(key).ignore().returning(key);
  if (inserted.length === 0) return false;
  await reserveOrderIds(trx, orderIds);
  return true;
}
