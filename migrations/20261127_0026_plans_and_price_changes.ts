import type { Knex } from 'knex';

/**
 * Plans (a catalogue new subscriptions reference), dated price changes (of a plan, fanned out to one row
 * per subscription it reaches, or of one subscription), and the notices a subscriber is to receive.
 * A subscription's `recurring_amount` stays what the customer authorized at the gateway: a FIXED cycle
 * charges exactly it, so a price change waits for a new authorization whose token is kept sealed on the
 * price change until its cycle, when it replaces the subscription's token.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('plans', (table) => {
    table.text('plan_id').primary();
    table.text('name_en').notNullable();
    table.text('name_vi').notNullable();
    table.bigInteger('amount').notNullable();
    table.text('currency').notNullable();
    table.text('frequency').notNullable();
    table.text('type').notNullable();
    table.integer('trial_days');
    table.text('status').notNullable().defaultTo('active');
    table.text('created_by').notNullable();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    table.timestamp('archived_at', { useTz: true });
  });
  await db.schema.alterTable('subscriptions', (table) => {
    table.text('plan_id').references('plans.plan_id');
    /** `price_change_unauthorized` while a flagged price change keeps the subscription from being charged. */
    table.text('price_flag');
    table.index(['plan_id']);
  });
  await db.schema.createTable('plan_price_changes', (table) => {
    table.text('plan_price_change_id').primary();
    table.text('plan_id').notNullable().references('plans.plan_id');
    table.bigInteger('new_amount').notNullable();
    table.text('effective_date').notNullable();
    table.text('if_not_reauthorized').notNullable();
    table.text('created_by').notNullable();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
  });
  await db.schema.createTable('subscription_price_changes', (table) => {
    table.text('price_change_id').primary();
    table.text('subscription_id').notNullable().references('subscriptions.subscription_id');
    table.text('plan_price_change_id').references('plan_price_changes.plan_price_change_id');
    table.bigInteger('old_amount').notNullable();
    table.bigInteger('new_amount').notNullable();
    table.bigInteger('authorized_amount').notNullable();
    table.text('effective_date').notNullable();
    table.text('if_not_reauthorized').notNullable();
    table.boolean('needs_reauthorization').notNullable();
    table.text('status').notNullable();
    table.text('status_reason');
    /** The gateway order of the customer's new authorization (`<subscription>-p<n>`). */
    table.text('reauthorization_order_id').unique();
    table.text('reauthorization_pay_url');
    /** The new authorization's token, sealed, until its cycle makes it the subscription's. */
    table.text('pending_token_ciphertext');
    table.text('created_by').notNullable();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    table.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    table.index(['subscription_id', 'effective_date']);
  });
  await db.schema.createTable('subscription_notice_requests', (table) => {
    table.bigIncrements('id');
    table.text('subscription_id').notNullable().references('subscriptions.subscription_id');
    table.text('kind').notNullable();
    /** One notice per (kind, key): a retried activity records it once. */
    table.text('notice_key').notNullable();
    table.jsonb('data').notNullable().defaultTo('{}');
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    table.unique(['subscription_id', 'kind', 'notice_key']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('subscription_notice_requests');
  await db.schema.dropTable('subscription_price_changes');
  await db.schema.dropTable('plan_price_changes');
  await db.schema.alterTable('subscriptions', (table) => {
    table.dropIndex(['plan_id']);
    table.dropColumn('price_flag');
    table.dropColumn('plan_id');
  });
  await db.schema.dropTable('plans');
}
