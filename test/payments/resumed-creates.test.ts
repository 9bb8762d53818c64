/**
 * Found by `npm run chaos`: a create whose workflow start failed (the Temporal server down, or the API
 * process killed between recording and starting) left a record no workflow would ever move, and its
 * Idempotency-Key answered "in progress" for ever. The retry of the same request now resumes it: the
 * payment it recorded gets its workflow, the refund it reserved is the one refunded — never a second.
 */
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { createTimeSkippingEnv } from '../support/temporal';
import { eventually } from '../support/wait';
import { call, usePaymentStack } from './payment-stack';

const fixture = usePaymentStack(createTimeSkippingEnv);

/**
 * The next workflow start fails as if the Temporal server were down: a plain start, or the update-with-start
 * a payment create sends (api/payments/payments.ts), whichever comes first.
 */
function failNextStart(client: Client) {
  const start = client.workflow.start.bind(client.workflow);
  const updateWithStart = client.workflow.executeUpdateWithStart.bind(client.workflow);
  const restore = () => {
    client.workflow.start = start;
    client.workflow.executeUpdateWithStart = updateWithStart;
  };
  const down = async (): Promise<never> => {
    restore();
    throw new Error('14 UNAVAILABLE: the Temporal server is down');
  };
  client.workflow.start = down as typeof client.workflow.start;
  client.workflow.executeUpdateWithStart = down as typeof client.workflow.executeUpdateWithStart;
}

const post = (path: string, body: unknown, idempotencyKey: string) =>
  call(fixture, 'POST', path, body, undefined, { 'idempotency-key': idempotencyKey });

describe('a create interrupted before its workflow started is finished by its retry', () => {
  it('payment: the retry starts the recorded payment, which the customer then pays', async () => {
    const paymentId = `rp_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
    const body = { paymentId, requestType: 'captureWallet', amount: 150_000, orderInfo: 'Tea' };
    failNextStart(fixture.env.client);
    const failed = await post('/v1/payments', body, `key-${paymentId}`);
    expect(failed.status).toBe(500);
    expect(await fixture.db('payments').where({ payment_id: paymentId })).toHaveLength(1);

    const retried = await post('/v1/payments', body, `key-${paymentId}`);
    expect(retried.status, JSON.stringify(retried.body)).toBe(201);
    expect(retried.body).toMatchObject({ paymentId, status: 'awaiting_customer' });
    fixture.sandbox.admin.approvePayment(paymentId);
    await eventually(async () =>
      expect((await call(fixture, 'GET', `/v1/payments/${paymentId}`)).body.status).toBe('succeeded'),
    );
    // Without the key, the same id is still a duplicate.
    expect((await call(fixture, 'POST', '/v1/payments', body)).status).toBe(409);
  });

  it('refund: the retry refunds the amount it reserved, once', async () => {
    const paymentId = `rr_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
    await post(
      '/v1/payments',
      { paymentId, requestType: 'captureWallet', amount: 150_000, orderInfo: 'Tea' },
      `pay-${paymentId}`,
    );
    fixture.sandbox.admin.approvePayment(paymentId);
    await eventually(async () =>
      expect((await call(fixture, 'GET', `/v1/payments/${paymentId}`)).body.status).toBe('succeeded'),
    );

    failNextStart(fixture.env.client);
    const path = `/v1/payments/${paymentId}/refunds`;
    expect((await post(path, { amount: 40_000 }, `refund-${paymentId}`)).status).toBe(500);
    const retried = await post(path, { amount: 40_000 }, `refund-${paymentId}`);
    expect(retried.status, JSON.stringify(retried.body)).toBe(201);
    await eventually(async () => {
      const { body } = await call(fixture, 'GET', `/v1/payments/${paymentId}`);
      expect(body).toMatchObject({ refundedAmount: 40_000, refundableAmount: 110_000 });
      const refunds = (await call(fixture, 'GET', path)).body.refunds;
      expect(refunds.map((refund: { status: string }) => refund.status)).toEqual(['succeeded']);
    });
    const refundsAtGateway = fixture.sandbox.admin
      .ledger()
      .filter((entry) => entry.kind === 'refund' && entry.refundOf === paymentId);
    expect(refundsAtGateway.map((entry) => entry.amount)).toEqual([40_000]);
  });
});
