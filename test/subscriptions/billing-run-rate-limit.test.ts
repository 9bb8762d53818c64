/**
 * A `subscription.pay` limit on the workers (GATEWAY_RATE_LIMITS) spaces the billing run's charges too: the
 * run's chunks call the gateway from their own activity, not through that operation's rate-limited queue.
 * Here the API was started without the limit, so the subscriptions went to the run, as those created before
 * an operator sets a limit have.
 */
import { describe, expect, it } from 'vitest';
import { addDays } from '../../contracts/subscriptions';
import { mostWithin } from '../../sandbox/ledger';
import { createTimeSkippingEnv } from '../support/temporal';
import { eventually } from '../support/wait';
import { useSubscriptionStack } from './stack';
import { fixedMonthly, subscriptionSteps } from './steps';

const LIMIT = 4;
const COUNT = 16;

const t = useSubscriptionStack(createTimeSkippingEnv, {
  environment: { SUBSCRIPTION_BILLING_PATH: 'run', SUBSCRIPTION_RUN_GRACE_MINUTES: '120' },
  workers: { operationRateLimits: { 'subscription.pay': LIMIT } },
});
const { today, skipTo, subscribe, ledgerOf } = subscriptionSteps(t);

describe('the billing run under a subscription.pay limit', () => {
  it('spaces its charges at the limit, each cycle charged once', async () => {
    const due = addDays(await today(), 2);
    const ids: string[] = [];
    for (let i = 0; i < COUNT; i += 1) ids.push((await subscribe(fixedMonthly(due))).subscriptionId);
    await eventually(async () => {
      const handed = await t.db('subscriptions').whereIn('subscription_id', ids).where({ run_cycle: 1 });
      expect(handed).toHaveLength(COUNT);
    });
    await skipTo(due);
    await eventually(
      async () => {
        const charged = await t
          .db('subscription_charges')
          .whereIn('subscription_id', ids)
          .where({ cycle: 1, status: 'succeeded' })
          .whereNotNull('billing_run_id');
        expect(charged).toHaveLength(COUNT);
      },
      { timeout: 30_000 },
    );
    const charges = ids.flatMap((id) => ledgerOf(id).filter((entry) => entry.orderId === `${id}-c1`));
    expect(charges.map((entry) => entry.orderId).sort()).toEqual(ids.map((id) => `${id}-c1`).sort());
    // Evenly spaced: at most the rate's worth in any second, plus the one that opens it.
    expect(mostWithin(charges, 1000)).toBeLessThanOrEqual(LIMIT + 1);
  });
});
