import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, inject } from 'vitest';
import { createDb, withDatabaseName, type Db } from '../../db/shared/knex';
import { migrateLatest } from '../../db/shared/migrator';
import type { NewSubscription } from '../../db/subscriptions/subscriptions';
import { createDatabaseIfMissing } from '../../scripts/stack';

/** The run's own database (created and migrated by the global setup, dropped after the run). */
export function connectTestDatabase(): Db {
  return createDb(inject('databaseUrl'), { poolMax: 5 });
}

/**
 * A migrated database of the file's own, dropped after it: for tests of what reads a whole table (the
 * notification relay signals every row it finds), so other files' rows are never theirs to touch.
 * Read `db` inside tests (it is set in beforeAll).
 */
export function useScratchDatabase(label: string): { db: Db } {
  const serverUrl = withDatabaseName(inject('databaseUrl'), 'postgres');
  const name = `${label}_${Date.now()}_${randomBytes(3).toString('hex')}`;
  const fixture = {} as { db: Db };
  beforeAll(async () => {
    await createDatabaseIfMissing(serverUrl, name);
    fixture.db = createDb(withDatabaseName(serverUrl, name), { poolMax: 8 });
    await migrateLatest(fixture.db);
  });
  afterAll(async () => {
    await fixture.db?.destroy();
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      await client.query(`drop database if exists "${name}" with (force)`);
    } finally {
      await client.end();
    }
  });
  return fixture;
}

/** The SQL `db` sends while `work` runs, in order: what a write costs in round trips. */
export async function statementsSentBy(db: Db, work: () => Promise<unknown>): Promise<string[]> {
  const sent: string[] = [];
  const listen = (query: { sql: string }) => sent.push(query.sql);
  db.on('query', listen);
  try {
    await work();
  } finally {
    db.off('query', listen);
  }
  return sent;
}

/** The types of the events recorded about one object, in the order they were recorded. */
export async function eventTypesOf(db: Db, objectId: string): Promise<string[]> {
  const rows = (await db('events')
    .where({ object_id: objectId })
    .orderBy('position')
    .select('type')) as Array<{
    type: string;
  }>;
  return rows.map((row) => row.type);
}

/** A disbursement's record as the API writes it, queued for its first step: `fields` change any of it. */
export const disbursementRecord = (
  disbursementId: string,
  fields: Readonly<Record<string, unknown>> = {},
) => ({
  disbursement_id: disbursementId,
  order_id: disbursementId,
  workflow_id: `disbursement/${disbursementId}`,
  request_type: 'disburseToBank',
  amount: 250_000,
  receiver_label: 'bank VCB ••0123',
  description: 'payout',
  status: 'queued',
  created_by_key: 'test',
  created_by: 'test',
  ...fields,
});

/** A subscription's record as the API writes it (a FIXED monthly gym subscription): `fields` change any of it. */
export const subscriptionRecord = (
  subscriptionId: string,
  fields: Partial<NewSubscription> = {},
): NewSubscription => ({
  subscription_id: subscriptionId,
  workflow_id: `subscription/${subscriptionId}`,
  partner_client_id: `${subscriptionId}-member`,
  name: 'Gym',
  partner_subs_id: null,
  subs_owner: null,
  type: 'FIXED',
  recurring_amount: 30_000,
  frequency: 'MONTHLY',
  initial_amount: 0,
  order_info: 'Gym',
  requested_next_payment_date: null,
  expiry_date: null,
  status: 'active',
  created_by_key: 'test',
  created_by: 'test',
  ...fields,
});
