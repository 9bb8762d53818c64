/**
 * The audit log loses nothing, over real HTTP and the real database: an answer leaves only once its entry
 * is committed; a change recorded in its own transaction is undone when its entry cannot be written; an
 * action that took effect is never recorded as refused; a refused request is recorded whatever bytes it
 * carried; and a record's timeline shows audit entries only to the roles that may read the audit log.
 *
 * To reach the moments in between, a test adds a trigger to audit_log that fires only for rows of its
 * own key holder (a name no other test uses): it slows their writes, or fails them.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { createApp } from '../../api/app';
import type { Db } from '../../db/shared/knex';
import { createLogger } from '../../platform/logger';
import { jsonOf, listen, newKey, type RunningApi } from '../support/api';
import { connectTestDatabase } from '../support/database';
import { freshId } from '../support/ids';
import { testApiSettings, testMerchant } from '../support/settings';
import { testDataConverter } from '../support/temporal';

let db: Db;
let connection: Connection;
let api: RunningApi;

beforeAll(async () => {
  db = connectTestDatabase();
  connection = await Connection.connect({ address: inject('devServerAddress') });
  const temporal = new Client({ connection, dataConverter: testDataConverter });
  // Workflows started here wait on a queue no worker polls: these tests are about the API's records.
  const settings = testApiSettings(`nobody-${randomUUID()}`);
  api = await listen(
    createApp({ db, temporal, logger: createLogger('silent'), merchant: testMerchant, ...settings }),
  );
});

afterAll(async () => {
  await api.close();
  await connection.close();
  await db.destroy();
});

/** A key whose holder's name is this test's alone, so a trigger on that name touches no other test. */
async function holder(roles: Parameters<typeof newKey>[1]) {
  const name = `audit-holder-${freshId('', 12)}`;
  return { name, key: await newKey(db, roles, name) };
}

/**
 * For the test's duration, audit_log rows of `actorName` whose outcome is `outcome` (any outcome when
 * omitted) are slowed by `sleepSeconds`, or refused.
 */
async function withAuditTrigger<T>(
  actorName: string,
  effect: { sleepSeconds: number } | { fail: true },
  run: () => Promise<T>,
  outcome?: string,
): Promise<T> {
  const name = `test_audit_${randomUUID().replaceAll('-', '')}`;
  const body =
    'fail' in effect
      ? `raise exception 'audit write refused by the test' using errcode = 'P0001';`
      : `perform pg_sleep(${effect.sleepSeconds}); return new;`;
  const when = [`new.actor_name = '${actorName}'`, ...(outcome ? [`new.outcome = '${outcome}'`] : [])].join(
    ' and ',
  );
  await db.raw(`create function ${name}() returns trigger language plpgsql as $$ begin ${body} end $$`);
  await db.raw(
    `create trigger ${name} before insert or update on audit_log for each row when (${when}) execute function ${name}()`,
  );
  try {
    return await run();
  } finally {
    await db.raw(`drop trigger ${name} on audit_log`);
    await db.raw(`drop function ${name}()`);
  }
}

async function post(key: string, path: string, body: string, requestId = `req-${randomUUID()}`) {
  const response = await fetch(`${api.baseUrl}${path}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      'idempotency-key': randomUUID(),
      'x-request-id': requestId,
    },
    body,
  });
  const text = await response.text();
  return { status: response.status, requestId, body: text ? JSON.parse(text) : undefined };
}

const disbursement = (disbursementId: string, description = 'Audit test') =>
  JSON.stringify({
    disbursementId,
    amount: 10_000,
    description,
    wallet: { walletId: '0912345678', walletName: 'An' },
  });

const entriesOfRequest = (requestId: string) => db('audit_log').where({ request_id: requestId });

describe('an audited action', () => {
  it('answers only once its entry is committed: the entry is there, completed, when the answer arrives', async () => {
    const maker = await holder(['payouts-maker']);
    const disbursementId = freshId('d-', 12);
    // Every write of this holder's entries takes 0.4 s longer: an entry written after the answer would
    // still be on its way when the answer arrives. (Read while the trigger is there: dropping it waits
    // for the writes it slows.)
    const { answer, entries } = await withAuditTrigger(maker.name, { sleepSeconds: 0.4 }, async () => {
      const answer = await post(maker.key, '/v1/disbursements', disbursement(disbursementId));
      return { answer, entries: await entriesOfRequest(answer.requestId) };
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    expect(entries).toEqual([
      expect.objectContaining({
        action: 'disbursement.create',
        target_id: disbursementId,
        outcome: 'succeeded',
        status_code: 201,
        completed_at: expect.any(Date),
      }),
    ]);
  });

  it('is undone with its entry: when the entry of an API key cannot be written, no key is created', async () => {
    const admin = await holder(['admin']);
    const keyName = `never-${freshId('', 8)}`;
    const answer = await withAuditTrigger(
      admin.name,
      { fail: true },
      () =>
        post(
          admin.key,
          '/v1/api-keys',
          JSON.stringify({ name: keyName, roles: ['viewer'], owner: 'service:never' }),
        ),
      'succeeded',
    );
    expect(answer.status).toBe(500);
    expect(await db('api_keys').where({ name: keyName })).toEqual([]);
    // Recorded as what it was: it failed, and nothing was refused.
    expect(await entriesOfRequest(answer.requestId)).toEqual([
      expect.objectContaining({
        action: 'api_key.create',
        outcome: 'failed',
        status_code: 500,
        error_code: 'internal_error',
      }),
    ]);
  });

  it('that took effect is never recorded as refused: when its outcome cannot be written, it stays requested and the answer tells the truth', async () => {
    const maker = await holder(['payouts-maker']);
    const disbursementId = freshId('d-', 12);
    const answer = await withAuditTrigger(
      maker.name,
      { fail: true },
      () => post(maker.key, '/v1/disbursements', disbursement(disbursementId)),
      'succeeded',
    );
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    expect(await db('disbursements').where({ disbursement_id: disbursementId })).toHaveLength(1);
    expect(await entriesOfRequest(answer.requestId)).toEqual([
      expect.objectContaining({
        action: 'disbursement.create',
        target_id: disbursementId,
        outcome: 'requested',
        completed_at: null,
      }),
    ]);
  });
});

describe('a refused request', () => {
  it('carrying a NUL in a field (JSON \\u0000) is recorded, the NUL shown as U+FFFD', async () => {
    const maker = await holder(['payouts-maker']);
    const disbursementId = freshId('d-', 12);
    const answer = await post(maker.key, '/v1/disbursements', disbursement(disbursementId, 'Sal\u0000ary'));
    expect(answer.status).toBe(400);
    expect(await db('disbursements').where({ disbursement_id: disbursementId })).toEqual([]);
    expect(await entriesOfRequest(answer.requestId)).toEqual([
      expect.objectContaining({
        action: 'disbursement.create',
        target_id: disbursementId,
        outcome: 'refused',
        status_code: 400,
        details: expect.objectContaining({ description: 'Sal\ufffdary' }),
      }),
    ]);
  });

  it('carrying a raw NUL byte (not JSON at all) is recorded, without its body', async () => {
    const maker = await holder(['payouts-maker']);
    const answer = await post(
      maker.key,
      '/v1/disbursements',
      `{"disbursementId":"${freshId('d-', 12)}","description":"a\u0000b"}`,
    );
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe('malformed_body');
    expect(await entriesOfRequest(answer.requestId)).toEqual([
      expect.objectContaining({
        action: 'disbursement.create',
        actor_name: maker.name,
        outcome: 'refused',
        status_code: 400,
        error_code: 'malformed_body',
        details: {},
      }),
    ]);
  });
});

describe('a record’s timeline', () => {
  it('shows its audit entries to the roles that may read the audit log, and to no other role', async () => {
    const maker = await holder(['payouts-maker']);
    const disbursementId = freshId('d-', 12);
    expect((await post(maker.key, '/v1/disbursements', disbursement(disbursementId))).status).toBe(201);

    const timeline = async (key: string) => {
      const response = await fetch(
        `${api.baseUrl}/v1/console/timeline?targetType=disbursement&targetId=${disbursementId}`,
        { headers: { authorization: `Bearer ${key}` } },
      );
      expect(response.status).toBe(200);
      return (await jsonOf(response)).actions as Array<{ action: string }>;
    };
    for (const reader of [['viewer'], ['admin']] as const) {
      expect(await timeline(await newKey(db, [...reader])), reader[0]).toEqual([
        expect.objectContaining({ action: 'disbursement.create', outcome: 'succeeded' }),
      ]);
    }
    // The maker who did it, and every other duty role, sees the record's notifications but no entries.
    for (const role of ['payouts-maker', 'payouts-approver', 'billing', 'remittance', 'payments'] as const) {
      expect(await timeline(await newKey(db, [role])), role).toEqual([]);
    }
    expect(await timeline(maker.key)).toEqual([]);
  });
});

describe('the audit log’s one permitted change', () => {
  it('completes a requested entry once; nothing else about any entry changes', async () => {
    const actor = `audit-holder-${freshId('', 12)}`;
    const [{ id }] = await db('audit_log')
      .insert({ actor_name: actor, action: 'test.complete', target_type: 'test', outcome: 'requested' })
      .returning('id');
    // Who did it cannot be rewritten while completing it.
    await expect(
      db('audit_log')
        .where({ id })
        .update({ outcome: 'succeeded', actor_name: 'someone else', completed_at: db.fn.now() }),
    ).rejects.toThrow(/append-only/);
    await db('audit_log').where({ id }).update({ outcome: 'succeeded', completed_at: db.fn.now() });
    await expect(
      db('audit_log').where({ id }).update({ outcome: 'refused', completed_at: db.fn.now() }),
    ).rejects.toThrow(/append-only/);
    await expect(db('audit_log').where({ id }).delete()).rejects.toThrow(/append-only/);
    expect(await db('audit_log').where({ id }).first()).toMatchObject({
      actor_name: actor,
      outcome: 'succeeded',
    });
  });
});
