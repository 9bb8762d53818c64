import { describe, expect, it } from 'vitest';
import { parseNotification } from '../../gateway';
import { ids, keys, rawCall, wallet, useTestGateway } from './support';

const { gw, ipn } = useTestGateway({ balances: { VND: 0, USD: 1000 } });

const remittanceInfo = {
  name: 'John Smith',
  partnerName: 'Acme Remit',
  orderingCountry: 'US',
  sourceCurrency: 'USD',
  sourceAmount: 100,
  reason: 'RSN01' as const,
};

async function usdRate(): Promise<number> {
  const quote = await gw.client.call('remittance.exchangeRate', {
    requestId: ids('rate').requestId,
    baseCurrency: 'USD',
  });
  return Number(quote.body.rateInfo?.rate);
}

describe('remittance', () => {
  it('quotes every base currency with a plausible, fixed rate', async () => {
    const rate = await usdRate();
    expect(rate).toBeGreaterThan(25_000);
    expect(rate).toBeLessThan(25_800);
    expect(await usdRate()).toBe(rate);
    for (const baseCurrency of ['EUR', 'AUD', 'CAD', 'GBP', 'JPY', 'KRW', 'TWD', 'THB'] as const) {
      const quote = await gw.client.call('remittance.exchangeRate', {
        requestId: ids('rate').requestId,
        baseCurrency,
      });
      expect(quote.body.rateInfo).toMatchObject({
        baseCurrency,
        exchangeCurrency: 'VND',
        rate: expect.any(Number),
      });
    }
  });

  it('buys VND: exchangeAmount = amount × rate, USD down, VND up, one ledger entry', async () => {
    const rate = await usdRate();
    const buy = await gw.client.call('remittance.buy', {
      ...ids('buy'),
      rateInfo: { baseCurrency: 'USD', exchangeCurrency: 'VND', rate, amount: 100.25 },
    });
    expect(buy.body.rateInfo).toMatchObject({ amount: 100.25, exchangeAmount: Math.round(100.25 * rate) });
    expect(gw.sandbox.admin.balance('USD')).toBe(899.75);
    expect(gw.sandbox.admin.balance('VND')).toBe(Math.round(100.25 * rate));
    expect(gw.sandbox.admin.ledger()).toEqual([
      expect.objectContaining({ kind: 'buy', currency: 'USD', amount: 100.25 }),
    ]);
  });

  it('refuses a buy above the foreign balance (1100), at a stale rate (20), and of 1.00 or less (22)', async () => {
    const rate = await usdRate();
    const over = gw.client.call('remittance.buy', {
      ...ids('buy'),
      rateInfo: { baseCurrency: 'USD', rate, amount: 1000.01 },
    });
    await expect(over).rejects.toMatchObject({ resultCode: 1100 });
    const stale = gw.client.call('remittance.buy', {
      ...ids('buy'),
      rateInfo: { baseCurrency: 'USD', rate: rate + 1, amount: 10 },
    });
    await expect(stale).rejects.toMatchObject({ resultCode: 20 });
    const tiny = await rawCall(gw.sandbox.url, 'remittance.buy', {
      ...ids('buy'),
      rateInfo: { baseCurrency: 'USD', amount: 1 },
    });
    expect(tiny.body.resultCode).toBe(22);
  });

  it('checks a receiver wallet', async () => {
    expect(
      (await gw.client.call('remittance.verify', { ...ids('rv'), receiver: wallet('1234') })).resultCode,
    ).toBe(0);
    await expect(
      gw.client.call('remittance.verify', { ...ids('rv'), receiver: wallet('4001') }),
    ).rejects.toMatchObject({
      resultCode: 4001,
    });
  });

  it('remits to a wallet and to a bank from the VND bought; IPNs carry orderType svc_remittance', async () => {
    const rate = await usdRate();
    await gw.client.call('remittance.buy', {
      ...ids('buy'),
      rateInfo: { baseCurrency: 'USD', rate, amount: 500 },
    });
    const vnd = gw.sandbox.admin.balance('VND');
    const toWallet = {
      ...ids('rw'),
      requestType: 'remitToWallet' as const,
      amount: 2_000_000,
      receiver: wallet('1234'),
      remittanceInfo,
      ipnUrl: ipn.url(),
    };
    const walletResult = await gw.client.call('remittance.create', toWallet);
    expect(walletResult.body).toMatchObject({ resultCode: 0, balance: vnd - 2_000_000 });
    const toBank = {
      ...ids('rb'),
      requestType: 'remitToBank' as const,
      amount: 3_000_000,
      receiver: { bankAccountNo: '0123456789', bankAccountHolderName: 'TRAN THI B', bankCode: '970436' },
      remittanceInfo: { ...remittanceInfo, senderNationality: 'US' },
      ipnUrl: ipn.url(),
    };
    expect((await gw.client.call('remittance.create', toBank)).resultCode).toBe(0);
    const received = await ipn.waitForCount(() => true, 2);
    for (const notification of received)
      expect(parseNotification('remittance.result', notification.raw, keys).fields).toMatchObject({
        orderType: 'svc_remittance',
        resultCode: 0,
      });
    expect(gw.sandbox.admin.balance('VND')).toBe(vnd - 5_000_000);
  });

  it('two-step remittance (autoCapture false) is authorized (7000) and completes on capture', async () => {
    gw.sandbox.admin.setBalance('VND', 10_000_000);
    const request = {
      ...ids('two'),
      requestType: 'remitToWallet' as const,
      amount: 1_000_000,
      receiver: wallet('1234'),
      remittanceInfo,
      autoCapture: false,
      ipnUrl: ipn.url(),
    };
    const authorized = await gw.client.call('remittance.create', request);
    expect(authorized.resultCode).toBe(7000);
    expect(gw.sandbox.admin.balance('VND')).toBe(9_000_000);
    expect(gw.sandbox.admin.captureRemittance(request.orderId)).toBe(true);
    expect(gw.sandbox.admin.captureRemittance(request.orderId)).toBe(false);
    const received = await ipn.waitFor((n) => n.body.orderId === request.orderId);
    expect(parseNotification('remittance.result', received.raw, keys).fields.resultCode).toBe(0);
    expect(gw.sandbox.admin.ledger()).toEqual([
      expect.objectContaining({ kind: 'remittance', outcome: 'succeeded' }),
    ]);
  });

  it('api/query (payment.query) reports a remittance order: 7000 while awaiting capture, then 0 with transId', async () => {
    gw.sandbox.admin.setBalance('VND', 10_000_000);
    const request = {
      ...ids('query'),
      requestType: 'remitToWallet' as const,
      amount: 1_000_000,
      receiver: wallet('1234'),
      remittanceInfo,
      autoCapture: false,
    };
    const authorized = await gw.client.call('remittance.create', request);
    const query = () =>
      rawCall(gw.sandbox.url, 'payment.query', { orderId: request.orderId, requestId: ids('q').requestId });
    expect((await query()).body).toMatchObject({
      orderId: request.orderId,
      resultCode: 7000,
      amount: 1_000_000,
      transId: authorized.body.transId,
    });
    gw.sandbox.admin.captureRemittance(request.orderId);
    expect((await query()).body).toMatchObject({ resultCode: 0, transId: authorized.body.transId });
    // Other orderIds are not remittances: left to the payments simulation (or "not simulated").
    const other = await rawCall(gw.sandbox.url, 'payment.query', { ...ids('not-remittance') });
    expect(other.body.resultCode).not.toBe(0);
    expect(other.body.transId).toBeUndefined();
  });
});
