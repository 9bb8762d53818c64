/**
 * A plan names the dunning schedule its subscriptions follow, on the time-skipping server against the
 * sandbox over HTTP: a subscription created from the plan retries at the schedule's hour (not the default
 * 24 hours later) and is cancelled by it after the pause; the plan's schedule can be changed (audited) for
 * new subscriptions only; an unknown schedule is refused and changes nothing.
 */
import { describe, expect, it } from 'vitest';
import { addDays, instantOf } from '../../contracts/subscriptions';
import { freshId } from '../support/ids';
import { createTimeSkippingEnv } from '../support/temporal';
import { call, useSubscriptionStack } from './stack';
import { monthlyPlan, subscriptionSteps } from './steps';

const t = useSubscriptionStack(createTimeSkippingEnv);
const { today, until, ledgerOf } = subscriptionSteps(t);

const HOUR = 3_600_000;
async function skipToInstant(at: number) {
  const ms = at - (await t.env.currentTimeMs());
  if (ms > 0) await t.env.sleep(ms);
}

async function schedule(body: Record<string, unknown>) {
  const created = await call(t, 'POST', '/v1/dunning-schedules', body);
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.dunningScheduleId as string;
}

const planBody = (overrides: Record<string, unknown> = {}) =>
  monthlyPlan({ code: freshId('PD', 6), ...overrides });

const scheduleOf = async (subscriptionId: string) =>
  (await call(t, 'GET', `/v1/subscriptions/${subscriptionId}/notices`, undefined, t.viewerKey)).body
    .dunningScheduleId as string;

describe('plans linked to dunning schedules', () => {
  it("a plan's subscription follows the plan's schedule: retried six hours later, paused, cancelled after two days", async () => {
    const scheduleId = await schedule({
      name: 'Six hours, cancel after two days',
      retry: { afterHours: 6 },
      noticeBeforeAttemptHours: 0,
      afterPause: { sendReactivationLink: false, remindEveryDays: 0, cancelAfterDays: 2 },
    });
    const created = await call(t, 'POST', '/v1/plans', planBody({ dunningScheduleId: scheduleId }));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.dunningScheduleId).toBe(scheduleId);
    const planId = created.body.planId as string;

    const subscriptionId = freshId('pd', 10);
    const partnerClientId = freshId('member', 6);
    const start = await today();
    const subscribed = await call(t, 'POST', `/v1/plans/${planId}/subscriptions`, {
      subscriptionId,
      partnerClientId,
      orderInfo: 'Gym',
    });
    expect(subscribed.status, JSON.stringify(subscribed.body)).toBe(201);
    expect(await scheduleOf(subscriptionId)).toBe(scheduleId);
    t.sandbox.admin.approvePayment(subscriptionId);
    await until(subscriptionId, (s) => s.status === 'active', 'active');
    t.sandbox.admin.setCustomerFunds(partnerClientId, 10_000);

    // The first cycle after the trial fails; the schedule's retry comes at 15:00, not a minute before.
    const due = addDays(start, 2);
    await skipToInstant(instantOf(due, 9) + HOUR);
    await until(subscriptionId, (s) => s.status === 'retrying', 'retrying');
    await skipToInstant(instantOf(due, 15) - 60_000);
    expect(ledgerOf(subscriptionId).map((entry) => entry.orderId)).toEqual([`${subscriptionId}-c1`]);
    await skipToInstant(instantOf(due, 15) + 60_000);
    const paused = await until(subscriptionId, (s) => s.charges.length === 2, 'the retry charged');
    expect(paused.charges.map((c: { orderId: string }) => c.orderId)).toEqual([
      `${subscriptionId}-c1`,
      `${subscriptionId}-c1-r1`,
    ]);

    // The default schedule never cancels; this one does, through the gateway, two days after the pause.
    await skipToInstant(instantOf(due, 15) + 2 * 24 * HOUR + HOUR);
    const cancelled = await until(subscriptionId, (s) => s.status === 'cancelled', 'cancelled');
    expect(cancelled.statusReason).toContain('not reactivated within 2 days');
    expect(t.sandbox.admin.subscription(subscriptionId)).toMatchObject({ status: 'cancelled' });
    expect(ledgerOf(subscriptionId)).toHaveLength(2);
  });

  it("changing a plan's schedule (audited) reaches new subscriptions only; an unknown schedule is 422 and changes nothing", async () => {
    const first = await schedule({
      name: 'First',
      retry: { afterHours: 3 },
      noticeBeforeAttemptHours: 0,
      afterPause: { sendReactivationLink: false, remindEveryDays: 0, cancelAfterDays: 0 },
    });
    const second = await schedule({
      name: 'Second',
      retry: { onDayOfMonth: 25, atHour: 9 },
      noticeBeforeAttemptHours: 0,
      afterPause: { sendReactivationLink: false, remindEveryDays: 0, cancelAfterDays: 0 },
    });
    const refusedPlan = planBody({ dunningScheduleId: 'dun_nothing' });
    const unknownAtCreate = await call(t, 'POST', '/v1/plans', refusedPlan);
    expect(unknownAtCreate.status).toBe(422);
    expect(unknownAtCreate.body.error.problems[0]).toMatchObject({
      field: 'body.dunningScheduleId',
      rule: 'unknown_schedule',
    });
    expect((await call(t, 'GET', `/v1/plans/${refusedPlan.code}`)).status).toBe(404);

    const plan = (await call(t, 'POST', '/v1/plans', planBody({ dunningScheduleId: first }))).body;
    const before = freshId('pd', 10);
    const made = await call(t, 'POST', `/v1/plans/${plan.planId}/subscriptions`, {
      subscriptionId: before,
      partnerClientId: freshId('member', 6),
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);

    const unknown = await call(t, 'PUT', `/v1/plans/${plan.planId}/dunning-schedule`, {
      dunningScheduleId: 'dun_nothing',
    });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.problems[0]).toMatchObject({ field: 'body.dunningScheduleId' });
    const bad = await call(t, 'PUT', `/v1/plans/${plan.planId}/dunning-schedule`, { dunningScheduleId: '' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.problems[0]).toMatchObject({ field: 'body.dunningScheduleId' });
    const viewer = await call(
      t,
      'PUT',
      `/v1/plans/${plan.planId}/dunning-schedule`,
      { dunningScheduleId: second },
      t.viewerKey,
    );
    expect(viewer.status).toBe(403);
    expect((await call(t, 'GET', `/v1/plans/${plan.planId}`)).body.dunningScheduleId).toBe(first);

    const changed = await call(t, 'PUT', `/v1/plans/${plan.planId}/dunning-schedule`, {
      dunningScheduleId: second,
    });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body).toMatchObject({ planId: plan.planId, dunningScheduleId: second });
    const after = freshId('pd', 10);
    await call(t, 'POST', `/v1/plans/${plan.planId}/subscriptions`, {
      subscriptionId: after,
      partnerClientId: freshId('member', 6),
    });
    expect(await scheduleOf(before)).toBe(first);
    expect(await scheduleOf(after)).toBe(second);

    // The viewer's 403 is refused before the audit (role checks come first); the three others are kept.
    const audited = await t
      .db('audit_log')
      .where({ action: 'plan.set_dunning_schedule', target_id: plan.planId })
      .orderBy('id');
    expect(audited.map((entry) => [entry.outcome, entry.status_code])).toEqual([
      ['refused', 422],
      ['refused', 400],
      ['succeeded', 200],
    ]);

    const back = await call(t, 'PUT', `/v1/plans/${plan.planId}/dunning-schedule`, {
      dunningScheduleId: 'default',
    });
    expect(back.body.dunningScheduleId).toBe('default');
  });
});
