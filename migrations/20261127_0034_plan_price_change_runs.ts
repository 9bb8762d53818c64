import type { Knex } from 'knex';

/**
 * A plan's price change is applied by a workflow (planPriceChange), not inside the request: the change
 * says how far it got (`status`, `total`), and each of its subscriptions has at most one price change of
 * it, so a page handed over twice (a retried activity, a restarted workflow) makes no second row.
 * Changes made before this were applied in their request: they are `done`.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('plan_price_changes', (table) => {
    table.text('status').notNullable().defaultTo('done');
    /** The subscriptions it reaches, counted when it was recorded and again when it is done. */
    table.integer('total');
    table.timestamp('completed_at', { useTz: true });
  });
  await db.schema.alterTable('subscription_price_changes', (table) => {
    table.unique(['plan_price_change_id', 'subscription_id']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('subscription_price_changes', (table) => {
    table.dropUnique(['plan_price_change_id', 'subscription_id']);
  });
  await db.schema.alterTable('plan_price_changes', (table) => {
    table.dropColumn('completed_at');
    table.dropColumn('total');
    table.dropColumn('status');
  });
}
