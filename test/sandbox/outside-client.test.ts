import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/wait';
import { ids, merchant, movableClock, useTestGateway } from './support';

/**
 * The sandbox as a merchant integrating the gateway meets it: requests built by hand the way the
 * gateway's official samples and SDKs build them (plain fetch, a JSON body, the signature computed
 * here with node:crypto over the raw-signature text), never through payrun's strict client.
 */

const clock = movableClock();
const { gw } = useTestGateway({ now: clock.now });

/** The raw-signature text of the spec: signed names a to z, `name=value`, joined with `&`. */
function signature(signed: readonly string[], body: Record<string, unknown>): string {
  const text = [...signed]
    .sort()
    .map((name) => `${name}=${name === 'accessKey' ? merchant.accessKey : String(body[name] ?? '')}`)
    .join('&');
  return createHmac('sha256', merchant.secretKey).update(text, 'utf8').digest('hex');
}

const CREATE_SIGNED = [
  'accessKey',
  'amount',
  'extraData',
  'ipnUrl',
  'orderId',
  'orderInfo',
  'partnerCode',
  'redirectUrl',
  'requestId',
  'requestType',
];
const QUERY_SIGNED = ['accessKey', 'orderId', 'partnerCode', 'requestId'];
const CONFIRM_SIGNED = [
  'accessKey',
  'amount',
  'description',
  'orderId',
  'partnerCode',
  'requestId',
  'requestType',
];

async function post(
  path: string,
  body: Record<string, unknown>,
  signed: readonly string[] | { signature: string },
): Promise<Record<string, unknown>> {
  const sig = Array.isArray(signed) ? signature(signed, body) : (signed as { signature: string }).signature;
  const response = await fetch(`${gw.sandbox.url}/v2/gateway/api/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...body, signature: sig }),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

function walletOrder(label: string, extra: Record<string, unknown> = {}) {
  const { orderId, requestId } = ids(label);
  return {
    partnerCode: merchant.partnerCode,
    partnerName: 'Test shop',
    storeId: 'store-1',
    requestType: 'captureWallet',
    ipnUrl: 'http://127.0.0.1:9/ipn',
    redirectUrl: 'http://127.0.0.1:9/return',
    orderId,
    amount: 50_000,
    lang: 'vi',
    orderInfo: `Order ${orderId}`,
    requestId,
    extraData: '',
    ...extra,
  };
}

describe('leniency toward other clients', () => {
  it('accepts a Long sent as a numeric string, and signs it as that string', async () => {
    const body = walletOrder('str', { amount: '50000' });
    const answer = await post('create', body, CREATE_SIGNED);
    expect(answer).toMatchObject({ resultCode: 0, orderId: body.orderId, amount: 50_000 });
    expect(gw.sandbox.admin.awaitingCustomer()).toContainEqual(
      expect.objectContaining({ orderId: body.orderId, amount: 50_000 }),
    );
  });

  it('checks the signature over the value exactly as received: "050000" signed as 50000 is refused', async () => {
    const body = walletOrder('zero', { amount: '050000' });
    const signedAsNumber = signature(CREATE_SIGNED, { ...body, amount: 50_000 });
    expect(await post('create', body, { signature: signedAsNumber })).toMatchObject({ resultCode: 13 });
    const signedAsSent = await post('create', { ...body, requestId: `${body.requestId}-2` }, CREATE_SIGNED);
    expect(signedAsSent).toMatchObject({ resultCode: 0, amount: 50_000 });
  });

  it('treats an empty string in an optional field as absent (orderGroupId: "")', async () => {
    const body = walletOrder('empty', { orderGroupId: '', lang: '' });
    expect(await post('create', body, CREATE_SIGNED)).toMatchObject({ resultCode: 0 });
  });

  it('ignores fields an operation does not use (startTime, partnerName, redirectUrl)', async () => {
    const order = walletOrder('unk', { startTime: Date.now() });
    expect(await post('create', order, CREATE_SIGNED)).toMatchObject({ resultCode: 0 });
    const query = {
      partnerCode: merchant.partnerCode,
      partnerName: 'Test shop',
      redirectUrl: 'http://127.0.0.1:9/return',
      startTime: Date.now(),
      requestId: `${order.requestId}-q`,
      orderId: order.orderId,
      lang: 'en',
    };
    const answer = await post('query', query, QUERY_SIGNED);
    expect(answer.resultCode).not.toBe(20);
    expect(answer).toMatchObject({ orderId: order.orderId, amount: 50_000 });
  });

  it('still refuses what no reading can save: a non-numeric amount is 20', async () => {
    expect(await post('create', walletOrder('bad', { amount: '50.000' }), CREATE_SIGNED)).toMatchObject({
      resultCode: 20,
    });
  });

  it('batch create answers 1100 when the balance is short of the batch total; after a top-up it goes', async () => {
    const { orderId, requestId } = ids('bal');
    const init = await post(
      'create',
      {
        partnerCode: merchant.partnerCode,
        requestType: 'initiate',
        orderId,
        requestId,
        amount: '60000',
        orderInfo: 'Salaries',
        redirectUrl: '',
        ipnUrl: '',
        extraData: '',
      },
      CREATE_SIGNED,
    );
    expect(init).toMatchObject({ resultCode: 0 });
    gw.sandbox.admin.setBalance('VND', 59_999);
    const create = (suffix: string) =>
      post(
        'disbursement/batch/create',
        {
          partnerCode: merchant.partnerCode,
          mToken: init.mToken,
          orderId,
          requestId: `${requestId}-${suffix}`,
          requestType: 'batchWallet',
          amount: '60000',
          startTime: Date.now(),
          disbursements: [
            { id: 'a', method: { walletId: '0900000001', walletName: 'A' }, amount: '30000' },
            { id: 'b', method: { walletId: '0900000002', walletName: 'B' }, amount: 30_000 },
          ],
        },
        ['accessKey', 'amount', 'mToken', 'orderId', 'partnerCode', 'requestId', 'requestType'],
      );
    expect(await create('c1')).toMatchObject({ resultCode: 1100 });
    gw.sandbox.admin.setBalance('VND', 60_000);
    expect(await create('c2')).toMatchObject({ resultCode: 0, totalUploadedAmount: 60_000 });
  });
});

describe('the signed acknowledgement of the card flow', () => {
  let merchantSite: Server;
  let port = 0;
  let answer: (ipn: Record<string, unknown>) => Record<string, unknown> = () => ({});

  beforeAll(async () => {
    merchantSite = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const ipn = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
        response
          .writeHead(200, { 'content-type': 'application/json;charset=UTF-8' })
          .end(JSON.stringify(answer(ipn)));
      });
    });
    await new Promise<void>((resolve) => merchantSite.listen(0, '127.0.0.1', resolve));
    port = (merchantSite.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => merchantSite.close(() => resolve())));

  const ACK_SIGNED = [
    'accessKey',
    'extraData',
    'message',
    'orderId',
    'partnerCode',
    'requestId',
    'responseTime',
    'resultCode',
  ];
  const ackOf = (ipn: Record<string, unknown>, resultCode: number) => {
    const ack = {
      partnerCode: ipn.partnerCode,
      requestId: ipn.requestId,
      orderId: ipn.orderId,
      resultCode,
      message: resultCode === 0 ? 'Recorded' : 'Order closed on our side',
      responseTime: '2025-03-10 10:00:00',
      extraData: '',
    };
    return { ...ack, signature: signature(ACK_SIGNED, ack) };
  };

  async function cardPaymentPaid(label: string) {
    const body = walletOrder(label, {
      requestType: 'payWithCC',
      ipnUrl: `http://127.0.0.1:${port}/ipn`,
      userInfo: { email: 'buyer@example.com' },
    });
    expect(await post('create', body, CREATE_SIGNED)).toMatchObject({ resultCode: 0 });
    gw.sandbox.admin.approvePayment(body.orderId);
    return body.orderId;
  }

  it("verifies the merchant's signed answer and records its resultCode", async () => {
    answer = (ipn) => ackOf(ipn, 1);
    const orderId = await cardPaymentPaid('ack');
    await eventually(() =>
      expect(gw.sandbox.admin.ipnLog().filter((entry) => entry.orderId === orderId)).toEqual([
        expect.objectContaining({ outcome: 'delivered', attempt: 1, ackResultCode: 1 }),
      ]),
    );
  });

  it('counts a badly signed acknowledgement as not delivered, and delivers again', async () => {
    answer = (ipn) => ({ ...ackOf(ipn, 0), signature: '0'.repeat(64) });
    const orderId = await cardPaymentPaid('badack');
    await eventually(() => {
      const log = gw.sandbox.admin.ipnLog().filter((entry) => entry.orderId === orderId);
      expect(log.length).toBeGreaterThanOrEqual(2);
      expect(log.every((entry) => entry.outcome === 'failed' && entry.ackResultCode === undefined)).toBe(
        true,
      );
      expect(log[0]!.error).toMatch(/^bad acknowledgement/);
    });
  });

  it('an acknowledgement for another order is not an acknowledgement', async () => {
    answer = (ipn) => ackOf({ ...ipn, orderId: 'someone-else' }, 0);
    const orderId = await cardPaymentPaid('otherack');
    await eventually(() =>
      expect(gw.sandbox.admin.ipnLog().find((entry) => entry.orderId === orderId)).toMatchObject({
        outcome: 'failed',
      }),
    );
  });
});

describe('confirm: capture and cancel an authorization', () => {
  async function authorized(label: string, amount = 50_000) {
    const body = walletOrder(label, { autoCapture: false, amount });
    expect(await post('create', body, CREATE_SIGNED)).toMatchObject({ resultCode: 0 });
    expect(gw.sandbox.admin.approvePayment(body.orderId)).toMatchObject({ resultCode: 0 });
    return body.orderId;
  }
  const confirm = (orderId: string, requestType: string, amount: number | string, suffix: string) =>
    post(
      'confirm',
      {
        partnerCode: merchant.partnerCode,
        requestId: `${orderId}-${suffix}`,
        orderId,
        requestType,
        amount,
        description: '',
        lang: 'en',
      },
      CONFIRM_SIGNED,
    );
  const ledgerOf = (orderId: string) =>
    gw.sandbox.admin.ledger().filter((entry) => entry.orderId === orderId);

  it('holds the money until a capture, which moves it once; a second capture is 41', async () => {
    const orderId = await authorized('cap');
    expect(ledgerOf(orderId)).toEqual([expect.objectContaining({ outcome: 'pending', amount: 50_000 })]);
    expect(await confirm(orderId, 'capture', 49_000, 'c0')).toMatchObject({ resultCode: 22 });
    expect(await confirm(orderId, 'capture', '50000', 'c1')).toMatchObject({
      resultCode: 0,
      requestType: 'capture',
      amount: 50_000,
    });
    expect(await confirm(orderId, 'capture', 50_000, 'c2')).toMatchObject({ resultCode: 41 });
    expect(await confirm(orderId, 'cancel', 50_000, 'c3')).toMatchObject({ resultCode: 41 });
    expect(ledgerOf(orderId)).toEqual([expect.objectContaining({ outcome: 'succeeded', resultCode: 0 })]);
  });

  it('a cancel releases the hold: nothing moves, capture afterwards is 1017, the query says 1017', async () => {
    const orderId = await authorized('cxl');
    expect(await confirm(orderId, 'cancel', 50_000, 'x1')).toMatchObject({
      resultCode: 0,
      requestType: 'cancel',
    });
    expect(await confirm(orderId, 'capture', 50_000, 'x2')).toMatchObject({ resultCode: 1017 });
    const query = await post(
      'query',
      { partnerCode: merchant.partnerCode, requestId: `${orderId}-q`, orderId, lang: 'en' },
      QUERY_SIGNED,
    );
    expect(query).toMatchObject({ resultCode: 1017 });
    expect(ledgerOf(orderId)).toEqual([expect.objectContaining({ outcome: 'failed', resultCode: 1017 })]);
  });

  it('the hold expires after the hold period (sandbox clock): capture is 1018, nothing moved', async () => {
    const orderId = await authorized('exp');
    clock.advance(7 * 24 * 60 * 60 * 1000);
    expect(await confirm(orderId, 'capture', 50_000, 'e1')).toMatchObject({ resultCode: 1018 });
    expect(ledgerOf(orderId)).toEqual([expect.objectContaining({ outcome: 'failed', resultCode: 1018 })]);
  });

  it('nothing to confirm: an unknown order, or one captured automatically, is 42', async () => {
    expect(await confirm('nobody-here', 'capture', 50_000, 'n1')).toMatchObject({ resultCode: 42 });
    const body = walletOrder('auto');
    await post('create', body, CREATE_SIGNED);
    gw.sandbox.admin.approvePayment(body.orderId);
    expect(await confirm(body.orderId, 'capture', 50_000, 'n2')).toMatchObject({ resultCode: 42 });
  });
});
