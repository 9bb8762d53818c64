import { condition, proxyActivities, setHandler } from '@temporalio/workflow';
import type { PaymentActivities } from '../activities/payments';
import { durationMs } from './durations';
import {
  decidedStatus,
  isFinalPaymentCode,
  paymentResultSignal,
  paymentStatusQuery,
  type PaymentInput,
  type PaymentNotice,
  type PaymentResult,
  type PaymentStatus,
} from './payment-definitions';

const records = proxyActivities<PaymentActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

/**
 * One one-time payment: api/create (or api/pos) → the customer pays → the IPN (list A or B by
 * requestType) decides it. A late IPN is covered by api/query with growing waits; 7000/7002 are never
 * taken as final. The redirect of the customer's browser changes nothing: only the IPN or the query do.
 */
export async function payment(input: PaymentInput): Promise<PaymentResult> {
  const { paymentId, timing } = input;
  const gateway = proxyActivities<PaymentActivities>({
    startToCloseTimeout: timing.gatewayAttemptTimeout,
    retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes' },
  });
  let status: PaymentStatus = 'created';
  let final: PaymentNotice | undefined;
  let pendingNotices = 0;
  setHandler(paymentStatusQuery, () => status);
  setHandler(paymentResultSignal, (notice) => {
    // Duplicate and late notifications are harmless: the first final one wins.
    if (isFinalPaymentCode(notice.resultCode)) final ??= notice;
    else pendingNotices += 1;
  });

  const created = await gateway.createPayment({ paymentId, paymentCode: input.paymentCode });
  status = created.status;
  if (created.notice && isFinalPaymentCode(created.notice.resultCode)) {
    let decided = created.notice;
    if (decided.resultCode === 0 && decided.payType === undefined) {
      // POS answers 0 without payType: record the success now, then take payType from the IPN (or query).
      await record(decided);
      const more = (await condition(() => final !== undefined, timing.ipnTimeout))
        ? final!
        : await gateway.queryPayment({ paymentId });
      decided = {
        ...decided,
        payType: more.payType ?? decided.payType,
        paymentOption: more.paymentOption ?? decided.paymentOption,
        promotions: more.promotions ?? decided.promotions,
      };
    }
    return record(decided);
  }

  const started = Date.now();
  let wait = durationMs(timing.ipnTimeout);
  let seenPending = 0;
  while (final === undefined) {
    const news = await condition(() => final !== undefined || pendingNotices > seenPending, wait);
    if (final !== undefined) break;
    if (news) {
      seenPending = pendingNotices;
      if (status !== 'pending') {
        status = 'pending';
        await records.recordPaymentStatus({ paymentId, status });
      }
      continue;
    }
    // The IPN is late: a lost notification delays, never loses, an outcome.
    const asked = await gateway.queryPayment({ paymentId });
    if (final !== undefined) break;
    if (isFinalPaymentCode(asked.resultCode)) {
      final = asked;
      break;
    }
    if (asked.resultCode === 7002 && status !== 'pending') {
      status = 'pending';
      await records.recordPaymentStatus({ paymentId, status });
    }
    if (Date.now() - started >= durationMs(timing.resultWait)) {
      status = 'expired';
      await records.recordPaymentStatus({
        paymentId,
        status,
        resultCode: asked.resultCode,
        message: `No final result after ${String(timing.resultWait)}; the gateway still answers ${asked.resultCode}.`,
      });
      return { status, resultCode: asked.resultCode, message: asked.message };
    }
    wait = Math.min(wait * 2, durationMs(timing.maxQueryInterval));
  }
  return record(final);

  async function record(notice: PaymentNotice): Promise<PaymentResult> {
    status = decidedStatus(notice.resultCode, input.autoCapture);
    await records.recordPaymentResult({ paymentId, status, notice });
    return { status, resultCode: notice.resultCode, message: notice.message };
  }
}
