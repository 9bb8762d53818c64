/**
 * A customer who pays after payrun stopped listening: the payment's workflow has finished (30 days past its
 * expiry, or a run from before payrun listened on), and the gateway's signed notification still moves the
 * record, forward only — expired becomes succeeded, with its event — where the receiver once acknowledged it
 * as "delivered" and the record stayed failed.
 */
import { expect, it } from 'vitest';
import { connectDevServer } from '../support/temporal';
import { eventually } from '../support/wait';
import { call, usePaymentStack } from './payment-stack';
import { freshId } from '../support/ids';

const t = usePaymentStack(connectDevServer);

it('a result notification for a payment whose workflow has finished is recorded, forward only, with its event', async () => {
  const paymentId = freshId('late_', 8);
  const created = await call(t, 'POST', '/v1/payments', {
    paymentId,
    requestType: 'captureWallet',
    amount: 150_050,
    orderInfo: 'Late customer',
  });
  expect([201, 202]).toContain(created.status);
  await eventually(async () =>
    expect((await t.db('payments').where({ payment_id: paymentId }).first()).status).toBe(
      'awaiting_customer',
    ),
  );
  // payrun stopped listening: the workflow is over, the record says the customer never paid.
  await t.env.client.workflow.getHandle(`payment/${paymentId}`).terminate('matrix: payrun stopped listening');
  await t.db('payments').where({ payment_id: paymentId }).update({ status: 'expired' });

  t.sandbox.admin.approvePayment(paymentId);
  await eventually(async () => {
    const row = await t.db('payments').where({ payment_id: paymentId }).first();
    expect(row).toMatchObject({ status: 'succeeded', result_code: 0 });
    expect(row.trans_id).toEqual(expect.any(String));
  });
  const events = await t.db('events').where({ object_id: paymentId }).select('type');
  expect(events.map((event: { type: string }) => event.type)).toEqual(['payment.succeeded']);

  // A second copy of the notification changes nothing, and a failure can never follow a success.
  const stored = await t.db('ipn_notifications').where({ order_id: paymentId }).first('signalled_at');
  expect(stored.signalled_at).not.toBeNull();
});
