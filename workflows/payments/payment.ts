import {
  allHandlersFinished,
  ApplicationFailure,
  condition,
  patched,
  setHandler,
} from '@temporalio/workflow';
import { gatewayOf, recordsOf } from '../shared/activity-profiles';
import type { PaymentActivities } from '../../contracts/payments';
import { outcomeOf } from '../../gateway/result-codes';
import { durationMs } from '../../contracts/shared';
import { ASK_AFTER_ATTENTION, waitForNotificationOrAsk } from '../shared/wait-or-ask';
import {
  CONFIRM_REFUSED,
  confirmedStatus,
  confirmPaymentUpdate,
  decidedStatus,
  isFinalPaymentCode,
  paymentResultSignal,
  paymentStatusQuery,
  type ConfirmRequest,
  type ConfirmResult,
  type PaymentInput,
  type PaymentNotice,
  type PaymentResult,
  type PaymentStatus,
} from '../../contracts/payments';

const records = recordsOf<PaymentActivities>();

/**
 * One one-time payment: api/create (or api/pos) → the customer pays → the IPN (list A or B by
 * requestType) decides it. A late IPN is covered by api/query with growing waits; 7000/7002 are never
 * taken as final. The redirect of the customer's browser changes nothing: only the IPN or the query do.
 * A payment authorized without capture then waits for an operator's capture or cancel (an update)
 * for the gateway's hold period; when nobody decides, payrun releases the hold itself.
 */
export async function payment(input: PaymentInput): Promise<PaymentResult> {
  const { paymentId, timing } = input;
  const gateway = gatewayOf<PaymentActivities>(timing.gatewayAttemptTimeout);
  let status: PaymentStatus = 'created';
  let final: PaymentNotice | undefined;
  let pendingNotices = 0;
  setHandler(paymentStatusQuery, () => status);
  let decision: ConfirmRequest | undefined;
  let confirmed: ConfirmResult | undefined;
  /** Decisions sent so far: each has a requestId of its own. */
  let decisions = 0;
  setHandler(confirmPaymentUpdate, (request) => confirm(request, 'operator'), {
    validator: (request) => {
      if (request.action !== 'capture' && request.action !== 'cancel')
        throw ApplicationFailure.nonRetryable('action must be capture or cancel', CONFIRM_REFUSED);
      if (status !== 'authorized_not_captured' || decision !== undefined || confirmed !== undefined)
        throw ApplicationFailure.nonRetryable(
          `Payment ${paymentId} is ${status}${decision ? ` (${decision.action} in progress)` : ''}; ` +
            'only an authorized, undecided payment can be captured or cancelled.',
          CONFIRM_REFUSED,
        );
    },
  });
  setHandler(paymentResultSignal, (notice) => {
    // Duplicate and late notifications are harmless: the first final one wins.
    if (isFinalPaymentCode(notice.resultCode)) final ??= notice;
    else pendingNotices += 1;
  });

  const created = await gateway.createPayment({ paymentId, paymentCode: input.paymentCode });
  status = created.status;
  if (created.notice && isFinalPaymentCode(created.notice.resultCode)) {
    let decided = created.notice;
    if (outcomeOf(decided.resultCode) === 'succeeded' && decided.payType === undefined) {
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
    return afterDecision(await record(decided));
  }

  // A "still pending" notification records the status and waits again without asking; a late one is
  // covered by the query. Running payments' histories hold these timers (a change needs patched()).
  const markPending = async () => {
    if (status === 'pending') return;
    status = 'pending';
    await records.recordPaymentStatus({ paymentId, status });
  };
  let seenPending = 0;
  let lastAsked: (PaymentNotice & { known?: false }) | undefined;
  const heard = await waitForNotificationOrAsk(
    () => final,
    async () => {
      const asked = await gateway.queryPayment({ paymentId });
      // A notification that came during the query is the answer (it carries more than the query).
      if (final !== undefined) return final;
      // An answer that proves nothing (a refused query, another order's) is no result (answers recorded
      // before the strict gateway carry no `known` and were taken as they came).
      if (asked.known !== false && isFinalPaymentCode(asked.resultCode)) return asked;
      if (outcomeOf(asked.resultCode) === 'provider_processing') await markPending();
      lastAsked = asked;
      return undefined;
    },
    {
      firstWait: timing.ipnTimeout,
      growth: 2,
      maxWait: timing.maxQueryInterval,
      giveUpAfter: timing.resultWait,
    },
    {
      arrived: () => pendingNotices > seenPending,
      handle: async () => {
        seenPending = pendingNotices;
        await markPending();
      },
    },
  );
  if (heard.decided === undefined) {
    const { resultCode, message } = lastAsked!;
    status = 'expired';
    await records.recordPaymentStatus({
      paymentId,
      status,
      resultCode,
      message:
        lastAsked!.known === false
          ? `No final result after ${String(timing.resultWait)}; the last answer told nothing: ${message}`
          : `No final result after ${String(timing.resultWait)}; the gateway still answers ${resultCode}.`,
    });
    // The order may still be payable: a customer who pays after payrun stopped waiting is heard (the
    // notification, or the query), and recorded, for ASK_AFTER_ATTENTION.for. Runs from before ended here.
    if (!patched('payment-hears-late-results')) return { status, resultCode, message };
    const late = await waitForNotificationOrAsk(
      () => final,
      async () => {
        const asked = await gateway.queryPayment({ paymentId });
        if (final !== undefined) return final;
        return asked.known !== false && isFinalPaymentCode(asked.resultCode) ? asked : undefined;
      },
      { firstWait: ASK_AFTER_ATTENTION.every, giveUpAfterWaiting: ASK_AFTER_ATTENTION.for },
    );
    if (late.decided === undefined) return { status, resultCode, message };
    return afterDecision(await record(late.decided));
  }
  return afterDecision(await record(heard.decided));

  async function record(notice: PaymentNotice): Promise<PaymentResult> {
    const next = decidedStatus(notice.resultCode, input.autoCapture);
    const holdExpiresAt = next === 'authorized_not_captured' ? Date.now() + durationMs(hold()) : undefined;
    await records.recordPaymentResult({ paymentId, status: next, notice, holdExpiresAt });
    // Only now can an operator decide: the record they decide on exists.
    status = next;
    return { status, resultCode: notice.resultCode, message: notice.message };
  }

  function hold() {
    return timing.authorizationHold ?? '7 days';
  }

  /** An authorization waits for its capture or cancel; anything else is already the end. */
  async function afterDecision(result: PaymentResult): Promise<PaymentResult> {
    // Payments authorized before capture existed ended here; their histories must replay unchanged.
    if (result.status !== 'authorized_not_captured' || !patched('authorization-decision')) return result;
    const inTime = await condition(() => confirmed !== undefined, hold());
    if (!inTime && decision === undefined) await confirm({ action: 'cancel', by: 'payrun' }, 'hold-over');
    await condition(() => confirmed !== undefined && decision === undefined);
    await condition(allHandlersFinished);
    return { status, resultCode: confirmed!.resultCode, message: confirmed!.message };
  }

  /**
   * One decision at a time. A refusal (the gateway did not take it) leaves the payment authorized so
   * an operator may try again; at the end of the hold any outcome but a capture lets the hold go.
   */
  async function confirm(request: ConfirmRequest, reason: 'operator' | 'hold-over'): Promise<ConfirmResult> {
    decision = request;
    try {
      decisions += 1;
      const answer = await gateway.confirmPayment({
        paymentId,
        action: request.action,
        reason,
        ...(decisions > 1 ? { seq: decisions } : {}),
      });
      // Refused, or unknown (its answer lost): the payment stays authorized for another decision.
      const refusedByGateway =
        (answer.outcome === 'refused' || answer.outcome === 'unknown') && reason === 'operator';
      const next = refusedByGateway
        ? status
        : reason === 'hold-over' && answer.outcome !== 'captured'
          ? 'authorization_expired'
          : confirmedStatus[
              answer.outcome === 'refused' || answer.outcome === 'unknown' ? 'expired' : answer.outcome
            ];
      await records.recordConfirmation({
        paymentId,
        status: next,
        action: reason === 'hold-over' ? 'expire' : request.action,
        by: request.by,
        resultCode: answer.resultCode,
        message: answer.message,
      });
      status = next;
      const result = { status, resultCode: answer.resultCode, message: answer.message };
      if (!refusedByGateway) confirmed = result;
      return result;
    } finally {
      decision = undefined;
    }
  }
}
