import { describe, expect, it } from 'vitest';
import { parseNotification, parseRedirectQuery, type OperationName } from '../../gateway';
import { ids, keys, rawCall, resultCodeOf, startTestGateway, useTestGateway } from './support';

const { gw, ipn } = useTestGateway();

const email = { userInfo: { email: 'buyer@example.com' } };
const redirectUrl = 'https://shop.example/return';

const wallet = (amount = 150_000, label = 'cw') => ({
  ...ids(label),
  amount,
  orderInfo: 'Order at the shop',
  redirectUrl,
  ipnUrl: ipn.url('/payments'),
  extraData: '',
});

async function paidWallet(amount = 150_000) {
  const request = wallet(amount);
  await gw.client.call('payment.captureWallet', request);
  const approved = gw.sandbox.admin.approvePayment(request.orderId);
  return { request, transId: approved.transId! };
}

const ipnFor = (orderId: string, resultCode?: number) =>
  ipn.waitFor(
    (n) => n.body.orderId === orderId && (resultCode === undefined || n.body.resultCode === resultCode),
  );

describe('api/create → customer → IPN, redirect and query', () => {
  it('captureWallet: signed answer with links; the hosted page approves; signed IPN (list A) and redirect', async () => {
    const request = wallet();
    const created = await gw.client.call('payment.captureWallet', request); // the client checks the signature
    expect(created.classification.action).toBe('redirect-customer');
    expect(created.body.payUrl).toBe(`${gw.sandbox.url}/pay/${request.orderId}`);
    expect(created.body).toMatchObject({
      deeplink: expect.stringContaining(request.orderId),
      qrCodeUrl: expect.any(String),
      deeplinkMiniApp: expect.any(String),
      amount: 150_000,
    });

    const page = await fetch(created.body.payUrl!);
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(html).toMatch(/<button[^>]*type="submit"[^>]*autofocus>Approve<\/button>/);
    expect(html).toContain('Decline');

    const approved = await fetch(`${created.body.payUrl}/approve`, { method: 'POST', redirect: 'manual' });
    expect(approved.status).toBe(303);
    const location = new URL(approved.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(redirectUrl);
    const redirect = parseRedirectQuery('payment.resultA', location.search, keys);
    expect(redirect.fields).toMatchObject({ orderId: request.orderId, resultCode: 0 });

    const received = await ipnFor(request.orderId);
    const notification = parseNotification('payment.resultA', received.raw, keys);
    expect(notification.fields).toMatchObject({
      orderId: request.orderId,
      requestId: request.requestId,
      amount: 150_000,
      resultCode: 0,
      orderType: 'svc_wallet',
      payType: 'webApp',
    });

    const query = await gw.client.call('payment.query', { ...ids('q'), orderId: request.orderId });
    expect(query.body).toMatchObject({
      resultCode: 0,
      transId: notification.fields.transId,
      amount: 150_000,
      payType: 'webApp',
      refundTrans: [],
      lastUpdated: expect.any(Number),
    });
    expect(gw.sandbox.admin.ledger()).toEqual([
      expect.objectContaining({
        orderId: request.orderId,
        kind: 'payment',
        outcome: 'succeeded',
        method: 'wallet',
      }),
    ]);
  });

  const variants: [
    OperationName,
    Record<string, unknown>,
    string[],
    'payment.resultA' | 'payment.resultB',
    string,
  ][] = [
    ['payment.payWithCC', email, ['payUrl'], 'payment.resultB', 'credit'],
    ['payment.payWithPlatformPayA', email, ['payUrl'], 'payment.resultA', 'web'],
    ['payment.payWithPlatformPayB', email, ['payUrl'], 'payment.resultA', 'web'],
    ['payment.onDelivery', {}, ['payUrl', 'qrCodeUrl'], 'payment.resultA', 'qr'],
    ['payment.payWithVTS', {}, ['payUrl', 'deeplink'], 'payment.resultA', 'webApp'],
    ['payment.payWithMethod', {}, ['payUrl', 'shortLink', 'qrCodeUrl'], 'payment.resultA', 'qr'],
  ];
  it.each(variants)(
    '%s answers its links and reports with its list',
    async (operation, extra, links, kind, payType) => {
      const request = { ...wallet(200_000, 'variant'), ...extra };
      const created = await gw.client.call(operation, request as never);
      expect(created.resultCode).toBe(0);
      for (const link of links) expect(created.body[link]).toEqual(expect.any(String));
      gw.sandbox.admin.approvePayment(request.orderId);
      const notification = parseNotification(kind, (await ipnFor(request.orderId)).raw, keys);
      expect(notification.fields).toMatchObject({ resultCode: 0, payType });
    },
  );

  it('payWithMethod: the shortLink leads to the page; a card below 10000 is refused, the wallet works', async () => {
    const request = wallet(5_000, 'method');
    const created = await gw.client.call('payment.payWithMethod', request);
    const short = await fetch(created.body.shortLink!, { redirect: 'manual' });
    expect(short.headers.get('location')).toBe(`/pay/${request.orderId}`);
    expect(gw.sandbox.admin.approvePayment(request.orderId, { method: 'credit' }).resultCode).toBe(22);
    const paid = gw.sandbox.admin.approvePayment(request.orderId, {
      method: 'wallet',
      voucher: { amount: 1000 },
    });
    expect(paid.resultCode).toBe(0);
    const query = await gw.client.call('payment.query', { ...ids('q'), orderId: request.orderId });
    expect(query.body.promotionInfo).toEqual([
      expect.objectContaining({ amount: 1000, voucherType: 'Fixed' }),
    ]);
  });

  it('the customer declines: IPN 1006, query answers 1006, nothing moves', async () => {
    const request = wallet();
    await gw.client.call('payment.captureWallet', request);
    const declined = gw.sandbox.admin.declinePayment(request.orderId);
    expect(declined).toMatchObject({
      resultCode: 1006,
      redirectUrl: expect.stringContaining('resultCode=1006'),
    });
    expect((await ipnFor(request.orderId)).body.resultCode).toBe(1006);
    expect(
      await resultCodeOf(gw.client.call('payment.query', { ...ids('q'), orderId: request.orderId })),
    ).toBe(1006);
    expect(() => gw.sandbox.admin.approvePayment(request.orderId)).toThrow(/no order .* is waiting/);
  });

  it('before the customer acts, query answers 7000; amount ending 7000 reports 7000 then 0', async () => {
    const request = wallet(127_000);
    await gw.client.call('payment.captureWallet', request);
    expect(
      (await gw.client.call('payment.query', { ...ids('q'), orderId: request.orderId })).resultCode,
    ).toBe(7000);
    expect(gw.sandbox.admin.approvePayment(request.orderId).resultCode).toBe(7000);
    await ipnFor(request.orderId, 7000);
    expect(gw.sandbox.admin.ledger()[0]).toMatchObject({ outcome: 'pending' });
    await ipnFor(request.orderId, 0);
    expect(
      (await gw.client.call('payment.query', { ...ids('q'), orderId: request.orderId })).resultCode,
    ).toBe(0);
    expect(gw.sandbox.admin.ledger()).toEqual([
      expect.objectContaining({ outcome: 'succeeded', resultCode: 0 }),
    ]);
  });

  it('amount ending 1001: the customer cannot pay (1001)', async () => {
    const request = wallet(101_001);
    await gw.client.call('payment.captureWallet', request);
    expect(gw.sandbox.admin.approvePayment(request.orderId).resultCode).toBe(1001);
    expect((await ipnFor(request.orderId)).body.resultCode).toBe(1001);
  });

  it('orderId reuse answers 41; the same requestId again answers 40, never the first answer', async () => {
    const request = wallet();
    const first = await gw.client.call('payment.captureWallet', request);
    expect(first.resultCode).toBe(0);
    const again = await gw.client.call('payment.captureWallet', request);
    expect(again.resultCode).toBe(40);
    expect(again.body.payUrl).toBeUndefined();
    const reuse = await gw.client.call('payment.captureWallet', {
      ...request,
      requestId: ids('x').requestId,
    });
    expect(reuse.resultCode).toBe(41);
  });

  it('over HTTP: approve and decline endpoints, 404 when nothing waits', async () => {
    const request = wallet();
    await gw.client.call('payment.captureWallet', request);
    const listed = await (await fetch(`${gw.sandbox.url}/__sandbox/customer`)).json();
    expect(listed).toEqual([expect.objectContaining({ orderId: request.orderId, step: 'payment' })]);
    const approve = await fetch(`${gw.sandbox.url}/__sandbox/payments/${request.orderId}/approve`, {
      method: 'POST',
      body: JSON.stringify({ payType: 'app' }),
    });
    expect(await approve.json()).toMatchObject({
      resultCode: 0,
      redirectUrl: expect.stringContaining('payType=app'),
    });
    const again = await fetch(`${gw.sandbox.url}/__sandbox/payments/${request.orderId}/decline`, {
      method: 'POST',
    });
    expect(again.status).toBe(404);
  });
});

describe('autoApprove', () => {
  it('the simulated customer pays without a click; amounts ending 1006 are declined', async () => {
    const auto = await startTestGateway({ autoApprove: true, timing: { customerDelayMs: 5 } });
    try {
      const paid = wallet(50_000, 'auto');
      const refused = wallet(51_006, 'auto');
      await auto.client.call('payment.captureWallet', paid);
      await auto.client.call('payment.captureWallet', refused);
      expect((await ipnFor(paid.orderId)).body.resultCode).toBe(0);
      expect((await ipnFor(refused.orderId)).body.resultCode).toBe(1006);
    } finally {
      await auto.close();
    }
  });
});

describe('api/refund and api/refund/query', () => {
  it('full refund', async () => {
    const { request, transId } = await paidWallet(300_000);
    const refund = await gw.client.call('refund.create', {
      ...ids('rf'),
      amount: 300_000,
      transId,
      description: 'all',
    });
    expect(refund.body).toMatchObject({ resultCode: 0, amount: 300_000, transId: expect.any(Number) });
    const query = await gw.client.call('payment.query', { ...ids('q'), orderId: request.orderId });
    expect(query.body.refundTrans).toEqual([expect.objectContaining({ amount: 300_000, resultCode: 0 })]);
  });

  it('two partial refunds, then one more than is left is refused (22) and moves nothing', async () => {
    const { transId } = await paidWallet(300_000);
    await gw.client.call('refund.create', { ...ids('rf'), amount: 100_000, transId });
    await gw.client.call('refund.create', { ...ids('rf'), amount: 150_000, transId });
    const over = gw.client.call('refund.create', { ...ids('rf'), amount: 60_000, transId });
    await expect(over).rejects.toMatchObject({
      resultCode: 22,
      message: expect.stringMatching(/refundable amount 50000/),
    });
    expect(
      gw.sandbox.admin
        .ledger()
        .filter((e) => e.kind === 'refund')
        .map((e) => e.amount),
    ).toEqual([100_000, 150_000]);
  });

  it('transGroup: one item stays 7002 while the others succeed; refund/query follows it to 0', async () => {
    const { transId } = await paidWallet(300_000);
    const request = {
      ...ids('grp'),
      amount: 117_002,
      transId,
      transGroup: [
        { itemId: 'a', amount: 50_000, transId },
        { itemId: 'b', amount: 67_002, transId },
      ],
    };
    const refund = await gw.client.call('refund.create', request);
    expect(refund.resultCode).toBe(7002);
    expect(refund.body.transGroup).toEqual([
      expect.objectContaining({ itemId: 'a', resultCode: 0, refundTransId: expect.any(Number) }),
      { itemId: 'b', amount: 67_002, resultCode: 7002, message: expect.any(String) },
    ]);
    const pending = await gw.client.call('refund.query', { ...ids('rq'), orderId: request.orderId });
    expect(pending.body.items).toEqual([
      expect.objectContaining({ id: 'a', resultCode: 0, refundAmount: '50000' }),
      expect.objectContaining({ id: 'b', resultCode: 7002, refundCount: '0' }),
    ]);
    gw.sandbox.admin.settlePending();
    const settled = await gw.client.call('refund.query', { ...ids('rq'), orderId: request.orderId });
    expect(settled.body).toMatchObject({
      resultCode: 0,
      refundTrans: [expect.objectContaining({ amount: 117_002 })],
    });
  });

  it('a refund ending 1002 is refused; an unknown transId answers 42; refund/query of nothing answers 42', async () => {
    const { transId } = await paidWallet(300_000);
    expect(
      await resultCodeOf(gw.client.call('refund.create', { ...ids('rf'), amount: 11_002, transId })),
    ).toBe(1002);
    expect(
      await resultCodeOf(gw.client.call('refund.create', { ...ids('rf'), amount: 10_000, transId: 42 })),
    ).toBe(42);
    expect(await resultCodeOf(gw.client.call('refund.query', ids('rq')))).toBe(42);
  });

  it('a domestic card payment refunds at least 10000 (the sandbox knows the method)', async () => {
    const request = wallet(200_000, 'dom');
    await gw.client.call('payment.payWithMethod', request);
    const { transId } = gw.sandbox.admin.approvePayment(request.orderId, { method: 'domestic' });
    const small = await rawCall(gw.sandbox.url, 'refund.create', { ...ids('rf'), amount: 5_000, transId });
    expect(small.body).toMatchObject({ resultCode: 22, message: expect.stringMatching(/10000\.\.50000000/) });
  });
});

describe('terminal (payWithEdc) and card/settle', () => {
  const edc = (storeId: string, amount = 400_000, instrumentType: 'CARD' | 'QR' = 'CARD') => ({
    ...ids('edc'),
    amount,
    storeId,
    instrumentType,
    orderInfo: 'Counter 3',
    ipnUrl: ipn.url('/edc'),
  });

  it('answers 7000; the terminal pays later (IPN list A with cardPaymentInfo); refundable until settled', async () => {
    const request = edc('store-1');
    const created = await gw.client.call('payment.payWithEdc', request);
    expect(created.classification.action).toBe('wait-for-ipn');
    expect(created.resultCode).toBe(7000);
    const { transId } = gw.sandbox.admin.approvePayment(request.orderId);
    const notification = parseNotification('payment.resultA', (await ipnFor(request.orderId)).raw, keys);
    expect(notification.fields).toMatchObject({
      resultCode: 0,
      payType: 'edcDevice',
      storeId: 'store-1',
      cardPaymentInfo: { cardType: 'VISA', cardNumber: expect.stringContaining('*') },
    });
    expect(
      (await gw.client.call('refund.create', { ...ids('rf'), amount: 100_000, transId: transId! }))
        .resultCode,
    ).toBe(0);

    const settled = await gw.client.call('card.settle', {
      requestId: ids('st').requestId,
      storeId: 'store-1',
      serialNumber: 'EDC-store-1',
    });
    expect(settled.body.message).toMatch(/Settled 1 card transaction/);
    const late = gw.client.call('refund.create', { ...ids('rf'), amount: 100_000, transId: transId! });
    await expect(late).rejects.toMatchObject({ resultCode: 1002, message: expect.stringMatching(/settled/) });
    expect(gw.sandbox.admin.ledger().map((e) => e.kind)).toEqual(['payment', 'refund', 'settlement']);
  });

  it('QR on the terminal reports aio_qr; an unmapped store and a serial of another store are refused (20)', async () => {
    const qr = edc('store-2', 90_000, 'QR');
    await gw.client.call('payment.payWithEdc', { ...qr, serialNumber: 'SN-2' });
    gw.sandbox.admin.approvePayment(qr.orderId);
    expect((await ipnFor(qr.orderId)).body.payType).toBe('aio_qr');
    expect(await resultCodeOf(gw.client.call('payment.payWithEdc', edc('nodevice-9')))).toBe(20);
    expect(
      await resultCodeOf(gw.client.call('payment.payWithEdc', { ...edc('store-3'), serialNumber: 'SN-2' })),
    ).toBe(20);
    expect(
      await resultCodeOf(
        gw.client.call('card.settle', {
          requestId: ids('st').requestId,
          storeId: 'store-3',
          serialNumber: 'SN-2',
        }),
      ),
    ).toBe(20);
  });
});

describe('api/pos (quick pay with the payment code)', () => {
  const pos = (amount: number) => ({
    ...ids('pos'),
    amount,
    paymentCode: 'MM1234567890123456',
    orderInfo: 'Coffee',
    storeId: 'store-1',
    ipnUrl: ipn.url('/pos'),
  });

  it('pays at once (the RSA-encrypted code is read) with a list-A IPN', async () => {
    const request = pos(45_000);
    const paid = await gw.client.call('payment.pos', request);
    expect(paid.body).toMatchObject({ resultCode: 0, transId: expect.any(Number), promotionInfo: [] });
    const notification = parseNotification('payment.resultA', (await ipnFor(request.orderId)).raw, keys);
    expect(notification.fields).toMatchObject({ resultCode: 0, transId: paid.body.transId, amount: 45_000 });
  });

  it('amount ending 7000 is pending, then the IPN brings 0; 1001 refuses; outside 1000..5000000 → 22', async () => {
    const pending = pos(47_000);
    expect((await gw.client.call('payment.pos', pending)).resultCode).toBe(7000);
    await ipnFor(pending.orderId, 0);
    expect(await resultCodeOf(gw.client.call('payment.pos', pos(41_001)))).toBe(1001);
    expect((await rawCall(gw.sandbox.url, 'payment.pos', pos(6_000_000))).body.resultCode).toBe(22);
  });
});
