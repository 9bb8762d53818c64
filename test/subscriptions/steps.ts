/** The steps subscription tests take through the API, against one fixture. */
import { expect } from 'vitest';
import { dayOfGmt7, instantOf } from '../../contracts/subscriptions';
import { call, type SubscriptionFixture } from './stack';
import { eventually } from '../support/wait';
import { freshId } from '../support/ids';
import { activityTypeOf } from '../../platform/local-activity-markers';

/** A fixed monthly subscription of 30,000 VND, no first payment, its first cycle due on `nextPaymentDate`. */
export const fixedMonthly = (nextPaymentDate: string) => ({
  amount: 0,
  subscriptionInfo: { type: 'FIXED', recurringAmount: 30_000, frequency: 'MONTHLY', nextPaymentDate },
});

/** A fixed monthly plan of 30,000 VND with a two-day trial; `overrides` for its other fields. */
export const monthlyPlan = (overrides: Record<string, unknown> = {}) => ({
  code: freshId('PL', 6),
  name: { en: 'Gym monthly', vi: 'Phòng tập hằng tháng' },
  amount: 30_000,
  currency: 'VND',
  frequency: 'MONTHLY',
  type: 'FIXED',
  trialDays: 2,
  ...overrides,
});

/** A dunning schedule that retries six hours later and cancels two days after the pause. */
export const sixHoursThenCancel = (name: string) => ({
  name,
  retry: { afterHours: 6 },
  noticeBeforeAttemptHours: 0,
  afterPause: { sendReactivationLink: false, remindEveryDays: 0, cancelAfterDays: 2 },
});

export function subscriptionSteps(t: SubscriptionFixture) {
  const today = async () => dayOfGmt7(await t.env.currentTimeMs());

  /** Lets workflow time run until 10:00 GMT+7 on `date` (every timer before it fires in order). */
  async function skipTo(date: string) {
    const ms = instantOf(date, 10) - (await t.env.currentTimeMs());
    if (ms > 0) await t.env.sleep(ms);
  }

  async function view(id: string) {
    const answer = await call(t, 'GET', `/v1/subscriptions/${id}`, undefined, t.viewerKey);
    expect(answer.status).toBe(200);
    return answer.body;
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async function until(id: string, check: (body: any) => boolean, what: string) {
    return eventually(async () => {
      const body = await view(id);
      if (check(body)) return body;
      throw new Error(`${id} never reached: ${what}; now ${JSON.stringify(body)}`);
    });
  }

  /** Creates the subscription and returns before the customer approves it. */
  async function create(
    body: { amount: number; subscriptionInfo: Record<string, unknown> },
    client = 'member',
  ) {
    const subscriptionId = freshId('s', 10);
    const partnerClientId = freshId(client, 6);
    const created = await call(t, 'POST', '/v1/subscriptions', {
      subscriptionId,
      partnerClientId,
      orderInfo: 'Gym membership',
      ...body,
      subscriptionInfo: {
        name: 'Gym',
        subsOwner: '0912345678',
        partnerSubsId: 'GYM-1',
        ...body.subscriptionInfo,
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return { subscriptionId, partnerClientId, created };
  }

  /** Creates the subscription, checks the customer's links, has the customer approve, waits for active. */
  async function subscribe(
    body: { amount: number; subscriptionInfo: Record<string, unknown> },
    client = 'member',
  ) {
    const { subscriptionId, partnerClientId, created } = await create(body, client);
    expect(created.body.payUrl).toContain(`/pay/${subscriptionId}`);
    expect(created.body.deeplink).toBeTruthy();
    expect(created.body.qrCodeUrl).toBeTruthy();
    t.sandbox.admin.approvePayment(subscriptionId);
    await until(subscriptionId, (s) => s.status === 'active', 'active');
    return { subscriptionId, partnerClientId };
  }

  /** Activity types the workflow's current run scheduled, in order. */
  async function activitiesOf(workflowId: string) {
    const history = await t.env.client.workflow.getHandle(workflowId).fetchHistory();
    return (history.events ?? []).flatMap((event) => {
      const name = activityTypeOf(event);
      return name ? [name] : [];
    });
  }

  const ledgerOf = (id: string) =>
    t.sandbox.admin.ledger().filter((entry) => entry.orderId === id || entry.orderId.startsWith(`${id}-`));

  return { today, skipTo, view, until, create, subscribe, activitiesOf, ledgerOf };
}
