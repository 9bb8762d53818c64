import type { Knex } from 'knex';

/**
 * Subscriptions (document 2) and every charge attempt of every cycle. The recurring token is stored
 * only as AES-256-GCM ciphertext (the payload codec keyring, platform/sealed-secrets.ts); the API never returns it.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('subscriptions', (table) => {
    /** Also the gateway's initial orderId (the subscription's bill id). */
    table.text('subscription_id').primary();
    table.text('workflow_id').notNullable().unique();
    table.text('partner_client_id').notNullable();
    table.text('name').notNullable();
    table.text('partner_subs_id');
    table.text('subs_owner');
    table.text('type').notNullable();
    table.bigInteger('recurring_amount').notNullable();
    table.text('frequency').notNullable();
    table.bigInteger('initial_amount').notNullable();
    table.text('order_info').notNullable().defaultTo('');
    table.text('requested_next_payment_date');
    table.text('expiry_date');
    table.text('anchor_date');
    table.integer('anchor_cycle');
    table.integer('next_cycle');
    table.text('next_payment_date');
    table.text('status').notNullable();
    table.text('status_reason');
    table.integer('failures').notNullable().defaultTo(0);
    table.text('pay_url');
    table.text('deeplink');
    table.text('qr_code_url');
    table.integer('start_result_code');
    table.text('start_message');
    /** `v1.<iv>.<ciphertext>.<tag>` (Base64), AES-256-GCM, AAD = subscription_id. */
    table.text('token_ciphertext');
    table.text('user_alias');
    table.text('reactivation_order_id').unique();
    table.text('reactivation_pay_url');
    table.text('created_by_key').notNullable();
    table.text('created_by').notNullable();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    table.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    table.index(['status', 'created_at']);
  });

  await db.schema.createTable('subscription_charges', (table) => {
    table.text('order_id').primary();
    table
      .text('subscription_id')
      .notNullable()
      .references('subscriptions.subscription_id')
      .onDelete('CASCADE');
    table.integer('cycle').notNullable();
    /** 0: the cycle's charge; 1: its retry after insufficient funds. */
    table.integer('attempt').notNullable();
    table.text('due_date').notNullable();
    table.bigInteger('amount').notNullable();
    /** submitted | succeeded | failed | pending | skipped */
    table.text('status').notNullable();
    table.integer('result_code');
    table.text('message');
    table.text('trans_id');
    table.text('request_id');
    table.text('next_payment_date_sent');
    /** The date the gateway keeps (ours within 2 days of its own calculation, else its own). */
    table.text('gateway_next_payment_date');
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    table.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    table.unique(['subscription_id', 'cycle', 'attempt']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('subscription_charges');
  await db.schema.dropTable('subscriptions');
}
