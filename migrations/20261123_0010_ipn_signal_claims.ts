import type { Knex } from 'knex';

/**
 * A notification is signalled once however many copies arrive at once: the receiver that claims the
 * stored row (an atomic update) signals; the others answer as for a duplicate. A claim is a lease, so a
 * receiver that died between claim and signal does not block a later redelivery forever.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('ipn_notifications', (table) => {
    table.timestamp('signal_claimed_until', { useTz: true });
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('ipn_notifications', (table) => {
    table.dropColumn('signal_claimed_until');
  });
}
