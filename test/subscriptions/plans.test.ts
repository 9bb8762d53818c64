/**
 * Plans and dated price changes through the API, on the time-skipping server, against the sandbox over
 * HTTP: a plan's subscriptions authorize its amount (a trial starts billing after it), a preview lists
 * exactly the plan's subscriptions, a rise charges the new amount only for the customer who authorized it
 * again, the old amount for the one who did not; and the charge activity refuses an amount above the
 * authorized one before anything is recorded or sent.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { describe, expect, it } from 'vitest';
import { chargeSubscriptionCycle } from '../../activities/subscriptions/subscriptions';
import { addDays, reauthorizationOrderId } from '../../contracts/subscriptions';
import { getCharge } from '../../db/subscriptions/subscriptions';
import type { GatewayClient } from '../../gateway';
import { freshId } from '../support/ids';
import { createTimeSkippingEnv, testCodecKeyring } from '../support/temporal';
import { eventually } from '../support/wait';
import { call, useSubscriptionStack } from './stack';
import { subscriptionSteps } from './steps';

const t = useSubscriptionStack(createTimeSkippingEnv);
const { today, skipTo, view, until, ledgerOf } = subscriptionSteps(t);

async function createPlan(overrides: Record<string, unknown> = {}) {
  const code = freshId('GYM', 6);
  const created = await call(t, 'POST', '/v1/plans', {
    code,
    name: { en: 'Gym monthly', vi: 'Phòng tập hằng tháng' },
    amount: 50_000,
    currency: 'VND',
    frequency: 'DAILY',
    type: 'FIXED',
    ...overrides,
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body as { planId: string; amount: number };
}

/** Subscribes a customer to the plan and has them authorize it. */
async function subscribeToPlan(planId: string, expiryDate: string, partnerClientId = freshId('member', 6)) {
  const subscriptionId = freshId('p', 10);
  const created = await call(t, 'POST', `/v1/plans/${planId}/subscriptions`, {
    subscriptionId,
    partnerClientId,
    orderInfo: 'Gym',
    expiryDate,
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  t.sandbox.admin.approvePayment(subscriptionId);
  await until(subscriptionId, (s) => s.status === 'active', 'active');
  return subscriptionId;
}

const priceChange = (path: string, body: Record<string, unknown>) => call(t, 'POST', path, body);

describe('plans', () => {
  it('creates, lists, reads and archives a plan; refuses a taken code and a bad field, changing nothing', async () => {
    const plan = await createPlan({ trialDays: 7 });
    expect(plan).toMatchObject({
      amount: 50_000,
      trialDays: 7,
      status: 'active',
      name: { vi: 'Phòng tập hằng tháng' },
    });
    const again = await call(t, 'POST', '/v1/plans', {
      code: plan.planId,
      name: { en: 'x', vi: 'x' },
      amount: 1000,
      currency: 'VND',
      frequency: 'DAILY',
      type: 'FIXED',
    });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('plan_exists');
    const usd = await call(t, 'POST', '/v1/plans', {
      code: freshId('X', 6),
      name: { en: 'x', vi: 'x' },
      amount: 1000,
      currency: 'USD',
      frequency: 'DAILY',
      type: 'FIXED',
    });
    expect(usd.status).toBe(400);
    expect(usd.body.error.problems[0]).toMatchObject({ field: 'body.currency' });
    const listed = await call(t, 'GET', '/v1/plans', undefined, t.viewerKey);
    expect(listed.body.plans.map((p: { planId: string }) => p.planId)).toContain(plan.planId);
    expect((await call(t, 'GET', `/v1/plans/${plan.planId}`, undefined, t.viewerKey)).body.amount).toBe(
      50_000,
    );
    const archived = await call(t, 'POST', `/v1/plans/${plan.planId}/archive`, {});
    expect(archived.body.status).toBe('archived');
    const late = await call(t, 'POST', `/v1/plans/${plan.planId}/subscriptions`, {
      subscriptionId: freshId('p', 10),
      partnerClientId: 'late1',
    });
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe('plan_archived');
  });

  it("a trial plan: the customer authorizes the plan's amount with nothing charged now; billing starts after the trial", async () => {
    const plan = await createPlan({ trialDays: 3, amount: 70_000 });
    const start = await today();
    const subscriptionId = await subscribeToPlan(plan.planId, addDays(start, 20));
    const subscription = await view(subscriptionId);
    expect(subscription).toMatchObject({
      planId: plan.planId,
      recurringAmount: 70_000,
      initialAmount: 0,
      nextPaymentDate: addDays(start, 3),
    });
    await skipTo(addDays(start, 3));
    await until(subscriptionId, (s) => s.charges.length === 1, 'the first cycle charged');
    expect(ledgerOf(subscriptionId).map((entry) => [entry.orderId, entry.amount])).toEqual([
      [`${subscriptionId}-c1`, 70_000],
    ]);
  });
});

describe('dated price changes', () => {
  it("preview lists exactly the plan's subscriptions; a rise charges the new amount only where the customer authorized it", async () => {
    const plan = await createPlan();
    const other = await createPlan();
    const start = await today();
    const expiry = addDays(start, 12);
    const agrees = await subscribeToPlan(plan.planId, expiry);
    const ignores = await subscribeToPlan(plan.planId, expiry);
    const elsewhere = await subscribeToPlan(other.planId, expiry);
    const effective = addDays(start, 4);
    const body = { newAmount: 65_000, effectiveCycle: effective, ifNotReauthorized: 'charge_old' };

    const preview = await priceChange(`/v1/plans/${plan.planId}/price-changes/preview`, body);
    expect(preview.status, JSON.stringify(preview.body)).toBe(200);
    expect(preview.body.subscriptions).toEqual(
      [agrees, ignores].sort().map((subscriptionId) => ({
        subscriptionId,
        customer: expect.stringMatching(/^\*\*\*\*/),
        status: 'active',
        currentAmount: 50_000,
        authorizedAmount: 50_000,
        newAmount: 65_000,
        needsReauthorization: true,
        cycleDate: effective,
        chargeIfReauthorized: 65_000,
        chargeIfNotReauthorized: 50_000,
      })),
    );
    expect(preview.body.subscriptions.map((s: { subscriptionId: string }) => s.subscriptionId)).not.toContain(
      elsewhere,
    );

    const scheduled = await priceChange(`/v1/plans/${plan.planId}/price-changes`, body);
    expect(scheduled.status, JSON.stringify(scheduled.body)).toBe(202);
    // Its workflow hands it to each subscription; each one's workflow asks its customer.
    await eventually(async () => {
      const seen = await call(
        t,
        'GET',
        `/v1/plans/${plan.planId}/price-changes/${scheduled.body.planPriceChangeId}/progress`,
        undefined,
        t.viewerKey,
      );
      expect(seen.body).toMatchObject({ status: 'done', total: 2, applied: 2, failed: 0 });
    });
    for (const id of [agrees, ignores]) {
      const changes = await call(t, 'GET', `/v1/subscriptions/${id}/price-changes`, undefined, t.viewerKey);
      expect(changes.body.priceChanges[0].reauthorizationPayUrl).toContain('/pay/');
    }
    // The customer who agrees authorizes the new amount at the gateway (its -p1 order).
    t.sandbox.admin.approvePayment(reauthorizationOrderId(agrees, 1));
    await eventually(async () => {
      const changes = await call(
        t,
        'GET',
        `/v1/subscriptions/${agrees}/price-changes`,
        undefined,
        t.viewerKey,
      );
      expect(changes.body.priceChanges[0].status).toBe('authorized');
    });

    await skipTo(addDays(start, 5));
    // Without a trial the authorization itself charged the plan's amount (cycle 0), then cycles 1..5.
    await until(agrees, (s) => s.charges.length === 6, 'five cycles charged');
    await until(ignores, (s) => s.charges.length === 6, 'five cycles charged');
    const amounts = (id: string) =>
      ledgerOf(id)
        .filter((entry) => /-c\d+$/.test(entry.orderId))
        .map((entry) => entry.amount);
    expect(amounts(agrees)).toEqual([50_000, 50_000, 50_000, 65_000, 65_000]);
    expect(amounts(ignores)).toEqual([50_000, 50_000, 50_000, 50_000, 50_000]);
    expect((await view(agrees)).recurringAmount).toBe(65_000);
    expect((await view(ignores)).recurringAmount).toBe(50_000);

    const agreed = await call(t, 'GET', `/v1/subscriptions/${agrees}/price-changes`, undefined, t.viewerKey);
    expect(agreed.body.priceChanges).toEqual([
      expect.objectContaining({ status: 'applied', newAmount: 65_000 }),
    ]);
    const ignored = await call(
      t,
      'GET',
      `/v1/subscriptions/${ignores}/price-changes`,
      undefined,
      t.viewerKey,
    );
    expect(ignored.body.priceChanges).toEqual([expect.objectContaining({ status: 'charged_old' })]);
    // The price-change notice, then the reminder the day before (the 7-day one fell before the change).
    expect(ignored.body.notices.map((n: { kind: string }) => n.kind)).toEqual([
      'price_change',
      'reauthorization_reminder',
    ]);
    const events = await t.db('events').where({ object_id: ignores, type: 'subscription.notice_requested' });
    expect(events).toHaveLength(2);
  });

  it('refuses a change that is not for a future day (422, naming the field) and changes nothing', async () => {
    const plan = await createPlan();
    const past = await priceChange(`/v1/plans/${plan.planId}/price-changes`, {
      newAmount: 60_000,
      effectiveCycle: '2020-01-01',
      ifNotReauthorized: 'flag',
    });
    expect(past.status).toBe(422);
    expect(past.body.error.problems[0]).toMatchObject({ field: 'body.effectiveCycle', rule: 'future_date' });
    expect(await t.db('plan_price_changes').where({ plan_id: plan.planId })).toEqual([]);
  });
});

describe('the charge activity', () => {
  it('refuses an amount above the authorized recurringAmount before recording or sending anything', async () => {
    const subscriptionId = freshId('g', 10);
    const created = await call(t, 'POST', '/v1/subscriptions', {
      subscriptionId,
      partnerClientId: freshId('member', 6),
      amount: 0,
      subscriptionInfo: {
        name: 'Gym',
        type: 'FIXED',
        recurringAmount: 40_000,
        frequency: 'MONTHLY',
        nextPaymentDate: '2999-01-01',
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const sent: string[] = [];
    const gateway: GatewayClient = {
      prepare: () => {
        throw new Error('nothing may be prepared');
      },
      call: async (operation) => {
        sent.push(operation);
        throw new Error('nothing may be sent');
      },
    };
    const deps = {
      db: t.db,
      gateway,
      subscriptionIpnUrl: 'http://unused.invalid/ipn/subscription',
      secrets: { merchantSecretKey: 'unused', keyring: testCodecKeyring },
    };
    const charge = {
      subscriptionId,
      cycle: 1,
      attempt: 0,
      amount: 40_001,
      dueDate: '2999-01-01',
      nextPaymentDate: '2999-02-01',
      chargedOn: '2999-01-01',
      frequency: 'MONTHLY' as const,
    };
    const refused = await chargeSubscriptionCycle(deps, charge).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(ApplicationFailure);
    expect(refused).toMatchObject({ type: 'charge_above_authorized', nonRetryable: true });
    expect(sent).toEqual([]);
    expect(await getCharge(t.db, `${subscriptionId}-c1`)).toBeUndefined();
  });
});

describe('revenue figures', () => {
  it("add up for a plan's subscriptions: MRR, statuses, new and churned, failed cycles and the share recovered", async () => {
    const plan = await createPlan({ amount: 30_000, trialDays: 1 });
    const start = await today();
    const expiry = addDays(start, 30);
    const steady = await subscribeToPlan(plan.planId, expiry);
    const shortClient = freshId('short', 6);
    const short = await subscribeToPlan(plan.planId, expiry, shortClient);
    const leaving = await subscribeToPlan(plan.planId, expiry);
    expect((await call(t, 'POST', `/v1/subscriptions/${leaving}/cancel`, { reason: 'moved' })).status).toBe(
      200,
    );
    // The first cycle (after the one-day trial) fails for lack of funds; topped up, its retry a day later pays.
    t.sandbox.admin.setCustomerFunds(shortClient, 10_000);
    await skipTo(addDays(start, 1));
    await until(short, (s) => s.status === 'retrying', 'retrying');
    t.sandbox.admin.setCustomerFunds(shortClient, 1_000_000);
    await skipTo(addDays(start, 2));
    await until(
      short,
      (s) =>
        s.charges.some(
          (c: { attempt: number; status: string }) => c.attempt === 1 && c.status === 'succeeded',
        ),
      'recovered',
    );
    await until(steady, (s) => s.charges.length === 2, 'two cycles charged');

    const wallClockDay = new Date().toISOString().slice(0, 10);
    const from = [wallClockDay, start].sort()[0]!;
    const answer = await call(
      t,
      'GET',
      `/v1/revenue?period=month&from=${from}&to=${addDays(start, 2)}`,
      undefined,
      t.viewerKey,
    );
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const figures = answer.body.plans.find((p: { planId: string }) => p.planId === plan.planId);
    // Two DAILY subscriptions billing at 30,000: 2 × 30,000 × 365/12.
    expect(figures.mrrVnd).toBe(1_825_000);
    expect(figures.counts).toEqual({ active: 2, paused: 0, cancelled: 1 });
    const sum = (field: string) =>
      figures.months.reduce((total: number, month: Record<string, number>) => total + month[field]!, 0);
    expect(sum('newSubscriptions')).toBe(3);
    expect(sum('churned')).toBe(1);
    // Cycles 1 and 2 of each subscription still billing; cycle 1 of `short` failed once, then was recovered.
    expect(sum('chargedCycles')).toBe(4);
    expect(sum('collectedVnd')).toBe(120_000);
    expect(sum('failedCycles')).toBe(1);
    expect(sum('recoveredCycles')).toBe(1);
    const failedMonth = figures.months.find((month: { failedCycles: number }) => month.failedCycles === 1);
    expect(failedMonth.recoveredShare).toBe(1);
    // The total is at least this plan's (other files' subscriptions share the database).
    expect(answer.body.total.mrrVnd).toBeGreaterThanOrEqual(figures.mrrVnd);
  });
});
