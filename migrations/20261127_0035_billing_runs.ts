import type { Knex } from 'knex';

/**
 * The billing run (docs/subscriptions.md): a subscription's workflow hands one cycle at a time to the
 * day's run by writing run_cycle (with the amount and date it would charge itself); the run charges only
 * a row still handed over and active, under the row's lock. Each charge it makes names the run and chunk.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('subscriptions', (table) => {
    table.integer('run_cycle');
    table.bigInteger('run_amount');
    table.text('run_due_date');
    table.index(['run_due_date'], 'subscriptions_handed_over_idx', {
      predicate: db.whereNotNull('run_cycle'),
    });
  });
  await db.schema.alterTable('subscription_charges', (table) => {
    table.text('billing_run_id');
    table.integer('billing_chunk');
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('subscription_charges', (table) => {
    table.dropColumn('billing_run_id');
    table.dropColumn('billing_chunk');
  });
  await db.schema.alterTable('subscriptions', (table) => {
    table.dropIndex(['run_due_date'], 'subscriptions_handed_over_idx');
    table.dropColumn('run_cycle');
    table.dropColumn('run_amount');
    table.dropColumn('run_due_date');
  });
}
