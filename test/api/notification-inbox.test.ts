/**
 * The notification inbox: the receiver stores a notification and answers without calling Temporal, and the
 * relay signals the workflow from the stored row. Proven here against a Temporal server of the file's own
 * that the tests stop and start, on a database of the file's own (a relay signals every row it finds):
 * notifications are answered while Temporal is down and each workflow gets each signal once when it is
 * back; one workflow's notifications are signalled in the order they were stored, even with relays racing;
 * a redelivery is a no-op; a process that died after storing, or a relay that died mid-signal, loses
 * nothing; another process's commit wakes a relay at once (LISTEN/NOTIFY). Workflows here only listen (no
 * worker polls their queue), so their histories count the signals. IPN_RELAY_CONCURRENCY,
 * IPN_RELAY_INTERVAL_SECONDS and IPN_CLAIM_LEASE_SECONDS set the relays' pace.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { createApp, notificationRelay, type ApiDependencies } from '../../api/app';
import type { NotificationRelay } from '../../api/ipn/relay';
import { apiSettingsFrom } from '../../api/settings';
import { createDb, type Db } from '../../db/shared/knex';
import { loadConfig } from '../../platform/config';
import { ipnPaths } from '../../platform/ipn-paths';
import { metricsRegistry } from '../../platform/metrics';
import { createLogger } from '../../platform/logger';
import { listen, serveApi, type RunningApi } from '../support/api';
import { useScratchDatabase } from '../support/database';
import { listeningDisbursement, payoutResult, signalsNeverSettle } from '../support/notifications';
import {
  TEST_CUSTOMER_KEY_SECRET,
  TEST_DECISION_SIGNING_KEY,
  testApiSettings,
  testMerchant,
} from '../support/settings';
import { startStoppableTemporal, type StoppableTemporal } from '../support/stoppable-temporal';
import { testDataConverter } from '../support/temporal';
import { eventually } from '../support/wait';

/** The settings as an API process builds them from its environment. */
const notifications = apiSettingsFrom(
  loadConfig({
    CUSTOMER_KEY_SECRET: TEST_CUSTOMER_KEY_SECRET,
    DECISION_SIGNING_KEY: TEST_DECISION_SIGNING_KEY,
    IPN_CLAIM_LEASE_SECONDS: '2',
    IPN_RELAY_INTERVAL_SECONDS: '0.2',
    IPN_RELAY_CONCURRENCY: '4',
    // The tests store notifications faster than a burst's threshold and sweep once: only the burst tests
    // below have the relays give way.
    IPN_RELAY_YIELD_ABOVE: '0',
  }),
).notifications;

const scratch = useScratchDatabase('inbox');
let temporalServer: StoppableTemporal;
let connection: Connection;
let temporal: Client;
/**
 * An API process with its relay running, as production runs one. Its rows and relay have a scope of
 * their own ('main'), so the other processes' relays below are the only ones that can take what
 * `storesOnly` stored ('orphan'), and the tests see which relay did what.
 */
let api: RunningApi;
/** An API process whose relay never runs: a process that died right after storing what it answered. */
let storesOnly: RunningApi;
const relays: NotificationRelay[] = [];
const extraDbs: Db[] = [];

const depsOf = (
  db: Db,
  client: Client,
  overrides: Partial<ApiDependencies['notifications']> = {},
): ApiDependencies => ({
  db,
  temporal: client,
  logger: createLogger('silent'),
  merchant: testMerchant,
  ...testApiSettings('inbox', { notifications: { ...notifications, relayScope: 'orphan', ...overrides } }),
});

/**
 * Another API process's relay on the file's database, taking what `storesOnly` stored unless told
 * otherwise (not started: the test sweeps or starts it).
 */
function anotherRelay(
  overrides: Partial<ApiDependencies['notifications']> = {},
  client = temporal,
  db = scratch.db,
): NotificationRelay {
  const relay = notificationRelay(depsOf(db, client, overrides));
  relays.push(relay);
  return relay;
}

beforeAll(async () => {
  temporalServer = await startStoppableTemporal();
  connection = await Connection.connect({ address: temporalServer.address });
  temporal = new Client({ connection, dataConverter: testDataConverter });
  api = await serveApi(depsOf(scratch.db, temporal, { relayScope: 'main' }));
  storesOnly = await listen(createApp(depsOf(scratch.db, temporal)));
}, 60_000);

afterAll(async () => {
  await api?.close();
  await storesOnly?.close();
  // A relay whose signals never return is left hanging on purpose; the others stop.
  await Promise.race([
    Promise.all(relays.map((relay) => relay.stop())),
    new Promise((resolve) => setTimeout(resolve, 2_000)),
  ]);
  await Promise.all(extraDbs.map((db) => db.destroy()));
  await connection?.close();
  await temporalServer?.teardown();
});

/** The gateway's result for a payout, the n-th sent about it: each its own requestId, so its own signature. */
const nthResult = (orderId: string, n: number) =>
  payoutResult(orderId, { requestId: `${orderId}-pay-${n}`, transId: 4_100_000_000 + n });

function notify(to: RunningApi, body: unknown) {
  return fetch(`${to.baseUrl}${ipnPaths.disbursement}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** The transIds a workflow was signalled with, in the order its history holds them. */
async function signalledTransIds(workflowId: string): Promise<string[]> {
  const history = await temporal.workflow.getHandle(workflowId).fetchHistory();
  const ids: string[] = [];
  for (const event of history.events ?? []) {
    const payloads = event.workflowExecutionSignaledEventAttributes?.input?.payloads;
    if (!payloads) continue;
    const [decoded] = await testDataConverter.payloadCodecs![0]!.decode(payloads);
    ids.push(
      String((JSON.parse(Buffer.from(decoded!.data!).toString('utf8')) as { transId: string }).transId),
    );
  }
  return ids;
}

const rowsOf = (orderIds: string[]) =>
  scratch.db('ipn_notifications').whereIn('order_id', orderIds).orderBy('id');

const allSignalled = async (orderIds: string[]) => {
  const rows = await rowsOf(orderIds);
  expect(rows.length).toBeGreaterThan(0);
  expect(rows.filter((row) => row.signalled_at === null)).toEqual([]);
};

const expected = (count: number) => Array.from({ length: count }, (_, n) => String(4_100_000_000 + n));

describe('the notification inbox', () => {
  it('answers notifications while Temporal is down; every workflow gets each signal once, in order, when it is back', async () => {
    const orders = await Promise.all(
      Array.from({ length: 4 }, () => listeningDisbursement(scratch.db, temporal)),
    );
    const orderIds = orders.map((order) => order.disbursementId);

    await temporalServer.stop();
    // Two notifications per workflow, the second sent once the first was answered: stored in that order.
    for (let n = 0; n < 2; n++) {
      const answers = await Promise.all(orderIds.map((orderId) => notify(api, nthResult(orderId, n))));
      // The spec's acknowledgement of a disbursement result: 204, no body.
      for (const answer of answers) {
        expect(answer.status).toBe(204);
        expect(await answer.text()).toBe('');
      }
    }
    const stored = await rowsOf(orderIds);
    expect(stored).toHaveLength(8);
    expect(stored.every((row) => row.signalled_at === null)).toBe(true);

    await temporalServer.start();
    await eventually(() => allSignalled(orderIds), { timeout: 90_000 });
    for (const { workflowId } of orders) expect(await signalledTransIds(workflowId)).toEqual(expected(2));
  }, 150_000);

  it('signals one workflow’s notifications in the order they were stored, with relays racing', async () => {
    const orders = await Promise.all(
      Array.from({ length: 5 }, () => listeningDisbursement(scratch.db, temporal)),
    );
    const orderIds = orders.map((order) => order.disbursementId);
    // Stored one after another by a process whose relay never runs.
    for (let n = 0; n < 6; n++)
      for (const orderId of orderIds)
        expect((await notify(storesOnly, nthResult(orderId, n))).status).toBe(204);

    // Three relays, small batches and several lanes each, sweeping at once.
    const racing = [1, 2, 3].map(() => anotherRelay({ relayBatchSize: 3, relayConcurrency: 3 }));
    await Promise.all(racing.map((relay) => relay.sweep()));
    await eventually(() => allSignalled(orderIds));
    for (const { workflowId } of orders) expect(await signalledTransIds(workflowId)).toEqual(expected(6));
  });

  it('takes a redelivery as a no-op: stored once, signalled once', async () => {
    const { disbursementId, workflowId } = await listeningDisbursement(scratch.db, temporal);
    const notification = nthResult(disbursementId, 0);
    for (let copy = 0; copy < 3; copy++) expect((await notify(api, notification)).status).toBe(204);
    await eventually(() => allSignalled([disbursementId]));
    // Again once it was signalled, and another relay's sweep after it.
    expect((await notify(api, notification)).status).toBe(204);
    await anotherRelay({ relayScope: 'main' }).sweep();
    expect(await rowsOf([disbursementId])).toHaveLength(1);
    expect(await signalledTransIds(workflowId)).toEqual(expected(1));
  });

  it('loses nothing when a process dies after storing, or a relay dies mid-signal', async () => {
    const orders = await Promise.all(
      Array.from({ length: 3 }, () => listeningDisbursement(scratch.db, temporal)),
    );
    const orderIds = orders.map((order) => order.disbursementId);
    for (const orderId of orderIds)
      expect((await notify(storesOnly, nthResult(orderId, 0))).status).toBe(204);

    // A relay claims them and hangs on the signal (its process died there): never awaited.
    void anotherRelay({}, signalsNeverSettle(temporal)).sweep();
    await eventually(async () => {
      const rows = await rowsOf(orderIds);
      expect(rows.every((row) => row.signal_claimed_until !== null)).toBe(true);
    });
    // Once its claims lapse, another process's relay signals each, once.
    const survivor = anotherRelay();
    await eventually(async () => {
      await survivor.sweep();
      await allSignalled(orderIds);
    });
    for (const { workflowId } of orders) expect(await signalledTransIds(workflowId)).toEqual(expected(1));
  });

  /** Orders with `count` notifications each, stored by the process whose relay never runs. */
  async function storedBurst(orderCount: number, count: number) {
    const orders = await Promise.all(
      Array.from({ length: orderCount }, () => listeningDisbursement(scratch.db, temporal)),
    );
    const orderIds = orders.map((order) => order.disbursementId);
    for (let n = 0; n < count; n++)
      for (const orderId of orderIds)
        expect((await notify(storesOnly, nthResult(orderId, n))).status).toBe(204);
    return { orders, orderIds };
  }
  const givingWayGauge = async () =>
    (await metricsRegistry.getSingleMetric('payrun_ipn_relay_giving_way')?.get())?.values[0]?.value;
  // Arrivals counted over a minute rather than a second, so the burst is still "on" however slowly the
  // test stores it: a dozen rows in the window is 0.2 a second, above 0.1.
  const burst = { relayYieldAbove: 0.1, relayYieldWindowSeconds: 60 };

  it('gives way to a burst: signals none younger than the bound while it lasts, then each once, in order', async () => {
    const { orders, orderIds } = await storedBurst(3, 4);

    const givingWay = anotherRelay({ ...burst, relayYieldMaxSeconds: 3600 });
    expect(await givingWay.sweep()).toMatchObject({ signalled: 0, failed: 0 });
    expect((await rowsOf(orderIds)).filter((row) => row.signalled_at !== null)).toEqual([]);
    // What an operator sees in /metrics meanwhile.
    expect(await givingWayGauge()).toBe(1);

    // The bound: once older than it, the rows are signalled though the burst is still on.
    const bounded = anotherRelay({ ...burst, relayYieldMaxSeconds: 1 });
    await eventually(async () => {
      await bounded.sweep();
      await allSignalled(orderIds);
    });
    for (const { workflowId } of orders) expect(await signalledTransIds(workflowId)).toEqual(expected(4));
  });

  it('relays everything once the burst has passed, without another notification to wake it', async () => {
    const { orders, orderIds } = await storedBurst(2, 3);
    // Counted over 2 s: a burst while it is stored, passed 2 s after the last row.
    const relay = anotherRelay({ ...burst, relayYieldWindowSeconds: 2, relayYieldMaxSeconds: 3600 });
    relay.start();
    await eventually(() => allSignalled(orderIds), { timeout: 20_000 });
    for (const { workflowId } of orders) expect(await signalledTransIds(workflowId)).toEqual(expected(3));
    expect(await givingWayGauge()).toBe(0);
  });

  it('wakes another process’s relay at once by NOTIFY, long before its interval', async () => {
    // A process on a connection pool of its own, so only PostgreSQL can tell it: its interval is a minute.
    const elsewhere = createDb(scratch.db.client.config.connection as string, { poolMax: 2 });
    extraDbs.push(elsewhere);
    const listening = anotherRelay({ relayIntervalMs: 60_000 }, temporal, elsewhere);
    listening.start();
    const { disbursementId, workflowId } = await listeningDisbursement(scratch.db, temporal);
    // Its LISTEN is open once its first sweep, which start() runs, has claimed nothing.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await notify(storesOnly, nthResult(disbursementId, 0))).status).toBe(204);
    await eventually(() => allSignalled([disbursementId]), { timeout: 20_000 });
    expect(await signalledTransIds(workflowId)).toEqual(expected(1));
  });
});
