/** Subscription fallbacks: a lost authorization IPN (api/query + cbQuery) and a pending charge (7000). */
import { describe, expect, it } from 'vitest';
import { addDays, instantOf } from '../../contracts/subscriptions';
import { createTimeSkippingEnv } from '../support/temporal';
import { subscriptionSteps } from './steps';
import { useSubscriptionStack } from './stack';
import { eventually } from '../support/wait';

// Pending charges settle when a test says so, not on a real-time timer racing skipped workflow time.
const t = useSubscriptionStack(createTimeSkippingEnv, {
  sandbox: { timing: { pendingSettleMs: 86_400_000 } },
});
const { today, skipTo, view, until, create, activitiesOf, ledgerOf } = subscriptionSteps(t);

describe('subscription fallbacks', () => {
  it('authorization IPN lost: api/query then cbQuery after the wait → active, the first charge recorded once', async () => {
    const { subscriptionId } = await create({
      amount: 20_000,
      subscriptionInfo: { type: 'FIXED', recurringAmount: 20_000, frequency: 'MONTHLY' },
    });
    t.sandbox.admin.setFaults({
      operation: 'subscription.start',
      notification: 'payment.resultB',
      ipn: { drop: true },
      times: 1,
    });
    try {
      t.sandbox.admin.approvePayment(subscriptionId);
      await eventually(() =>
        expect(
          t.sandbox.admin
            .ipnLog()
            .filter((entry) => entry.orderId === subscriptionId)
            .map((entry) => entry.outcome),
        ).toEqual(['dropped']),
      );
      // No IPN: still authorizing until the wait (10 minutes in tests) runs out.
      expect((await view(subscriptionId)).status).toBe('authorizing');
      await t.env.sleep(11 * 60_000);
      const active = await until(
        subscriptionId,
        (s) => s.status === 'active',
        'active by the query fallback',
      );
      expect(active.charges).toEqual([
        expect.objectContaining({ cycle: 0, amount: 20_000, status: 'succeeded' }),
      ]);
      expect(t.sandbox.admin.subscription(subscriptionId)).toMatchObject({ status: 'active' });
      const steps = await activitiesOf(active.workflowId);
      expect(steps).toContain('checkSubscriptionAuthorization');
      expect(steps.indexOf('checkSubscriptionAuthorization')).toBeLessThan(
        steps.indexOf('activateAndRecord'),
      );
      const ledger = ledgerOf(subscriptionId);
      expect(ledger).toHaveLength(1);
      expect(ledger[0]).toMatchObject({ orderId: subscriptionId, amount: 20_000, outcome: 'succeeded' });
    } finally {
      t.sandbox.admin.clearFaults();
    }
  });

  it('a pending charge (7000, no IPN for charges) is settled by api/query and recorded as succeeded', async () => {
    const start = await today();
    const { subscriptionId } = await create({
      amount: 0,
      subscriptionInfo: {
        type: 'FIXED',
        recurringAmount: 57_000, // ends in 7000: the sandbox answers 7000, then settles to 0
        frequency: 'DAILY',
        nextPaymentDate: addDays(start, 1),
        expiryDate: addDays(start, 2),
      },
    });
    t.sandbox.admin.approvePayment(subscriptionId);
    await until(subscriptionId, (s) => s.status === 'active', 'active');
    // To just after the billing hour: the charge is made and the gateway holds it as pending.
    await t.env.sleep(instantOf(addDays(start, 1), 9) + 5 * 60_000 - (await t.env.currentTimeMs()));
    await eventually(() =>
      expect(ledgerOf(subscriptionId)).toEqual([expect.objectContaining({ outcome: 'pending' })]),
    );
    // The gateway settles it, and only a query can tell the workflow.
    t.sandbox.admin.settlePending();
    await skipTo(addDays(start, 3));
    const done = await until(subscriptionId, (s) => s.status === 'expired', 'expired');
    expect(done.charges).toEqual([
      expect.objectContaining({ cycle: 1, amount: 57_000, status: 'succeeded', resultCode: 0 }),
    ]);
    expect(done.charges[0].transId).toBeTruthy();
    const ledger = ledgerOf(subscriptionId);
    expect(ledger).toHaveLength(1);
    expect(ledger[0]).toMatchObject({
      orderId: `${subscriptionId}-c1`,
      amount: 57_000,
      outcome: 'succeeded',
      resultCode: 0,
    });
    // The gateway sent no notification for the charge: the query resolved it.
    expect(await activitiesOf(done.workflowId)).toContain('querySubscriptionCharge');
    expect(t.sandbox.admin.ipnLog().filter((entry) => entry.orderId === `${subscriptionId}-c1`)).toEqual([]);
  });
});
