import type { Knex } from 'knex';

export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('api_keys', (table) => {
    table.text('key_id').primary();
    table.text('name').notNullable();
    table.specificType('roles', 'text[]').notNullable();
    table.binary('key_hash').notNullable();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    table.timestamp('revoked_at', { useTz: true });
    table.timestamp('last_used_at', { useTz: true });
  });

  // One row per (caller, Idempotency-Key): the first request's fingerprint and, once finished, its answer.
  await db.schema.createTable('idempotency_keys', (table) => {
    table.text('key_id').notNullable().references('api_keys.key_id');
    table.text('idempotency_key').notNullable();
    table.text('method').notNullable();
    table.text('path').notNullable();
    table.text('request_hash').notNullable();
    table.text('state').notNullable().checkIn(['in_progress', 'done']);
    table.integer('response_status');
    table.jsonb('response_body');
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    table.timestamp('completed_at', { useTz: true });
    table.primary(['key_id', 'idempotency_key']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('idempotency_keys');
  await db.schema.dropTable('api_keys');
}
