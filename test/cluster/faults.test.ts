/**
 * Hard faults on the production shape (`npm run cluster`: separate processes, the Temporal server on
 * PostgreSQL): a worker SIGKILLed while it holds a batch's gateway call or while its workflow task pays a
 * disbursement (a local activity, after the gateway moved the money), the Temporal server killed in
 * the middle of a run, the API killed while the gateway is sending notifications, the relay process killed
 * while they arrive. In each case the run reconciles, every row is paid exactly once in the sandbox's ledger,
 * and no notification is lost.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { temporal } from '@temporalio/proto';
import { billingRunWorkflowId, subscriptionWorkflowId } from '../../contracts/subscriptions';
import { disbursementWorkflowId } from '../../contracts/payouts';
import { loadConfig } from '../../platform/config';
import { payoutFile } from '../support/payout-stack';
import { eventually } from '../support/wait';
import type { IpnLogEntry } from '../../sandbox/ipn';
import { useCluster } from './cluster-fixture';

// The sandbox redelivers a refused notification for about 2 minutes (8 attempts, doubling from 1 s): longer
// than a killed API takes to start again on a loaded machine, as a real gateway's retries are. With its
// default 7 s, a notification can outlast its retries; the workflow then asks, and the test of redelivery
// would measure the machine's load instead.
// With a relay process beside the API (npm run cluster --relay-process): the API killed while notifications
// arrive leaves their signalling to it, and the relay killed leaves the API answering. The other cluster files
// run the default, the API relaying what it stores.
const t = useCluster({ workers: 2, sandboxTiming: { ipnMaxAttempts: 8 }, relayProcess: true });
/** Real time on a real server: a killed worker's gateway call is retried after its 2-minute timeout. */
const RUN_TIMEOUT = 240_000;

async function startRun(prefix: string, rows: number): Promise<string> {
  const maker = await t.key(['payouts-maker']);
  const approver = await t.key(['payouts-approver']);
  const uploaded = await t.api(
    maker,
    'POST',
    `/v1/payout-runs?fileName=${prefix}.csv`,
    payoutFile(prefix, rows),
    'text/csv',
  );
  expect(uploaded.status, JSON.stringify(uploaded.body)).toBe(201);
  const runId = uploaded.body.runId as string;
  const approved = await t.api(approver, 'POST', `/v1/payout-runs/${runId}/approve`, {});
  expect(approved.status, JSON.stringify(approved.body)).toBe(200);
  return runId;
}

async function reconciled(runId: string, timeout = RUN_TIMEOUT) {
  const viewer = await t.key(['viewer']);
  return eventually(
    async () => {
      const run = await t.api(viewer, 'GET', `/v1/payout-runs/${runId}`);
      expect(run.body.status).toBe('reconciled');
      return run.body;
    },
    { timeout },
  );
}

const batchesOf = (runId: string) =>
  t.db('payout_batches').where({ run_id: runId }).select('order_id', 'workflow_id');

/** Each of the run's rows moved money exactly once. */
async function expectPaidOnce(runId: string, rows: number) {
  const orders = new Set((await batchesOf(runId)).map((batch) => batch.order_id as string));
  const moved = (await t.ledger()).filter(
    (entry) => orders.has(entry.orderId) && entry.outcome === 'succeeded',
  );
  const items = moved.map((entry) => `${entry.orderId}/${entry.itemId}`);
  expect(new Set(items).size).toBe(rows);
  expect(items).toHaveLength(rows);
}

/** The worker process running a started activity of one of these workflows: its identity, and which workflow. */
function heldActivity(workflowIds: string[]): Promise<{ identity: string; workflowId: string }> {
  return eventually(
    async () => {
      for (const workflowId of workflowIds) {
        const described = await t.temporal.workflow.getHandle(workflowId).describe();
        const held = described.raw.pendingActivities?.find(
          (activity) =>
            activity.state === temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED &&
            activity.lastWorkerIdentity,
        );
        if (held) return { identity: held.lastWorkerIdentity!, workflowId };
      }
      throw new Error('no activity held by a worker yet');
    },
    { timeout: 120_000 },
  );
}

/** SIGKILLs the worker process with this Temporal identity; returns its name and the survivor's. */
async function killWorker(identity: string) {
  const victim = t.cluster.workerNames.find((name) => t.identityOf(name) === identity);
  expect(victim, `identity ${identity}`).toBeDefined();
  const survivor = t.cluster.workerNames.find((name) => name !== victim)!;
  const survivorIdentity = t.identityOf(survivor);
  await t.cluster.kill(victim!);
  return { victim: victim!, survivorIdentity };
}

describe('the production shape under hard faults', () => {
  it('a worker SIGKILLed while it holds a batch activity: the other worker finishes, each row paid once', async () => {
    // Batch pay calls take 4 s at the gateway, so the activity is surely held when the worker dies.
    await t.sandbox('PUT', '/faults', { operation: 'batch.pay', latencyMs: 4000, times: 2 });
    const runId = await startRun('kill-worker', 1500);
    const holder = await heldActivity((await batchesOf(runId)).map((batch) => batch.workflow_id as string));
    const { victim, survivorIdentity } = await killWorker(holder.identity);

    await reconciled(runId);
    await expectPaidOnce(runId, 1500);
    // The work after the kill ran on the survivor.
    for (const batch of await batchesOf(runId)) {
      expect([...(await t.workerIdentities(batch.workflow_id))]).toContain(survivorIdentity);
    }
    await t.cluster.restart(victim);
  }, 300_000);

  it('a worker SIGKILLed in the middle of a subscription charge: charged once, by the other worker', async () => {
    const billing = await t.key(['billing']);
    const subscriptionId = `kill-sub-${Date.now().toString(36)}`;
    // The cluster bills at hour 0 (GMT+7): a cycle due today is charged as soon as it is authorized.
    const today = new Date(Date.now() + 7 * 3600_000).toISOString().slice(0, 10);
    const created = await t.api(billing, 'POST', '/v1/subscriptions', {
      subscriptionId,
      partnerClientId: `${subscriptionId}-member`,
      amount: 0,
      orderInfo: 'Gym membership',
      subscriptionInfo: {
        name: 'Gym',
        type: 'FIXED',
        recurringAmount: 99_000,
        frequency: 'MONTHLY',
        nextPaymentDate: today,
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const workflowId = subscriptionWorkflowId(subscriptionId);
    // The charge takes 4 s at the gateway, so the worker surely holds it when it dies.
    await t.sandbox('PUT', '/faults', { operation: 'subscription.pay', latencyMs: 4000, times: 1 });
    await eventually(() => t.sandbox('POST', `/payments/${subscriptionId}/approve`, {}));
    // A plain cycle is charged by the day's billing run (docs/subscriptions.md), a self-charging one by the
    // subscription's workflow: the worker to kill holds the charge in either.
    const holder = await heldActivity([
      billingRunWorkflowId(today, loadConfig({}).TEMPORAL_TASK_QUEUE),
      workflowId,
    ]);
    const { victim, survivorIdentity } = await killWorker(holder.identity);

    const charged = await eventually(
      async () => {
        const view = await t.api(billing, 'GET', `/v1/subscriptions/${subscriptionId}`);
        expect(view.body.charges?.[0]?.status).toBe('succeeded');
        return view.body;
      },
      { timeout: RUN_TIMEOUT },
    );
    expect(charged.charges).toHaveLength(1);
    const ledger = (await t.ledger()).filter((entry) => entry.orderId.startsWith(`${subscriptionId}-c1`));
    expect(ledger.map((entry) => entry.outcome)).toEqual(['succeeded']);
    // The retried charge ran on the survivor, in the workflow that held it: the run's chunk, or the
    // subscription's own. (A run tells the subscription only a failure or a pending answer: a success it
    // reads at its grace, hours later, so the subscription's history need not show the survivor by now.)
    // The charge records itself in the database before Temporal writes its completion (and the retried
    // attempt's start) to history: the survivor's identity appears there a moment after the record.
    await eventually(async () =>
      expect([...(await t.workerIdentities(holder.workflowId))]).toContain(survivorIdentity),
    );
    await t.cluster.restart(victim);
  }, 300_000);

  it("a worker SIGKILLed while the desk's chunk pays a disbursement: paid once, by the other worker", async () => {
    const maker = await t.key(['payouts-maker']);
    const disbursementId = `kill-d-${randomUUID().slice(0, 8)}`;
    // The cluster's default path: the disbursement desk pays it in a chunk activity. Only worker-1 runs while it
    // pays. The gateway moves the money and never answers: the worker dies after the call and before any
    // record of its answer. Its notification is lost too: arriving before the survivor's retry, it would settle
    // the payout without the pay being sent again (paid once all the same, but not the path under test).
    await t.cluster.kill('worker-2');
    await t.sandbox('PUT', '/faults', [
      { operation: 'disbursement.pay', hang: true, times: 1 },
      { operation: 'disbursement.pay', orderIdPrefix: disbursementId, ipn: { drop: true } },
    ]);
    const created = await t.api(maker, 'POST', '/v1/disbursements', {
      disbursementId,
      amount: 150_000,
      wallet: { walletId: '0912345678', walletName: 'Nguyen Van B' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const paidAtGateway = () =>
      t.ledger().then((entries) => entries.filter((entry) => entry.orderId.startsWith(disbursementId)));
    await eventually(async () => expect(await paidAtGateway()).toHaveLength(1), { timeout: 60_000 });
    const victimIdentity = t.identityOf('worker-1');
    await t.cluster.kill('worker-1');
    await t.cluster.restart('worker-2');
    const survivorIdentity = t.identityOf('worker-2');

    // The chunk's heartbeat stops with its worker; 30 s later Temporal gives the chunk to the survivor, which
    // takes back the payouts it had claimed and sends pay again with the same ids (answered 40, settled by query).
    const done = await eventually(
      async () => {
        const view = await t.api(maker, 'GET', `/v1/disbursements/${disbursementId}`);
        expect(view.body.status).toBe('succeeded');
        return view.body;
      },
      { timeout: RUN_TIMEOUT },
    );
    expect(done).toMatchObject({ resultCode: 0, amount: 150_000 });
    expect(done.workflowId).toMatch(/^disbursement-desk\//);
    expect(await paidAtGateway()).toEqual([
      expect.objectContaining({ kind: 'disbursement', amount: 150_000, outcome: 'succeeded' }),
    ]);
    // The notification was sent and lost: only the pay sent again could settle it.
    const rules = await t.sandbox<{ orderIdPrefix?: string; applied: number }[]>('GET', '/faults');
    expect(rules.find((rule) => rule.orderIdPrefix === disbursementId)?.applied).toBeGreaterThan(0);
    // It was the path under test: no workflow of its own, and a chunk ran a second attempt, on the survivor
    // (a retried activity's started event is written with its last attempt, when that attempt ends).
    expect(await t.workerIdentities(disbursementWorkflowId(disbursementId)).catch(() => 'none')).toBe('none');
    await eventually(
      async () => {
        const desk = await t.temporal.workflow.getHandle(done.workflowId).fetchHistory();
        const retried = (desk.events ?? [])
          .map((event) => event.activityTaskStartedEventAttributes)
          .filter((started) => Number(started?.attempt) > 1);
        expect(retried.length, 'a chunk attempted again').toBeGreaterThan(0);
        for (const started of retried) {
          expect(started?.identity).toBe(survivorIdentity);
          expect(started?.identity).not.toBe(victimIdentity);
        }
      },
      { timeout: 90_000 },
    );
    await t.cluster.restart('worker-1');
  }, 300_000);

  it('the Temporal server killed and started again in the middle of a run: the run completes', async () => {
    await t.sandbox('PUT', '/faults', { operation: 'batch.pay', latencyMs: 2000, times: 1 });
    const runId = await startRun('kill-temporal', 1200);
    await eventually(async () => expect((await batchesOf(runId)).length).toBeGreaterThan(0), {
      timeout: 60_000,
    });
    await t.cluster.kill('temporal');
    await t.cluster.restart('temporal');
    await reconciled(runId);
    await expectPaidOnce(runId, 1200);
  }, 300_000);

  it('the API killed while the gateway sends notifications: retried ones are accepted once, none lost', async () => {
    const runId = await startRun('kill-api', 1000);
    const [batch] = await eventually(async () => {
      const batches = await batchesOf(runId);
      expect(batches.length).toBe(1);
      return batches;
    });
    // Down as soon as the batch exists: its notifications (8003, then the result) meet a dead API.
    await t.cluster.kill('api');
    const refused = await eventually(
      async () => {
        const log = await t.sandbox<IpnLogEntry[]>('GET', '/ipn-log');
        const failed = log.filter((entry) => entry.orderId === batch!.order_id && entry.outcome === 'failed');
        expect(failed.length).toBeGreaterThan(0);
        return failed;
      },
      { timeout: 60_000 },
    );
    await t.cluster.restart('api');
    await reconciled(runId);
    await expectPaidOnce(runId, 1000);

    // Each notification that met the dead API is delivered on a later attempt (the run may have
    // reconciled first: after its wait the workflow asks the gateway, while the sandbox still retries).
    await eventually(
      async () => {
        const log = await t.sandbox<IpnLogEntry[]>('GET', '/ipn-log');
        for (const { requestId } of refused)
          expect(
            log.some((entry) => entry.requestId === requestId && entry.outcome === 'delivered'),
            `notification ${requestId}`,
          ).toBe(true);
      },
      { timeout: 150_000 },
    );
    // ...and payrun stored and signalled each notification of the batch once.
    const stored = await t.db('ipn_notifications').where({ order_id: batch!.order_id });
    expect(stored.length).toBeGreaterThan(0);
    expect(new Set(stored.map((row) => row.dedupe_key)).size).toBe(stored.length);
    expect(stored.every((row) => row.signalled_at !== null)).toBe(true);
  }, 300_000);

  it('the relay process killed: notifications are still answered and stored, and signalled once it is back', async () => {
    const payments = await t.key(['payments']);
    await t.cluster.kill('relay');
    const paymentId = `relay_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
    const created = await t.api(payments, 'POST', '/v1/payments', {
      paymentId,
      requestType: 'captureWallet',
      amount: 90_000,
      orderInfo: 'Relay down',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await t.sandbox('POST', `/payments/${paymentId}/approve`, {});
    // A payment's order is the merchant's own payment id.
    const orderId = paymentId;
    // The gateway's notification is answered (the API never waits on Temporal) and stored...
    await eventually(
      async () => {
        const log = await t.sandbox<IpnLogEntry[]>('GET', '/ipn-log');
        expect(log.some((entry) => entry.orderId === orderId && entry.outcome === 'delivered')).toBe(true);
      },
      { timeout: 60_000 },
    );
    const storedRows = () => t.db('ipn_notifications').where({ order_id: orderId });
    expect((await storedRows()).length).toBeGreaterThan(0);
    // ...and nobody signals it while the relay is down: the API runs none (API_RUNS_RELAY=false). Watched for
    // longer than a relay's interval, since an in-process relay would have signalled it at once.
    const { IPN_RELAY_INTERVAL_SECONDS } = loadConfig(t.cluster.environment.relay);
    const watchUntil = Date.now() + 2 * IPN_RELAY_INTERVAL_SECONDS * 1000;
    while (Date.now() < watchUntil) {
      expect((await storedRows()).every((row) => row.signalled_at === null)).toBe(true);
      const viewed = await t.api(payments, 'GET', `/v1/payments/${paymentId}`);
      expect(viewed.body.status).toBe('awaiting_customer');
      await new Promise((resolve) => setTimeout(resolve, 500));
    }

    await t.cluster.restart('relay');
    const paid = await eventually(
      async () => {
        const viewed = await t.api(payments, 'GET', `/v1/payments/${paymentId}`);
        expect(viewed.body.status).toBe('succeeded');
        return viewed.body;
      },
      { timeout: 60_000 },
    );
    expect(paid).toMatchObject({ resultCode: 0, amount: 90_000 });
    const stored = await storedRows();
    expect(stored.every((row) => row.signalled_at !== null)).toBe(true);
    const moved = (await t.ledger()).filter((entry) => entry.orderId === orderId);
    expect(moved).toEqual([expect.objectContaining({ kind: 'payment', outcome: 'succeeded' })]);
  }, 300_000);
});
