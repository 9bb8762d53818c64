/**
 * A subscription's record writes (db/subscriptions/subscriptions.ts, updateSubscription): a write without
 * a status is one UPDATE, no transaction around it; a write that moves the status keeps the forward-only
 * check and records the move's event once.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { insertSubscription, updateSubscription } from '../../db/subscriptions/subscriptions';
import { canTransition, type SubscriptionStatus } from '../../contracts/subscriptions';
import { connectTestDatabase, eventTypesOf, statementsSentBy, subscriptionRecord } from '../support/database';

const db = connectTestDatabase();
afterAll(() => db.destroy());

const forwardOnly = (from: string, to: string) =>
  canTransition(from as SubscriptionStatus, to as SubscriptionStatus);

async function authorizingSubscription(): Promise<string> {
  const id = `srw-${randomUUID().slice(0, 12)}`;
  await insertSubscription(
    db,
    subscriptionRecord(id, {
      partner_client_id: 'client-1',
      order_info: 'Gym membership',
      expiry_date: '2027-12-31',
      status: 'authorizing',
      recurring_amount: 100_000,
    }),
  );
  return id;
}

const rowOf = (id: string) => db('subscriptions').where({ subscription_id: id }).first();
const eventsOf = (id: string) => eventTypesOf(db, id);

describe('a subscription record write', () => {
  it('without a status is one statement, and writes its columns', async () => {
    const id = await authorizingSubscription();
    const sent = await statementsSentBy(db, () =>
      updateSubscription(db, id, { pay_url: 'https://pay.example/x', start_result_code: 0 }, forwardOnly),
    );
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatch(/^update "subscriptions"/);
    expect(await rowOf(id)).toMatchObject({ pay_url: 'https://pay.example/x', start_result_code: 0 });
    expect(await eventsOf(id)).toEqual([]);
  });

  it('that moves the status records its event once, and never moves it back', async () => {
    const id = await authorizingSubscription();
    await updateSubscription(db, id, { status: 'active' }, forwardOnly);
    await updateSubscription(db, id, { status: 'active' }, forwardOnly);
    await updateSubscription(db, id, { status: 'authorizing' }, forwardOnly);
    expect((await rowOf(id)).status).toBe('active');
    expect(await eventsOf(id)).toEqual(['subscription.authorized']);
  });
});
