/**
 * How a subscription create waits for the gateway's answer to its start (the customer's links): on the
 * subscription workflow's own event (an update sent with the start, or after a plan's signal-with-start),
 * not by reading the record every 50 ms as before. On the time-skipping server, against the sandbox with
 * its answer slowed down.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { subscriptionWorkflowId } from '../../contracts/subscriptions';
import { captureHistory } from '../support/history-capture';
import { freshId } from '../support/ids';
import { recordReadsDuring } from '../support/record-reads';
import { createTimeSkippingEnv } from '../support/temporal';
import { call, useSubscriptionStack } from './stack';
import { fixedMonthly, monthlyPlan, sixHoursThenCancel, subscriptionSteps } from './steps';

const t = useSubscriptionStack(createTimeSkippingEnv);
const { today, create, until } = subscriptionSteps(t);

/** 600 ms: a 50 ms poll would read the record a dozen times meanwhile. */
const slowStart = () =>
  t.sandbox.admin.setFaults({ operation: 'subscription.start', latencyMs: 600, times: 1 });

async function updatesAccepted(subscriptionId: string) {
  const history = await t.env.client.workflow
    .getHandle(subscriptionWorkflowId(subscriptionId))
    .fetchHistory();
  return (history.events ?? []).filter((event) => event.workflowExecutionUpdateAcceptedEventAttributes)
    .length;
}

afterEach(() => {
  t.sandbox.admin.clearFaults();
});

describe('a subscription create waits on the workflow, not on its record', () => {
  it('answers the links once the gateway answered, reading the record a few times, however slow the gateway', async () => {
    // A first subscription warms the worker up (its first workflow task loads the workflow code).
    await create(fixedMonthly(await today()));
    const terms = fixedMonthly(await today());
    slowStart();
    const subscriptionId = freshId('s', 10);
    const { result: created, reads } = await recordReadsDuring(t.db, 'subscriptions', subscriptionId, () =>
      call(t, 'POST', '/v1/subscriptions', {
        subscriptionId,
        partnerClientId: freshId('member', 6),
        orderInfo: 'Gym',
        ...terms,
        subscriptionInfo: { name: 'Gym', ...terms.subscriptionInfo },
      }),
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ subscriptionId, status: 'authorizing' });
    expect(created.body.payUrl).toContain(`/pay/${subscriptionId}`);
    // The worker reads it before asking the gateway and locks it to write the answer; the API reads it
    // for its answer.
    expect(reads()).toBeLessThanOrEqual(4);
    expect(await updatesAccepted(subscriptionId)).toBe(1);
    // Authorized, then cancelled: a closed history with the update, for the replay tests
    // (npm run histories:capture).
    t.sandbox.admin.approvePayment(subscriptionId);
    await until(subscriptionId, (s) => s.status === 'active', 'active');
    const cancelled = await call(t, 'POST', `/v1/subscriptions/${subscriptionId}/cancel`, {
      reason: 'moved',
    });
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    await captureHistory(t.env.client, subscriptionWorkflowId(subscriptionId), 'start-answered-by-update');
    // The same since the onboarding runs in workflow tasks (patch onboarding-in-workflow-tasks).
    await captureHistory(t.env.client, subscriptionWorkflowId(subscriptionId), 'onboarded-in-workflow-tasks');
  });

  it("a plan's subscription (started with its dunning schedule's signal) waits the same way", async () => {
    const schedule = await call(t, 'POST', '/v1/dunning-schedules', sixHoursThenCancel('Six hours'));
    expect(schedule.status, JSON.stringify(schedule.body)).toBe(201);
    const plan = await call(
      t,
      'POST',
      '/v1/plans',
      monthlyPlan({ dunningScheduleId: schedule.body.dunningScheduleId }),
    );
    expect(plan.status, JSON.stringify(plan.body)).toBe(201);
    slowStart();
    const subscriptionId = freshId('pa', 10);
    const { result: created, reads } = await recordReadsDuring(t.db, 'subscriptions', subscriptionId, () =>
      call(t, 'POST', `/v1/plans/${plan.body.planId as string}/subscriptions`, {
        subscriptionId,
        partnerClientId: freshId('member', 6),
        orderInfo: 'Gym',
      }),
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.payUrl).toContain(`/pay/${subscriptionId}`);
    expect(reads()).toBeLessThanOrEqual(4);
    expect(await updatesAccepted(subscriptionId)).toBe(1);
  });
});
