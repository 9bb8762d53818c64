import type { Knex } from 'knex';

/**
 * The subscription desk (docs/subscriptions.md): a new subscription whose authorization start the desk makes
 * has no workflow until its customer answers. `desk_start` is how that workflow is started, whoever starts it.
 * The partial indexes: starts no chunk has claimed yet; what a chunk claimed; what waits for its customer.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('subscriptions', (table) => {
    /** The desk that holds it; cleared when its workflow is started by a hand-over. */
    table.text('desk_id').nullable();
    table.text('desk_chunk').nullable();
    table.jsonb('desk_start').nullable();
  });
  await db.raw(`
    create index subscriptions_desk_queue on subscriptions (desk_id, created_at)
     where desk_id is not null and desk_chunk is null and status = 'authorizing'`);
  await db.raw(
    `create index subscriptions_desk_chunk on subscriptions (desk_chunk) where desk_chunk is not null`,
  );
  await db.raw(`
    create index subscriptions_desk_waiting on subscriptions (desk_id, created_at)
     where desk_id is not null and status = 'authorizing'`);
}

export async function down(db: Knex): Promise<void> {
  await db.raw('drop index if exists subscriptions_desk_waiting');
  await db.raw('drop index if exists subscriptions_desk_chunk');
  await db.raw('drop index if exists subscriptions_desk_queue');
  await db.schema.alterTable('subscriptions', (table) => {
    table.dropColumn('desk_start');
    table.dropColumn('desk_chunk');
    table.dropColumn('desk_id');
  });
}
