/** One-time payments, refunds, POS and terminal settlement through the API, on the time-skipping server, against the sandbox. */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { paymentWorkflowId, terminalSettlementWorkflowId } from '../../contracts/payments';
import { captureHistory } from '../support/history-capture';
import { createTimeSkippingEnv } from '../support/temporal';
import { eventually } from '../support/wait';
import { call, usePaymentStack } from './payment-stack';
import { freshId } from '../support/ids';
import { buildNotification } from '../../gateway';
import { ipnPaths } from '../../platform/ipn-paths';
import { testMerchant } from '../support/settings';

const fixture = usePaymentStack(createTimeSkippingEnv);

// `_` and hex: no ending payrun derives gateway ids with (gateway/ids.ts), which the API refuses.
const newId = (prefix = 'p') => `${prefix}_${randomUUID().replaceAll('-', '').slice(0, 12)}`;

async function pay(body: Record<string, unknown>) {
  const paymentId = newId();
  const created = await call(fixture, 'POST', '/v1/payments', { paymentId, ...body });
  return { paymentId, created };
}

/** Polls payrun's records until the payment reaches one of `statuses`; `skip` moves Temporal's clock between looks. */
const skipping = (skip?: string) => ({ between: skip ? () => fixture.env.sleep(skip) : undefined });

async function paymentIn(paymentId: string, statuses: string[], skip?: string) {
  return eventually(async () => {
    const view = await call(fixture, 'GET', `/v1/payments/${paymentId}`);
    if (statuses.includes(view.body.status)) return view.body;
    throw new Error(`${paymentId} is ${view.body.status}, not ${statuses.join('/')}`);
  }, skipping(skip));
}

async function refundIn(paymentId: string, refundId: string, statuses: string[], skip?: string) {
  return eventually(async () => {
    const { body } = await call(fixture, 'GET', `/v1/payments/${paymentId}/refunds`);
    const found = body.refunds.find((entry: { refundId: string }) => entry.refundId === refundId);
    if (found && statuses.includes(found.status)) return found;
    throw new Error(`${refundId} is ${found?.status}, not ${statuses.join('/')}`);
  }, skipping(skip));
}

const approve = (orderId: string, options?: Parameters<typeof fixture.sandbox.admin.approvePayment>[1]) =>
  fixture.sandbox.admin.approvePayment(orderId, options);

/** A succeeded payment, ready to refund. */
async function paidPayment(body: Record<string, unknown>, options?: Parameters<typeof approve>[1]) {
  const { paymentId, created } = await pay(body);
  expect(created.status).toBe(201);
  approve(paymentId, options);
  return paymentIn(paymentId, ['succeeded']);
}

const refundsOf = (orderId: string) =>
  fixture.sandbox.admin.ledger().filter((entry) => entry.kind === 'refund' && entry.refundOf === orderId);

const email = { email: 'buyer@example.com', name: 'Buyer' };

describe('one-time payments', () => {
  const cases: Array<[string, Record<string, unknown>, string, Parameters<typeof approve>[1]?]> = [
    ['captureWallet', {}, 'webApp'],
    ['payWithCC', { userInfo: email }, 'credit'],
    ['payWithPlatformPayA', { userInfo: email }, 'web'],
    ['payWithPlatformPayB', { userInfo: email }, 'web'],
    ['onDelivery', {}, 'qr'],
    ['payWithVTS', {}, 'webApp'],
    ['payWithEdc', { storeId: 'store-a', instrumentType: 'QR' }, 'aio_qr'],
    ['payWithMethod', {}, 'domestic', { method: 'domestic' }],
  ];
  it.each(cases)(
    '%s: links for the customer, then the IPN decides',
    async (requestType, extra, payType, options) => {
      const { paymentId, created } = await pay({
        requestType,
        amount: 150_000,
        orderInfo: `Order by ${requestType}`,
        extraData: { cart: 'c-1' },
        items:
          requestType === 'payWithMethod'
            ? [{ name: 'Tea', quantity: 1, amount: 150_000 }]
            : [
                {
                  id: 'sku-1',
                  name: 'Tea',
                  price: 150_000,
                  quantity: 1,
                  totalPrice: 150_000,
                  currency: 'VND',
                },
              ],
        ...extra,
      });
      expect(created.status).toBe(201);
      if (requestType === 'payWithEdc') expect(created.body.status).toBe('pending');
      else {
        expect(created.body.status).toBe('awaiting_customer');
        expect(created.body.payUrl).toMatch(/^http/);
      }
      if (requestType === 'captureWallet') expect(created.body.deeplink).toBeTruthy();
      if (requestType === 'payWithMethod') expect(created.body.shortLink).toBeTruthy();
      approve(paymentId, options);
      const done = await paymentIn(paymentId, ['succeeded', 'failed']);
      expect(done).toMatchObject({ status: 'succeeded', resultCode: 0, payType, amount: 150_000 });
      expect(done.transId).toMatch(/^\d+$/);
      // The one-time card flow is acknowledged with the spec's signed JSON (200); the others with 204.
      // The payment can be settled by a query before the notification's delivery is logged: wait for it.
      await eventually(() => {
        const delivered = fixture.sandbox.admin
          .ipnLog()
          .filter((entry) => entry.orderId === paymentId && entry.attempt > 0);
        expect(delivered.map((entry) => entry.httpStatus)).toContain(requestType === 'payWithCC' ? 200 : 204);
      });
    },
  );

  it('records a declined payment as failed, with the gateway code', async () => {
    const { paymentId } = await pay({ requestType: 'captureWallet', amount: 80_000 });
    fixture.sandbox.admin.declinePayment(paymentId);
    expect(await paymentIn(paymentId, ['succeeded', 'failed'])).toMatchObject({
      status: 'failed',
      resultCode: 1006,
    });
  });

  it('shows promotions of a notification as unverified, and autoCapture false as authorized, not captured', async () => {
    const { paymentId } = await pay({ requestType: 'captureWallet', amount: 90_000, autoCapture: false });
    approve(paymentId, { voucher: { amount: 5000, name: 'Tet' } });
    const done = await paymentIn(paymentId, ['authorized_not_captured', 'succeeded', 'failed']);
    expect(done.status).toBe('authorized_not_captured');
    // The notification decided the payment; its promotionInfo is outside list A, so it is not a fact.
    expect(done.promotions).toEqual([]);
    expect(done.unverified.fields.promotionInfo).toEqual([expect.objectContaining({ amount: 5000 })]);
    const refused = await call(fixture, 'POST', `/v1/payments/${paymentId}/refunds`, { amount: 1000 });
    expect(refused).toMatchObject({ status: 409, body: { error: { code: 'payment_not_refundable' } } });
  });

  it('does not present unsigned fields of a validly signed notification as facts', async () => {
    fixture.sandbox.admin.setFaults({ operation: 'payment.captureWallet', ipn: { drop: true } });
    try {
      const { paymentId, created } = await pay({ requestType: 'captureWallet', amount: 70_000 });
      expect(created.status).toBe(201);
      approve(paymentId);
      // The gateway's own notification is lost; one signed with the merchant's key arrives instead, with
      // fields outside list A set by whoever relayed it.
      const transId = 4_100_000_777;
      const signed = buildNotification(
        'payment.resultA',
        {
          partnerCode: testMerchant.partnerCode,
          orderId: created.body.orderId,
          requestId: freshId('ipn-'),
          amount: 70_000,
          orderInfo: created.body.orderInfo ?? '',
          orderType: 'svc_wallet',
          transId,
          resultCode: 0,
          message: 'Successful.',
          payType: 'webApp',
          responseTime: 1_763_800_000_000,
          extraData: '',
        },
        testMerchant,
      );
      const forged = {
        paymentOption: 'FORGED',
        promotionInfo: [{ amount: 999_999, voucherId: 'FORGED' }],
        cardPaymentInfo: { cardType: 'FORGED', cardNumber: '4111111111111111' },
        userFee: 999_999,
      };
      const answer = await fetch(`${fixture.api.baseUrl}${ipnPaths.payment}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...signed, ...forged }),
      });
      expect(answer.status).toBe(204);

      const done = await paymentIn(paymentId, ['succeeded', 'failed']);
      // The signed fields decided it (this transId is the notification's, not the sandbox's).
      expect(done).toMatchObject({ status: 'succeeded', transId: String(transId), payType: 'webApp' });
      const facts = JSON.stringify({ ...done, unverified: undefined });
      expect(facts).not.toContain('FORGED');
      expect(facts).not.toContain('999999');
      expect(done.promotions).toEqual([]);
      // Shown apart, under a name that says what they are.
      expect(done.unverified).toMatchObject({
        source: 'notification',
        fields: {
          paymentOption: 'FORGED',
          promotionInfo: [{ amount: 999_999, voucherId: 'FORGED' }],
          cardPaymentInfo: { cardType: 'FORGED', cardNumber: '************1111' },
          userFee: 999_999,
        },
      });
    } finally {
      fixture.sandbox.admin.clearFaults();
    }
  });

  it('resolves a dropped IPN with api/query', async () => {
    fixture.sandbox.admin.setFaults({ operation: 'payment.captureWallet', ipn: { drop: true } });
    try {
      const { paymentId } = await pay({ requestType: 'captureWallet', amount: 120_000 });
      const answer = approve(paymentId);
      // The customer's redirect shows the result but changes nothing: only the IPN or the query do.
      const page = await fetch(answer.redirectUrl!);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('Payment received');
      expect((await call(fixture, 'GET', `/v1/payments/${paymentId}`)).body.status).toBe('awaiting_customer');
      const done = await paymentIn(paymentId, ['succeeded', 'failed'], '6 seconds');
      expect(done).toMatchObject({ status: 'succeeded', payType: 'webApp' });
      const log = fixture.sandbox.admin.ipnLog().filter((entry) => entry.orderId === paymentId);
      expect(log.map((entry) => entry.outcome)).toEqual(['dropped']);
    } finally {
      fixture.sandbox.admin.clearFaults();
    }
  });

  it('treats 7000 as not final and waits for the final result', async () => {
    const { paymentId } = await pay({ requestType: 'captureWallet', amount: 107_000 });
    approve(paymentId);
    const done = await paymentIn(paymentId, ['succeeded', 'failed']);
    expect(done).toMatchObject({ status: 'succeeded', resultCode: 0 });
    const log = fixture.sandbox.admin.ipnLog().filter((entry) => entry.orderId === paymentId);
    expect(log.map((entry) => entry.resultCode)).toEqual([7000, 0]);
  });

  it('refuses a forged redirect and bad input with field names', async () => {
    const { paymentId } = await pay({ requestType: 'captureWallet', amount: 60_000 });
    const url = new URL(approve(paymentId).redirectUrl!);
    url.searchParams.set('amount', '1');
    expect((await fetch(url)).status).toBe(400);

    const noEmail = await pay({ requestType: 'payWithCC', amount: 20_000 });
    expect(noEmail.created.status).toBe(400);
    expect(noEmail.created.body.error.problems[0].field).toBe('body.userInfo');
    const tooBig = await pay({ requestType: 'payWithCC', amount: 10_000_001, userInfo: email });
    expect(tooBig.created.body.error.problems[0]).toMatchObject({ field: 'body.amount' });
    const edc = await pay({ requestType: 'payWithEdc', amount: 10_000 });
    expect(edc.created.body.error.problems[0].field).toBe('body.storeId');
    const many = await pay({
      requestType: 'captureWallet',
      amount: 10_000,
      items: Array.from({ length: 51 }, () => ({ name: 'x', price: 1, quantity: 1, totalPrice: 1 })),
    });
    expect(many.created.body.error.problems[0].field).toBe('body.items');
    const viewer = await call(
      fixture,
      'POST',
      '/v1/payments',
      { paymentId: newId(), requestType: 'captureWallet', amount: 10_000 },
      fixture.viewerKey,
    );
    expect(viewer.status).toBe(403);
  });
});

describe('refunds', () => {
  it('refunds in full', async () => {
    const payment = await paidPayment({ requestType: 'captureWallet', amount: 50_000 });
    const refund = await call(fixture, 'POST', `/v1/payments/${payment.paymentId}/refunds`, {
      amount: 50_000,
    });
    expect(refund.status).toBe(201);
    expect(refund.body).toMatchObject({
      orderId: `${payment.paymentId}-r1`,
      status: 'succeeded',
      resultCode: 0,
    });
    const after = await call(fixture, 'GET', `/v1/payments/${payment.paymentId}`);
    expect(after.body).toMatchObject({ refundedAmount: 50_000, refundableAmount: 0 });
  });

  it('refunds twice in part, then refuses more than what is left before asking the gateway', async () => {
    const payment = await paidPayment({ requestType: 'captureWallet', amount: 50_000 });
    const path = `/v1/payments/${payment.paymentId}/refunds`;
    expect((await call(fixture, 'POST', path, { amount: 20_000 })).body.status).toBe('succeeded');
    expect((await call(fixture, 'POST', path, { amount: 25_000 })).body.status).toBe('succeeded');
    const tooMuch = await call(fixture, 'POST', path, { amount: 6000 });
    expect(tooMuch).toMatchObject({ status: 409, body: { error: { code: 'refund_exceeds_remaining' } } });
    expect(tooMuch.body.error.message).toContain('5000 VND');
    expect(refundsOf(payment.paymentId).map((entry) => entry.amount)).toEqual([20_000, 25_000]);
    const list = await call(fixture, 'GET', path, undefined, fixture.viewerKey);
    expect(list.body.refunds.map((entry: { seq: number }) => entry.seq)).toEqual([1, 2]);
    await captureHistory(
      fixture.env.client,
      paymentWorkflowId(payment.paymentId),
      'wallet-paid-then-refunded',
    );
    for (const [index, entry] of list.body.refunds.entries())
      await captureHistory(fixture.env.client, entry.workflowId, `partial-${index + 1}`);
  });

  it('lets only one of two concurrent refunds take the remaining amount', async () => {
    const payment = await paidPayment({ requestType: 'captureWallet', amount: 40_000 });
    const path = `/v1/payments/${payment.paymentId}/refunds`;
    const answers = await Promise.all([
      call(fixture, 'POST', path, { amount: 30_000 }),
      call(fixture, 'POST', path, { amount: 30_000 }),
    ]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409]);
    expect(refundsOf(payment.paymentId)).toHaveLength(1);
  });

  it('applies the domestic card minimum of 10 000', async () => {
    const payment = await paidPayment(
      { requestType: 'payWithMethod', amount: 60_000 },
      { method: 'domestic' },
    );
    const low = await call(fixture, 'POST', `/v1/payments/${payment.paymentId}/refunds`, { amount: 5000 });
    expect(low).toMatchObject({ status: 400, body: { error: { code: 'refund_below_minimum' } } });
  });

  it('refunds per item: one item succeeds while the other stays pending, then settles', async () => {
    const payment = await paidPayment({ requestType: 'payWithVTS', amount: 100_000 });
    const refund = await call(fixture, 'POST', `/v1/payments/${payment.paymentId}/refunds`, {
      amount: 37_002,
      description: 'two items back',
      items: [
        { itemId: 'shoes', amount: 20_000 },
        { itemId: 'socks', amount: 17_002 },
      ],
    });
    expect(refund.status).toBe(201);
    expect(refund.body.status).toBe('pending');
    expect(refund.body.items).toEqual([
      expect.objectContaining({ itemId: 'shoes', status: 'succeeded', resultCode: 0 }),
      expect.objectContaining({ itemId: 'socks', status: 'pending', resultCode: 7002 }),
    ]);
    const done = await refundIn(
      payment.paymentId,
      refund.body.refundId,
      ['succeeded', 'failed'],
      '6 seconds',
    );
    expect(done.status).toBe('succeeded');
    expect(done.items.map((item: { status: string }) => item.status)).toEqual(['succeeded', 'succeeded']);
  });
});

describe('card terminal and POS', () => {
  it('refunds a terminal card payment before settlement and refuses it after', async () => {
    const serialNumber = freshId('SN-', 8);
    const body = { requestType: 'payWithEdc', storeId: 'store-t', serialNumber, instrumentType: 'CARD' };
    const first = await paidPayment({ ...body, amount: 300_000 });
    expect(first.payType).toBe('edcDevice');
    const second = await paidPayment({ ...body, amount: 200_000 });
    const before = await call(fixture, 'POST', `/v1/payments/${first.paymentId}/refunds`, {
      amount: 100_000,
    });
    expect(before.body.status).toBe('succeeded');

    const settled = await call(fixture, 'POST', '/v1/terminals/settle', { storeId: 'store-t', serialNumber });
    expect(settled).toMatchObject({
      status: 201,
      body: { status: 'settled', resultCode: 0, settledPayments: 2 },
    });

    const after = await call(fixture, 'POST', `/v1/payments/${second.paymentId}/refunds`, { amount: 50_000 });
    expect(after).toMatchObject({ status: 409, body: { error: { code: 'terminal_payment_settled' } } });
    expect(refundsOf(second.paymentId)).toHaveLength(0);
    await captureHistory(
      fixture.env.client,
      terminalSettlementWorkflowId(settled.body.settlementId),
      'two-card-payments-settled',
    );
  });

  it('takes a POS quick payment with an encrypted payment code', async () => {
    const paymentId = newId('pos');
    const created = await call(fixture, 'POST', '/v1/pos-payments', {
      paymentId,
      storeId: 'store-p',
      amount: 250_000,
      paymentCode: 'MM515023727957',
      orderInfo: 'Counter 3',
    });
    expect(created.status).toBe(201);
    expect(created.body.status).toBe('succeeded');
    expect(created.body.transId).toBeTruthy();
    // The POS answer has no payType: the IPN (or, when it is late, api/query) brings it.
    await eventually(async () =>
      expect((await call(fixture, 'GET', `/v1/payments/${paymentId}`)).body.payType).toBe('app'),
    );
    const refund = await call(fixture, 'POST', `/v1/payments/${paymentId}/refunds`, { amount: 250_000 });
    expect(refund.body.status).toBe('succeeded');

    const outOfRange = await call(fixture, 'POST', '/v1/pos-payments', {
      paymentId: newId('pos'),
      storeId: 'store-p',
      amount: 5_000_001,
      paymentCode: 'MM515023727957',
    });
    expect(outOfRange.body.error.problems[0].field).toBe('body.amount');
  });
});
