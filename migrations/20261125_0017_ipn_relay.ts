import type { Knex } from 'knex';

/**
 * The notification relay (api/ipn/relay.ts) signals stored notifications that were never signalled once
 * their claim lapses: a partial index keeps finding them cheap however many signalled rows the table
 * holds. A notification whose text PostgreSQL could not store as received (a NUL, a lone surrogate) is
 * stored normalised, and `normalised_fields` names the fields that were (null: stored as received).
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('ipn_notifications', (table) => {
    table.specificType('normalised_fields', 'text[]');
  });
  await db.raw(
    'create index ipn_notifications_unsignalled on ipn_notifications (received_at) where signalled_at is null',
  );
}

export async function down(db: Knex): Promise<void> {
  await db.raw('drop index ipn_notifications_unsignalled');
  await db.schema.alterTable('ipn_notifications', (table) => {
    table.dropColumn('normalised_fields');
  });
}
