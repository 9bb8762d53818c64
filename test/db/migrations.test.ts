import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { inject } from 'vitest';
import { createDb, withDatabaseName, type Db } from '../../db/shared/knex';
import { appliedMigrations, migrateLatest, rollback } from '../../db/shared/migrator';
import { migrations } from '../../migrations';
import * as gatewayOrderIds from '../../migrations/20261125_0016_gateway_order_ids';
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

  it('0016 backfills every orderId payrun sent, one owner each: the oldest object keeps a cross-kind duplicate', async () => {
    await migrateLatest(db);
    // The records as they were before the namespace: payment and disbursement INV-7, subscription acme-c1
    // and subscription acme whose first charge went out as acme-c1.
    await gatewayOrderIds.down(db);
    const at = (minute: number) => new Date(Date.UTC(2026, 10, 20, 10, minute));
    const key = { created_by_key: 'key', created_by: 'test' };
    await db('payments').insert({
      payment_id: 'INV-7',
      order_id: 'INV-7',
      workflow_id: 'payment/INV-7',
      request_type: 'captureWallet',
      amount: 10_000,
      status: 'succeeded',
      request_details: '{}',
      ...key,
      created_at: at(1),
    });
    await db('disbursements').insert({
      disbursement_id: 'INV-7',
      order_id: 'INV-7',
      workflow_id: 'disbursement/INV-7',
      request_type: 'disburseToWallet',
      amount: 10_000,
      receiver_label: 'wallet 5678',
      description: '',
      status: 'succeeded',
      ...key,
      created_at: at(2),
    });
    const subscription = (id: string, minute: number) => ({
      subscription_id: id,
      workflow_id: `subscription/${id}`,
      partner_client_id: 'member-1',
      name: 'Gym',
      type: 'FIXED',
      recurring_amount: 100_000,
      frequency: 'MONTHLY',
      initial_amount: 0,
      order_info: '',
      status: 'active',
      ...key,
      created_at: at(minute),
    });
    await db('subscriptions').insert([subscription('acme-c1', 3), subscription('acme', 4)]);
    const charge = (cycle: number) => ({
      order_id: `acme-c${cycle}`,
      subscription_id: 'acme',
      cycle,
      attempt: 0,
      due_date: `2026-${10 + cycle}-01`,
      amount: 100_000,
      status: 'succeeded',
      created_at: at(4 + cycle),
    });
    await db('subscription_charges').insert([charge(1), charge(2)]);
    await db('remittances').insert({
      remittance_id: 'rmt-20261120-0a1b2c3d',
      order_id: 'rmt-20261120-0a1b2c3d',
      workflow_id: 'remittance/rmt-20261120-0a1b2c3d',
      status: 'succeeded',
      request_type: 'remitToWallet',
      auto_capture: true,
      base_currency: 'USD',
      foreign_amount: 100,
      receiver_label: 'wallet 5678',
      receiver_details: '{}',
      remittance_info: '{}',
      reason: 'RSN01',
      order_info: '',
      ...key,
      created_at: at(6),
    });

    await gatewayOrderIds.up(db);
    const owners = Object.fromEntries(
      (
        await db('gateway_order_ids')
          .whereIn('object_id', ['INV-7', 'acme-c1', 'acme', 'rmt-20261120-0a1b2c3d'])
          .select('order_id', 'kind', 'object_id')
      ).map((row: { order_id: string; kind: string; object_id: string }) => [
        row.order_id,
        `${row.kind} ${row.object_id}`,
      ]),
    );
    expect(owners).toEqual({
      'INV-7': 'payment INV-7',
      'INV-7-chk': 'disbursement INV-7',
      'acme-c1': 'subscription acme-c1',
      acme: 'subscription acme',
      'acme-c2': 'subscription acme',
      'rmt-20261120-0a1b2c3d': 'remittance rmt-20261120-0a1b2c3d',
      'rmt-20261120-0a1b2c3d-verify': 'remittance rmt-20261120-0a1b2c3d',
      'rmt-20261120-0a1b2c3d-buy': 'remittance rmt-20261120-0a1b2c3d',
    });
  });
});
