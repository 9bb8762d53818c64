import type { Knex } from 'knex';

/**
 * Scheduled payout runs (docs/payout-runs.md, "Scheduling"): when an approved run pays, and what the check
 * ahead of that time found (each warning written once, with its event, so a retried check never warns twice).
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('payout_runs', (table) => {
    table.timestamp('execute_at', { useTz: true });
    table.jsonb('funds_warning');
    table.jsonb('receivers_warning');
    // The forecast and the "scheduled before it" sum read scheduled runs by time.
    table.index(['status', 'execute_at']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('payout_runs', (table) => {
    table.dropIndex(['status', 'execute_at']);
    table.dropColumn('receivers_warning');
    table.dropColumn('funds_warning');
    table.dropColumn('execute_at');
  });
}
