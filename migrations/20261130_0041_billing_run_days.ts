import type { Knex } from 'knex';

/**
 * A day's billing run that will search for hand-overs again (docs/subscriptions.md, "Starting the day's run"):
 * its search keeps the row until it finds nothing, and a hand-over that reads the row under its lock needs
 * not ask Temporal to start the run. `searching_until` bounds the word of a run that ended some other way.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('billing_run_days', (table) => {
    table.text('run_scope').notNullable();
    table.date('day').notNullable();
    table.timestamp('searching_until', { useTz: true }).notNullable();
    table.primary(['run_scope', 'day']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('billing_run_days');
}
