import type { Knex } from 'knex';

/**
 * The hold switch (contracts/holds): one row per hold episode (proposed by one admin, held with a second,
 * released with two more confirmations or withdrawn), at most one live episode per kind; and one row per
 * item a workflow stopped under an episode, with its amount in VND, so the console can show what is held
 * and the release can resume the items in the order they stopped.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('holds', (table) => {
    table.text('hold_id').primary();
    table.text('kind').notNullable();
    table.text('status').notNullable();
    table.text('reason').notNullable();
    table.text('proposed_by_key').notNullable();
    table.text('proposed_by').notNullable();
    table.timestamp('proposed_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    table.text('held_by_key');
    table.text('held_by');
    table.timestamp('held_at', { useTz: true });
    table.integer('release_rate_per_minute');
    table.text('release_proposed_by_key');
    table.text('release_proposed_by');
    table.text('release_confirmed_by_key');
    table.text('release_confirmed_by');
    table.timestamp('release_started_at', { useTz: true });
    table.timestamp('ended_at', { useTz: true });
    table.index(['kind', 'status']);
  });
  // One live episode per kind: two proposals at once cannot both start one.
  await db.raw(
    `create unique index holds_one_live_per_kind on holds (kind) where status not in ('released', 'withdrawn')`,
  );
  await db.schema.createTable('held_items', (table) => {
    table.bigIncrements('id');
    table.text('hold_id').notNullable().references('holds.hold_id');
    table.text('kind').notNullable();
    table.text('workflow_id').notNullable();
    table.text('object_id').notNullable();
    table.bigInteger('amount_vnd').notNullable();
    table.timestamp('held_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    table.timestamp('released_at', { useTz: true });
    table.unique(['hold_id', 'workflow_id']);
    table.index(['hold_id', 'held_at', 'id']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('held_items');
  await db.schema.dropTable('holds');
}
