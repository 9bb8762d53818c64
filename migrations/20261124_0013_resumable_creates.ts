import type { Knex } from 'knex';

/**
 * A create request interrupted by a crash (or a 5xx) can be resumed by its retry: the Idempotency-Key's
 * claim is a lease (`claimed_until`) that a retry with the same key and body takes over once it lapses,
 * and an object whose id the server chose records the request that created it (`request_key`, unique),
 * so the retry finds it and finishes the work (starts its workflow) instead of creating a second one.
 */
const SERVER_NAMED = ['payout_runs', 'remittances', 'bindings', 'refunds'] as const;

export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('idempotency_keys', (table) => {
    table.timestamp('claimed_until', { useTz: true });
  });
  for (const name of SERVER_NAMED)
    await db.schema.alterTable(name, (table) => {
      table.text('request_key').unique();
    });
}

export async function down(db: Knex): Promise<void> {
  for (const name of SERVER_NAMED)
    await db.schema.alterTable(name, (table) => {
      table.dropColumn('request_key');
    });
  await db.schema.alterTable('idempotency_keys', (table) => {
    table.dropColumn('claimed_until');
  });
}
