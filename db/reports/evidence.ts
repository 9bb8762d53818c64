/** What a payout run's evidence pack reads beyond the run's own records: its notifications, whole. */
import type { Db } from '../shared/knex';

export interface StoredNotification {
  id: string;
  kind: string;
  order_id: string;
  result_code: number | null;
  /** The signed fields exactly as verified, the signature with them (null for rows stored before 0012). */
  signed_fields: Record<string, unknown> | null;
  unverified_fields: Record<string, unknown> | null;
  received_at: Date;
}

/** Every verified notification about these orders, in the order they arrived. */
export async function signedNotificationsAbout(
  db: Db,
  orderIds: readonly string[],
): Promise<StoredNotification[]> {
  if (!orderIds.length) return [];
  return db('ipn_notifications')
    .whereIn('order_id', [...orderIds])
    .orderBy([{ column: 'received_at' }, { column: 'id' }])
    .select('id', 'kind', 'order_id', 'result_code', 'signed_fields', 'unverified_fields', 'received_at');
}
