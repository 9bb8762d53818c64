import type { Knex } from 'knex';

/**
 * One namespace of gateway orderIds across every kind of business object (issue 31): a payment and a
 * disbursement, or a subscription and another subscription's charge, can no longer send the gateway the same
 * orderId. Each row names the orderId's owner: its kind (payment, refund, disbursement, remittance,
 * subscription, payout_batch, saved_method_binding, saved_method_payment) and the object's id. A subscription
 * owns its charges' and manage calls' orderIds, a remittance its `-verify` and `-buy`, a disbursement its
 * `-chk`, a binding its `-del` (`db/shared/gateway-order-ids.ts` reserves them as objects are created).
 *
 * The backfill takes every orderId payrun sent or will send, oldest object first, `on conflict do nothing`.
 * **Cross-kind duplicates from before** (payment `INV-7` and disbursement `INV-7`; subscription `acme-c1` and
 * subscription `acme`'s first charge): the object created first owns the orderId; the other keeps its
 * records as they are, and a later id it derives that another object owns is refused where it is reserved
 * (a new charge, a manage call) instead of reaching the gateway. They are the rows of
 * `select … from <table> t where not exists (select 1 from gateway_order_ids g where g.order_id = t.order_id
 * and g.kind = '<kind>' and g.object_id = t.<id>)`. Manage calls other than reactivations were never
 * recorded, so only reactivations are backfilled.
 */
const OWNED = `
  select p.order_id, 'payment' as kind, p.payment_id as object_id, p.created_at from payments p
  union all
  select r.order_id, 'refund', r.refund_id, r.created_at from refunds r
  union all
  select d.order_id, 'disbursement', d.disbursement_id, d.created_at from disbursements d
  union all
  select d.order_id || '-chk', 'disbursement', d.disbursement_id, d.created_at from disbursements d
  union all
  select m.order_id, 'remittance', m.remittance_id, m.created_at from remittances m
  union all
  select m.remittance_id || '-verify', 'remittance', m.remittance_id, m.created_at from remittances m
  union all
  select m.remittance_id || '-buy', 'remittance', m.remittance_id, m.created_at from remittances m
  union all
  select s.subscription_id, 'subscription', s.subscription_id, s.created_at from subscriptions s
  union all
  select s.reactivation_order_id, 'subscription', s.subscription_id, s.updated_at from subscriptions s
    where s.reactivation_order_id is not null
  union all
  select c.order_id, 'subscription', c.subscription_id, c.created_at from subscription_charges c
  union all
  select b.order_id, 'payout_batch', b.batch_id, r.uploaded_at from payout_batches b
    join payout_runs r on r.run_id = b.run_id
  union all
  select b.order_id, 'saved_method_binding', b.binding_id, b.created_at from saved_method_bindings b
  union all
  select b.order_id || '-del', 'saved_method_binding', b.binding_id, b.created_at from saved_method_bindings b
  union all
  select t.order_id, 'saved_method_payment', t.payment_id, t.created_at from saved_method_payments t
`;

export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('gateway_order_ids', (table) => {
    table.text('order_id').primary();
    table.text('kind').notNullable();
    table.text('object_id').notNullable();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    table.index(['kind', 'object_id']);
  });
  await db.raw(`
    insert into gateway_order_ids (order_id, kind, object_id, created_at)
    select order_id, kind, object_id, created_at from (${OWNED}) owned
    order by created_at, kind, object_id, order_id
    on conflict (order_id) do nothing
  `);
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('gateway_order_ids');
}
