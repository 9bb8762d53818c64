/**
 * The payment desk (PAYMENT_DESK) through the API, on the dev server, against the sandbox: a create call answers
 * with the gateway's links made by a chunk of the desk, the payment has no workflow of its own, and its
 * notification is recorded by the relay; one whose create fails, or whose notification does not come within its
 * wait, goes on in a workflow of its own; every order is created once and paid at most once.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { apiSettingsFrom } from '../../api/settings';
import { workflowExists } from '../../api/http/resumable';
import { createPayment } from '../../api/payments/payments';
import { paymentDesk } from '../../api/payments/payment-desk';
import { paymentDeskChunkId, paymentDeskWorkflowId, paymentWorkflowId } from '../../contracts/payments';
import { loadConfig } from '../../platform/config';
import { useStack } from '../support/stack';
import { connectDevServer } from '../support/temporal';
import { eventually } from '../support/wait';
import { captureHistory } from '../support/history-capture';
import { call, testPaymentSettings, type PaymentFixture } from './payment-stack';

const taskQueue = `payment-desk-${randomUUID()}`;
const deskId = paymentDeskWorkflowId(taskQueue);
const settings = testPaymentSettings(taskQueue);
// A notification not heard within 3 s hands the payment to its own workflow, which asks the gateway.
const deskSettings = { ...settings, payment: { ...settings.payment, ipnTimeout: '3 seconds' }, desk: true };
const fixture: PaymentFixture = useStack(connectDevServer, {
  taskQueue,
  keys: {
    key: { name: 'payments', roles: ['payments'] },
    viewerKey: { name: 'viewer', roles: ['viewer'] },
  },
  app: {
    payments: deskSettings,
  },
});

afterEach(() => {
  fixture.sandbox.admin.clearFaults();
});

const newId = () => `pd_${randomUUID().replaceAll('-', '').slice(0, 12)}`;

async function create(paymentId: string, extra: Record<string, unknown> = {}) {
  return call(fixture, 'POST', '/v1/payments', {
    paymentId,
    requestType: 'captureWallet',
    amount: 150_000,
    orderInfo: 'Tea',
    ...extra,
  });
}

const view = async (paymentId: string) => (await call(fixture, 'GET', `/v1/payments/${paymentId}`)).body;

const settled = (paymentId: string, status = 'succeeded') =>
  eventually(async () => {
    const body = await view(paymentId);
    expect(body.status).toBe(status);
    return body;
  });

const creates = (orderId: string) =>
  fixture.sandbox.admin
    .requests()
    .filter((entry) => entry.orderId === orderId && entry.operation === 'payment.captureWallet');
const paid = (orderId: string) =>
  fixture.sandbox.admin
    .ledger()
    .filter((entry) => entry.orderId === orderId && entry.outcome === 'succeeded');

const hasOwnWorkflow = (paymentId: string) =>
  workflowExists(fixture.env.client, paymentWorkflowId(paymentId));

describe('the payment desk', () => {
  it('creates payments in its chunks and records their results with no workflow of their own', async () => {
    const ids = Array.from({ length: 10 }, newId);
    const answers = await Promise.all(ids.map((id) => create(id)));
    const chunkPattern = new RegExp(`^${paymentDeskChunkId(deskId, 0).replace(/0$/, '')}\\d+$`);
    for (const [index, answer] of answers.entries()) {
      expect(answer.status, JSON.stringify(answer.body)).toBe(201);
      expect(answer.body).toMatchObject({
        paymentId: ids[index],
        status: 'awaiting_customer',
        workflowId: deskId,
      });
      expect(answer.body.payUrl).toBeTruthy();
      expect(answer.body.deskChunk).toMatch(chunkPattern);
    }
    for (const id of ids) fixture.sandbox.admin.approvePayment(id);
    for (const id of ids) {
      const done = await settled(id);
      expect(done).toMatchObject({ resultCode: 0, workflowId: deskId });
      expect(done.transId).toBeTruthy();
      expect(creates(id)).toHaveLength(1);
      expect(paid(id)).toHaveLength(1);
      expect(await hasOwnWorkflow(id)).toBe(false);
    }
    // Every notification was delivered to its record: none is left in the inbox.
    await eventually(async () => {
      const waiting = await fixture
        .db('ipn_notifications')
        .whereIn('order_id', ids)
        .whereNull('signalled_at');
      expect(waiting).toEqual([]);
    });
    const desk = await fixture.env.client.workflow.getHandle(deskId).describe();
    expect(desk.status.name).toBe('RUNNING');
    await captureHistory(fixture.env.client, deskId, 'first-chunks-scheduled', { stillOpen: true });
  });

  it('ends a create the gateway refuses on the desk, with nothing paid and no workflow', async () => {
    const id = newId();
    fixture.sandbox.admin.setFaults({
      operation: 'payment.captureWallet',
      orderIdPrefix: id,
      resultCode: 1006,
    });
    const answer = await create(id);
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    expect(answer.body).toMatchObject({ status: 'failed', resultCode: 1006, workflowId: deskId });
    expect(paid(id)).toEqual([]);
    expect(await hasOwnWorkflow(id)).toBe(false);
  });

  it('hands a payment whose notification did not come in time to its own workflow, which its result then reaches', async () => {
    const id = newId();
    expect((await create(id)).status).toBe(201);
    // Nobody pays for longer than the 3 s notification wait: the desk lets its own workflow wait and ask.
    const handed = await eventually(async () => {
      const body = await view(id);
      expect(body.workflowId).toBe(paymentWorkflowId(id));
      return body;
    });
    expect(handed.status).toBe('awaiting_customer');
    expect(await hasOwnWorkflow(id)).toBe(true);
    fixture.sandbox.admin.approvePayment(id);
    const own = await fixture.env.client.workflow.getHandle(paymentWorkflowId(id)).result();
    expect(own).toMatchObject({ status: 'succeeded', resultCode: 0 });
    await captureHistory(fixture.env.client, paymentWorkflowId(id), 'handed-over-by-the-desk');
    expect(await settled(id)).toMatchObject({ workflowId: paymentWorkflowId(id) });
    expect(creates(id)).toHaveLength(1);
    expect(paid(id)).toHaveLength(1);
  });

  it('hands a create whose answer was lost to its own workflow, which sends no second order', async () => {
    const id = newId();
    // The gateway takes the order and the answer never arrives; the workflow's own create is answered 40.
    fixture.sandbox.admin.setFaults({
      operation: 'payment.captureWallet',
      orderIdPrefix: id,
      dropResponse: true,
      times: 1,
    });
    const answer = await create(id);
    expect([201, 202], JSON.stringify(answer.body)).toContain(answer.status);
    // The links went with the lost answer: the record says so, and waits for the result (docs/payments.md).
    const waiting = await eventually(async () => {
      const body = await view(id);
      expect(body.status).toBe('pending');
      return body;
    });
    expect(waiting).toMatchObject({ workflowId: paymentWorkflowId(id), payUrl: null });
    expect(waiting.message).toMatch(/answer of the first attempt, with the payment link/);
    expect(await hasOwnWorkflow(id)).toBe(true);
    fixture.sandbox.admin.approvePayment(id);
    expect(await settled(id)).toMatchObject({ resultCode: 0 });
    expect(fixture.sandbox.admin.ledger().filter((entry) => entry.orderId === id)).toHaveLength(1);
    expect(paid(id)).toHaveLength(1);
  });

  it('finishes the retry of an interrupted create from the record the desk answered, with no workflow and no second create', async () => {
    const id = newId();
    expect((await create(id)).status).toBe(201);
    const { created_by_key: keyId } = await fixture
      .db('payments')
      .where({ payment_id: id })
      .first('created_by_key');
    // The same request again after its first attempt's process died: it adopts the record (api/http/resumable.ts).
    const deps = {
      db: fixture.db,
      temporal: fixture.env.client,
      settings: deskSettings,
      approvalPolicies: undefined as never,
      desk: paymentDesk(fixture.env.client, fixture.db, taskQueue, deskSettings.payment),
    };
    const retried = await createPayment(deps, {
      paymentId: id,
      requestType: 'captureWallet',
      amount: 150_000,
      orderInfo: 'Tea',
      extraData: '',
      autoCapture: true,
      details: {},
      principal: { keyId, name: 'payments', roles: ['payments'] },
      create: { requestKey: `retry-${id}`, resumed: true },
    });
    expect(retried.status).toBe(201);
    expect(retried.body).toMatchObject({ status: 'awaiting_customer', workflowId: deskId });
    expect(await hasOwnWorkflow(id)).toBe(false);
    expect(creates(id)).toHaveLength(1);
  });

  it('leaves a payment that waits for a capture to a workflow of its own', async () => {
    const id = newId();
    const answer = await create(id, { autoCapture: false });
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({ workflowId: paymentWorkflowId(id), deskChunk: null });
    expect(await hasOwnWorkflow(id)).toBe(true);
    await fixture.env.client.workflow.getHandle(paymentWorkflowId(id)).terminate('test over');
  });

  it('is on unless PAYMENT_DESK is false, and off for the design before it', () => {
    const secrets = { CUSTOMER_KEY_SECRET: 'a'.repeat(32), DECISION_SIGNING_KEY: 'd'.repeat(32) };
    expect(apiSettingsFrom(loadConfig(secrets)).payments.desk).toBe(true);
    expect(apiSettingsFrom(loadConfig({ ...secrets, PAYMENT_DESK: 'false' })).payments.desk).toBe(false);
    expect(
      apiSettingsFrom(loadConfig({ ...secrets, STEPS_AS_QUEUED_ACTIVITIES: 'true' })).payments.desk,
    ).toBe(false);
    expect(() => loadConfig({ ...secrets, PAYMENT_DESK: 'yes' })).toThrow(/PAYMENT_DESK/);
  });
});
