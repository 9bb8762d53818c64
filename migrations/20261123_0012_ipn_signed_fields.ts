import type { Knex } from 'knex';

/**
 * A notification is stored as its signed fields and, apart, the fields the spec lists unsigned (marked
 * unverified, card numbers masked); the raw body, whatever an unauthenticated sender put in it, is no
 * longer kept. Rows received before this migration keep their raw body (nothing reads it for new rows).
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('ipn_notifications', (table) => {
    table.jsonb('signed_fields');
    table.jsonb('unverified_fields');
    table.text('raw_body').nullable().alter();
  });
}

export async function down(db: Knex): Promise<void> {
  await db('ipn_notifications')
    .whereNull('raw_body')
    .update({ raw_body: db.raw(`coalesce(signed_fields, '{}'::jsonb)::text`) });
  await db.schema.alterTable('ipn_notifications', (table) => {
    table.dropColumn('signed_fields');
    table.dropColumn('unverified_fields');
    table.text('raw_body').notNullable().alter();
  });
}
