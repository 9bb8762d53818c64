/**
 * Saved-method payments through the OTP flow: a customer saves a card (binding, approved by the simulated
 * customer), pays with its token an amount the sandbox answers with 8200, reads the code from the
 * sandbox's SMS inbox and submits it (no sooner than the gateway's 3 s spacing).
 */
import { FINAL_TOKEN_PAYMENT_STATES } from '../../../contracts/saved-methods';
import { describeAnswer, inPool, sleep, waitUntil, type DriveFailure, type WorkloadContext } from './context';

export interface SavedMethodPaymentIntent {
  paymentId: string;
  partnerClientId: string;
  amount: number;
  bindingId?: string;
}

export interface SavedMethodPaymentsDriven {
  payments: SavedMethodPaymentIntent[];
  failures: DriveFailure[];
}

/** The gateway refuses a code sooner than 3 s after it sent it. */
const OTP_SPACING_MS = 3_200;

export async function driveSavedMethodPayments(
  ctx: WorkloadContext,
  count: number,
): Promise<SavedMethodPaymentsDriven> {
  const failures: DriveFailure[] = [];
  const payments: SavedMethodPaymentIntent[] = Array.from({ length: count }, (_, index) => ({
    paymentId: `${ctx.tag}-tp${index + 1}`,
    partnerClientId: `${ctx.tag}-card${index + 1}`,
    // Ends in 8200: the sandbox asks for a two-factor code.
    amount: 18_200 + index * 10_000,
  }));
  await inPool(payments, 6, async (payment) => {
    const failure = await payWithOtp(ctx, payment);
    if (failure) failures.push(failure);
  });
  ctx.log(`${payments.length} saved-method payments driven through the OTP flow`);
  return { payments, failures };
}

async function payWithOtp(
  ctx: WorkloadContext,
  payment: SavedMethodPaymentIntent,
): Promise<DriveFailure | undefined> {
  const failed = (step: string, detail: string): DriveFailure => ({ id: payment.paymentId, step, detail });
  const bound = await ctx.api.call(ctx.keys.payments, 'POST', '/v1/saved-method-bindings', {
    idempotencyKey: `bind-${payment.partnerClientId}`,
    body: {
      kind: 'card',
      partnerClientId: payment.partnerClientId,
      userInfo: { email: 'chaos@example.com', name: 'Chaos Customer' },
    },
  });
  if (bound.status !== 201) return failed('bind', describeAnswer(bound));
  payment.bindingId = bound.body.bindingId as string;
  const methodId = await waitUntil(ctx.deadline, async () => {
    const row = await ctx
      .db('saved_method_bindings')
      .where({ binding_id: payment.bindingId })
      .first('status', 'method_id');
    if (row?.status === 'failed' || row?.status === 'expired') return null;
    return row?.status === 'active' ? (row.method_id as string) : undefined;
  });
  if (!methodId) return failed('bind', `binding ${payment.bindingId} did not become active`);

  const started = await ctx.api.call(ctx.keys.payments, 'POST', '/v1/saved-method-payments', {
    idempotencyKey: `pay-${payment.paymentId}`,
    body: { paymentId: payment.paymentId, methodId, amount: payment.amount, description: 'Chaos order' },
  });
  if (started.status !== 201 && started.body?.error?.code !== 'token_payment_exists')
    return failed('pay', describeAnswer(started));

  // Submit the code while the payment waits for it; stop once it is final.
  for (;;) {
    const row = await waitUntil(
      ctx.deadline,
      async () =>
        (await ctx.db('saved_method_payments').where({ payment_id: payment.paymentId }).first('state')) as
          { state: string } | undefined,
    );
    if (!row) return failed('pay', 'no record of the saved-method payment');
    if ((FINAL_TOKEN_PAYMENT_STATES as readonly string[]).includes(row.state as string)) return undefined;
    if (Date.now() > ctx.deadline) return failed('otp', `still ${String(row.state)} at the deadline`);
    if (row.state !== 'awaiting_otp') {
      await sleep(1000);
      continue;
    }
    const inbox = await ctx.sandbox.otpInbox(payment.partnerClientId).catch(() => []);
    const message = inbox.filter((entry) => entry.orderId === payment.paymentId).at(-1);
    if (!message) {
      await sleep(1000);
      continue;
    }
    const wait = Date.parse(message.sentAt) + OTP_SPACING_MS - Date.now();
    if (wait > 0) await sleep(wait);
    const answer = await ctx.api.call(
      ctx.keys.payments,
      'POST',
      `/v1/saved-method-payments/${payment.paymentId}/otp`,
      {
        body: { code: message.code },
      },
    );
    // 200: verified; 409: settled meanwhile (an earlier submission whose answer was lost); 429: too soon.
    if (answer.status !== 200 && answer.status !== 409) await sleep(1000);
  }
}
