import type { Knex } from 'knex';

/**
 * The payment desk (docs/payments.md): a payment it creates is held by the desk (no workflow of its own until
 * it needs one) and names the chunk that made its create. The partial index is the desk's queue: creates no
 * chunk has claimed yet; the second finds what a chunk claimed, the third what waits for its result.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('payments', (table) => {
    /** The desk that holds it; cleared when a workflow of its own takes it over. */
    table.text('desk_id').nullable();
    table.text('desk_chunk').nullable();
  });
  await db.raw(`
    create index payments_desk_queue on payments (desk_id, created_at)
     where desk_id is not null and desk_chunk is null and status = 'created'`);
  await db.raw(`create index payments_desk_chunk on payments (desk_chunk) where desk_chunk is not null`);
  await db.raw(`
    create index payments_desk_waiting on payments (desk_id, created_at)
     where desk_id is not null and status in ('awaiting_customer', 'pending')`);
}

export async function down(db: Knex): Promise<void> {
  await db.raw('drop index if exists payments_desk_waiting');
  await db.raw('drop index if exists payments_desk_chunk');
  await db.raw('drop index if exists payments_desk_queue');
  await db.schema.alterTable('payments', (table) => {
    table.dropColumn('desk_chunk');
    table.dropColumn('desk_id');
  });
}
