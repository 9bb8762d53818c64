import { beforeEach, describe, expect, it } from 'vitest';
import { decryptAesToken, parseNotification } from '../../gateway';
import { ids, keys, merchant, movableClock, rawCall, resultCodeOf, useTestGateway } from './support';

const clock = movableClock();
const { gw, ipn } = useTestGateway({ now: clock.now });
beforeEach(() => {
  clock.set(Date.parse('2025-03-10T03:00:00Z')); // 10:00 in Vietnam
});

interface Plan {
  amount?: number;
  type?: 'FIXED' | 'VARIABLE';
  recurringAmount?: number;
  expiryDate?: string;
  nextPaymentDate?: string;
}

type SubscriptionToken = { value: string; initialOrderId: string; userAlias: string; profileId: string };

async function subscribe(plan: Plan = {}, partnerClientId = 'member-42') {
  const recurringAmount = plan.recurringAmount ?? 99_000;
  const request = {
    ...ids('sub'),
    amount: plan.amount ?? recurringAmount,
    orderInfo: 'Gym membership',
    partnerClientId,
    ipnUrl: ipn.url('/subscriptions'),
    redirectUrl: 'https://shop.example/subscribed',
    extraData: '',
    subscriptionInfo: {
      name: 'Gym',
      type: plan.type ?? 'FIXED',
      recurringAmount,
      frequency: 'MONTHLY',
      ...(plan.expiryDate ? { expiryDate: plan.expiryDate } : {}),
      ...(plan.nextPaymentDate ? { nextPaymentDate: plan.nextPaymentDate } : {}),
    },
  };
  const started = await gw.client.call('subscription.start', request);
  expect(started.body.payUrl).toContain(`/pay/${request.orderId}`);
  gw.sandbox.admin.approvePayment(request.orderId);
  const received = await ipn.waitFor((n) => n.body.orderId === request.orderId);
  const notification = parseNotification('payment.resultB', received.raw, keys);
  const created = await gw.client.call('subscription.create', {
    ...ids('sc'),
    orderId: request.orderId,
    partnerClientId,
    callbackToken: String(notification.fields.callbackToken),
  });
  const token = decryptAesToken(created.body.aesToken!, merchant.secretKey) as SubscriptionToken;
  return { request, notification, token, partnerClientId, recurringAmount };
}

type Subscribed = Awaited<ReturnType<typeof subscribe>>;

const charge = (sub: Subscribed, amount = sub.recurringAmount, extra: { nextPaymentDate?: string } = {}) =>
  gw.client.call('subscription.pay', {
    ...ids('cycle'),
    amount,
    token: { value: sub.token.value, initialOrderId: sub.token.initialOrderId },
    partnerClientId: sub.partnerClientId,
    orderInfo: 'Monthly fee',
    extraData: '',
    ...extra,
  });

const manage = (sub: Subscribed, action: 'pause' | 'cancel' | 'reactivate', extra = {}) =>
  gw.client.call('subscription.manage', {
    ...ids('manage'),
    action,
    token: { value: sub.token.value, initialOrderId: sub.token.initialOrderId },
    partnerClientId: sub.partnerClientId,
    ...extra,
  });

describe('subscription authorization and charges', () => {
  it('authorize (first charge) → list-B IPN with callbackToken → aesToken → FIXED charges exactly recurringAmount', async () => {
    const sub = await subscribe();
    expect(sub.notification.fields).toMatchObject({
      resultCode: 0,
      amount: 99_000,
      partnerClientId: 'member-42',
    });
    expect(sub.token).toEqual({
      value: expect.any(String),
      initialOrderId: sub.request.orderId,
      userAlias: expect.stringMatching(/^\*+\d{4}$/),
      profileId: expect.any(String),
    });
    const paid = await charge(sub);
    expect(paid.body).toMatchObject({ resultCode: 0, transId: expect.any(Number), amount: 99_000 });
    expect(await resultCodeOf(charge(sub, 50_000))).toBe(22);
    expect(gw.sandbox.admin.ledger().map((e) => [e.kind, e.amount])).toEqual([
      ['payment', 99_000],
      ['subscription-charge', 99_000],
    ]);
  });

  it('VARIABLE charges up to recurringAmount (22 above it; the sandbox knows the cap)', async () => {
    const sub = await subscribe({
      type: 'VARIABLE',
      recurringAmount: 200_000,
      amount: 0,
      nextPaymentDate: '2025-03-20',
    });
    expect((await charge(sub, 150_000)).resultCode).toBe(0);
    const over = await charge(sub, 200_001).catch((error: unknown) => error);
    expect(over).toMatchObject({ resultCode: 22, message: expect.stringMatching(/recurringAmount 200000/) });
  });

  it('a free trial (amount 0) needs nextPaymentDate (20) and charges nothing at authorization', async () => {
    const missing = await rawCall(gw.sandbox.url, 'subscription.start', {
      ...ids('trial'),
      requestType: 'subscription',
      amount: 0,
      partnerClientId: 'member-1',
      subscriptionInfo: { name: 'Trial', type: 'FIXED', recurringAmount: 10_000, frequency: 'WEEKLY' },
    });
    expect(missing.body.resultCode).toBe(20);
    const sub = await subscribe({ amount: 0, nextPaymentDate: '2025-03-17' });
    expect(gw.sandbox.admin.ledger()).toEqual([]);
    expect(gw.sandbox.admin.subscription(sub.request.orderId)).toMatchObject({
      status: 'active',
      nextPaymentDate: '2025-03-17',
    });
  });

  it('nextPaymentDate: the sent date is kept within 2 days of the calculated one, else the calculated one is used', async () => {
    const sub = await subscribe();
    await charge(sub, undefined, { nextPaymentDate: '2025-04-12' });
    expect(gw.sandbox.admin.subscription(sub.request.orderId)).toMatchObject({
      calculatedNextPaymentDate: '2025-04-10',
      requestedNextPaymentDate: '2025-04-12',
      nextPaymentDate: '2025-04-12',
    });
    await charge(sub, undefined, { nextPaymentDate: '2025-04-20' });
    expect(gw.sandbox.admin.subscription(sub.request.orderId)).toMatchObject({
      requestedNextPaymentDate: '2025-04-20',
      nextPaymentDate: '2025-04-10',
    });
  });

  it('charges are refused from expiryDate on (2102)', async () => {
    const sub = await subscribe({ expiryDate: '2025-04-01' });
    clock.set(Date.parse('2025-03-31T16:59:00Z')); // 23:59 on 31 March in Vietnam
    expect((await charge(sub)).resultCode).toBe(0);
    clock.advance(60_000);
    expect(await resultCodeOf(charge(sub))).toBe(2102);
    expect(await resultCodeOf(manage(sub, 'reactivate'))).toBe(2102);
  });

  it('an unknown token or another partnerClientId answers 2001', async () => {
    const sub = await subscribe();
    expect(await resultCodeOf(charge({ ...sub, token: { ...sub.token, value: 'forged' } }))).toBe(2001);
    expect(await resultCodeOf(charge({ ...sub, partnerClientId: 'someone-else' }))).toBe(2001);
  });
});

describe('subscription states', () => {
  it('two insufficient-funds failures pause it; pay refused; reactivate after the customer confirms; pay works', async () => {
    const sub = await subscribe();
    gw.sandbox.admin.setCustomerFunds(sub.partnerClientId, 1_000);
    expect(await resultCodeOf(charge(sub))).toBe(1001);
    expect(gw.sandbox.admin.subscription(sub.request.orderId)).toMatchObject({
      status: 'active',
      insufficientFundsFailures: 1,
    });
    expect(await resultCodeOf(charge(sub))).toBe(1001);
    expect(gw.sandbox.admin.subscription(sub.request.orderId)?.status).toBe('paused');
    expect(await resultCodeOf(charge(sub))).toBe(2101);

    gw.sandbox.admin.setCustomerFunds(sub.partnerClientId, null);
    const confirmation = {
      ...ids('react'),
      ipnUrl: ipn.url('/reactivation'),
      redirectUrl: 'https://shop.example/reactivated',
    };
    const asked = await manage(sub, 'reactivate', confirmation);
    expect(asked.resultCode).toBe(8000);
    expect(asked.classification.action).toBe('redirect-customer');
    expect(asked.body.payUrl).toContain(`/pay/${confirmation.orderId}`);
    expect(await resultCodeOf(charge(sub))).toBe(2101); // not before the customer confirms

    const confirmed = gw.sandbox.admin.approvePayment(confirmation.orderId);
    expect(confirmed).toMatchObject({
      step: 'reactivation',
      resultCode: 0,
      redirectUrl: expect.stringContaining('shop.example'),
    });
    const received = await ipn.waitFor((n) => n.path === '/reactivation');
    expect(parseNotification('payment.resultB', received.raw, keys).fields).toMatchObject({
      orderId: confirmation.orderId,
      resultCode: 0,
      partnerClientId: sub.partnerClientId,
    });
    expect((await charge(sub)).resultCode).toBe(0);
    expect(
      gw.sandbox.admin
        .ledger()
        .filter((e) => e.kind === 'subscription-charge')
        .map((e) => e.outcome),
    ).toEqual(['failed', 'failed', 'succeeded']);
  });

  it('a "poor" customer fails every charge', async () => {
    const sub = await subscribe({ amount: 0, nextPaymentDate: '2025-03-11' }, 'poor-member');
    expect(await resultCodeOf(charge(sub))).toBe(1001);
  });

  it('pause → pay refused → reactivate only from paused; cancel is permanent', async () => {
    const sub = await subscribe();
    expect(await resultCodeOf(manage(sub, 'reactivate'))).toBe(20); // active: nothing to reactivate
    expect((await manage(sub, 'pause')).resultCode).toBe(0);
    expect(await resultCodeOf(manage(sub, 'pause'))).toBe(2101);
    expect(await resultCodeOf(charge(sub))).toBe(2101);
    expect((await manage(sub, 'cancel')).resultCode).toBe(0);
    expect(await resultCodeOf(charge(sub))).toBe(2100);
    expect(await resultCodeOf(manage(sub, 'reactivate'))).toBe(2100);
    expect(await resultCodeOf(manage(sub, 'cancel'))).toBe(2100);
  });

  it('a declined reactivation leaves it paused', async () => {
    const sub = await subscribe();
    await manage(sub, 'pause');
    const confirmation = { ...ids('react'), ipnUrl: ipn.url('/reactivation') };
    await manage(sub, 'reactivate', confirmation);
    expect(gw.sandbox.admin.declinePayment(confirmation.orderId).resultCode).toBe(1006);
    expect(gw.sandbox.admin.subscription(sub.request.orderId)?.status).toBe('paused');
  });
});
