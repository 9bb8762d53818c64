/**
 * How a payment create waits for the gateway's answer (the customer's links): on the payment workflow's
 * own event (update-with-start, api/payments/payments.ts), not by reading the record every 50 ms as before
 * (PAYMENT_ANSWER_BY_POLLING, kept for the benchmark's comparison only). On the time-skipping server,
 * against the sandbox with its answer slowed down.
 */
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { afterEach, describe, expect, it } from 'vitest';
import { paymentWorkflowId, refundWorkflowId } from '../../contracts/payments';
import { captureHistory } from '../support/history-capture';
import { activityTypeOf } from '../../platform/local-activity-markers';
import { recordReadsDuring } from '../support/record-reads';
import { createTimeSkippingEnv } from '../support/temporal';
import { eventually } from '../support/wait';
import { useStack } from '../support/stack';
import { call, testPaymentSettings, type PaymentFixture } from './payment-stack';

const taskQueue = `payment-answers-${randomUUID()}`;
/** Long enough for a loaded machine to answer in time; a slower gateway is still quick to arrange. */
const ANSWER_WAIT_MS = 12_000;

const fixture: PaymentFixture = useStack(createTimeSkippingEnv, {
  taskQueue,
  app: {
    payments: {
      ...testPaymentSettings(taskQueue),
      answerWaitMs: ANSWER_WAIT_MS,
      // Longer than the slow gateway below: its one attempt answers, rather than timing out and losing the links.
      payment: { ...testPaymentSettings(taskQueue).payment, gatewayAttemptTimeout: '60 seconds' },
    },
  },
  keys: {
    key: { name: 'payments', roles: ['payments'] },
    viewerKey: { name: 'viewer', roles: ['viewer'] },
  },
});

const newId = () => `pa_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
const body = (paymentId: string) => ({
  paymentId,
  requestType: 'captureWallet',
  amount: 150_000,
  orderInfo: 'Tea',
});
const slowGateway = (latencyMs: number) =>
  fixture.sandbox.admin.setFaults({ operation: 'payment.captureWallet', latencyMs, times: 1 });

async function historyOf(client: Client, paymentId: string) {
  const events = (await client.workflow.getHandle(paymentWorkflowId(paymentId)).fetchHistory()).events ?? [];
  return {
    updatesAccepted: events.filter((event) => event.workflowExecutionUpdateAcceptedEventAttributes).length,
    // Queued (runs from before the create moved into the first workflow task) or local: either is one call.
    creates: events.filter((event) => activityTypeOf(event) === 'createPayment').length,
  };
}

afterEach(() => {
  fixture.sandbox.admin.clearFaults();
});

describe('a payment create waits on the workflow, not on its record', () => {
  it('answers the links once the gateway answered, reading the record once, however slow the gateway', async () => {
    const paymentId = newId();
    // 600 ms: a 50 ms poll would read the record a dozen times meanwhile.
    // A first payment warms the worker up (its first workflow task loads the workflow code).
    expect((await call(fixture, 'POST', '/v1/payments', body(newId()))).status).toBe(201);
    slowGateway(600);
    const { result: created, reads } = await recordReadsDuring(fixture.db, 'payments', paymentId, () =>
      call(fixture, 'POST', '/v1/payments', body(paymentId)),
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ paymentId, status: 'awaiting_customer' });
    expect(created.body.payUrl).toMatch(/^http/);
    // The worker reads it before calling the gateway and locks it to write the answer; the API reads it once.
    expect(reads()).toBeLessThanOrEqual(3);
    // Paid and closed: a history with the update, for the replay tests (npm run histories:capture).
    fixture.sandbox.admin.approvePayment(paymentId);
    await eventually(async () =>
      expect((await call(fixture, 'GET', `/v1/payments/${paymentId}`)).body.status).toBe('succeeded'),
    );
    await captureHistory(fixture.env.client, paymentWorkflowId(paymentId), 'answered-by-update');
    // The same since the create runs in the first workflow task (patch payment-create-in-first-task).
    await captureHistory(fixture.env.client, paymentWorkflowId(paymentId), 'created-in-first-task');
    // ...and since the result is written in the task that hears it (patch payment-result-in-workflow-task).
    await captureHistory(fixture.env.client, paymentWorkflowId(paymentId), 'result-in-workflow-task');
  });

  it('answers a retry of an interrupted create the same, joining the first update: one create at the gateway', async () => {
    const paymentId = newId();
    const client = fixture.env.client;
    const updateWithStart = client.workflow.executeUpdateWithStart.bind(client.workflow);
    // The first attempt starts the payment and is answered, then its process loses the answer (500).
    client.workflow.executeUpdateWithStart = (async (...args: Parameters<typeof updateWithStart>) => {
      client.workflow.executeUpdateWithStart = updateWithStart;
      await updateWithStart(...args);
      throw new Error('the API process lost the answer');
    }) as typeof updateWithStart;
    const headers = { 'idempotency-key': `key-${paymentId}` };
    const first = await call(fixture, 'POST', '/v1/payments', body(paymentId), undefined, headers);
    expect(first.status).toBe(500);

    const retried = await call(fixture, 'POST', '/v1/payments', body(paymentId), undefined, headers);
    expect(retried.status, JSON.stringify(retried.body)).toBe(201);
    const read = await call(fixture, 'GET', `/v1/payments/${paymentId}`);
    expect(retried.body).toMatchObject({ paymentId, status: 'awaiting_customer', payUrl: read.body.payUrl });
    // The retry joined the first update (same update id): nothing new in the history, one api/create.
    expect(await historyOf(client, paymentId)).toEqual({ updatesAccepted: 1, creates: 1 });
    const again = await call(fixture, 'POST', '/v1/payments', body(paymentId), undefined, headers);
    expect({ status: again.status, body: again.body }).toEqual({ status: 201, body: retried.body });
  });

  it('answers 202 with the record as it is when the gateway is slower than the wait, and the payment goes on', async () => {
    const paymentId = newId();
    slowGateway(ANSWER_WAIT_MS + 4_000);
    const startedAt = Date.now();
    const created = await call(fixture, 'POST', '/v1/payments', body(paymentId));
    const tookMs = Date.now() - startedAt;
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    expect(created.body).toMatchObject({ paymentId, status: 'created', payUrl: null });
    expect(tookMs).toBeLessThan(ANSWER_WAIT_MS + 3_000);
    // Not lost: the workflow had started, and the links arrive in the record once the gateway answers.
    await eventually(async () => {
      const { body: view } = await call(fixture, 'GET', `/v1/payments/${paymentId}`);
      expect(view).toMatchObject({ status: 'awaiting_customer', payUrl: expect.stringMatching(/^http/) });
    });
    // A local create's marker lands with its workflow task's completion, just after its write.
    await eventually(async () => expect((await historyOf(fixture.env.client, paymentId)).creates).toBe(1));
  });
});

describe('a refund waits on the workflow, not on its record', () => {
  it("answers with the gateway's answer, reading the refund's record once, however slow the gateway", async () => {
    const paymentId = newId();
    expect((await call(fixture, 'POST', '/v1/payments', body(paymentId))).status).toBe(201);
    fixture.sandbox.admin.approvePayment(paymentId);
    await eventually(async () =>
      expect((await call(fixture, 'GET', `/v1/payments/${paymentId}`)).body.status).toBe('succeeded'),
    );
    fixture.sandbox.admin.setFaults({ operation: 'refund.create', latencyMs: 600, times: 1 });
    const refundId = `${paymentId}-r1`;
    const { result: refunded, reads } = await recordReadsDuring(fixture.db, 'refunds', refundId, () =>
      call(fixture, 'POST', `/v1/payments/${paymentId}/refunds`, { amount: 50_000 }),
    );
    expect(refunded.status, JSON.stringify(refunded.body)).toBe(201);
    expect(refunded.body).toMatchObject({ orderId: refundId, status: 'succeeded', resultCode: 0 });
    // A 50 ms poll would have read it a dozen times during the 600 ms; the worker's reads and the API's one.
    expect(reads()).toBeLessThanOrEqual(4);
    const events =
      (await fixture.env.client.workflow.getHandle(refundWorkflowId(refunded.body.refundId)).fetchHistory())
        .events ?? [];
    expect(events.filter((event) => event.workflowExecutionUpdateAcceptedEventAttributes)).toHaveLength(1);
  });
});
