import type { Knex } from 'knex';

/**
 * People who sign in through the identity provider, their console sessions and sign-ins under way, and
 * owners for API keys (keys are for machines: each belongs to a named person or a named service).
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('people', (table) => {
    // `<issuer>#<sub>`: the provider's subject, made unique across providers; the audit log and four eyes use it.
    table.text('person_id').primary();
    table.text('issuer').notNullable();
    table.text('subject').notNullable();
    table.text('name').notNullable();
    table.text('email');
    table.specificType('roles', 'text[]').notNullable();
    table.timestamp('first_seen_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    table.timestamp('last_seen_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    table.timestamp('removed_at', { useTz: true });
    table.text('removed_by');
    table.unique(['issuer', 'subject']);
  });

  await db.schema.createTable('console_sessions', (table) => {
    // Only a SHA-256 of the cookie's value is kept: a copy of this table opens no session.
    table.binary('session_hash').primary();
    table.text('person_id').notNullable().references('people.person_id');
    table.specificType('roles', 'text[]').notNullable();
    table.text('csrf_token').notNullable();
    table.text('id_token');
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    table.timestamp('last_seen_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    table.integer('idle_seconds').notNullable();
    table.timestamp('expires_at', { useTz: true }).notNullable();
    table.timestamp('ended_at', { useTz: true });
    table.index(['person_id']);
  });

  await db.schema.createTable('sign_in_attempts', (table) => {
    table.text('state').primary();
    table.text('code_verifier').notNullable();
    table.text('nonce').notNullable();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
  });

  await db.schema.alterTable('api_keys', (table) => {
    table.text('owner_kind').checkIn(['person', 'service']);
    table.text('owner');
  });

  // A person signed in through the provider has no API key; their Idempotency-Keys are kept under their
  // person id, so the key column names a caller, not necessarily a row of api_keys.
  await db.schema.alterTable('idempotency_keys', (table) => {
    table.dropForeign(['key_id']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db('idempotency_keys').whereNotIn('key_id', db('api_keys').select('key_id')).delete();
  await db.schema.alterTable('idempotency_keys', (table) => {
    table.foreign('key_id').references('api_keys.key_id');
  });
  await db.schema.alterTable('api_keys', (table) => {
    table.dropColumn('owner');
    table.dropColumn('owner_kind');
  });
  await db.schema.dropTable('sign_in_attempts');
  await db.schema.dropTable('console_sessions');
  await db.schema.dropTable('people');
}
