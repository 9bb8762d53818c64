/**
 * A plan's price change applied by its own workflow (planPriceChange), on the time-skipping server against
 * the sandbox over HTTP: the API answers 202 with the change's id and progress, the workflow hands the
 * change to each of the plan's subscriptions and marks it done; a retried request (its first attempt
 * interrupted) starts nothing twice; the change handed over again from page one, in pages of one with
 * continue-as-new, and delivered again to every subscription, still leaves each subscription exactly one
 * price change and one request for the customer's new authorization.
 *
 * And a retried plan-subscription create does not undo the dunning schedule an operator chose meanwhile.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  addDays,
  planPriceChangeSignal,
  planPriceChangeWorkflowId,
  planSubscriptionPriceChangeId,
} from '../../contracts/subscriptions';
import { captureHistory } from '../support/history-capture';
import { freshId } from '../support/ids';
import { createTimeSkippingEnv } from '../support/temporal';
import { eventually } from '../support/wait';
import { callApi } from '../support/api';
import { call, useSubscriptionStack } from './stack';
import { sixHoursThenCancel, subscriptionSteps } from './steps';

const t = useSubscriptionStack(createTimeSkippingEnv);
const { today, until } = subscriptionSteps(t);

async function createPlan(overrides: Record<string, unknown> = {}) {
  const created = await call(t, 'POST', '/v1/plans', {
    code: freshId('PPC', 6),
    name: { en: 'Gym daily', vi: 'Phòng tập hằng ngày' },
    amount: 50_000,
    currency: 'VND',
    frequency: 'DAILY',
    type: 'FIXED',
    ...overrides,
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.planId as string;
}

async function subscribe(planId: string, expiryDate: string, idempotencyKey = randomUUID()) {
  const subscriptionId = freshId('pc', 10);
  const body = { subscriptionId, partnerClientId: freshId('member', 6), orderInfo: 'Gym', expiryDate };
  const created = await callApi(t.api, t.billingKey, 'POST', `/v1/plans/${planId}/subscriptions`, body, {
    'idempotency-key': idempotencyKey,
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return { subscriptionId, body };
}

async function subscribeAndAuthorize(planId: string, expiryDate: string) {
  const { subscriptionId } = await subscribe(planId, expiryDate);
  t.sandbox.admin.approvePayment(subscriptionId);
  await until(subscriptionId, (s) => s.status === 'active', 'active');
  return subscriptionId;
}

/** As if the process answering the request died before storing its answer: its retry resumes it. */
async function interruptRequest(idempotencyKey: string) {
  await t
    .db('idempotency_keys')
    .where({ idempotency_key: idempotencyKey })
    .update({ state: 'in_progress', claimed_until: t.db.raw(`now() - interval '1 second'`) });
}

const changesOf = async (subscriptionId: string) =>
  (await call(t, 'GET', `/v1/subscriptions/${subscriptionId}/price-changes`, undefined, t.viewerKey)).body
    .priceChanges as Array<{ priceChangeId: string; planPriceChangeId: string | null; status: string }>;

/** The orders that ask this customer to authorize a new amount (`<subscription>-p<n>`). */
const reauthorizationOrders = (subscriptionId: string) =>
  t.sandbox.admin
    .awaitingCustomer()
    .map((order) => order.orderId)
    .filter((orderId) => orderId.startsWith(`${subscriptionId}-p`));

describe("a plan's price change, applied by its workflow", () => {
  it('answers 202 with progress, reaches every subscription once, and a retry or a re-run changes nothing', async () => {
    const planId = await createPlan();
    const otherPlan = await createPlan();
    const start = await today();
    const expiry = addDays(start, 30);
    const reached = [
      await subscribeAndAuthorize(planId, expiry),
      await subscribeAndAuthorize(planId, expiry),
      await subscribeAndAuthorize(planId, expiry),
    ].sort();
    const elsewhere = await subscribeAndAuthorize(otherPlan, expiry);
    const idempotencyKey = randomUUID();
    const body = { newAmount: 45_000, effectiveCycle: addDays(start, 5), ifNotReauthorized: 'charge_old' };
    const path = `/v1/plans/${planId}/price-changes`;
    const send = () =>
      callApi(t.api, t.billingKey, 'POST', path, body, { 'idempotency-key': idempotencyKey });

    const started = await send();
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const planPriceChangeId = started.body.planPriceChangeId as string;
    expect(started.body).toMatchObject({ planId, newAmount: 45_000, total: 3, failed: 0 });
    expect(['applying', 'done']).toContain(started.body.status);

    const done = await eventually(async () => {
      const seen = await call(t, 'GET', `${path}/${planPriceChangeId}/progress`, undefined, t.viewerKey);
      expect(seen.status).toBe(200);
      expect(seen.body.status).toBe('done');
      return seen.body;
    });
    expect(done).toMatchObject({ total: 3, applied: 3, failed: 0, waiting: 0 });

    // The first attempt is interrupted after it started the workflow; its retry finds the same change.
    const firstRun = await t.env.client.workflow
      .getHandle(planPriceChangeWorkflowId(planPriceChangeId))
      .describe();
    await interruptRequest(idempotencyKey);
    const retried = await send();
    expect(retried.status, JSON.stringify(retried.body)).toBe(202);
    expect(retried.body.planPriceChangeId).toBe(planPriceChangeId);
    expect(await t.db('plan_price_changes').where({ plan_id: planId })).toHaveLength(1);
    const afterRetry = await t.env.client.workflow
      .getHandle(planPriceChangeWorkflowId(planPriceChangeId))
      .describe();
    expect(afterRetry.runId).toBe(firstRun.runId);

    // The change handed over again from page one (pages of one, continuing as new after two), and
    // delivered again straight to every subscription, as a restart midway would.
    const rerun = await t.env.client.workflow.start('planPriceChange', {
      taskQueue: t.settings.taskQueue,
      workflowId: `${planPriceChangeWorkflowId(planPriceChangeId)}-rerun-${randomUUID()}`,
      args: [{ planPriceChangeId, pageSize: 1, pagesPerRun: 2 }],
    });
    for (const subscriptionId of reached)
      await t.env.client.workflow.getHandle(`subscription/${subscriptionId}`).signal(planPriceChangeSignal, {
        priceChangeId: planSubscriptionPriceChangeId(planPriceChangeId, subscriptionId),
        newAmount: 45_000,
        effectiveDate: body.effectiveCycle,
        ifNotReauthorized: 'charge_old',
      });
    expect(await rerun.result()).toMatchObject({ total: 3, applied: 3, failed: 0, waiting: 0 });
    const history = await rerun.fetchHistory();
    expect(history.events?.at(-1)?.workflowExecutionCompletedEventAttributes).toBeTruthy();

    for (const subscriptionId of reached) {
      await eventually(async () => {
        const changes = await changesOf(subscriptionId);
        expect(changes).toEqual([
          expect.objectContaining({ planPriceChangeId, status: 'awaiting_authorization' }),
        ]);
        expect(reauthorizationOrders(subscriptionId)).toEqual([`${subscriptionId}-p1`]);
      });
    }
    expect(await changesOf(elsewhere)).toEqual([]);
    await captureHistory(
      t.env.client,
      planPriceChangeWorkflowId(planPriceChangeId),
      'plan-price-change-done',
    );
    await captureHistory(t.env.client, rerun.workflowId, 'plan-price-change-paged', { everyRun: true });
    await captureHistory(t.env.client, `subscription/${reached[0]}`, 'plan-price-change-taken-twice', {
      stillOpen: true,
    });
    const notices = await t
      .db('subscription_notice_requests')
      .whereIn('subscription_id', reached)
      .andWhere({ kind: 'price_change' });
    expect(notices).toHaveLength(3);
  });

  it('refuses a second change of the plan while one is applied (409) and needs an Idempotency-Key', async () => {
    const planId = await createPlan();
    const start = await today();
    await subscribeAndAuthorize(planId, addDays(start, 30));
    const path = `/v1/plans/${planId}/price-changes`;
    const body = { newAmount: 55_000, effectiveCycle: addDays(start, 5), ifNotReauthorized: 'flag' };
    const keyless = await callApi(t.api, t.billingKey, 'POST', path, body, { 'idempotency-key': '' });
    expect(keyless.status).toBe(400);
    expect(keyless.body.error.problems[0]).toMatchObject({ field: 'header.Idempotency-Key' });
    expect(await t.db('plan_price_changes').where({ plan_id: planId })).toEqual([]);

    // A change recorded and not yet done (as one whose workflow is still handing it over).
    await t.db('plan_price_changes').insert({
      plan_price_change_id: `ppc_${freshId('held', 8)}`,
      plan_id: planId,
      new_amount: 60_000,
      effective_date: addDays(start, 6),
      if_not_reauthorized: 'flag',
      created_by: 'test',
      status: 'applying',
      total: 1,
    });
    const second = await call(t, 'POST', path, body);
    expect(second.status, JSON.stringify(second.body)).toBe(409);
    expect(second.body.error.code).toBe('plan_price_change_running');
    expect(await t.db('plan_price_changes').where({ plan_id: planId })).toHaveLength(1);
    expect((await call(t, 'GET', `/v1/plans/${planId}`)).body.amount).toBe(50_000);
  });
});

describe('a retried plan-subscription create', () => {
  it('leaves the dunning schedule an operator chose after the first attempt', async () => {
    const created = await call(t, 'POST', '/v1/dunning-schedules', sixHoursThenCancel('The plan’s'));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const planSchedule = created.body.dunningScheduleId as string;
    const planId = await createPlan({ dunningScheduleId: planSchedule, trialDays: 2 });
    const start = await today();
    const idempotencyKey = randomUUID();
    const { subscriptionId, body } = await subscribe(planId, addDays(start, 30), idempotencyKey);

    const chosen = await call(t, 'PUT', `/v1/subscriptions/${subscriptionId}/dunning-schedule`, {
      dunningScheduleId: 'default',
    });
    expect(chosen.status, JSON.stringify(chosen.body)).toBe(200);
    const workflow = t.env.client.workflow.getHandle(`subscription/${subscriptionId}`);
    // A signal that arrives while a workflow task runs is written to the history when that task ends, and
    // the time-skipping server reports no pending task: wait for the count the signals sent so far make.
    const signalsOnceThere = (count: number) =>
      eventually(async () => {
        const seen = (await workflow.fetchHistory()).events?.filter(
          (event) => event.workflowExecutionSignaledEventAttributes?.signalName === 'dunningSchedule',
        ).length;
        expect(seen).toBeGreaterThanOrEqual(count);
        return seen;
      });
    // The plan's schedule, sent with the start, and the operator's.
    expect(await signalsOnceThere(2)).toBe(2);

    await interruptRequest(idempotencyKey);
    const retried = await callApi(t.api, t.billingKey, 'POST', `/v1/plans/${planId}/subscriptions`, body, {
      'idempotency-key': idempotencyKey,
    });
    expect(retried.status, JSON.stringify(retried.body)).toBe(201);
    // One more choice, as a marker: a signal the retry sent would be in the history before it.
    expect(
      (
        await call(t, 'PUT', `/v1/subscriptions/${subscriptionId}/dunning-schedule`, {
          dunningScheduleId: 'default',
        })
      ).status,
    ).toBe(200);
    expect(await signalsOnceThere(3)).toBe(3);
    const notices = await call(
      t,
      'GET',
      `/v1/subscriptions/${subscriptionId}/notices`,
      undefined,
      t.viewerKey,
    );
    expect(notices.body.dunningScheduleId).toBe('default');
  });
});
