import type { Knex } from 'knex';

/**
 * The disbursement desk (docs/payout-runs.md): a payout queued for it carries its receiver sealed with the payload
 * codec's keyring (the same protection a workflow's input has in Temporal), since no workflow input holds it,
 * the desk that holds it, and the chunk that claimed it. The partial index is the desk's queue: what no chunk has claimed yet.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('disbursements', (table) => {
    table.text('desk_receiver').nullable();
    /** The desk that holds it; cleared when a workflow of its own takes it over. */
    table.text('desk_id').nullable();
    table.text('desk_chunk').nullable();
  });
  await db.raw(`
    create index disbursements_desk_queue on disbursements (desk_id, created_at)
     where desk_id is not null and desk_chunk is null and status = 'queued'`);
  await db.raw(
    `create index disbursements_desk_chunk on disbursements (desk_chunk) where desk_chunk is not null`,
  );
}

export async function down(db: Knex): Promise<void> {
  await db.raw('drop index if exists disbursements_desk_chunk');
  await db.raw('drop index if exists disbursements_desk_queue');
  await db.schema.alterTable('disbursements', (table) => {
    table.dropColumn('desk_chunk');
    table.dropColumn('desk_id');
    table.dropColumn('desk_receiver');
  });
}
