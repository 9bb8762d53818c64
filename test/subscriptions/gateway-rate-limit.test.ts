/**
 * GATEWAY_RATE_LIMITS on a billing day: many authorized subscriptions due at once, two workers, and
 * subscription/pay limited to a few calls per second. The Temporal server (the dev server: the test
 * server does not rate-limit task queues) hands out the charges of the operation's queue at the
 * configured rate, whichever worker polls, so the sandbox sees them spread; each cycle is still charged
 * exactly once, also when the workers stop and start again while charges wait in the queue.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../platform/config';
import { mostWithin, type LedgerEntry } from '../../sandbox/ledger';
import { operationRateLimitsOf } from '../../workers/build';
import { addDays } from '../../contracts/subscriptions';
import { connectDevServer } from '../support/temporal';
import { eventually } from '../support/wait';
import { subscriptionSteps } from './steps';
import { useSubscriptionStack } from './stack';

const LIMIT = 4;
/**
 * The most charges the sandbox may see within any WINDOW_S seconds: the rate for the window plus one
 * second's burst (a token bucket). Over two seconds rather than one, so that a loaded machine bunching two
 * calls the server handed out just under a second apart does not count as a breach (CI once saw 9 of 8).
 */
const WINDOW_S = 2;
const MOST_IN_WINDOW = LIMIT * (WINDOW_S + 1);
/** A pending charge's first query comes a pendingCheckInterval (1 minute here) after its answer, plus margin. */
const PENDING_SETTLED_MS = 100_000;
const environment = { GATEWAY_RATE_LIMITS: `subscription.pay=${LIMIT}` };
const config = loadConfig(environment);
// The API reads the same setting: with subscription.pay limited, workflows charge on that queue, not the billing run.
const t = useSubscriptionStack(connectDevServer, {
  environment,
  sandbox: { autoApprove: true, timing: { customerDelayMs: 0 } },
  workers: { workers: 2, operationRateLimits: operationRateLimitsOf(config) },
});
const { today, create } = subscriptionSteps(t);

/** Everything the sandbox charged for these subscriptions' cycles (subscription/pay, not the first payment). */
const cycleCharges = (ids: string[]): LedgerEntry[] =>
  t.sandbox.admin.ledger().filter((entry) => ids.some((id) => entry.orderId.startsWith(`${id}-c`)));

/** `count` subscriptions whose first cycle was due yesterday: each is charged as soon as it is authorized. */
async function billingDay(count: number): Promise<string[]> {
  const due = addDays(await today(), -1);
  const created = await Promise.all(
    Array.from({ length: count }, () =>
      create({
        amount: 0,
        subscriptionInfo: {
          type: 'FIXED',
          recurringAmount: 25_000,
          frequency: 'MONTHLY',
          nextPaymentDate: due,
        },
      }),
    ),
  );
  return created.map((c) => c.subscriptionId);
}

/**
 * Waits until every cycle 1 is recorded succeeded. `waitMs`: a charge whose answer was lost when the
 * workers stopped is re-sent, answered "already submitted" (pending), and settled by the first query a
 * pendingCheckInterval later (1 minute in this stack), so that case waits past one interval.
 */
async function eachChargedOnce(ids: string[], waitMs?: number) {
  await eventually(
    async () => {
      const rows = await t
        .db('subscription_charges')
        .whereIn('subscription_id', ids)
        .where({ cycle: 1, status: 'succeeded' });
      expect(rows).toHaveLength(ids.length);
    },
    waitMs === undefined ? {} : { timeout: waitMs },
  );
  const charges = cycleCharges(ids).filter((entry) => entry.outcome === 'succeeded');
  expect(charges.map((entry) => entry.orderId).sort()).toEqual(ids.map((id) => `${id}-c1`).sort());
  return charges;
}

describe('GATEWAY_RATE_LIMITS across workers', () => {
  it('spreads a billing day’s charges at the configured rate, each cycle charged once', async () => {
    const ids = await billingDay(32);
    const charges = await eachChargedOnce(ids);
    expect(mostWithin(charges, WINDOW_S * 1000)).toBeLessThanOrEqual(MOST_IN_WINDOW);
  });

  it(
    'charges each cycle once when the workers stop and start again while charges wait for the rate',
    async () => {
      const ids = await billingDay(16);
      await eventually(() => expect(cycleCharges(ids).length).toBeGreaterThanOrEqual(2));
      await t.stopWorker();
      await t.startWorker();
      const charges = await eachChargedOnce(ids, PENDING_SETTLED_MS);
      expect(mostWithin(charges, WINDOW_S * 1000)).toBeLessThanOrEqual(MOST_IN_WINDOW);
    },
    60_000 + PENDING_SETTLED_MS,
  );
});
