/**
 * One gateway orderId namespace through the API (issue 31): what was seen on the running product, and
 * the reverse orders. A payment and a disbursement, or a subscription and a payment, can no longer both
 * take one id (409 `order_id_taken`, nothing sent); an id ending like an id payrun derives (`acme-c1`,
 * subscription `acme`'s first charge) is refused whoever came first (400 `reserved_ending`).
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { connectDevServer } from '../support/temporal';
import { eventually } from '../support/wait';
import {
  call,
  disbursementBody,
  paymentBody,
  subscriptionBody,
  useOrderIdStack,
} from '../support/order-id-stack';

const t = useOrderIdStack(connectDevServer);
const tag = randomUUID().replaceAll('-', '').slice(0, 10);

/** What the sandbox received naming `orderId`, or an id derived from it. */
const received = (orderId: string) =>
  t.sandbox.admin
    .requests()
    .filter((request) => request.orderId === orderId || request.orderId?.startsWith(`${orderId}-`));

const created = (answer: { status: number; body: unknown }) => {
  expect([201, 202], JSON.stringify(answer.body)).toContain(answer.status);
};

function expectTaken(
  answer: { status: number; body: { error: { code: string; message: string } } },
  id: string,
) {
  expect(answer.status, JSON.stringify(answer.body)).toBe(409);
  expect(answer.body.error.code).toBe('order_id_taken');
  expect(answer.body.error.message).toContain(id);
}

function expectReservedEnding(
  answer: { status: number; body: { error: { code: string; problems: unknown[] } } },
  field: string,
) {
  expect(answer.status, JSON.stringify(answer.body)).toBe(400);
  expect(answer.body.error.code).toBe('invalid_request');
  expect(answer.body.error.problems).toEqual([
    expect.objectContaining({ field, rule: 'reserved_ending', message: expect.stringContaining('-c1') }),
  ]);
}

describe('one gateway orderId namespace through the API', () => {
  it('payment X, then disbursement X: 409 order_id_taken, the disbursement never reaches the gateway', async () => {
    const id = `INV-7-${tag}`;
    created(await call(t, 'POST', '/v1/payments', paymentBody(id)));
    await eventually(() =>
      expect(received(id).map((request) => request.operation)).toContain('payment.captureWallet'),
    );

    expectTaken(await call(t, 'POST', '/v1/disbursements', disbursementBody(id)), id);
    expect((await call(t, 'GET', `/v1/disbursements/${id}`)).status).toBe(404);
    expect(received(id).filter((request) => request.operation.startsWith('disbursement.'))).toEqual([]);
  });

  it('disbursement X, then payment X: 409, the payment never reaches the gateway', async () => {
    const id = `PO-${tag}`;
    created(await call(t, 'POST', '/v1/disbursements', disbursementBody(id)));
    await eventually(() =>
      expect(received(id).map((request) => request.operation)).toContain('disbursement.pay'),
    );

    expectTaken(await call(t, 'POST', '/v1/payments', paymentBody(id)), id);
    expect((await call(t, 'GET', `/v1/payments/${id}`)).status).toBe(404);
    expect(received(id).filter((request) => request.operation.startsWith('payment.'))).toEqual([]);
  });

  it('subscription X and payment X, either way round: the second is 409', async () => {
    const first = `sub${tag}`;
    created(await call(t, 'POST', '/v1/subscriptions', subscriptionBody(first)));
    expectTaken(await call(t, 'POST', '/v1/payments', paymentBody(first)), first);

    const second = `pay${tag}`;
    created(await call(t, 'POST', '/v1/payments', paymentBody(second)));
    expectTaken(await call(t, 'POST', '/v1/subscriptions', subscriptionBody(second)), second);
    expect((await call(t, 'GET', `/v1/subscriptions/${second}`)).status).toBe(404);
    expect(received(second).filter((request) => request.operation.startsWith('subscription.'))).toEqual([]);
  });

  it("subscription acme, then payment acme-c1 (its first charge's orderId): 400 reserved_ending", async () => {
    const acme = `acme${tag}`;
    created(await call(t, 'POST', '/v1/subscriptions', subscriptionBody(acme)));
    expectReservedEnding(await call(t, 'POST', '/v1/payments', paymentBody(`${acme}-c1`)), 'body.paymentId');
    expectReservedEnding(
      await call(t, 'POST', '/v1/disbursements', disbursementBody(`${acme}-c1`)),
      'body.disbursementId',
    );
    expectReservedEnding(
      await call(t, 'POST', '/v1/subscriptions', subscriptionBody(`${acme}-c1`)),
      'body.subscriptionId',
    );
    expectReservedEnding(
      await call(t, 'POST', '/v1/saved-method-payments', {
        paymentId: `${acme}-c1`,
        methodId: 'm',
        amount: 10_000,
      }),
      'body.paymentId',
    );
    expect(received(`${acme}-c1`)).toEqual([]);
  });

  it('payment acme-c1 first is refused all the same, and subscription acme keeps its charges’ ids', async () => {
    const acme = `acme2${tag}`;
    expectReservedEnding(await call(t, 'POST', '/v1/payments', paymentBody(`${acme}-c1`)), 'body.paymentId');
    expectReservedEnding(
      await call(t, 'POST', '/v1/subscriptions', subscriptionBody(`${acme}-c1`)),
      'body.subscriptionId',
    );
    created(await call(t, 'POST', '/v1/subscriptions', subscriptionBody(acme)));
    expect((await call(t, 'GET', `/v1/payments/${acme}-c1`)).status).toBe(404);
    // The refusal names the ending and why.
    const refused = await call(t, 'POST', '/v1/disbursements', disbursementBody(`${acme}-b001`));
    expect(refused.body.error.problems[0]).toMatchObject({
      rule: 'reserved_ending',
      message: expect.stringMatching(/-b001.*payout run's batch/),
    });
  });

  it('an id longer than its kind takes: 400 naming the field; the longest it takes is created', async () => {
    const tooLong = await call(t, 'POST', '/v1/subscriptions', subscriptionBody(`s${tag}`.padEnd(41, 'x')));
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error.problems).toEqual([
      expect.objectContaining({ field: 'body.subscriptionId', rule: 'too_big' }),
    ]);
    created(await call(t, 'POST', '/v1/subscriptions', subscriptionBody(`s${tag}`.padEnd(40, 'x'))));
  });
});
