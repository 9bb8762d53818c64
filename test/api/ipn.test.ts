/**
 * The notification receiver through real HTTP: a valid notification is stored once and answered, and the
 * API process's relay signals it once; forged, altered and unknown ones are refused and change nothing. Signals are counted in the
 * target workflow's history (the workflow runs on a task queue without a worker, so it only listens).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { inject } from 'vitest';
import { buildNotification, notificationSpecs } from '../../gateway';
import type { Db } from '../../db/shared/knex';
import { ipnPaths } from '../../platform/ipn-paths';
import { createLogger } from '../../platform/logger';
import { jsonOf, serveApi, type RunningApi } from '../support/api';
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
/** The API's log lines, to check what a refusal writes. */
const logLines: string[] = [];

beforeAll(async () => {
  db = connectTestDatabase();
  connection = await Connection.connect({ address: inject('devServerAddress') });
  temporal = new Client({ connection, dataConverter: testDataConverter });
  api = await serveApi({
    db,
    temporal,
    logger: createLogger('warn', 'ipn-test', { write: (line: string) => void logLines.push(line) }),
    merchant: testMerchant,
    ...testApiSettings(),
  });
});

afterAll(async () => {
  await api.close();
  await connection.close();
  await db.destroy();
});

/** A batch record and a workflow that only listens, to count the signals it receives. */
async function listeningBatch(amount = 150_000) {
  const runId = freshId('run-20261122-', 6);
  const batchId = `${runId}-b001`;
  const workflowId = `payout-batch/${batchId}`;
  await db('payout_runs').insert({
    run_id: runId,
    status: 'running',
    file_name: 'x.csv',
    file_sha256: 'x',
    row_count: 1,
    total_amount: amount,
    batch_count: 1,
    workflow_id: `payout-run/${runId}`,
    uploaded_by_key: 'k',
    uploaded_by: 'u',
    expires_at: new Date(),
  });
  await db('payout_batches').insert({
    batch_id: batchId,
    run_id: runId,
    seq: 1,
    order_id: batchId,
    workflow_id: workflowId,
    item_count: 1,
    total_amount: amount,
    status: 'validating',
  });
  await temporal.workflow.start('payoutBatch', { taskQueue: `nobody-${randomUUID()}`, workflowId, args: [] });
  const signals = async () =>
    ((await temporal.workflow.getHandle(workflowId).fetchHistory()).events ?? []).filter(
      (event) => event.workflowExecutionSignaledEventAttributes,
    ).length;
  return { batchId, workflowId, signals };
}

function created(orderId: string, amount: number, keys = testMerchant) {
  return buildNotification(
    'batch.created',
    {
      partnerCode: testMerchant.partnerCode,
      orderId,
      requestId: `${orderId}-create`,
      amount,
      resultCode: 8003,
      message: 'Batch created',
      requestType: 'batchWallet',
      disbursementBatchInfo: {
        totalUploadedCount: 1,
        totalUploadedAmount: amount,
        totalSucceedCount: 1,
        totalSucceedAmount: amount,
        totalErrorCount: 0,
        totalErrorAmount: 0,
      },
    },
    keys,
  );
}

/** A disbursement record and a listening workflow, for the receivers of single-payout results. */
const listening = async (amount = 50_000) => {
  const { disbursementId } = await listeningDisbursement(db, temporal, amount);
  return { disbursementId };
};

/** A card payment (payWithCC) record and a listening workflow, for list-B results. */
async function listeningCardPayment(amount: number) {
  const paymentId = freshId('pay-', 8);
  const workflowId = `payment/${paymentId}`;
  await db('payments').insert({
    payment_id: paymentId,
    order_id: paymentId,
    workflow_id: workflowId,
    request_type: 'payWithCC',
    amount,
    status: 'awaiting_customer',
    request_details: JSON.stringify({}),
    created_by_key: 'k',
    created_by: 'u',
  });
  await temporal.workflow.start('payment', { taskQueue: `nobody-${randomUUID()}`, workflowId, args: [] });
  return { paymentId, workflowId };
}

const moneyOutResult = (kind: 'disbursement.result' | 'remittance.result', orderId: string, amount: number) =>
  payoutResult(orderId, { amount, orderInfo: 'Salary for Nguyen Van A' }, kind);

const postTo = (path: string, body: unknown) =>
  fetch(`${api.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

const post = (body: unknown) =>
  fetch(`${api.baseUrl}${ipnPaths.batch}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

const stored = (batchId: string) => db('ipn_notifications').where({ order_id: batchId });

/** Once the relay marked the order's rows signalled: how many signals its workflow got. */
async function signalsOnceRelayed(batch: { batchId: string; signals(): Promise<number> }) {
  await eventually(async () => {
    const rows = await stored(batch.batchId);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((row) => row.signalled_at !== null)).toBe(true);
  });
  return batch.signals();
}

describe('IPN receiver', () => {
  it('accepts a valid notification: stored once, signalled once, acknowledged with 204', async () => {
    const batch = await listeningBatch();
    const response = await post(created(batch.batchId, 150_000));
    expect(response.status).toBe(204);
    expect(await stored(batch.batchId)).toHaveLength(1);
    expect(await signalsOnceRelayed(batch)).toBe(1);
  });

  it('records and signals a notification replayed five times once', async () => {
    const batch = await listeningBatch();
    const notification = created(batch.batchId, 150_000);
    for (let attempt = 0; attempt < 5; attempt++) expect((await post(notification)).status).toBe(204);
    expect(await stored(batch.batchId)).toHaveLength(1);
    expect(await signalsOnceRelayed(batch)).toBe(1);
  });

  it('refuses a forged signature and changes nothing', async () => {
    const batch = await listeningBatch();
    const forged = created(batch.batchId, 150_000, {
      ...testMerchant,
      secretKey: 'not-the-merchant-secret-key-0000',
    });
    const response = await post(forged);
    expect(response.status).toBe(400);
    expect((await jsonOf(response)).error.code).toBe('notification_refused');
    expect(await stored(batch.batchId)).toHaveLength(0);
    expect(await batch.signals()).toBe(0);
  });

  it('refuses an amount altered after signing, and a signed amount that is not the order’s', async () => {
    const batch = await listeningBatch();
    const altered = { ...created(batch.batchId, 150_000), amount: 1_500_000 };
    expect((await post(altered)).status).toBe(400);
    expect((await post(created(batch.batchId, 1_500_000))).status).toBe(400);
    expect(await stored(batch.batchId)).toHaveLength(0);
    expect(await batch.signals()).toBe(0);
  });

  it('refuses a valid notification for an order payrun does not know', async () => {
    const response = await post(created('run-20261122-ffffff-b009', 150_000));
    expect(response.status).toBe(400);
    expect(await stored('run-20261122-ffffff-b009')).toHaveLength(0);
  });

  it('refuses a body that is not JSON', async () => {
    expect((await post('partnerCode=x&signature=y')).status).toBe(400);
  });

  it('signals a notification delivered five times at once only once', async () => {
    const batch = await listeningBatch();
    const notification = created(batch.batchId, 150_000);
    const answers = await Promise.all(Array.from({ length: 5 }, () => post(notification)));
    expect(answers.map((answer) => answer.status)).toEqual([204, 204, 204, 204, 204]);
    expect(await stored(batch.batchId)).toHaveLength(1);
    expect(await signalsOnceRelayed(batch)).toBe(1);
  });

  it('accepts a notification only at the receiver of its kind (orderType)', async () => {
    const { disbursementId } = await listening();
    const remittanceResult = moneyOutResult('remittance.result', disbursementId, 50_000);
    const misrouted = await postTo(ipnPaths.disbursement, remittanceResult);
    expect(misrouted.status).toBe(400);
    expect((await jsonOf(misrouted)).error.message).toContain('svc_disbursement');
    expect(await stored(disbursementId)).toHaveLength(0);

    const ownKind = await postTo(
      ipnPaths.disbursement,
      moneyOutResult('disbursement.result', disbursementId, 50_000),
    );
    expect(ownKind.status).toBe(204);
    expect(await stored(disbursementId)).toHaveLength(1);
  });

  it('stores only the signed fields, and apart the listed unsigned ones marked unverified; unlisted fields are dropped', async () => {
    const batch = await listeningBatch();
    const withExtras = { ...created(batch.batchId, 150_000), customerEmail: 'alice@example.com' };
    expect((await post(withExtras)).status).toBe(204);
    const [row] = await stored(batch.batchId);
    expect(row.raw_body).toBeNull();
    expect(Object.keys(row.signed_fields).sort()).toEqual(
      // accessKey is signed but never sent: the verifier signs with the merchant's own.
      [
        ...notificationSpecs['batch.created'].signed.filter((name) => name !== 'accessKey'),
        'signature',
      ].sort(),
    );
    expect(row.unverified_fields).toEqual({
      disbursementBatchInfo: expect.objectContaining({ totalSucceedCount: 1 }),
    });
    expect(JSON.stringify(row)).not.toContain('alice@example.com');
  });

  it('never stores or signals a card number in full, and keeps unsigned payment fields apart', async () => {
    const { paymentId, workflowId } = await listeningCardPayment(120_000);
    const notification = buildNotification(
      'payment.resultB',
      {
        partnerCode: testMerchant.partnerCode,
        orderId: paymentId,
        requestId: `${paymentId}-create`,
        amount: 120_000,
        orderInfo: 'Order 42',
        orderType: 'svc_wallet',
        transId: 4_100_000_002,
        resultCode: 0,
        message: 'Successful.',
        payType: 'credit',
        responseTime: 1_763_800_000_000,
        extraData: '',
        partnerClientId: '',
        callbackToken: '',
      },
      testMerchant,
    );
    // Unsigned: added after signing, as anyone on the path could.
    const sent = {
      ...notification,
      paymentOption: 'visa',
      promotionInfo: [{ amount: 5000, voucherId: 'v1' }],
      cardPaymentInfo: { cardType: 'VISA', cardNumber: '4111111111111111', holderName: 'NGUYEN VAN A' },
      fraudNote: 'nguyen.van.a@example.com',
    };
    const answer = await postTo(ipnPaths.paymentCard, sent);
    expect(answer.status).toBeLessThan(300);
    const [row] = await stored(paymentId);
    expect(row.unverified_fields).toEqual({
      paymentOption: 'visa',
      promotionInfo: [{ amount: 5000, voucherId: 'v1' }],
      cardPaymentInfo: { cardType: 'VISA', cardNumber: '************1111' },
    });
    expect(row.signed_fields).not.toHaveProperty('cardPaymentInfo');
    const rowText = JSON.stringify(row);
    for (const secret of ['4111111111111111', 'NGUYEN VAN A', 'nguyen.van.a@example.com'])
      expect(rowText).not.toContain(secret);

    // What the workflow was signalled with (decoded from history) holds none of the unsigned fields, not
    // even the masked number: the workflow records only what the gateway signed.
    const signalled = await eventually(async () => {
      const history = await temporal.workflow.getHandle(workflowId).fetchHistory();
      const payloads = history.events?.find((event) => event.workflowExecutionSignaledEventAttributes)
        ?.workflowExecutionSignaledEventAttributes?.input?.payloads;
      expect(payloads).toBeDefined();
      return payloads;
    });
    const [decoded] = await testDataConverter.payloadCodecs![0]!.decode(signalled!);
    const signalText = Buffer.from(decoded!.data!).toString('utf8');
    expect(signalText).toContain('"transId":"4100000002"');
    for (const unsigned of ['1111', 'visa', 'VISA', 'voucherId', 'NGUYEN VAN A', 'nguyen.van.a@example.com'])
      expect(signalText).not.toContain(unsigned);
  });

  it('logs a refused notification by kind, reason, orderId and size, never its body', async () => {
    const orderId = `run-20261122-${randomUUID().slice(0, 6)}-b001`;
    const forged = {
      ...created(orderId, 150_000),
      partnerClientId: 'alice@example.com',
      orderInfo: 'Payout to Nguyen Van A',
      padding: 'x'.repeat(100_000),
      signature: 'f'.repeat(64),
    };
    const before = logLines.length;
    expect((await post(forged)).status).toBe(400);
    const lines = logLines.slice(before).filter((line) => line.includes(orderId));
    expect(lines).toHaveLength(1);
    const entry = JSON.parse(lines[0]!);
    expect(entry).toMatchObject({ kind: 'batch.created', reason: 'signature_error', orderId });
    expect(entry.size).toBeGreaterThan(100_000);
    expect(lines[0]!.length).toBeLessThan(1000);
    expect(lines[0]).not.toContain('alice@example.com');
    expect(lines[0]).not.toContain('Nguyen');
  });
});
