import type { Knex } from 'knex';

/**
 * The dunning schedule a plan gives the subscriptions created from it (null: the default schedule).
 * Only new subscriptions take it; each subscription keeps its own column, so changing a plan's schedule
 * never moves a subscription that is already billing.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('plans', (table) => {
    table.text('dunning_schedule_id').references('dunning_schedules.dunning_schedule_id');
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('plans', (table) => {
    table.dropColumn('dunning_schedule_id');
  });
}
