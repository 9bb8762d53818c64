/**
 * Every kind's money movements in one shape, read in one statement so a report is one consistent
 * snapshot. `at` is when the order was made (a payout item: when its run was decided, that is when paying
 * could start), so a closed period's report does not change as late results arrive — only outcomes do.
 *
 * Rows that never became an order are left out: runs and items still awaiting approval or refused
 * (QUEUED, CANCELLED), requests rejected or expired before anything was sent, skipped charges.
 */
import type { Db } from '../shared/knex';
import type { MovementKind } from '../../contracts/reports';

export interface MovementRow {
  kind: MovementKind;
  id: string;
  at: Date;
  amount: string | number;
  status: string;
  order_id: string;
  item_id: string | null;
  request_id: string | null;
  trans_id: string | null;
  result_code: number | null;
  message: string | null;
  /** Payout items: the receiver in full (the API masks it per role). */
  wallet_id: string | null;
  wallet_name: string | null;
  /** Disbursements and remittances: the label payrun stored already masked. */
  receiver_label: string | null;
  /** Saved-method payments and subscription charges: the customer's id (masked per role by the API). */
  customer_id: string | null;
}

const MOVEMENTS = `
  select 'payout_item' as kind, i.run_id || '/' || i.payout_id as id, coalesce(r.decided_at, r.uploaded_at) as at,
         i.amount, i.state as status, b.order_id, i.payout_id as item_id, null as request_id, i.trans_id,
         i.result_code, i.message, i.wallet_id, i.wallet_name, null as receiver_label, null as customer_id
    from payout_items i join payout_batches b on b.batch_id = i.batch_id join payout_runs r on r.run_id = i.run_id
   where i.state not in ('QUEUED', 'CANCELLED')
  union all
  select 'disbursement', d.disbursement_id, d.created_at, d.amount, d.status, d.order_id, null, null, d.trans_id,
         d.result_code, d.message, null, null, d.receiver_label, null
    from disbursements d where d.status not in ('awaiting_approval', 'rejected', 'expired')
  union all
  select 'remittance', m.remittance_id, m.created_at, coalesce(m.amount_sent, m.requested_amount, m.exchange_amount, 0),
         m.status, m.order_id, null, null, m.trans_id, m.result_code, m.result_message, null, null, m.receiver_label, null
    from remittances m where m.status not in ('accepted', 'awaiting_approval', 'quoting', 'rejected', 'expired')
  union all
  select 'payment', p.payment_id, p.created_at, p.amount, p.status, p.order_id, null, null, p.trans_id,
         p.result_code, p.result_message, null, null, null, null
    from payments p
  union all
  select 'saved_method_payment', t.payment_id, t.created_at, t.amount, t.state, t.order_id, null, null, t.trans_id,
         t.result_code, t.message, null, null, null, t.partner_client_id
    from saved_method_payments t
  union all
  select 'subscription_charge', c.order_id, c.created_at, c.amount, c.status, c.order_id, null, c.request_id, c.trans_id,
         c.result_code, c.message, null, null, null, s.partner_client_id
    from subscription_charges c join subscriptions s on s.subscription_id = c.subscription_id
   where c.status <> 'skipped'
  union all
  select 'refund', f.refund_id, f.created_at, f.amount, f.status, f.order_id, null, null, f.trans_id,
         f.result_code, f.result_message, null, null, null, null
    from refunds f where f.status not in ('awaiting_approval', 'rejected', 'expired')
`;

/**
 * The movements made in [startsAt, endsAt), oldest first, at most `limit` + 1 rows (the caller tells a
 * report that would be cut short from one that is whole).
 */
export async function movementsBetween(
  db: Db,
  startsAt: Date,
  endsAt: Date,
  limit: number,
): Promise<MovementRow[]> {
  const result = await db.raw<{ rows: MovementRow[] }>(
    `select * from (${MOVEMENTS}) m where m.at >= ? and m.at < ? order by m.at, m.kind, m.id limit ?`,
    [startsAt, endsAt, limit + 1],
  );
  return result.rows;
}

export interface BatchTotalsRow {
  batch_id: string;
  run_id: string;
  order_id: string;
  status: string;
  /** The gateway's own totals from its last batch/query answer; null until payrun has asked. */
  gateway_totals: Record<string, number> | null;
}

/** The batches behind these orderIds, with the totals the gateway last reported for each. */
export async function batchesWithGatewayTotals(
  db: Db,
  orderIds: readonly string[],
): Promise<BatchTotalsRow[]> {
  if (!orderIds.length) return [];
  return db('payout_batches')
    .whereIn('order_id', [...orderIds])
    .orderBy('order_id')
    .select('batch_id', 'run_id', 'order_id', 'status', 'gateway_totals');
}
