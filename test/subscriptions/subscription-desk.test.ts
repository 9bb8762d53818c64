/**
 * The subscription desk (SUBSCRIPTION_DESK) through the API, on the dev server, against the sandbox: a create
 * call answers with the customer's links from a chunk of the desk and the subscription has no workflow until its
 * customer answers; the answer starts the workflow (signal-with-start), which activates and bills it. A customer
 * silent past the wait, a start whose answer was lost, and a change asked for while the desk holds it each go on
 * in the workflow; every authorization is started once.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { workflowExists } from '../../api/http/resumable';
import { subscriptionSettingsFrom } from '../../api/subscriptions/settings';
import {
  addDays,
  dayOfGmt7,
  subscriptionDeskChunkId,
  subscriptionDeskWorkflowId,
  subscriptionWorkflowId,
} from '../../contracts/subscriptions';
import { loadConfig } from '../../platform/config';
import { callApi } from '../support/api';
import { freshId } from '../support/ids';
import { testMerchant } from '../support/settings';
import { useStack, type StackFixture } from '../support/stack';
import { connectDevServer } from '../support/temporal';
import { eventually } from '../support/wait';
import { captureHistory } from '../support/history-capture';

const taskQueue = `subscription-desk-${randomUUID()}`;
const deskId = subscriptionDeskWorkflowId(taskQueue);
const fromConfig = subscriptionSettingsFrom(loadConfig({}), taskQueue);
// A customer silent for 3 s is handed to the workflow, which asks the gateway.
const settings = {
  ...fromConfig,
  desk: true,
  linksWaitMs: 10_000,
  timing: { ...fromConfig.timing, authorizationIpnWait: '3 seconds', gatewayAttemptTimeout: '3 seconds' },
};
const fixture: StackFixture<'billingKey'> = useStack(connectDevServer, {
  taskQueue,
  app: { subscriptions: settings },
  activities: {
    merchantSecrets: {
      merchantSecretKey: testMerchant.secretKey,
      keyring: { currentKeyId: 'test', keys: new Map([['test', randomBytes(32)]]) },
    },
  },
  keys: { billingKey: { name: 'billing', roles: ['billing'] } },
});

afterEach(() => {
  fixture.sandbox.admin.clearFaults();
});

const call = (method: string, path: string, body?: unknown) =>
  callApi(fixture.api, fixture.billingKey, method, path, body);

/** A fixed monthly subscription whose first cycle was due yesterday: activation charges cycle 1 at once. */
const create = (subscriptionId: string) =>
  call('POST', '/v1/subscriptions', {
    subscriptionId,
    partnerClientId: freshId('member', 6),
    orderInfo: 'Gym membership',
    amount: 0,
    subscriptionInfo: {
      name: 'Gym',
      type: 'FIXED',
      recurringAmount: 30_000,
      frequency: 'MONTHLY',
      nextPaymentDate: addDays(dayOfGmt7(Date.now()), -1),
    },
  });

const view = async (id: string) => (await call('GET', `/v1/subscriptions/${id}`)).body;
const until = (id: string, status: string) =>
  eventually(async () => {
    const body = await view(id);
    expect(body.status).toBe(status);
    return body;
  });
const starts = (id: string) =>
  fixture.sandbox.admin
    .requests()
    .filter((entry) => entry.orderId === id && entry.operation === 'subscription.start');
const hasWorkflow = (id: string) => workflowExists(fixture.env.client, subscriptionWorkflowId(id));

describe('the subscription desk', () => {
  it('starts authorizations in its chunks; the customer’s answer starts each workflow, which bills it', async () => {
    const ids = Array.from({ length: 6 }, () => freshId('sd', 10));
    const answers = await Promise.all(ids.map((id) => create(id)));
    const chunkPattern = new RegExp(`^${subscriptionDeskChunkId(deskId, 0).replace(/0$/, '')}\\d+$`);
    for (const [index, answer] of answers.entries()) {
      expect(answer.status, JSON.stringify(answer.body)).toBe(201);
      expect(answer.body).toMatchObject({
        subscriptionId: ids[index],
        status: 'authorizing',
        workflowId: deskId,
      });
      expect(answer.body.payUrl).toContain(`/pay/${ids[index]}`);
      expect(answer.body.deskChunk).toMatch(chunkPattern);
    }
    for (const id of ids) expect(await hasWorkflow(id)).toBe(false);
    for (const id of ids) fixture.sandbox.admin.approvePayment(id);
    for (const id of ids) {
      const active = await eventually(async () => {
        const body = await view(id);
        expect(
          body.charges.filter((charge: { status: string }) => charge.status === 'succeeded'),
        ).toHaveLength(1);
        return body;
      });
      expect(active).toMatchObject({ status: 'active', workflowId: subscriptionWorkflowId(id) });
      expect(starts(id)).toHaveLength(1);
      const history = await fixture.env.client.workflow.getHandle(subscriptionWorkflowId(id)).fetchHistory();
      const first = history.events![0]!.workflowExecutionStartedEventAttributes!;
      expect(JSON.stringify(first.input)).toBeTruthy();
      // Started by the customer's answer: its signal is in the history, and no start was made again.
      const signals = history.events!.filter((event) => event.workflowExecutionSignaledEventAttributes);
      expect(signals[0]!.workflowExecutionSignaledEventAttributes!.signalName).toBe('subscriptionAuthorized');
    }
    const paidOrders = fixture.sandbox.admin
      .ledger()
      .filter(
        (entry) => ids.some((id) => entry.orderId.startsWith(`${id}-`)) && entry.outcome === 'succeeded',
      );
    expect(paidOrders).toHaveLength(ids.length);
    await captureHistory(
      fixture.env.client,
      subscriptionWorkflowId(ids[0]!),
      'born-on-the-desk-activated-by-the-customers-answer',
      {
        stillOpen: true,
      },
    );
    await captureHistory(fixture.env.client, deskId, 'first-chunks-scheduled', { stillOpen: true });
  });

  it('records a start the gateway refuses on the desk: not_authorized, with no workflow', async () => {
    const id = freshId('sd', 10);
    fixture.sandbox.admin.setFaults({ operation: 'subscription.start', orderIdPrefix: id, resultCode: 1006 });
    const answer = await create(id);
    expect(answer.status, JSON.stringify(answer.body)).toBe(422);
    expect(answer.body.error.code).toBe('gateway_refused');
    expect((await view(id)).status).toBe('not_authorized');
    expect(await hasWorkflow(id)).toBe(false);
  });

  it('hands a subscription whose customer is silent to its workflow, which the late answer then reaches', async () => {
    const id = freshId('sd', 10);
    expect((await create(id)).status).toBe(201);
    await eventually(async () => {
      const body = await view(id);
      expect(body.workflowId).toBe(subscriptionWorkflowId(id));
      expect(await hasWorkflow(id)).toBe(true);
    });
    expect((await view(id)).status).toBe('authorizing');
    fixture.sandbox.admin.approvePayment(id);
    await until(id, 'active');
    expect(starts(id)).toHaveLength(1);
  });

  it('hands a start whose answer was lost to its workflow, which starts no second authorization', async () => {
    const id = freshId('sd', 10);
    fixture.sandbox.admin.setFaults({
      operation: 'subscription.start',
      orderIdPrefix: id,
      dropResponse: true,
      times: 1,
    });
    await create(id);
    // The workflow's own start is answered 40: the links went with the lost answer, the record says so.
    const waiting = await eventually(async () => {
      expect(await hasWorkflow(id)).toBe(true);
      const row = await fixture.db('subscriptions').where({ subscription_id: id }).first();
      expect(row.start_message).toMatch(/already read this subscription/);
      return row;
    });
    expect(waiting.status).toBe('authorizing');
    fixture.sandbox.admin.approvePayment(id);
    await until(id, 'active');
    const accepted = fixture.sandbox.admin
      .ledger()
      .filter((entry) => entry.orderId === id && entry.outcome === 'succeeded');
    expect(accepted.length).toBeLessThanOrEqual(1);
  });

  it('starts the workflow of a subscription it holds before a change, which the workflow decides', async () => {
    const id = freshId('sd', 10);
    expect((await create(id)).status).toBe(201);
    expect(await hasWorkflow(id)).toBe(false);
    const paused = await call('POST', `/v1/subscriptions/${id}/pause`, { reason: 'asked' });
    expect(paused.status, JSON.stringify(paused.body)).toBe(409);
    expect(paused.body.error.message).toMatch(
      /Only an active subscription can be paused; this one is authorizing/,
    );
    expect(await hasWorkflow(id)).toBe(true);
    fixture.sandbox.admin.approvePayment(id);
    await until(id, 'active');
    expect(starts(id)).toHaveLength(1);
  });

  it('is on unless SUBSCRIPTION_DESK is false, and off for the design before it', () => {
    const taskQueue = 'q';
    expect(subscriptionSettingsFrom(loadConfig({}), taskQueue).desk).toBe(true);
    expect(subscriptionSettingsFrom(loadConfig({ SUBSCRIPTION_DESK: 'false' }), taskQueue).desk).toBe(false);
    expect(subscriptionSettingsFrom(loadConfig({ STEPS_AS_QUEUED_ACTIVITIES: 'true' }), taskQueue).desk).toBe(
      false,
    );
    expect(() => loadConfig({ SUBSCRIPTION_DESK: 'yes' })).toThrow(/SUBSCRIPTION_DESK/);
  });
});
