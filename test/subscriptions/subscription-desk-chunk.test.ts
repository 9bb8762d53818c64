/**
 * The subscription desk's chunk (`startDeskSubscriptions`) against the sandbox and a database of this file's own.
 * What matters is what a crash leaves: the attempt that runs again after its worker was lost makes again the
 * starts it had claimed and starts no second authorization; a start claimed by a chunk nothing retries is
 * handed to the subscription's workflow; and the customer's answer that comes while the start is under way
 * waits in the inbox, then starts the workflow once the start is answered.
 */
import { randomUUID } from 'node:crypto';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { createSubscriptionDeskActivities } from '../../activities/subscriptions/subscription-desk';
import {
  DEFAULT_SUBSCRIPTION_TIMING,
  subscriptionDeskChunkId,
  subscriptionWorkflowId,
  type SubscriptionDeskChunk,
  type SubscriptionDeskChunkOutcome,
  type SubscriptionDeskStart,
} from '../../contracts/subscriptions';
import { insertSubscription } from '../../db/subscriptions/subscriptions';
import { requestIdFor } from '../../gateway/ids';
import { subscriptionRecord, useScratchDatabase } from '../support/database';
import { connectDevServer, testDataConverter } from '../support/temporal';
import { useTestGateway } from '../sandbox/support';
import { subscriptionNotifications } from '../../api/subscriptions/notifications';
import { createNotificationRelay } from '../../api/ipn/relay';
import { apiSettingsFrom } from '../../api/settings';
import { loadConfig } from '../../platform/config';
import { storeNotification } from '../../db/shared/ipn-notifications';
import { createLogger } from '../../platform/logger';

const scratch = useScratchDatabase('subscription_desk_chunk');
const { gw, ipn } = useTestGateway();
let temporal: TestWorkflowEnvironment;
beforeAll(async () => {
  temporal = await connectDevServer();
});
afterAll(() => temporal?.teardown());

const deskWorkflowId = `subscription-desk/chunk-test-${randomUUID()}`;
// No worker polls this queue: a workflow started here only shows that it was started, and with what.
const taskQueue = `subscription-desk-chunk-${randomUUID()}`;

const activities = () =>
  createSubscriptionDeskActivities({
    db: scratch.db,
    gateway: gw.client,
    subscriptionIpnUrl: ipn.url('/subscription'),
    secrets: undefined as never,
  });

const chunkOf = (chunk: number): SubscriptionDeskChunk => ({
  deskWorkflowId,
  chunk,
  authorizationIpnWait: '2 minutes',
  concurrency: 4,
  // Only what an earlier attempt left, and the sweep for what is overdue: nothing new once its time is up.
  chunkMs: 0,
});

/** A desk subscription as the API queues it, optionally claimed by `chunk` (at `claimedAt`). */
async function queued(options: { chunk?: number; claimedAt?: Date } = {}) {
  const id = `sc${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  const start: SubscriptionDeskStart = {
    taskQueue,
    input: {
      subscriptionId: id,
      type: 'FIXED',
      recurringAmount: 30_000,
      frequency: 'MONTHLY',
      initialAmount: 0,
      nextPaymentDate: '2030-01-01',
      timing: DEFAULT_SUBSCRIPTION_TIMING,
    },
    summary: `Subscription ${id}`,
    customerKey: 'k',
  };
  await insertSubscription(
    scratch.db,
    subscriptionRecord(id, {
      requested_next_payment_date: '2030-01-01',
      status: 'authorizing',
      desk_id: deskWorkflowId,
      desk_start: JSON.stringify(start),
    }),
  );
  if (options.chunk !== undefined)
    await scratch
      .db('subscriptions')
      .where({ subscription_id: id })
      .update({
        desk_chunk: subscriptionDeskChunkId(deskWorkflowId, options.chunk),
        ...(options.claimedAt && { updated_at: options.claimedAt }),
      });
  return id;
}

const runChunk = (chunk: SubscriptionDeskChunk, attempt: number): Promise<SubscriptionDeskChunkOutcome> =>
  new MockActivityEnvironment({ attempt, taskQueue }, { client: temporal.client }).run(
    activities().startDeskSubscriptions,
    chunk,
  );

const recordOf = (id: string) =>
  scratch
    .db('subscriptions')
    .where({ subscription_id: id })
    .first('status', 'desk_id', 'pay_url', 'start_result_code', 'start_message');
const startsOf = (orderId: string) =>
  gw.sandbox.admin
    .requests()
    .filter((entry) => entry.orderId === orderId && entry.operation === 'subscription.start');

/** The start the attempt before the crash sent, with the subscription's own ids; its answer was lost. */
const sentBeforeTheCrash = (id: string) =>
  gw.client.call('subscription.start', {
    orderId: id,
    requestId: requestIdFor(id, 'start'),
    amount: 0,
    orderInfo: 'Gym',
    partnerClientId: `${id}-member`,
    ipnUrl: ipn.url('/subscription'),
    redirectUrl: ipn.url('/'),
    extraData: '',
    subscriptionInfo: {
      name: 'Gym',
      type: 'FIXED',
      recurringAmount: 30_000,
      frequency: 'MONTHLY',
      nextPaymentDate: '2030-01-01',
    },
  });

/** The workflow's input as it was started (the payloads are sealed by the codec). */
async function inputOf(history: Awaited<ReturnType<ReturnType<typeof ownWorkflow>['fetchHistory']>>) {
  const payloads = history.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads!;
  const [decoded] = await testDataConverter.payloadCodecs![0]!.decode(payloads);
  return JSON.parse(Buffer.from(decoded!.data!).toString('utf8')) as Record<string, unknown>;
}

const ownWorkflow = (id: string) => temporal.client.workflow.getHandle(subscriptionWorkflowId(id));

describe("the subscription desk's chunk", () => {
  it('a retried attempt makes again the start it had claimed: one authorization, the record says its links were lost', async () => {
    const id = await queued({ chunk: 1 });
    expect((await sentBeforeTheCrash(id)).resultCode).toBe(0);

    const outcome = await runChunk(chunkOf(1), 2);
    expect(outcome.answered).toEqual([id]);
    const record = await recordOf(id);
    expect(record).toMatchObject({ status: 'authorizing', desk_id: deskWorkflowId, pay_url: null });
    expect(record!.start_message).toMatch(/already read this subscription/);
    // Two requests with one requestId: the second answered 40, no second authorization.
    expect(startsOf(id).map((entry) => entry.requestId)).toEqual([
      requestIdFor(id, 'start'),
      requestIdFor(id, 'start'),
    ]);
  });

  it("a retried attempt makes the starts it claimed and leaves other chunks' claims alone", async () => {
    const mine = await queued({ chunk: 2 });
    const anothers = await queued({ chunk: 3 });
    const outcome = await runChunk(chunkOf(2), 2);
    expect(outcome.answered).toEqual([mine]);
    expect((await recordOf(mine))!.pay_url).toMatch(/^http/);
    expect(startsOf(anothers)).toEqual([]);
    expect(await recordOf(anothers)).toMatchObject({ start_result_code: null, desk_id: deskWorkflowId });
  });

  it('hands a start claimed long ago by a chunk nothing retries to its workflow, which makes it', async () => {
    const id = await queued({ chunk: 90, claimedAt: new Date(Date.now() - 5 * 60_000) });
    const outcome = await runChunk(chunkOf(7), 1);
    expect(outcome.handedOver).toContain(id);
    expect(await recordOf(id)).toMatchObject({ desk_id: null });
    const described = await ownWorkflow(id).describe();
    expect(described.status.name).toBe('RUNNING');
    // Started to make the start itself: no `startAnswered` in its input.
    const history = await ownWorkflow(id).fetchHistory();
    expect(await inputOf(history)).not.toHaveProperty('startAnswered');
    await ownWorkflow(id).terminate('test over: no worker polls its queue');
  });

  it("keeps the customer's answer in the inbox while the desk makes the start, then starts the workflow with it", async () => {
    const id = await queued({ chunk: 5 });
    await storeNotification(scratch.db, {
      kind: 'payment.resultB',
      orderId: id,
      dedupeKey: `desk-test-${id}`,
      resultCode: 0,
      signedFields: { orderId: id, resultCode: 0, message: 'Successful.', callbackToken: 'cb', amount: 0 },
      unverifiedFields: {},
      workflowId: subscriptionWorkflowId(id),
      normalisedFields: [],
    });
    const relay = createNotificationRelay({
      db: scratch.db,
      temporal: temporal.client,
      logger: createLogger('silent'),
      channels: [subscriptionNotifications],
      settings: apiSettingsFrom(
        loadConfig({ CUSTOMER_KEY_SECRET: 'a'.repeat(32), DECISION_SIGNING_KEY: 'd'.repeat(32) }),
      ).notifications,
    });
    expect(await relay.sweep()).toMatchObject({ waiting: 1, signalled: 0 });
    await expect(ownWorkflow(id).describe()).rejects.toThrow(/not found/i);

    await runChunk(chunkOf(5), 2);
    expect((await recordOf(id))!.start_result_code).toBe(0);
    // Put off for the relay's interval: the next sweep starts the workflow with the answer as its first signal.
    await scratch.db('ipn_notifications').where({ order_id: id }).update({ signal_claimed_until: null });
    expect(await relay.sweep()).toMatchObject({ signalled: 1, waiting: 0 });
    const history = await ownWorkflow(id).fetchHistory();
    expect(await inputOf(history)).toMatchObject({
      subscriptionId: id,
      startAnswered: true,
    });
    const signal = history.events!.find((event) => event.workflowExecutionSignaledEventAttributes);
    expect(signal!.workflowExecutionSignaledEventAttributes!.signalName).toBe('subscriptionAuthorized');
    await ownWorkflow(id).terminate('test over: no worker polls its queue');
  });
});
