import type { Knex } from 'knex';

/**
 * Retries of a run's failed rows (docs/payout-runs.md, "Retrying failed rows"): a child run names its parent
 * and the family's root (a root run has neither). One open retry per family at a time, enforced here so two
 * retries asked at once cannot both be created. That no payout id is paid twice across a family needs no new
 * index: `payout_items_one_live_payout` (migration 0003) already lets at most one item per payout id be
 * queued, eligible, pending or succeeded, across every run, which is stronger than per family.
 */
const OPEN = `('draft', 'awaiting_approval', 'running', 'awaiting_funds')`;

export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('payout_runs', (table) => {
    table.text('parent_run_id').references('payout_runs.run_id');
    table.text('root_run_id').references('payout_runs.run_id');
    table.index(['parent_run_id']);
    table.index(['root_run_id']);
  });
  await db.raw(
    `create unique index payout_runs_one_open_retry on payout_runs (root_run_id) where root_run_id is not null and status in ${OPEN}`,
  );
}

export async function down(db: Knex): Promise<void> {
  await db.raw('drop index if exists payout_runs_one_open_retry');
  await db.schema.alterTable('payout_runs', (table) => {
    table.dropIndex(['parent_run_id']);
    table.dropIndex(['root_run_id']);
    table.dropColumns('parent_run_id', 'root_run_id');
  });
}
