/**
 * What the console's plans page reads, through the API on the time-skipping server: each plan's count of
 * subscriptions, a plan's own subscriptions (customers masked for a viewer), and a plan's price changes with
 * how far each has got, from waiting on the customers to settled at its cycle.
 */
import { describe, expect, it } from 'vitest';
import { addDays, reauthorizationOrderId } from '../../contracts/subscriptions';
import { freshId } from '../support/ids';
import { createTimeSkippingEnv } from '../support/temporal';
import { eventually } from '../support/wait';
import { call, useSubscriptionStack } from './stack';
import { subscriptionSteps } from './steps';

const t = useSubscriptionStack(createTimeSkippingEnv);
const { today, skipTo, until } = subscriptionSteps(t);

async function createPlan() {
  const code = freshId('PO', 6);
  const created = await call(t, 'POST', '/v1/plans', {
    code,
    name: { en: 'Swim monthly', vi: 'Bơi hằng tháng' },
    amount: 40_000,
    currency: 'VND',
    frequency: 'DAILY',
    type: 'FIXED',
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return code;
}

async function subscribe(planId: string, expiryDate: string) {
  const subscriptionId = freshId('po', 10);
  const partnerClientId = freshId('swimmer', 6);
  const created = await call(t, 'POST', `/v1/plans/${planId}/subscriptions`, {
    subscriptionId,
    partnerClientId,
    expiryDate,
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  t.sandbox.admin.approvePayment(subscriptionId);
  await until(subscriptionId, (s) => s.status === 'active', 'active');
  return { subscriptionId, partnerClientId };
}

const planOf = async (planId: string) => {
  const listed = await call(t, 'GET', '/v1/plans', undefined, t.viewerKey);
  expect(listed.status).toBe(200);
  return listed.body.plans.find((plan: { planId: string }) => plan.planId === planId);
};

describe("the plans page's reads", () => {
  it("counts each plan's subscriptions and lists a plan's own, masking customers for a viewer", async () => {
    const plan = await createPlan();
    const other = await createPlan();
    const empty = await createPlan();
    const expiry = addDays(await today(), 30);
    const first = await subscribe(plan, expiry);
    const second = await subscribe(plan, expiry);
    const elsewhere = await subscribe(other, expiry);
    expect(
      (await call(t, 'POST', `/v1/subscriptions/${second.subscriptionId}/cancel`, { reason: 'moved' }))
        .status,
    ).toBe(200);
    await until(second.subscriptionId, (s) => s.status === 'cancelled', 'cancelled');

    expect((await planOf(plan)).subscriptionCount).toEqual({ total: 2, billing: 1 });
    expect((await planOf(other)).subscriptionCount).toEqual({ total: 1, billing: 1 });
    expect((await planOf(empty)).subscriptionCount).toEqual({ total: 0, billing: 0 });

    const seen = await call(t, 'GET', `/v1/plans/${plan}/subscriptions`);
    expect(seen.status).toBe(200);
    expect(
      seen.body.subscriptions.map((s: { subscriptionId: string; partnerClientId: string }) => [
        s.subscriptionId,
        s.partnerClientId,
      ]),
    ).toEqual([
      [second.subscriptionId, second.partnerClientId],
      [first.subscriptionId, first.partnerClientId],
    ]);
    const masked = await call(
      t,
      'GET',
      `/v1/plans/${plan}/subscriptions?status=active`,
      undefined,
      t.viewerKey,
    );
    expect(masked.body.subscriptions).toEqual([
      expect.objectContaining({
        subscriptionId: first.subscriptionId,
        partnerClientId: `****${first.partnerClientId.slice(-4)}`,
        planId: plan,
      }),
    ]);
    expect(JSON.stringify(masked.body)).not.toContain(elsewhere.subscriptionId);

    for (const path of ['subscriptions', 'price-changes']) {
      const unknown = await call(t, 'GET', `/v1/plans/${freshId('NOPE', 6)}/${path}`, undefined, t.viewerKey);
      expect(unknown.status, path).toBe(404);
      expect(unknown.body.error.code).toBe('not_found');
    }
  });

  it("shows a plan's price change pending while its customers decide, then settled at its cycle", async () => {
    const plan = await createPlan();
    const start = await today();
    const expiry = addDays(start, 12);
    const agrees = await subscribe(plan, expiry);
    const ignores = await subscribe(plan, expiry);
    const effective = addDays(start, 3);
    const body = { newAmount: 45_000, effectiveCycle: effective, ifNotReauthorized: 'charge_old' };
    const scheduled = await call(t, 'POST', `/v1/plans/${plan}/price-changes`, body);
    expect(scheduled.status, JSON.stringify(scheduled.body)).toBeLessThan(300);

    const changesOf = async () => {
      const answer = await call(t, 'GET', `/v1/plans/${plan}/price-changes`, undefined, t.viewerKey);
      expect(answer.status).toBe(200);
      return answer.body.priceChanges;
    };
    // The plan's change reaches each subscription through its own workflow (planPriceChange), so the
    // re-authorization order exists a moment after the 202.
    await eventually(() => t.sandbox.admin.approvePayment(reauthorizationOrderId(agrees.subscriptionId, 1)));
    await eventually(async () => {
      expect(await changesOf()).toEqual([
        expect.objectContaining({
          newAmount: 45_000,
          effectiveCycle: effective,
          ifNotReauthorized: 'charge_old',
          subscriptions: 2,
          pending: 2,
          settled: 0,
          statuses: { authorized: 1, awaiting_authorization: 1 },
        }),
      ]);
    });

    await skipTo(addDays(effective, 1));
    for (const { subscriptionId } of [agrees, ignores])
      await until(subscriptionId, (s) => s.nextPaymentDate > effective, 'the change cycle charged');
    await eventually(async () => {
      expect(await changesOf()).toEqual([
        expect.objectContaining({
          subscriptions: 2,
          pending: 0,
          settled: 2,
          statuses: { applied: 1, charged_old: 1 },
        }),
      ]);
    });
  });
});
