/**
 * BILLING_RUN_SIGNALS_SUCCESS=true, kept for the benchmark's comparison (npm run bench -- active-billing-day
 * --previous): the run tells each success to its workflow at once by the `billingRunCharge` signal, and the
 * workflow, having heard it, never reads the rows at its grace. Without it (test/subscriptions/billing-run.test.ts)
 * the run signals no success and the workflow reads it after the grace.
 */
import { describe, expect, it } from 'vitest';
import {
  addDays,
  billingRunWorkflowId,
  instantOf,
  subscriptionWorkflowId,
} from '../../contracts/subscriptions';
import { createTimeSkippingEnv } from '../support/temporal';
import { eventually } from '../support/wait';
import { useSubscriptionStack } from './stack';
import { fixedMonthly, subscriptionSteps } from './steps';

const t = useSubscriptionStack(createTimeSkippingEnv, {
  environment: {
    SUBSCRIPTION_BILLING_PATH: 'run',
    SUBSCRIPTION_RUN_GRACE_MINUTES: '120',
    BILLING_RUN_SIGNALS_SUCCESS: 'true',
  },
});
const { today, skipTo, until, subscribe, ledgerOf, activitiesOf } = subscriptionSteps(t);

async function eventsOf(workflowId: string) {
  const history = await t.env.client.workflow.getHandle(workflowId).fetchHistory();
  return history.events ?? [];
}

describe('the billing run, signalling successes (the benchmark’s previous design)', () => {
  it('tells the workflow of the success by one signal; past the grace it has read nothing from the rows', async () => {
    const due = addDays(await today(), 2);
    const { subscriptionId } = await subscribe(fixedMonthly(due));
    await skipTo(due);
    await until(subscriptionId, (s) => s.nextCycle === 2, 'cycle 1 charged by the run');
    const workflowId = subscriptionWorkflowId(subscriptionId);
    await eventually(async () => {
      const signals = (await eventsOf(workflowId)).filter(
        (event) => event.workflowExecutionSignaledEventAttributes?.signalName === 'billingRunCharge',
      );
      expect(signals).toHaveLength(1);
    });
    await t.env.sleep(instantOf(due, 11) + 60_000 - (await t.env.currentTimeMs()));
    // The grace has passed: a workflow that heard the signal has nothing to read or take back.
    const activities = await activitiesOf(workflowId);
    expect(activities).not.toContain('settleHandedCycle');
    expect(activities).not.toContain('chargeSubscriptionCycle');
    expect(ledgerOf(subscriptionId).map((entry) => entry.orderId)).toEqual([`${subscriptionId}-c1`]);
    const charge = await t
      .db('subscription_charges')
      .where({ order_id: `${subscriptionId}-c1` })
      .first();
    expect(charge.billing_run_id).toBe(billingRunWorkflowId(due, t.taskQueue));
  });
});
