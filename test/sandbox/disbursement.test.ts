import { describe, expect, it } from 'vitest';
import { GatewayResultError, parseNotification } from '../../gateway';
import { ids, keys, rawCall, wallet, useTestGateway } from './support';

const { gw, ipn } = useTestGateway({ balances: { VND: 1_000_000_000 } });

const payToWallet = (lastFour: string, amount = 100_000, label = 'pay') => ({
  ...ids(label),
  requestType: 'disburseToWallet' as const,
  amount,
  disbursementMethod: wallet(lastFour),
  orderInfo: 'Chi lương',
  ipnUrl: ipn.url('/disbursement'),
});

async function resultCodeOf(promise: Promise<unknown>): Promise<number> {
  try {
    const result = (await promise) as { resultCode: number };
    return result.resultCode;
  } catch (error) {
    if (error instanceof GatewayResultError) return error.resultCode;
    throw error;
  }
}

describe('disbursement/verify (checkWallet)', () => {
  it.each([
    ['1234', 0],
    ['1007', 1007],
    ['4001', 4001],
    ['4003', 4003],
    ['4002', 0],
  ])('wallet ending %s answers %i', async (lastFour, code) => {
    const call = gw.client.call('disbursement.verify', {
      ...ids('verify'),
      disbursementMethod: wallet(lastFour),
    });
    expect(await resultCodeOf(call)).toBe(code);
  });
});

describe('disbursement/balance', () => {
  it('answers the VND balance, and a foreign currency by orderGroupId (ISO numeric)', async () => {
    const vnd = await gw.client.call('disbursement.balance', ids('bal'));
    expect(vnd.body).toMatchObject({ resultCode: 0, amount: 1_000_000_000, currency: 'VND' });
    const usd = await gw.client.call('disbursement.balance', { ...ids('bal'), orderGroupId: 840 });
    expect(usd.body).toMatchObject({ resultCode: 0, currency: 'USD' });
    await expect(
      gw.client.call('disbursement.balance', { ...ids('bal'), orderGroupId: 1 }),
    ).rejects.toMatchObject({
      resultCode: 2019,
    });
  });
});

describe('disbursement/pay', () => {
  it('pays a wallet: 0, balance down, signed IPN with the result', async () => {
    const request = payToWallet('1234', 250_000);
    const result = await gw.client.call('disbursement.pay', request);
    expect(result.body).toMatchObject({ resultCode: 0, amount: 250_000, balance: 1_000_000_000 - 250_000 });
    expect(typeof result.body.transId).toBe('number');
    expect(gw.sandbox.admin.balance('VND')).toBe(1_000_000_000 - 250_000);

    const received = await ipn.waitFor((n) => n.body.orderId === request.orderId);
    const notification = parseNotification('disbursement.result', received.raw, keys);
    expect(notification.fields).toMatchObject({
      orderId: request.orderId,
      requestId: request.requestId,
      resultCode: 0,
      amount: 250_000,
      orderType: 'svc_disbursement',
      transId: result.body.transId,
    });
    expect(gw.sandbox.admin.ledger()).toEqual([
      expect.objectContaining({
        orderId: request.orderId,
        kind: 'disbursement',
        outcome: 'succeeded',
        amount: 250_000,
      }),
    ]);
  });

  it('pays a bank account; an account or card ending 1507 answers 1507', async () => {
    const bank = { bankAccountHolderName: 'NGUYEN VAN A', bankCode: '970436' };
    const ok = await gw.client.call('disbursement.pay', {
      ...ids('bank'),
      requestType: 'disburseToBank',
      amount: 500_000,
      disbursementMethod: { ...bank, bankAccountNo: '0011004455' },
    });
    expect(ok.resultCode).toBe(0);
    const unknown = gw.client.call('disbursement.pay', {
      ...ids('bank'),
      requestType: 'disburseToBank',
      amount: 500_000,
      disbursementMethod: { ...bank, bankCardNo: '9704000000001507' },
    });
    expect(await resultCodeOf(unknown)).toBe(1507);
  });

  it.each([
    ['1007', 1007],
    ['1008', 1008],
    ['4001', 4001],
    ['4002', 4002],
    ['4003', 4003],
  ])('wallet ending %s is refused with %i and moves no money', async (lastFour, code) => {
    const error = await gw.client.call('disbursement.pay', payToWallet(lastFour)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayResultError);
    expect(error).toMatchObject({ resultCode: code, final: true });
    expect(gw.sandbox.admin.balance('VND')).toBe(1_000_000_000);
    expect(gw.sandbox.admin.ledger()).toEqual([
      expect.objectContaining({ outcome: 'failed', resultCode: code }),
    ]);
  });

  it('answers 1100 when the balance is short; after a top-up the same order goes through', async () => {
    gw.sandbox.admin.setBalance('VND', 50_000);
    const request = payToWallet('1234', 100_000);
    await expect(gw.client.call('disbursement.pay', request)).rejects.toMatchObject({ resultCode: 1100 });
    gw.sandbox.admin.setBalance('VND', 1_000_000);
    const retried = await gw.client.call('disbursement.pay', {
      ...request,
      requestId: `${request.requestId}-2`,
    });
    expect(retried.body).toMatchObject({ resultCode: 0, balance: 900_000 });
  });

  it.each([
    ['7000', 7000],
    ['7002', 7002],
  ])(
    'wallet ending %s answers %i (balance reserved), then the IPN brings success',
    async (lastFour, code) => {
      const request = payToWallet(lastFour, 300_000);
      const result = await gw.client.call('disbursement.pay', request);
      expect(result.resultCode).toBe(code);
      expect(result.classification.action).toBe('wait-for-ipn');
      expect(gw.sandbox.admin.balance('VND')).toBe(1_000_000_000 - 300_000);
      expect(gw.sandbox.admin.ledger()[0]).toMatchObject({ outcome: 'pending', resultCode: code });

      const received = await ipn.waitFor((n) => n.body.orderId === request.orderId);
      expect(parseNotification('disbursement.result', received.raw, keys).fields.resultCode).toBe(0);
      expect(gw.sandbox.admin.ledger()[0]).toMatchObject({ outcome: 'succeeded', resultCode: 0 });
    },
  );

  it('wallet ending 7099 is pending, then fails (99) and the reserved amount comes back', async () => {
    const request = payToWallet('7099', 300_000);
    expect((await gw.client.call('disbursement.pay', request)).resultCode).toBe(7000);
    expect(gw.sandbox.admin.settlePending()).toEqual({ settled: 1 });
    const received = await ipn.waitFor((n) => n.body.orderId === request.orderId);
    expect(parseNotification('disbursement.result', received.raw, keys).fields.resultCode).toBe(99);
    expect(gw.sandbox.admin.balance('VND')).toBe(1_000_000_000);
    expect(gw.sandbox.admin.ledger()[0]).toMatchObject({ outcome: 'failed', resultCode: 99 });
  });

  it('wallet ending 0010 meets a retryable 10 once; the retry with the same requestId succeeds', async () => {
    const request = payToWallet('0010');
    const first = await gw.client.call('disbursement.pay', request).catch((e: unknown) => e);
    expect(first).toMatchObject({ resultCode: 10, retryable: true });
    const second = await gw.client.call('disbursement.pay', request);
    expect(second.resultCode).toBe(0);
    expect(gw.sandbox.admin.ledger()).toHaveLength(1);
  });
});

describe('request checks', () => {
  it('13 for a wrong signature, a missing one, or an unknown partnerCode', async () => {
    const plain = { ...ids('sig'), requestType: 'checkWallet', disbursementMethod: wallet('1234') };
    const wrong = await rawCall(gw.sandbox.url, 'disbursement.verify', plain, (wire) => {
      wire.signature = 'f'.repeat(64);
    });
    expect(wrong.body).toMatchObject({ resultCode: 13 });
    expect(String(wrong.body.message)).toMatch(/signature/i);
    const missing = await rawCall(
      gw.sandbox.url,
      'disbursement.verify',
      { ...plain, ...ids('sig') },
      (wire) => {
        delete wire.signature;
      },
    );
    expect(missing.body.resultCode).toBe(13);
    const stranger = await rawCall(gw.sandbox.url, 'disbursement.verify', {
      ...plain,
      ...ids('sig'),
      partnerCode: 'OTHER',
    });
    expect(stranger.body).toMatchObject({ resultCode: 13, message: 'Unknown partnerCode' });
  });

  it('20 for a bad format, naming the field and the rule', async () => {
    const result = await rawCall(gw.sandbox.url, 'disbursement.pay', {
      ...ids('fmt'),
      requestType: 'disburseToWallet',
      amount: 10_000,
      disbursementMethod: { walletId: '+84912345678' },
    });
    expect(result.body.resultCode).toBe(20);
    expect(result.body.message).toMatch(/disbursementMethod\.walletId \(pattern/);
  });

  it('22 for an amount out of range, naming the range', async () => {
    const result = await rawCall(gw.sandbox.url, 'disbursement.pay', {
      ...ids('range'),
      requestType: 'disburseToBank',
      amount: 25_000_000,
      disbursementMethod: { bankAccountNo: '123456', bankAccountHolderName: 'A', bankCode: '970436' },
    });
    expect(result.body.resultCode).toBe(22);
    expect(result.body.message).toMatch(/10000\.\.20000000/);
    expect(gw.sandbox.admin.ledger()).toEqual([]);
  });

  it('42 for an api/query of an orderId the sandbox never saw', async () => {
    const result = await rawCall(gw.sandbox.url, 'payment.query', { ...ids('q') });
    expect(result.body.resultCode).toBe(42);
    expect(result.body.message).toMatch(/not found/);
  });
});
