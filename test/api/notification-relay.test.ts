/**
 * Nothing acknowledged is lost: a notification stored and claimed by an API process that then died is
 * signalled by another process's relay once the claim lapses, exactly once; relays racing signal each row
 * once; a row signalled already is never signalled again; a finished workflow counts as delivered.
 *
 * A process that died mid-signal is, from outside, one whose signal never returns: the stack's API gets a
 * Temporal client whose `signal` never settles, so it stores and claims, then hangs, and the sandbox's
 * redeliveries are answered 204 "duplicate" while the claim holds. The relays run on the file's own
 * database: a relay signals every row it finds, and other files' rows are not this file's to touch.
 * The lease and the relay's pace come from IPN_CLAIM_LEASE_SECONDS and IPN_RELAY_INTERVAL_SECONDS.
 *
 * The receivers here run the previous design (IPN_SIGNAL_BEFORE_ANSWER=true: claim, signal, then answer),
 * the one the ipn benchmark compares against and the one API processes of the release before the inbox
 * ran during a rolling upgrade: their claimed rows are the relay's too. The inbox itself (store, answer,
 * the relay signals) is test/api/notification-inbox.test.ts.
 */
import { randomUUID } from 'node:crypto';
import { codeOf } from '../../gateway';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { createApp, notificationRelay, type ApiDependencies } from '../../api/app';
import type { NotificationRelay } from '../../api/ipn/relay';
import { apiSettingsFrom } from '../../api/settings';
import { loadConfig } from '../../platform/config';
import { ipnPaths } from '../../platform/ipn-paths';
import { createLogger } from '../../platform/logger';
import { metricsRegistry } from '../../platform/metrics';
import { callApi, listen, type RunningApi } from '../support/api';
import { useScratchDatabase } from '../support/database';
import {
  TEST_CUSTOMER_KEY_SECRET,
  TEST_DECISION_SIGNING_KEY,
  testApiSettings,
  testMerchant,
} from '../support/settings';
import { startStack, type Stack } from '../support/stack';
import { listeningDisbursement, payoutResult, signalsNeverSettle } from '../support/notifications';
import { connectDevServer } from '../support/temporal';
import { eventually } from '../support/wait';
import { testPaymentSettings } from '../payments/payment-stack';
import { freshId } from '../support/ids';

/** The settings as an API process builds them from its environment. */
const notifications = apiSettingsFrom(
  loadConfig({
    CUSTOMER_KEY_SECRET: TEST_CUSTOMER_KEY_SECRET,
    DECISION_SIGNING_KEY: TEST_DECISION_SIGNING_KEY,
    IPN_CLAIM_LEASE_SECONDS: '4',
    IPN_RELAY_INTERVAL_SECONDS: '0.2',
    IPN_SIGNAL_BEFORE_ANSWER: 'true',
  }),
).notifications;

const scratch = useScratchDatabase('relay');
let env: TestWorkflowEnvironment;
let stack: Stack<'key'>;
/** What the relays log, to see what they say about a finished workflow. */
const logLines: string[] = [];
const relays: NotificationRelay[] = [];

/** Another API process on the same database and Temporal, with its own relay. */
function anotherApiProcess(overrides: Partial<ApiDependencies['notifications']> = {}): NotificationRelay {
  const relay = notificationRelay({
    db: scratch.db,
    temporal: env.client,
    logger: createLogger('info', 'relay-test', { write: (line: string) => void logLines.push(line) }),
    merchant: testMerchant,
    ...testApiSettings(stack.taskQueue, { notifications: { ...notifications, ...overrides } }),
  });
  relays.push(relay);
  return relay;
}

beforeAll(async () => {
  env = await connectDevServer();
  const taskQueue = `relay-${randomUUID()}`;
  const payments = testPaymentSettings(taskQueue);
  stack = await startStack(env, scratch.db, {
    taskQueue,
    keys: { key: { name: 'payments', roles: ['payments'] } },
    // A delivery the API does not answer is given up after 300 ms and sent again soon after: well
    // within the claim's lease, so the copy is answered as a duplicate.
    sandbox: { timing: { ipnTimeoutMs: 300, ipnRetryDelayMs: 100, ipnMaxAttempts: 4 } },
    app: {
      notifications,
      // Only the notification moves the payment: the workflow would ask the gateway after an hour.
      payments: { ...payments, payment: { ...payments.payment, ipnTimeout: '1 hour' } },
    },
    apiTemporal: signalsNeverSettle,
    withoutRelay: true,
  });
}, 60_000);

afterAll(async () => {
  await Promise.all(relays.map((relay) => relay.stop()));
  await stack?.close();
  await env?.teardown();
});

const signalsOf = async (workflowId: string) =>
  ((await env.client.workflow.getHandle(workflowId).fetchHistory()).events ?? []).filter(
    (event) => event.workflowExecutionSignaledEventAttributes,
  ).length;

const metric = async (name: string, labels = '') => {
  const text = await metricsRegistry.getSingleMetricAsString(name);
  const line = text.split('\n').find((entry) => entry.startsWith(`${name}${labels} `));
  return line === undefined ? 0 : Number(line.split(' ')[1]);
};

describe('the notification relay', () => {
  it('signals, once, a notification whose receiver died after claiming it, once the claim lapses', async () => {
    const paymentId = freshId('p-', 13);
    const created = await callApi(stack.api, stack.key, 'POST', '/v1/payments', {
      paymentId,
      requestType: 'captureWallet',
      amount: 150_000,
      orderInfo: 'Relay test',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const { order_id: orderId, workflow_id: workflowId } = await scratch
      .db('payments')
      .where({ payment_id: paymentId })
      .first('order_id', 'workflow_id');
    stack.sandbox.admin.approvePayment(orderId);

    // The first copy was stored and claimed, then its signal hung; the sandbox gave up on it and its
    // next copy was answered 204 as a duplicate, so the gateway stops sending.
    await eventually(() => {
      const deliveries = stack.sandbox.admin.ipnLog().filter((entry) => entry.orderId === orderId);
      expect(deliveries).toContainEqual(expect.objectContaining({ attempt: 1, outcome: 'failed' }));
      expect(deliveries).toContainEqual(
        expect.objectContaining({ attempt: 2, outcome: 'delivered', httpStatus: 204 }),
      );
    });
    const [stored] = await scratch.db('ipn_notifications').where({ order_id: orderId });
    expect(stored).toMatchObject({ kind: 'payment.resultA', signalled_at: null });
    expect(stored.signal_claimed_until.getTime()).toBeGreaterThan(Date.now());
    expect(await signalsOf(workflowId)).toBe(0);

    // Another API process: while the claim holds, its relay leaves the row alone (the claimer may yet
    // signal); the oldest unsignalled notification shows its age.
    const relay = anotherApiProcess();
    expect(await relay.sweep()).toEqual({
      signalled: 0,
      workflow_gone: 0,
      failed: 0,
      unlocated: 0,
      waiting: 0,
    });
    expect(await metric('payrun_ipn_oldest_unsignalled_seconds')).toBeGreaterThan(0);
    const relayedBefore = await metric(
      'payrun_ipn_relayed_total',
      '{kind="payment.resultA",outcome="signalled"}',
    );

    // Once the lease lapses the relay, sweeping on its own every 0.2 s, signals it from the stored row.
    relay.start();
    const payment = await eventually(async () => {
      const view = await callApi(stack.api, stack.key, 'GET', `/v1/payments/${paymentId}`);
      expect(view.body.status).toBe('succeeded');
      return view.body;
    });
    expect(payment).toMatchObject({ resultCode: 0, transId: expect.stringMatching(/^\d+$/) });
    expect(await signalsOf(workflowId)).toBe(1);
    const [after] = await scratch.db('ipn_notifications').where({ order_id: orderId });
    expect(after.signalled_at).not.toBeNull();
    expect(await metric('payrun_ipn_relayed_total', '{kind="payment.resultA",outcome="signalled"}')).toBe(
      relayedBefore + 1,
    );

    // Later sweeps, of this process and of another, find nothing more to signal.
    await relay.stop();
    expect((await anotherApiProcess().sweep()).signalled).toBe(0);
    expect(await signalsOf(workflowId)).toBe(1);
    expect(await metric('payrun_ipn_oldest_unsignalled_seconds')).toBe(0);
  });
});

describe('rows the relay finds', () => {
  /** A dead API process on the file's database: it stores and claims notifications, then hangs. */
  let dead: RunningApi;
  /** A live one: it signals what it stores. */
  let live: RunningApi;
  beforeAll(async () => {
    const app = (temporal: Client) =>
      listen(
        createApp({
          db: scratch.db,
          temporal,
          logger: createLogger('silent'),
          merchant: testMerchant,
          // A short lease, so these tests wait a second, not a minute, for claims to lapse.
          ...testApiSettings(stack.taskQueue, { notifications: { ...notifications, claimLeaseSeconds: 1 } }),
        }),
      );
    dead = await app(signalsNeverSettle(env.client));
    live = await app(env.client);
  });
  afterAll(async () => {
    await dead?.close();
    await live?.close();
  });

  const listening = async () => {
    const { disbursementId, workflowId } = await listeningDisbursement(scratch.db, env.client);
    return { orderId: disbursementId, workflowId };
  };

  /** Posts the gateway's signed result for the order to an API process; a dead one never answers. */
  function notify(api: RunningApi, orderId: string, fields: Record<string, unknown> = {}) {
    const body = payoutResult(orderId, fields);
    return fetch(`${api.baseUrl}${ipnPaths.disbursement}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: api === dead ? AbortSignal.timeout(200) : undefined,
    }).catch(() => undefined);
  }

  /** Notifications stored and claimed by the dead process, whose claims have lapsed. */
  async function abandoned(count: number, fields: Record<string, unknown> = {}) {
    const orders = await Promise.all(Array.from({ length: count }, () => listening()));
    await Promise.all(orders.map(({ orderId }) => notify(dead, orderId, fields)));
    await eventually(async () => {
      const rows = await scratch
        .db('ipn_notifications')
        .whereIn(
          'order_id',
          orders.map(({ orderId }) => orderId),
        )
        .where('signal_claimed_until', '<', scratch.db.fn.now());
      expect(rows).toHaveLength(count);
    });
    return orders;
  }

  it('two relays racing signal each row once', async () => {
    const orders = await abandoned(12);
    // Small sweeps, so both relays go round several times and meet on the same rows.
    const [a, b] = [anotherApiProcess({ relayBatchSize: 2 }), anotherApiProcess({ relayBatchSize: 2 })];
    const [first, second] = await Promise.all([a.sweep(), b.sweep()]);
    expect(first.signalled + second.signalled).toBe(orders.length);
    for (const { workflowId } of orders) expect(await signalsOf(workflowId), workflowId).toBe(1);
    const rows = await scratch.db('ipn_notifications').whereIn(
      'order_id',
      orders.map(({ orderId }) => orderId),
    );
    expect(rows.every((row) => row.signalled_at !== null)).toBe(true);
  });

  it('never signals again a row signalled already, by a receiver or by a relay', async () => {
    const byReceiver = await listening();
    expect((await notify(live, byReceiver.orderId))?.status).toBe(204);
    const [byRelay] = await abandoned(1);
    const relay = anotherApiProcess();
    expect((await relay.sweep()).signalled).toBeGreaterThanOrEqual(1);
    expect(await signalsOf(byReceiver.workflowId)).toBe(1);
    expect(await signalsOf(byRelay!.workflowId)).toBe(1);

    // Longer than the lease later, sweeps by this relay and another still leave both alone.
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    await relay.sweep();
    await anotherApiProcess().sweep();
    expect(await signalsOf(byReceiver.workflowId)).toBe(1);
    expect(await signalsOf(byRelay!.workflowId)).toBe(1);
  });

  it('counts a finished workflow as delivered, and says so in the log', async () => {
    const [order] = await abandoned(1);
    await env.client.workflow.getHandle(order!.workflowId).terminate('the payout finished another way');
    const before = logLines.length;
    expect((await anotherApiProcess().sweep()).workflow_gone).toBe(1);
    const [row] = await scratch.db('ipn_notifications').where({ order_id: order!.orderId });
    expect(row.signalled_at).not.toBeNull();
    const said = logLines.slice(before).map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(said).toContainEqual(
      expect.objectContaining({
        orderId: order!.orderId,
        msg: expect.stringContaining('a workflow that has finished'),
      }),
    );
  });

  const disagreeing = () => metric('payrun_ipn_disagreeing_total', '{kind="disbursement.result"}');
  const warningsAbout = (orderId: string, from: number) =>
    logLines
      .slice(from)
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.orderId === orderId && line.level === 40);

  it('delivers the result of a disbursement whose record is final without signalling its workflow', async () => {
    const [order] = await abandoned(1);
    // As when pay's own answer was final: the workflow recorded it and returns in that same task.
    await scratch.db('disbursements').where({ order_id: order!.orderId }).update({ status: 'succeeded' });
    const [counted, before] = [await disagreeing(), logLines.length];
    expect(await anotherApiProcess().sweep()).toEqual({
      signalled: 0,
      workflow_gone: 1,
      failed: 0,
      unlocated: 0,
      waiting: 0,
    });
    const [row] = await scratch.db('ipn_notifications').where({ order_id: order!.orderId });
    expect(row.signalled_at).not.toBeNull();
    // The workflow (still listening here) was not called: no signal in its history.
    expect(await signalsOf(order!.workflowId)).toBe(0);
    // The notification agrees with the record: nothing to warn about.
    expect(await disagreeing()).toBe(counted);
    expect(warningsAbout(order!.orderId, before)).toEqual([]);
  });

  it.each([
    ['succeeded', codeOf('declined'), 'recorded succeeded'],
    ['failed', 0, 'recorded failed (nothing paid)'],
  ])(
    'a notification that contradicts the final record (%s, notified %i) is counted and warned about; the record stands',
    async (status, resultCode, said) => {
      const [order] = await abandoned(1, { resultCode });
      await scratch.db('disbursements').where({ order_id: order!.orderId }).update({ status });
      const [counted, before] = [await disagreeing(), logLines.length];
      expect((await anotherApiProcess().sweep()).workflow_gone).toBe(1);
      expect(await disagreeing()).toBe(counted + 1);
      expect(warningsAbout(order!.orderId, before)).toEqual([
        expect.objectContaining({ resultCode, msg: expect.stringContaining(said) }),
      ]);
      const [record] = await scratch.db('disbursements').where({ order_id: order!.orderId });
      expect(record.status).toBe(status);
      expect(await signalsOf(order!.workflowId)).toBe(0);
    },
  );
});
