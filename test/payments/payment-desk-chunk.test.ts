/**
 * The payment desk's chunk (`createDeskPayments`) against the sandbox and a database of this file's own. What
 * matters is what a crash leaves: the attempt that runs again after its worker was lost makes again the creates
 * it had claimed and creates no second order; a create claimed by a chunk nothing retries is handed to the
 * payment's own workflow; and a notification that comes while the create is under way waits in the inbox
 * rather than reaching a record that has no links yet.
 */
import { randomUUID } from 'node:crypto';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { createPaymentDeskActivities } from '../../activities/payments/payment-desk';
import {
  paymentDeskChunkId,
  paymentWorkflowId,
  type PaymentDeskChunk,
  type PaymentDeskChunkOutcome,
} from '../../contracts/payments';
import { requestIdFor } from '../../gateway/ids';
import { useScratchDatabase } from '../support/database';
import { connectDevServer } from '../support/temporal';
import { useTestGateway } from '../sandbox/support';
import { paymentNotifications } from '../../api/payments/notifications';
import { createNotificationRelay } from '../../api/ipn/relay';
import { apiSettingsFrom } from '../../api/settings';
import { loadConfig } from '../../platform/config';
import { storeNotification } from '../../db/shared/ipn-notifications';
import { createLogger } from '../../platform/logger';
import { signalRecorder } from '../support/notifications';

const scratch = useScratchDatabase('payment_desk_chunk');
const { gw, ipn } = useTestGateway();
let temporal: TestWorkflowEnvironment;
beforeAll(async () => {
  temporal = await connectDevServer();
});
afterAll(() => temporal?.teardown());

const deskWorkflowId = `payment-desk/chunk-test-${randomUUID()}`;
const taskQueue = `payment-desk-chunk-${randomUUID()}`;

const activities = () =>
  createPaymentDeskActivities({
    db: scratch.db,
    gateway: gw.client,
    paymentIpnUrl: ipn.url('/payment'),
    cardPaymentIpnUrl: ipn.url('/payment-card'),
    paymentReturnUrl: ipn.url('/return'),
  });

const chunkOf = (chunk: number): PaymentDeskChunk => ({
  deskWorkflowId,
  chunk,
  timing: {
    gatewayAttemptTimeout: '10 seconds',
    ipnTimeout: '1 minute',
    maxQueryInterval: '1 minute',
    resultWait: '1 hour',
  },
  concurrency: 4,
  // Only what an earlier attempt left, and the sweep for what is overdue: nothing new once its time is up.
  chunkMs: 0,
});

/** A desk payment as the API queues it, optionally claimed by `chunk` (at `claimedAt`). */
async function queued(options: { chunk?: number; claimedAt?: Date } = {}) {
  const id = `pc_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  await scratch.db('payments').insert({
    payment_id: id,
    order_id: id,
    workflow_id: paymentWorkflowId(id),
    desk_id: deskWorkflowId,
    ...(options.chunk !== undefined && { desk_chunk: paymentDeskChunkId(deskWorkflowId, options.chunk) }),
    request_type: 'captureWallet',
    amount: 150_000,
    status: 'created',
    auto_capture: true,
    order_info: 'Tea',
    extra_data: '',
    request_details: JSON.stringify({ lang: 'en' }),
    created_by_key: 'test',
    created_by: 'test',
    ...(options.claimedAt && { created_at: options.claimedAt, updated_at: options.claimedAt }),
  });
  return id;
}

/** Runs the chunk as attempt `attempt` of its activity, with a Temporal client for its hand-overs. */
const runChunk = (chunk: PaymentDeskChunk, attempt: number): Promise<PaymentDeskChunkOutcome> =>
  new MockActivityEnvironment({ attempt, taskQueue }, { client: temporal.client }).run(
    activities().createDeskPayments,
    chunk,
  );

const recordOf = (id: string) =>
  scratch.db('payments').where({ payment_id: id }).first('status', 'desk_id', 'pay_url', 'result_message');
const createsOf = (orderId: string) =>
  gw.sandbox.admin
    .requests()
    .filter((entry) => entry.orderId === orderId && entry.operation === 'payment.captureWallet');

/** The create the attempt before the crash sent, with the payment's own ids; its answer was lost with the worker. */
const sentBeforeTheCrash = (id: string) =>
  gw.client.call('payment.captureWallet', {
    orderId: id,
    requestId: requestIdFor(id, 'c'),
    amount: 150_000,
    orderInfo: 'Tea',
    extraData: '',
    redirectUrl: ipn.url('/return'),
    ipnUrl: ipn.url('/payment'),
    requestType: 'captureWallet',
    autoCapture: true,
    lang: 'en',
  });

describe("the payment desk's chunk", () => {
  it('a retried attempt makes again the create it had claimed: the gateway has one order, the record says its links were lost', async () => {
    const id = await queued({ chunk: 1 });
    expect((await sentBeforeTheCrash(id)).resultCode).toBe(0);

    const outcome = await runChunk(chunkOf(1), 2);
    expect(outcome.answered).toEqual([id]);
    expect(await recordOf(id)).toMatchObject({ status: 'pending', desk_id: deskWorkflowId, pay_url: null });
    expect((await recordOf(id))!.result_message).toMatch(
      /answer of the first attempt, with the payment link/,
    );
    // Two requests with one requestId: the second answered 40, no second order.
    expect(createsOf(id).map((entry) => entry.requestId)).toEqual([
      requestIdFor(id, 'c'),
      requestIdFor(id, 'c'),
    ]);
    expect(gw.sandbox.admin.approvePayment(id)).toMatchObject({ resultCode: 0 });
    expect(gw.sandbox.admin.ledger().filter((entry) => entry.orderId === id)).toHaveLength(1);
  });

  it("a retried attempt makes the creates it claimed and leaves other chunks' claims alone", async () => {
    const mine = await queued({ chunk: 2 });
    const anothers = await queued({ chunk: 3 });
    const outcome = await runChunk(chunkOf(2), 2);
    expect(outcome.answered).toEqual([mine]);
    expect(await recordOf(mine)).toMatchObject({ status: 'awaiting_customer', desk_id: deskWorkflowId });
    expect((await recordOf(mine))!.pay_url).toMatch(/^http/);
    expect(createsOf(anothers)).toEqual([]);
    expect(await recordOf(anothers)).toMatchObject({ status: 'created' });
  });

  it('hands a create claimed long ago by a chunk nothing retries to its own workflow, which makes it', async () => {
    const id = await queued({ chunk: 90, claimedAt: new Date(Date.now() - 5 * 60_000) });
    const outcome = await runChunk(chunkOf(7), 1);
    expect(outcome.handedOver).toContain(id);
    expect(await recordOf(id)).toMatchObject({ desk_id: null });
    const own = temporal.client.workflow.getHandle(paymentWorkflowId(id));
    expect((await own.describe()).status.name).toBe('RUNNING');
    await own.terminate('test over: no worker polls its queue');
  });

  it('keeps a notification in the inbox while the desk makes the create, and records it once the create is answered', async () => {
    const id = await queued({ chunk: 5 });
    await storeNotification(scratch.db, {
      kind: 'payment.resultA',
      orderId: id,
      dedupeKey: `desk-test-${id}`,
      resultCode: 0,
      signedFields: { orderId: id, resultCode: 0, message: 'Successful.', transId: 5151, amount: 150_000 },
      unverifiedFields: {},
      workflowId: paymentWorkflowId(id),
      normalisedFields: [],
    });
    const { temporal: notTemporal, signalled } = signalRecorder();
    const relay = createNotificationRelay({
      db: scratch.db,
      temporal: notTemporal,
      logger: createLogger('silent'),
      channels: [paymentNotifications],
      settings: apiSettingsFrom(
        loadConfig({ CUSTOMER_KEY_SECRET: 'a'.repeat(32), DECISION_SIGNING_KEY: 'd'.repeat(32) }),
      ).notifications,
    });
    expect(await relay.sweep()).toMatchObject({ waiting: 1, signalled: 0 });
    expect(await recordOf(id)).toMatchObject({ status: 'created' });

    await runChunk(chunkOf(5), 2);
    expect(await recordOf(id)).toMatchObject({ status: 'awaiting_customer' });
    // Put off for the relay's interval: the next sweep after it records the result, with no signal.
    await scratch.db('ipn_notifications').where({ order_id: id }).update({ signal_claimed_until: null });
    expect(await relay.sweep()).toMatchObject({ signalled: 1, waiting: 0 });
    expect(signalled).toEqual([]);
    expect(await recordOf(id)).toMatchObject({ status: 'succeeded', desk_id: deskWorkflowId });
  });
});
