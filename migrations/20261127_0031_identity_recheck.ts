import type { Knex } from 'knex';

/**
 * The person's latest refresh token from the provider (sealed under the codec keyring), and when the
 * provider last confirmed the person: payrun refreshes with it to learn that a person removed at the
 * provider is gone, without anyone touching payrun.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('people', (table) => {
    table.text('refresh_token_sealed');
    table.timestamp('rechecked_at', { useTz: true });
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('people', (table) => {
    table.dropColumn('rechecked_at');
    table.dropColumn('refresh_token_sealed');
  });
}
