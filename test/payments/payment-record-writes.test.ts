/**
 * A payment's record writes (db/payments/payments.ts, updatePayment): a write no event can follow (the
 * gateway's links, a pending answer) is one conditional UPDATE, forward only in its WHERE; a final result
 * keeps its transaction and records its event once.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { insertPayment, updatePayment } from '../../db/payments/payments';
import { canMovePayment } from '../../contracts/payments';
import { connectTestDatabase, eventTypesOf, statementsSentBy } from '../support/database';

const db = connectTestDatabase();
afterAll(() => db.destroy());

async function createdPayment(): Promise<string> {
  const id = `prw-${randomUUID().slice(0, 12)}`;
  await insertPayment(db, {
    payment_id: id,
    order_id: id,
    workflow_id: `payment/${id}`,
    request_type: 'captureWallet',
    amount: 50_000,
    status: 'created',
    request_details: JSON.stringify({}),
    created_by_key: 'test',
    created_by: 'test',
  });
  return id;
}

const rowOf = (id: string) => db('payments').where({ payment_id: id }).first();
const eventsOf = (id: string) => eventTypesOf(db, id);

describe('a payment record write', () => {
  it('that no event follows is one statement', async () => {
    const id = await createdPayment();
    const sent = await statementsSentBy(db, () =>
      updatePayment(
        db,
        id,
        { status: 'awaiting_customer', pay_url: 'https://pay.example/p' },
        canMovePayment,
      ),
    );
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatch(/^update "payments"/);
    expect(await rowOf(id)).toMatchObject({ status: 'awaiting_customer', pay_url: 'https://pay.example/p' });
  });

  it('never takes a decided payment back, and records its result once', async () => {
    const id = await createdPayment();
    await updatePayment(db, id, { status: 'awaiting_customer' }, canMovePayment);
    await updatePayment(db, id, { status: 'succeeded', result_code: 0 }, canMovePayment);
    // A late answer to the create, and the same result heard twice.
    await updatePayment(db, id, { status: 'awaiting_customer', pay_url: 'https://late' }, canMovePayment);
    await updatePayment(db, id, { status: 'pending', result_code: 1000 }, canMovePayment);
    await updatePayment(db, id, { status: 'succeeded', result_code: 0 }, canMovePayment);
    expect(await rowOf(id)).toMatchObject({ status: 'succeeded', result_code: 0, pay_url: null });
    expect(await eventsOf(id)).toEqual(['payment.succeeded']);
  });
});
