/**
 * Text PostgreSQL cannot store (a lone UTF-16 surrogate, a NUL) never reaches a write after money moved:
 * a create carrying it is refused with 400 naming the field before anything is created or started; a
 * payout file's cell holding it is named by row and column; a correctly signed notification carrying it
 * is normalised, stored, signalled and acknowledged (never a 5xx for what it carries); and the audit log
 * records a request whatever text it carried.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { parseKeyId } from '../../db/shared/api-keys';
import { recordAudit } from '../../db/shared/audit-log';
import type { Db } from '../../db/shared/knex';
import { ipnPaths } from '../../platform/ipn-paths';
import { createLogger } from '../../platform/logger';
import { jsonOf, newKey, serveApi, type RunningApi } from '../support/api';
import { eventually } from '../support/wait';
import { connectTestDatabase } from '../support/database';
import { listeningDisbursement, payoutResult } from '../support/notifications';
import { testApiSettings, testMerchant } from '../support/settings';
import { testDataConverter } from '../support/temporal';
import { freshId } from '../support/ids';

let db: Db;
let connection: Connection;
let temporal: Client;
let api: RunningApi;
let maker: string;
let payments: string;

beforeAll(async () => {
  db = connectTestDatabase();
  connection = await Connection.connect({ address: inject('devServerAddress') });
  temporal = new Client({ connection, dataConverter: testDataConverter });
  const taskQueue = `nobody-${randomUUID()}`;
  const settings = testApiSettings(taskQueue);
  api = await serveApi({
    db,
    temporal,
    logger: createLogger('silent'),
    merchant: testMerchant,
    ...settings,
    // A create that got through would wait for links no worker makes: not for long.
    payments: { ...settings.payments, answerWaitMs: 500 },
  });
  maker = await newKey(db, ['payouts-maker']);
  payments = await newKey(db, ['payments']);
});

afterAll(async () => {
  await api.close();
  await connection.close();
  await db.destroy();
});

/** Once the relay marked the order's notifications signalled: the signals its workflow got. */
async function signalledOnceRelayed<T>(orderId: string, signals: () => Promise<T[]>): Promise<T[]> {
  await eventually(async () => {
    const rows = await db('ipn_notifications').where({ order_id: orderId });
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((row) => row.signalled_at !== null)).toBe(true);
  });
  return signals();
}

async function send(
  key: string,
  method: string,
  path: string,
  body: string,
  contentType = 'application/json',
) {
  const response = await fetch(`${api.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': contentType, 'idempotency-key': randomUUID() },
    body,
  });
  return { status: response.status, body: response.status === 204 ? undefined : await jsonOf(response) };
}

const LONE = 'a\ud800b';

describe('a create carrying text PostgreSQL cannot store', () => {
  it('refuses a disbursement with a lone surrogate in its description or receiver name, naming the field; nothing is created or started', async () => {
    for (const [field, body] of [
      ['body.description', { description: LONE, wallet: { walletId: '0912345678', walletName: 'An' } }],
      [
        'body.wallet.walletName',
        { description: 'Salary', wallet: { walletId: '0912345678', walletName: LONE } },
      ],
    ] as const) {
      const disbursementId = freshId('d-', 12);
      const answer = await send(
        maker,
        'POST',
        '/v1/disbursements',
        JSON.stringify({ disbursementId, amount: 250_000, ...body }),
      );
      expect(answer.status, JSON.stringify(answer.body)).toBe(400);
      expect(answer.body.error.problems).toEqual([
        expect.objectContaining({ field, rule: 'unpaired_surrogate' }),
      ]);
      expect(await db('disbursements').where({ disbursement_id: disbursementId })).toEqual([]);
      await expect(
        temporal.workflow.getHandle(`disbursement/${disbursementId}`).describe(),
      ).rejects.toThrow();
    }
  });

  it('refuses a payment with one in its orderInfo or in an item, naming each field; nothing is created', async () => {
    const paymentId = freshId('p-', 13);
    const answer = await send(
      payments,
      'POST',
      '/v1/payments',
      JSON.stringify({
        paymentId,
        requestType: 'captureWallet',
        amount: 150_000,
        orderInfo: LONE,
        items: [
          {
            id: 'sku-1',
            name: 'Tea \udc00',
            price: 150_000,
            quantity: 1,
            totalPrice: 150_000,
            currency: 'VND',
          },
        ],
      }),
    );
    expect(answer.status, JSON.stringify(answer.body)).toBe(400);
    expect(answer.body.error.problems).toEqual([
      expect.objectContaining({ field: 'body.orderInfo', rule: 'unpaired_surrogate' }),
      expect.objectContaining({ field: 'body.items.0.name', rule: 'unpaired_surrogate' }),
    ]);
    expect(await db('payments').where({ payment_id: paymentId })).toEqual([]);
  });

  it('keeps a surrogate pair (an emoji) as the character it is', async () => {
    const disbursementId = freshId('d-', 12);
    const answer = await send(
      maker,
      'POST',
      '/v1/disbursements',
      JSON.stringify({
        disbursementId,
        amount: 250_000,
        description: 'Bonus \ud83c\udf89',
        wallet: { walletId: '0912345678', walletName: 'An' },
      }),
    );
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    const [row] = await db('disbursements').where({ disbursement_id: disbursementId });
    expect(row.description).toBe('Bonus 🎉');
  });

  it('refuses a body nested 2,000 and 20,000 deep, NUL inside or not, without overflowing the stack', async () => {
    const nested = (depth: number, leaf: string) =>
      `${'['.repeat(depth)}${JSON.stringify(leaf)}${']'.repeat(depth)}`;
    // The depth is checked before the text inside: 2,000 deep is refused for its depth, whatever it holds.
    const bad = await send(maker, 'POST', '/v1/disbursements', `{"description":${nested(2000, 'a\u0000b')}}`);
    expect(bad.status, JSON.stringify(bad.body).slice(0, 300)).toBe(400);
    expect(bad.body.error.problems).toEqual([expect.objectContaining({ field: 'body', rule: 'max_depth' })]);
    const deep = await send(maker, 'POST', '/v1/disbursements', `{"description":${nested(20_000, 'x')}}`);
    expect(deep.status, JSON.stringify(deep.body).slice(0, 300)).toBe(400);
    expect(deep.body.error.code).toBe('invalid_request');
  });
});

describe('the audit log', () => {
  it('records a refused create whose description held a lone surrogate, with the text made storable', async () => {
    const disbursementId = freshId('d-', 12);
    const answer = await send(
      maker,
      'POST',
      '/v1/disbursements',
      JSON.stringify({
        disbursementId,
        amount: 250_000,
        description: LONE,
        wallet: { walletId: '0912345678', walletName: 'An' },
      }),
    );
    expect(answer.status).toBe(400);
    const entries = await db('audit_log').where({
      actor_key_id: parseKeyId(maker),
      target_id: disbursementId,
    });
    expect(entries).toEqual([
      expect.objectContaining({
        action: 'disbursement.create',
        outcome: 'refused',
        status_code: 400,
        details: expect.objectContaining({ description: 'a\ufffdb' }),
      }),
    ]);
  });

  it('writes an entry whatever text it holds (NUL and lone surrogates in every field and key)', async () => {
    const targetId = freshId('t-', 8);
    await recordAudit(db, {
      actorKeyId: null,
      actorName: 'Ops\u0000 person',
      action: 'test.unstorable',
      targetType: 'test',
      targetId: `${targetId}\u0000`,
      outcome: 'refused',
      statusCode: 400,
      path: '/v1/x\ud800',
      details: { note: 'x\u0000y', reason: ['\udfff'], ['key\u0000']: { deep: 'z\ud800' } },
    });
    const [entry] = await db('audit_log').where({ target_id: `${targetId}\ufffd` });
    // Both are marked with U+FFFD, never dropped: the reader sees that something unstorable was sent.
    expect(entry).toMatchObject({
      actor_name: 'Ops\ufffd person',
      path: '/v1/x\ufffd',
      details: { note: 'x\ufffdy', reason: ['\ufffd'], 'key\ufffd': { deep: 'z\ufffd' } },
    });
  });
});

describe('a payout file', () => {
  it('refuses a CSV cell holding a NUL, naming row and column, and creates nothing', async () => {
    const id = randomUUID().slice(0, 8);
    const csv = [
      'payout_id,wallet_id,wallet_name,personal_id,amount,description,store_id',
      `nul-${id}-1,0912345678,Nguyen Van A,,150000,Salary,`,
      `nul-${id}-2,0912345678,Tran Thi B,,150000,Sal\u0000ary,`,
    ].join('\n');
    const answer = await send(maker, 'POST', '/v1/payout-runs?fileName=nul.csv', csv, 'text/csv');
    expect(answer.status, JSON.stringify(answer.body)).toBe(422);
    expect(answer.body.error.problems).toEqual([
      expect.objectContaining({ field: 'row 3.description', rule: 'nul_character' }),
    ]);
    expect(await db('payout_items').whereLike('payout_id', `nul-${id}-%`)).toEqual([]);
  });

  it('still refuses as binary a file whose header holds NULs (UTF-16 without its byte-order mark)', async () => {
    const text = 'payout_id,wallet_id,wallet_name,amount\np1,0912345678,An,150000\n';
    const response = await fetch(`${api.baseUrl}/v1/payout-runs/dry-run`, {
      method: 'POST',
      headers: { authorization: `Bearer ${maker}`, 'content-type': 'text/csv' },
      body: Buffer.from(text, 'utf16le'),
    });
    expect(response.status).toBe(200);
    expect((await jsonOf(response)).fileErrors).toEqual([expect.objectContaining({ rule: 'not_csv' })]);
  });
});

describe('a notification carrying text PostgreSQL cannot store', () => {
  const listening = (amount = 50_000) => listeningDisbursement(db, temporal, amount);

  const result = (orderId: string, fields: Record<string, unknown>) => payoutResult(orderId, fields);

  const post = (body: unknown) =>
    fetch(`${api.baseUrl}${ipnPaths.disbursement}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('verifies it over the values as sent, then stores it normalised, noting which fields, signals it and answers 204', async () => {
    const { disbursementId, signals } = await listening();
    const notification = result(disbursementId, {
      message: 'Th\u00e0nh c\u00f4ng \ud800 x\u0000y',
      extraData: 'ref\u0000',
    });
    const answer = await post(notification);
    expect(answer.status, await answer.clone().text()).toBe(204);

    const [row] = await db('ipn_notifications').where({ order_id: disbursementId });
    expect(row.signed_fields).toMatchObject({
      message: 'Th\u00e0nh c\u00f4ng \ufffd xy',
      extraData: 'ref',
      signature: notification.signature,
    });
    expect(row.normalised_fields).toEqual(['message', 'extraData']);

    // The relay signals it from the stored row, normalised as stored.
    const signalled = await signalledOnceRelayed(disbursementId, signals);
    expect(signalled).toHaveLength(1);
    const payloads = signalled[0]!.workflowExecutionSignaledEventAttributes!.input!.payloads!;
    const [decoded] = await testDataConverter.payloadCodecs![0]!.decode(payloads);
    expect(JSON.parse(Buffer.from(decoded!.data!).toString('utf8'))).toMatchObject({
      message: 'Th\u00e0nh c\u00f4ng \ufffd xy',
    });

    // A redelivery is the same notification: stored once, signalled once.
    expect((await post(notification)).status).toBe(204);
    expect(await db('ipn_notifications').where({ order_id: disbursementId })).toHaveLength(1);
    expect(await signals()).toHaveLength(1);
  });

  it('still refuses an altered one: the signature is checked over the raw values, before normalising', async () => {
    const { disbursementId, signals } = await listening();
    const signedClean = result(disbursementId, { message: 'Successful.' });
    const answer = await post({ ...signedClean, message: 'Successful.\u0000' });
    expect(answer.status).toBe(400);
    expect(await db('ipn_notifications').where({ order_id: disbursementId })).toEqual([]);
    expect(await signals()).toHaveLength(0);
  });

  it('answers a signed one naming an order id with a NUL, or a result code no column holds, without a 5xx', async () => {
    const { disbursementId, signals } = await listening();
    const nulOrder = await post(result(`${disbursementId}\u0000`, {}));
    expect(nulOrder.status).toBe(400);
    expect((await jsonOf(nulOrder)).error.code).toBe('notification_refused');

    const hugeCode = await post(result(disbursementId, { resultCode: 2 ** 40 }));
    expect(hugeCode.status).toBe(204);
    const [row] = await db('ipn_notifications').where({ order_id: disbursementId });
    expect(row.result_code).toBeNull();
    expect(row.signed_fields.resultCode).toBe(2 ** 40);
    expect(await signalledOnceRelayed(disbursementId, signals)).toHaveLength(1);
  });
});
