import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { inject } from 'vitest';
import { createDb, withDatabaseName, type Db } from '../../db/knex';
import { appliedMigrations, migrateLatest, rollback } from '../../db/migrator';
import { migrations } from '../../migrations';
import { createDatabaseIfMissing } from '../../scripts/stack';

/** Every migration goes down and up again cleanly, on a scratch database so other suites are untouched. */
describe('migrations', () => {
  const scratch = `migrations_${Date.now()}`;
  const serverUrl = withDatabaseName(inject('databaseUrl'), 'postgres');
  let db: Db;

  beforeAll(async () => {
    await createDatabaseIfMissing(serverUrl, scratch);
    db = createDb(withDatabaseName(serverUrl, scratch), { poolMax: 2 });
  });
  afterAll(async () => {
    await db.destroy();
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    await client.query(`drop database if exists "${scratch}" with (force)`);
    await client.end();
  });

  it('applies every migration, rolls all back, and applies them again', async () => {
    const names = migrations.map((migration) => migration.name);
    expect(await migrateLatest(db)).toEqual(names);
    expect(await appliedMigrations(db)).toEqual(names);

    expect((await rollback(db, { all: true })).sort()).toEqual([...names].sort());
    const leftover = await db.raw(
      "select table_name from information_schema.tables where table_schema = 'public' and table_name not like 'knex_%'",
    );
    expect(leftover.rows).toEqual([]);

    expect(await migrateLatest(db)).toEqual(names);
  });

  it('keeps the former saved-method table names writable for workers of the previous release', async () => {
    await migrateLatest(db);
    const bindingId = `bnd-view-${Date.now()}`;
    // What a worker of the previous release writes: the old table name, the old columns.
    await db('bindings').insert({
      binding_id: bindingId,
      order_id: `order-${bindingId}`,
      workflow_id: `binding/${bindingId}`,
      kind: 'card',
      request_type: 'payWithCC',
      partner_client_id: 'customer-1',
      gateway_client_id: 'customer-1',
      amount: 0,
      status: 'creating',
      created_by_key: 'key',
      created_by: 'test',
    });
    await db('bindings').where({ binding_id: bindingId }).update({ status: 'awaiting_customer' });

    const row = await db('saved_method_bindings').where({ binding_id: bindingId }).first();
    expect(row?.status).toBe('awaiting_customer');
    expect(row?.workflow_id).toBe(`binding/${bindingId}`);
  });
});
