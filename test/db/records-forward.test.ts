/**
 * Records move forward only, and each event is emitted once per transition, also when an activity is
 * retried after its commit: a charge attempt that runs again after the first recorded `succeeded` writes
 * `submitted`, then `succeeded` again — before, the second write emitted a second `subscription.charged`
 * with a new event id, and a receiver deduplicating by event id acted on the charge twice. The same rule for a
 * payment's record (its transition table passed by the caller).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { updatePayment } from '../../db/payments/payments';
import { setRunStatus } from '../../db/payouts/runs';
import { insertSubscription, upsertCharge, type ChargeRecord } from '../../db/subscriptions/subscriptions';
import { canMovePayment } from '../../contracts/payments';
import { canMoveRun } from '../../contracts/payouts';
import { connectTestDatabase, eventTypesOf, subscriptionRecord } from '../support/database';
import { freshId } from '../support/ids';

const db = connectTestDatabase();
afterAll(() => db.destroy());

const eventsOf = (id: string) => eventTypesOf(db, id);

describe('a subscription charge', () => {
  async function subscription() {
    const id = freshId('fw_', 12);
    await insertSubscription(db, subscriptionRecord(id, { recurring_amount: 50_000 }));
    return id;
  }
  const charge = (id: string, status: ChargeRecord['status']): ChargeRecord => ({
    order_id: `${id}-c1`,
    subscription_id: id,
    cycle: 1,
    attempt: 0,
    due_date: '2026-11-25',
    amount: 50_000,
    status,
    ...(status === 'succeeded' ? { result_code: 0, trans_id: 't1' } : {}),
  });

  it('an attempt run again after the answer was recorded changes nothing and emits no second event', async () => {
    const id = await subscription();
    await upsertCharge(db, charge(id, 'submitted'));
    await upsertCharge(db, charge(id, 'succeeded'));
    // The retried attempt: `submitted` before the call, then the answer again.
    expect(await upsertCharge(db, charge(id, 'submitted'))).toBe(false);
    await upsertCharge(db, charge(id, 'succeeded'));
    const row = await db('subscription_charges')
      .where({ order_id: `${id}-c1` })
      .first('status', 'trans_id');
    expect(row).toEqual({ status: 'succeeded', trans_id: 't1' });
    expect(await eventsOf(id)).toEqual(['subscription.charged']);
  });

  it('a charge payrun could not settle moves on when the answer is learnt, once', async () => {
    const id = await subscription();
    await upsertCharge(db, charge(id, 'pending'));
    await upsertCharge(db, charge(id, 'needs_attention'));
    await upsertCharge(db, charge(id, 'succeeded'));
    await upsertCharge(db, charge(id, 'pending'));
    expect(
      (
        await db('subscription_charges')
          .where({ order_id: `${id}-c1` })
          .first('status')
      ).status,
    ).toBe('succeeded');
    expect(await eventsOf(id)).toEqual(['subscription.charged']);
  });
});

describe('a payment', () => {
  it('a late write of an earlier status never takes a decided payment back', async () => {
    const id = freshId('fw_', 12);
    await db('payments').insert({
      payment_id: id,
      order_id: id,
      workflow_id: `payment/${id}`,
      request_type: 'captureWallet',
      amount: 150_050,
      status: 'awaiting_customer',
      request_details: JSON.stringify({}),
      created_by_key: 'test',
      created_by: 'test',
    });
    await updatePayment(db, id, { status: 'succeeded', result_code: 0 }, canMovePayment);
    await updatePayment(db, id, { status: 'pending', result_code: 7000 }, canMovePayment);
    await updatePayment(db, id, { status: 'failed', result_code: 99 }, canMovePayment);
    await updatePayment(db, id, { status: 'succeeded', result_code: 0 }, canMovePayment);
    expect(await db('payments').where({ payment_id: id }).first('status', 'result_code')).toEqual({
      status: 'succeeded',
      result_code: 0,
    });
    expect(await eventsOf(id)).toEqual(['payment.succeeded']);
  });
});

describe('a payout run', () => {
  it('a decision written after the reconciliation (its write delayed by a worker death) keeps the run reconciled', async () => {
    const id = freshId('fw_', 12);
    await db('payout_runs').insert({
      run_id: id,
      workflow_id: `payout-run/${id}`,
      file_name: 'f.csv',
      file_sha256: 'x'.repeat(64),
      row_count: 1,
      total_amount: 10_000,
      batch_count: 1,
      status: 'awaiting_approval',
      uploaded_by_key: 'test',
      uploaded_by: 'test',
      expires_at: new Date(Date.now() + 3600_000),
    });
    // Seen in npm run chaos (seed 11): the run's `running` write landed 26 s after its `reconciled` one.
    await setRunStatus(db, id, 'reconciled', { completed_at: new Date() }, canMoveRun);
    await setRunStatus(db, id, 'running', {}, canMoveRun);
    expect((await db('payout_runs').where({ run_id: id }).first('status')).status).toBe('reconciled');
  });
});
