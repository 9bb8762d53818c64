/**
 * SUBSCRIPTION_BILLING_HOUR and SUBSCRIPTION_RETRY_DELAY_HOURS change when money moves: the settings are
 * built from the environment as `api/main.ts` builds them, and the sandbox ledger shows the times.
 */
import { describe, expect, it } from 'vitest';
import { addDays, instantOf } from '../../contracts/subscriptions';
import { createTimeSkippingEnv } from '../support/temporal';
import { fixedMonthly, subscriptionSteps } from './steps';
import { useSubscriptionStack } from './stack';

const t = useSubscriptionStack(createTimeSkippingEnv, {
  environment: { SUBSCRIPTION_BILLING_HOUR: '14', SUBSCRIPTION_RETRY_DELAY_HOURS: '6' },
});
const { today, view, until, subscribe, ledgerOf } = subscriptionSteps(t);

/** Lets workflow time run until `hour`:00 GMT+7 on `date`. */
async function runUntil(date: string, hour: number) {
  const ms = instantOf(date, hour) - (await t.env.currentTimeMs());
  if (ms > 0) await t.env.sleep(ms);
}

describe('subscription settings from the environment', () => {
  it('charges at SUBSCRIPTION_BILLING_HOUR (GMT+7) and retries SUBSCRIPTION_RETRY_DELAY_HOURS later', async () => {
    const start = await today();
    const due = addDays(start, 2);
    const { subscriptionId, partnerClientId } = await subscribe(fixedMonthly(due));
    t.sandbox.admin.setCustomerFunds(partnerClientId, 10_000);

    // 09:00 (the default hour) and 13:00 pass with no charge.
    await runUntil(due, 13);
    expect(ledgerOf(subscriptionId)).toEqual([]);
    expect((await view(subscriptionId)).status).toBe('active');

    await runUntil(due, 15);
    await until(subscriptionId, (s) => s.status === 'retrying', 'retrying after the first 1001');
    await runUntil(due, 21);
    await until(subscriptionId, (s) => s.charges.length === 2, 'the retry');

    // Gateway calls happen a few milliseconds of workflow time after the timer fires.
    const charged = ledgerOf(subscriptionId).map((entry) => ({
      orderId: entry.orderId,
      late: Date.parse(entry.at) - instantOf(due, entry.orderId.endsWith('-r1') ? 20 : 14),
    }));
    expect(charged.map((c) => c.orderId)).toEqual([`${subscriptionId}-c1`, `${subscriptionId}-c1-r1`]);
    for (const { late } of charged) {
      expect(late).toBeGreaterThanOrEqual(0);
      expect(late).toBeLessThan(60_000);
    }
  });
});
