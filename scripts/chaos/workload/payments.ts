/**
 * One-time wallet payments the simulated customer approves, each refunded in part once it succeeded.
 */
import { describeAnswer, inPool, waitUntil, type DriveFailure, type WorkloadContext } from './context';

export interface PaymentIntent {
  paymentId: string;
  amount: number;
  refund: number;
  refundRequested: boolean;
}

export interface PaymentsDriven {
  payments: PaymentIntent[];
  failures: DriveFailure[];
}

const FINAL_PAYMENT = ['succeeded', 'failed', 'cancelled', 'expired', 'authorization_expired'];

export async function drivePayments(ctx: WorkloadContext, count: number): Promise<PaymentsDriven> {
  const failures: DriveFailure[] = [];
  const payments: PaymentIntent[] = Array.from({ length: count }, (_, index) => ({
    paymentId: `${ctx.tag}-p${index + 1}`,
    // Ends in 50: no amount scenario; the customer pays.
    amount: 150_050 + index * 100,
    refund: 40_000,
    refundRequested: false,
  }));
  await inPool(payments, 6, async (payment) => {
    const created = await ctx.api.call(ctx.keys.payments, 'POST', '/v1/payments', {
      idempotencyKey: `pay-${payment.paymentId}`,
      body: {
        paymentId: payment.paymentId,
        requestType: 'captureWallet',
        amount: payment.amount,
        orderInfo: 'Chaos tea',
      },
    });
    if (created.status !== 201 && created.status !== 202) {
      failures.push({ id: payment.paymentId, step: 'create', detail: describeAnswer(created) });
      return;
    }
    const status = await waitUntil(ctx.deadline, async () => {
      const row = await ctx.db('payments').where({ payment_id: payment.paymentId }).first('status');
      return FINAL_PAYMENT.includes(row?.status as string) ? (row!.status as string) : undefined;
    });
    if (status !== 'succeeded') {
      failures.push({ id: payment.paymentId, step: 'pay', detail: `ended ${status ?? 'unfinished'}` });
      return;
    }
    const refunded = await ctx.api.call(
      ctx.keys.payments,
      'POST',
      `/v1/payments/${payment.paymentId}/refunds`,
      {
        idempotencyKey: `refund-${payment.paymentId}`,
        body: { amount: payment.refund },
      },
    );
    if (refunded.status !== 201 && refunded.status !== 202) {
      failures.push({ id: payment.paymentId, step: 'refund', detail: describeAnswer(refunded) });
      return;
    }
    payment.refundRequested = true;
  });
  ctx.log(`${payments.length} payments taken and refunded in part`);
  return { payments, failures };
}
