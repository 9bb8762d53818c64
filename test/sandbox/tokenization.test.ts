import { beforeEach, describe, expect, it } from 'vitest';
import { decryptAesToken, GatewayResultError, parseNotification, type OperationName } from '../../gateway';
import { ids, keys, merchant, movableClock, resultCodeOf, useTestGateway } from './support';

const clock = movableClock();
const { gw, ipn } = useTestGateway((ipn) => ({ now: clock.now, unbindUrl: ipn.url('/unbind') }));
beforeEach(() => {
  clock.set(Date.parse('2025-03-10T03:00:00Z'));
});

type BindingOperation = Extract<
  OperationName,
  'binding.payWithCC' | 'binding.payWithATM' | 'binding.linkWallet'
>;
type Token = Record<string, string>;

const bindingRequest = (operation: BindingOperation, partnerClientId: string, amount = 0) => ({
  ...ids('bind'),
  amount,
  orderInfo: 'Save my payment method',
  partnerClientId,
  ipnUrl: ipn.url('/binding'),
  redirectUrl: 'https://shop.example/bound',
  extraData: '',
  userInfo:
    operation === 'binding.linkWallet' ? { phoneNumber: '0912345678' } : { email: 'buyer@example.com' },
});

const ipnFor = (orderId: string, resultCode?: number) =>
  ipn.waitFor(
    (n) => n.body.orderId === orderId && (resultCode === undefined || n.body.resultCode === resultCode),
  );

async function bind(operation: BindingOperation, partnerClientId = 'user-7', amount = 0) {
  const request = bindingRequest(operation, partnerClientId, amount);
  await gw.client.call(operation, request);
  gw.sandbox.admin.approvePayment(request.orderId);
  const notification = parseNotification('payment.resultB', (await ipnFor(request.orderId)).raw, keys);
  const bound = await gw.client.call('tokenization.bind', {
    ...ids('tb'),
    orderId: request.orderId,
    partnerClientId,
    callbackToken: String(notification.fields.callbackToken),
  });
  const token = decryptAesToken(bound.body.aesToken!, merchant.secretKey) as Token;
  return { request, notification, token, partnerClientId };
}

type Bound = Awaited<ReturnType<typeof bind>>;

const pay = (bound: Bound, amount: number, requireSecurityCode = false, label = 'tp') => ({
  ...ids(label),
  amount,
  token: { value: bound.token.value!, requireSecurityCode },
  partnerClientId: bound.partnerClientId,
  orderInfo: 'One-click purchase',
  ipnUrl: ipn.url('/token-pay'),
  extraData: '',
});

describe('binding: create → customer → list-B IPN with callbackToken → bind (aesToken)', () => {
  it.each([
    [
      'binding.payWithCC',
      'credit',
      { cardNumber: expect.stringMatching(/^\d{4}$/), cardType: expect.stringMatching(/^[A-Z]+$/) },
    ],
    [
      'binding.payWithATM',
      'domestic',
      {
        cardNumber: expect.stringMatching(/^\d{4}$/),
        bankCode: expect.any(String),
        cardType: 'domestic',
        bankLogoUrl: expect.any(String),
      },
    ],
    ['binding.linkWallet', 'webApp', { userAlias: '******5678', profileId: expect.any(String) }],
  ] as const)('%s', async (operation, payType, payload) => {
    const bound = await bind(operation);
    expect(bound.notification.fields).toMatchObject({
      resultCode: 0,
      payType,
      partnerClientId: 'user-7',
      callbackToken: expect.any(String),
      amount: 0,
    });
    expect(bound.token).toEqual({ value: expect.any(String), ...payload });
    expect(gw.sandbox.admin.ledger()).toEqual([]); // bind only: no money
  });

  it('bind and pay (amount ≥ 1000) takes the first payment', async () => {
    await bind('binding.linkWallet', 'user-7', 25_000);
    expect(gw.sandbox.admin.ledger()).toEqual([
      expect.objectContaining({ kind: 'payment', amount: 25_000, outcome: 'succeeded' }),
    ]);
  });

  it('cbQuery: 7000 before the customer acts, the callbackToken after (the IPN was lost); a wrong one → 2001', async () => {
    gw.sandbox.admin.setFaults({ operation: 'binding.payWithCC', ipn: { drop: true } });
    const request = bindingRequest('binding.payWithCC', 'user-8');
    await gw.client.call('binding.payWithCC', request);
    const query = () =>
      gw.client.call('tokenization.cbQuery', {
        ...ids('cbq'),
        orderId: request.orderId,
        partnerClientId: 'user-8',
      });
    expect((await query()).resultCode).toBe(7000);
    gw.sandbox.admin.approvePayment(request.orderId);
    const { callbackToken } = (await query()).body;
    expect(callbackToken).toEqual(expect.any(String));
    const exchange = (token: string) =>
      gw.client.call('tokenization.bind', {
        ...ids('tb'),
        orderId: request.orderId,
        partnerClientId: 'user-8',
        callbackToken: token,
      });
    expect(await resultCodeOf(exchange('cb-forged'))).toBe(2001);
    expect((await exchange(callbackToken!)).body.aesToken).toEqual(expect.any(String));
  });

  it('a wallet link not completed within 15 minutes expires (IPN 1005); cbQuery says so', async () => {
    const request = bindingRequest('binding.linkWallet', 'user-9');
    await gw.client.call('binding.linkWallet', request);
    clock.advance(15 * 60 * 1000);
    expect(() => gw.sandbox.admin.approvePayment(request.orderId)).toThrow(/is waiting/);
    expect((await ipnFor(request.orderId)).body.resultCode).toBe(1005);
    const cb = gw.client.call('tokenization.cbQuery', {
      ...ids('cbq'),
      orderId: request.orderId,
      partnerClientId: 'user-9',
    });
    expect(await resultCodeOf(cb)).toBe(1005);
  });

  it('several wallets per user (n<NNN>_<partnerClientId>) get distinct tokens and profiles', async () => {
    const first = await bind('binding.linkWallet', 'n000_user-7');
    const second = await bind('binding.linkWallet', 'n001_user-7');
    expect(first.token.value).not.toBe(second.token.value);
    expect(first.token.profileId).not.toBe(second.token.profileId);
    expect(gw.sandbox.admin.tokens().map((t) => t.partnerClientId)).toEqual(['n000_user-7', 'n001_user-7']);
  });
});

describe('tokenization/pay', () => {
  it('0 at once, with a list-B IPN (no callbackToken)', async () => {
    const bound = await bind('binding.payWithCC');
    const request = pay(bound, 120_000);
    const paid = await gw.client.call('tokenization.pay', request, { context: { tokenKind: 'card' } });
    expect(paid.body).toMatchObject({
      resultCode: 0,
      transId: expect.any(Number),
      partnerClientId: 'user-7',
    });
    const notification = parseNotification('payment.resultB', (await ipnFor(request.orderId)).raw, keys);
    expect(notification.fields).toMatchObject({ resultCode: 0, payType: 'credit', callbackToken: '' });
  });

  it('7000, then the IPN brings 0', async () => {
    const bound = await bind('binding.linkWallet');
    const request = pay(bound, 117_000);
    expect((await gw.client.call('tokenization.pay', request)).resultCode).toBe(7000);
    await ipnFor(request.orderId, 7000);
    await ipnFor(request.orderId, 0);
  });

  it('8000: payUrl and deeplink, the customer approves, then the IPN', async () => {
    const bound = await bind('binding.payWithCC');
    const request = pay(bound, 118_000);
    const redirected = await gw.client.call('tokenization.pay', request);
    expect(redirected.classification.action).toBe('redirect-customer');
    expect(redirected.body).toMatchObject({
      resultCode: 8000,
      payUrl: expect.stringContaining(request.orderId),
      deeplink: expect.any(String),
    });
    expect(gw.sandbox.admin.approvePayment(request.orderId)).toMatchObject({
      step: 'token-redirect',
      resultCode: 0,
    });
    expect((await ipnFor(request.orderId)).body.resultCode).toBe(0);
  });

  it('limits per token flow (the sandbox knows the flow), 1001 for a customer without funds, 2001 after delete', async () => {
    const card = await bind('binding.payWithCC');
    expect(await resultCodeOf(gw.client.call('tokenization.pay', pay(card, 10_000_001)))).toBe(22);
    const domestic = await bind('binding.payWithATM', 'user-d');
    expect(await resultCodeOf(gw.client.call('tokenization.pay', pay(domestic, 5_000)))).toBe(22);
    const poor = await bind('binding.linkWallet', 'poor-user');
    expect(await resultCodeOf(gw.client.call('tokenization.pay', pay(poor, 10_000)))).toBe(1001);

    const deleted = await gw.client.call('tokenization.delete', {
      ...ids('del'),
      token: { value: card.token.value! },
      partnerClientId: card.partnerClientId,
    });
    expect(deleted.resultCode).toBe(0);
    expect(await resultCodeOf(gw.client.call('tokenization.pay', pay(card, 10_000)))).toBe(2001);
  });

  it('refunds of tokenization payments are capped at 30000000', async () => {
    const domestic = await bind('binding.payWithATM', 'user-d');
    const paid = await gw.client.call('tokenization.pay', pay(domestic, 40_000_000));
    const refund = gw.client.call('refund.create', {
      ...ids('rf'),
      amount: 35_000_000,
      transId: paid.body.transId!,
    });
    expect(await resultCodeOf(refund)).toBe(22);
  });
});

describe('two-factor confirmation (8200 → tokenization/verify)', () => {
  async function askForCode(bound: Bound, amount = 108_200) {
    const request = pay(bound, amount);
    const asked = await gw.client.call('tokenization.pay', request);
    expect(asked.resultCode).toBe(8200);
    const inbox = gw.sandbox.admin.otpInbox(bound.partnerClientId);
    const message = inbox.find((m) => m.orderId === request.orderId)!;
    return { request, code: message.code };
  }
  const verify = (bound: Bound, orderId: string, securityCode: string) =>
    gw.client.call('tokenization.verify', {
      ...ids('otp'),
      orderId,
      securityCode,
      token: { value: bound.token.value!, requireSecurityCode: true },
    });

  it('the right code pays (IPN); requireSecurityCode true on a wallet also asks for one', async () => {
    const bound = await bind('binding.linkWallet');
    const { request, code } = await askForCode(bound);
    expect(code).toMatch(/^\d{6}$/);
    clock.advance(3_000);
    const confirmed = await verify(bound, request.orderId, code);
    expect(confirmed.body).toMatchObject({ resultCode: 0, transId: expect.any(Number) });
    expect((await ipnFor(request.orderId)).body.resultCode).toBe(0);

    clock.advance(3_000);
    const risky = await gw.client.call('tokenization.pay', pay(bound, 50_000, true));
    expect(risky.classification.action).toBe('ask-for-otp');
  });

  it('a wrong code (8201), then the right one; within 3 s → 8204', async () => {
    const bound = await bind('binding.linkWallet');
    const { request, code } = await askForCode(bound);
    const early = await verify(bound, request.orderId, code).catch((error: unknown) => error);
    expect(early).toBeInstanceOf(GatewayResultError);
    expect(early).toMatchObject({ resultCode: 8204, retryable: true });
    clock.advance(3_000);
    const wrong = await verify(bound, request.orderId, '000000' === code ? '111111' : '000000');
    expect(wrong.resultCode).toBe(8201);
    expect(wrong.classification.action).toBe('ask-for-otp');
    clock.advance(3_000);
    expect((await verify(bound, request.orderId, code)).resultCode).toBe(0);
  });

  it('a code older than 5 minutes is expired (8202)', async () => {
    const bound = await bind('binding.linkWallet');
    const { request, code } = await askForCode(bound);
    clock.advance(5 * 60 * 1000);
    expect(await resultCodeOf(verify(bound, request.orderId, code))).toBe(8202);
  });

  it('five wrong codes lock the user until the next day (8203)', async () => {
    const bound = await bind('binding.linkWallet');
    const { request, code } = await askForCode(bound);
    const wrongCode = code === '000000' ? '111111' : '000000';
    const codes: number[] = [];
    for (let attempt = 0; attempt < 5; attempt += 1) {
      clock.advance(3_000);
      codes.push(await resultCodeOf(verify(bound, request.orderId, wrongCode)));
    }
    expect(codes).toEqual([8201, 8201, 8201, 8201, 8203]);
    clock.advance(3_000);
    expect(await resultCodeOf(gw.client.call('tokenization.pay', pay(bound, 208_200)))).toBe(8203);
    clock.advance(24 * 60 * 60 * 1000);
    expect((await gw.client.call('tokenization.pay', pay(bound, 308_200))).resultCode).toBe(8200);
  });

  it('at most 5 SMS per user per day (8205)', async () => {
    const bound = await bind('binding.linkWallet');
    for (let sms = 0; sms < 5; sms += 1) {
      await askForCode(bound);
      clock.advance(3_000);
    }
    expect(await resultCodeOf(gw.client.call('tokenization.pay', pay(bound, 408_200)))).toBe(8205);
    const inbox = await (await fetch(`${gw.sandbox.url}/__sandbox/otp-inbox?partnerClientId=user-7`)).json();
    expect(inbox).toHaveLength(5);
  });
});

describe('customer-side revoke (unbind call)', () => {
  it('revokes the card token and sends the signed unbind call; the merchant answers 204', async () => {
    const card = await bind('binding.payWithCC', 'user-u');
    const wallet = await bind('binding.linkWallet', 'user-u');
    const result = gw.sandbox.admin.revokeToken('user-u');
    expect(result).toMatchObject({ notified: 1, revoked: [{ flow: 'card' }, { flow: 'wallet' }] });
    const received = await ipn.waitFor((n) => n.path === '/unbind');
    const unbind = parseNotification('token.unbind', received.raw, keys);
    expect(unbind.fields).toMatchObject({
      orderId: card.request.orderId,
      requestType: 'remove',
      tokenType: 'credit',
      partnerClientId: 'user-u',
    });
    await expect
      .poll(() => gw.sandbox.admin.ipnLog().find((e) => e.kind === 'token.unbind')?.httpStatus)
      .toBe(204);
    expect(await resultCodeOf(gw.client.call('tokenization.pay', pay(wallet, 10_000)))).toBe(2001);
  });
});
