import type { Knex } from 'knex';

/**
 * Recurring payout runs (docs/payout-runs.md, "Recurring runs"): a schedule keeps a checked payee list with fixed
 * amounts; each occurrence makes an ordinary run. One run per schedule and occurrence time, held by a unique
 * index, so an occurrence retried or triggered again finds its run and never makes a second one.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('payout_schedules', (table) => {
    table.text('schedule_id').primary();
    table.text('name').notNullable();
    table.jsonb('calendar').notNullable();
    table.jsonb('rows').notNullable();
    table.integer('row_count').notNullable();
    table.bigInteger('total_amount').notNullable();
    table.text('status').notNullable().defaultTo('active');
    table.text('created_by_key').notNullable();
    table.text('created_by').notNullable();
    // What the approval policy asked of a run of this total when the schedule was saved: every occurrence's run
    // waits for that many approvers, whoever made the schedule excluded.
    table.integer('required_approvers').notNullable();
    table.specificType('approver_roles', 'text[]').notNullable();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    table.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
  });
  await db.schema.alterTable('payout_runs', (table) => {
    table.text('schedule_id');
    table.timestamp('occurrence_at', { useTz: true });
    table.unique(['schedule_id', 'occurrence_at'], { indexName: 'payout_runs_one_per_occurrence' });
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('payout_runs', (table) => {
    table.dropUnique(['schedule_id', 'occurrence_at'], 'payout_runs_one_per_occurrence');
    table.dropColumn('occurrence_at');
    table.dropColumn('schedule_id');
  });
  await db.schema.dropTable('payout_schedules');
}
