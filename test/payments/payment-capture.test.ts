/**
 * Payments authorized with autoCapture false, end to end through payrun's API: the workflow waits
 * for a capture or a cancel within the hold, and the sandbox (its clock following the time-skipping
 * server's) lets the hold expire when nobody decides.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createTimeSkippingEnv } from '../support/temporal';
import { eventually } from '../support/wait';
import { call, TEST_HOLD, usePaymentStack } from './payment-stack';

const fixture = usePaymentStack(createTimeSkippingEnv, { clock: 'server' });

async function authorizedPayment(amount = 120_000) {
  const paymentId = `cap_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  const created = await call(fixture, 'POST', '/v1/payments', {
    paymentId,
    requestType: 'captureWallet',
    amount,
    orderInfo: 'Two-step order',
    autoCapture: false,
  });
  expect(created.status).toBe(201);
  fixture.sandbox.admin.approvePayment(paymentId);
  const view = await paymentIn(paymentId, ['authorized_not_captured']);
  expect(view.holdExpiresAt).toEqual(expect.any(String));
  return paymentId;
}

async function paymentIn(paymentId: string, statuses: string[], skip?: string) {
  return eventually(
    async () => {
      const { body } = await call(fixture, 'GET', `/v1/payments/${paymentId}`);
      if (statuses.includes(body.status)) return body;
      throw new Error(`${paymentId} is ${body.status}, not ${statuses.join('/')}`);
    },
    { between: skip ? () => fixture.env.sleep(skip) : undefined },
  );
}

const ledgerOf = (orderId: string) =>
  fixture.sandbox.admin.ledger().filter((entry) => entry.orderId === orderId);

describe('capture and cancel of authorized payments', () => {
  it('captures once: the money moves, the payment is succeeded and refundable; a second decision is refused', async () => {
    const paymentId = await authorizedPayment();
    expect(ledgerOf(paymentId)).toEqual([expect.objectContaining({ outcome: 'pending' })]);

    const captured = await call(fixture, 'POST', `/v1/payments/${paymentId}/capture`, {});
    expect(captured.status).toBe(200);
    expect(captured.body).toMatchObject({
      status: 'succeeded',
      refundableAmount: 120_000,
      confirmation: { action: 'capture', by: expect.stringContaining('payments'), resultCode: 0 },
    });
    expect(ledgerOf(paymentId)).toEqual([expect.objectContaining({ outcome: 'succeeded', amount: 120_000 })]);

    const again = await call(fixture, 'POST', `/v1/payments/${paymentId}/cancel`, {});
    expect(again).toMatchObject({ status: 409, body: { error: { code: 'payment_not_authorized' } } });
    expect(ledgerOf(paymentId)).toHaveLength(1);
  });

  it('cancels: nothing moves and the payment cannot be captured or refunded afterwards', async () => {
    const paymentId = await authorizedPayment();
    const cancelled = await call(fixture, 'POST', `/v1/payments/${paymentId}/cancel`, {});
    expect(cancelled).toMatchObject({
      status: 200,
      body: { status: 'cancelled', refundableAmount: 0, confirmation: { action: 'cancel', resultCode: 0 } },
    });
    expect(ledgerOf(paymentId)).toEqual([expect.objectContaining({ outcome: 'failed', resultCode: 1017 })]);
    const capture = await call(fixture, 'POST', `/v1/payments/${paymentId}/capture`, {});
    expect(capture).toMatchObject({ status: 409, body: { error: { code: 'payment_not_authorized' } } });
  });

  it('lets the hold expire when nobody decides: authorization_expired, nothing captured', async () => {
    const paymentId = await authorizedPayment();
    const expired = await paymentIn(paymentId, ['authorization_expired'], TEST_HOLD);
    expect(expired.confirmation).toMatchObject({ action: 'expire', by: 'payrun', resultCode: 1018 });
    expect(ledgerOf(paymentId)).toEqual([expect.objectContaining({ outcome: 'failed', resultCode: 1018 })]);
    const capture = await call(fixture, 'POST', `/v1/payments/${paymentId}/capture`, {});
    expect(capture).toMatchObject({ status: 409, body: { error: { code: 'payment_not_authorized' } } });
  });

  it('refuses to capture a payment that was captured automatically, and a viewer cannot decide', async () => {
    const paymentId = `auto_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
    await call(fixture, 'POST', '/v1/payments', {
      paymentId,
      requestType: 'captureWallet',
      amount: 120_000,
      orderInfo: 'One-step order',
    });
    fixture.sandbox.admin.approvePayment(paymentId);
    await paymentIn(paymentId, ['succeeded']);
    const capture = await call(fixture, 'POST', `/v1/payments/${paymentId}/capture`, {});
    expect(capture).toMatchObject({ status: 409, body: { error: { code: 'payment_not_authorized' } } });
    const byViewer = await call(fixture, 'POST', `/v1/payments/${paymentId}/capture`, {}, fixture.viewerKey);
    expect(byViewer.status).toBe(403);
  });
});
