/**
 * The events feed and its cursor, on the run's database: an event written by a transaction that commits
 * late is never skipped by a reader that follows nextCursor, and bad cursors and types are refused.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { describe, expect, it } from 'vitest';
import { recordEvent, updateRecordingEvents } from '../../db/events/events';
import type { PaymentSnapshot } from '../../platform/event-catalogue';
import { callApi, newKey } from '../support/api';
import { useApiOnDevServer } from '../support/api-on-dev-server';
import { eventually } from '../support/wait';
import { freshId } from '../support/ids';

const t = useApiOnDevServer();

const snapshot = (paymentId: string): PaymentSnapshot => ({
  paymentId,
  orderId: paymentId,
  requestType: 'captureWallet',
  amount: 10_000,
  status: 'succeeded',
  resultCode: 0,
  message: 'ok',
  transId: null,
  payType: null,
  refundedAmount: 0,
  completedAt: null,
});

/** A transaction held open until `commit()`: the late writer. */
async function openTransaction(): Promise<{ trx: Knex.Transaction; commit(): Promise<void> }> {
  const trx = await t.db.transaction();
  return { trx, commit: async () => void (await trx.commit()) };
}

/** Every event the feed hands a reader that starts at `after` and follows nextCursor to the end. */
async function readAll(key: string, after: string | null, type = 'payment.succeeded') {
  const ids: string[] = [];
  let cursor = after;
  for (;;) {
    const page = await callApi(
      t.api,
      key,
      'GET',
      `/v1/events?type=${type}&limit=2${cursor ? `&after=${cursor}` : ''}`,
    );
    expect(page.status, JSON.stringify(page.body)).toBe(200);
    ids.push(...page.body.events.map((event: { object: { id: string } }) => event.object.id));
    cursor = page.body.nextCursor;
    if (!page.body.hasMore) return { ids, cursor };
  }
}

describe('the events feed', () => {
  it('holds back events behind a transaction still running, so a late commit is never skipped', async () => {
    const key = await newKey(t.db, ['viewer']);
    const { cursor: start } = await readAll(key, null);
    const late = `feed-late-${randomUUID()}`;
    const early = `feed-early-${randomUUID()}`;

    // The late writer takes its event position first, the early one commits first.
    const held = await openTransaction();
    await recordEvent(held.trx, 'payment.succeeded', late, snapshot(late));
    await t.db.transaction((trx) => recordEvent(trx, 'payment.succeeded', early, snapshot(early)));

    const whileHeld = await readAll(key, start);
    expect(whileHeld.ids).not.toContain(early);
    expect(whileHeld.ids).not.toContain(late);

    await held.commit();
    // Other test files' transactions hold the feed back too: a reader follows the cursor until ours come.
    const ours = (ids: string[]) => ids.filter((id) => id === late || id === early);
    const handed: string[] = [];
    let cursor = whileHeld.cursor;
    await eventually(async () => {
      const page = await readAll(key, cursor);
      handed.push(...page.ids);
      cursor = page.cursor;
      expect(ours(handed)).toEqual([late, early]);
    });
    // The cursor after them hands out nothing of theirs again.
    expect(ours((await readAll(key, cursor)).ids)).toEqual([]);
  });

  it('filters by type and names a malformed cursor or an unknown type', async () => {
    const key = await newKey(t.db, ['viewer']);
    const failed = `feed-type-${randomUUID()}`;
    await t.db.transaction((trx) =>
      recordEvent(trx, 'payment.failed', failed, { ...snapshot(failed), status: 'failed' }),
    );
    await eventually(async () => expect((await readAll(key, null, 'payment.failed')).ids).toContain(failed));
    expect((await readAll(key, null, 'refund.failed,payment.succeeded')).ids).not.toContain(failed);

    // Shaped like a cursor but not one the API minted: 422 (the document cannot state it); not even
    // shaped like one: 400.
    const badCursor = await callApi(t.api, key, 'GET', '/v1/events?after=not-a-cursor');
    expect(badCursor.status).toBe(422);
    expect(badCursor.body.error.problems[0]).toMatchObject({ field: 'query.after', rule: 'cursor' });
    const malformed = await callApi(t.api, key, 'GET', '/v1/events?after=not%20a%20cursor');
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.problems[0].field).toBe('query.after');
    const badType = await callApi(t.api, key, 'GET', '/v1/events?type=payment.exploded');
    expect(badType.status).toBe(400);
    expect(badType.body.error.problems[0].field).toMatch(/^query\.type/);
    const one = await callApi(t.api, key, 'GET', `/v1/events?type=payment.failed&limit=500`);
    const event = one.body.events.find((entry: { object: { id: string } }) => entry.object.id === failed);
    expect((await callApi(t.api, key, 'GET', `/v1/events/${event.id}`)).body).toEqual(event);
  });

  it('writes no change without its event: a failing event leaves the record as it was', async () => {
    const runId = freshId('feed-run-', 8);
    await t.db('payout_runs').insert({
      run_id: runId,
      status: 'running',
      file_name: 'f.csv',
      file_sha256: 'x',
      row_count: 1,
      total_amount: 1000,
      batch_count: 1,
      workflow_id: `payout-run/${runId}`,
      uploaded_by_key: 'k',
      uploaded_by: 'tester',
      expires_at: new Date(),
    });
    await expect(
      updateRecordingEvents(t.db, 'payout_runs', { run_id: runId }, { status: 'reconciled' }, async () => {
        throw new Error('the event could not be written');
      }),
    ).rejects.toThrow('the event could not be written');
    expect((await t.db('payout_runs').where({ run_id: runId }).first()).status).toBe('running');
  });
});
