import {
  allHandlersFinished,
  ApplicationFailure,
  condition,
  patched,
  setHandler,
} from '@temporalio/workflow';
import { gatewayOf, recordsOf } from '../shared/activity-profiles';
import type { SavedMethodActivities } from '../../contracts/saved-methods';
import { codeOf, isUndecided, outcomeOf } from '../../gateway/result-codes';
import { durationMs } from '../../contracts/shared';
import { waitForNotificationOrAsk, waitOrAskThenAttend, type AskSchedule } from '../shared/wait-or-ask';
import {
  attemptsLeft,
  checkSubmission,
  nextDayStart,
  OTP_RULES,
  refusalMessage,
  type OtpAttempt,
  type OtpRefusal,
  OTP_FAILURE,
  OTP_REFUSAL_TYPE,
  submitOtpUpdate,
  savedMethodPaymentResultSignal,
  savedMethodPaymentStartedUpdate,
  savedMethodPaymentStateQuery,
  savedMethodPaymentTransition,
  type OtpVerdict,
  type SavedMethodPaymentInput,
  type SavedMethodPaymentNotice,
  type SavedMethodPaymentSnapshot,
  type SavedMethodPaymentState,
} from '../../contracts/saved-methods';

const refuse = (refusal: OtpRefusal): never => {
  throw ApplicationFailure.nonRetryable(refusalMessage(refusal), OTP_REFUSAL_TYPE[refusal.reason], refusal);
};

/**
 * Pay with a saved method: tokenization/pay → 0 done · 7000/7002 (and 40/41) wait for the IPN, then
 * api/query · 8000 the customer confirms at payUrl, wait likewise · 8200 wait for submitOtp (document
 * 2's rules checked here first), tokenization/verify. The token never enters the workflow: activities
 * load and decrypt it by payment id.
 */
export async function savedMethodPayment(
  input: SavedMethodPaymentInput,
): Promise<SavedMethodPaymentSnapshot> {
  const { paymentId, timing } = input;
  const records = recordsOf<SavedMethodActivities>();
  const gateway = gatewayOf<SavedMethodActivities>(timing.gatewayAttemptTimeout);

  let state = 'starting' as SavedMethodPaymentState;
  let last: { resultCode?: number; message?: string } = {};
  let notified: SavedMethodPaymentNotice | undefined;
  // The two-factor round: when the code was sent, the user's latest request, the user's attempts today.
  let sentAt = 0;
  let lastRequestAt = 0;
  let attempts: OtpAttempt[] = [];
  let verifying = false;
  let verifyCount = 0;
  let otpFailure: OtpRefusal | undefined;

  setHandler(savedMethodPaymentStateQuery, () => state);
  setHandler(savedMethodPaymentResultSignal, (result) => {
    if (!isUndecided(outcomeOf(result.resultCode))) notified ??= result;
  });
  setHandler(savedMethodPaymentStartedUpdate, async () => {
    await condition(() => state !== 'starting');
    return { state, ...last };
  });

  const record = async (
    next: SavedMethodPaymentState,
    extra: { resultCode?: number; message?: string; transId?: string } = {},
  ) => {
    const moved = savedMethodPaymentTransition(state, next);
    await records.recordTokenPayment({ paymentId, state: next, ...extra });
    state = moved;
    last = { resultCode: extra.resultCode, message: extra.message };
  };

  setHandler(
    submitOtpUpdate,
    async ({ code }): Promise<OtpVerdict> => {
      const now = Date.now();
      lastRequestAt = now;
      verifying = true;
      try {
        const answer = await gateway.verifyTokenPayment({ paymentId, code, attempt: ++verifyCount, at: now });
        attempts.push({ at: now, kind: 'verify', outcome: answer.attemptOutcome });
        switch (answer.attemptOutcome) {
          case 'accepted':
            if (outcomeOf(answer.resultCode) === 'succeeded') await record('succeeded', answer);
            else await record('pending', answer);
            return { state, resultCode: answer.resultCode, message: answer.message };
          case 'wrong': {
            const left = attemptsLeft(attempts, now);
            if (left > 0) {
              throw ApplicationFailure.nonRetryable(
                `The code is wrong; ${left} attempt${left === 1 ? '' : 's'} left today.`,
                OTP_FAILURE.wrong,
                { attemptsLeft: left },
              );
            }
            otpFailure = { reason: 'otp_locked', until: nextDayStart(now) };
            await record('failed', { resultCode: codeOf('otp_locked'), message: refusalMessage(otpFailure) });
            return refuse(otpFailure);
          }
          case 'locked':
            otpFailure = { reason: 'otp_locked', until: nextDayStart(now) };
            await record('failed', { resultCode: answer.resultCode, message: refusalMessage(otpFailure) });
            return refuse(otpFailure);
          case 'expired':
            otpFailure = { reason: 'otp_expired', expiredAt: sentAt + OTP_RULES.codeLifetimeMs };
            await record('failed', { resultCode: answer.resultCode, message: refusalMessage(otpFailure) });
            return refuse(otpFailure);
          case 'too_soon':
            return refuse({ reason: 'otp_too_soon', retryAfterMs: OTP_RULES.minSpacingMs });
          default:
            await record('failed', answer);
            throw ApplicationFailure.nonRetryable(answer.message, OTP_FAILURE.failed, {
              resultCode: answer.resultCode,
            });
        }
      } finally {
        verifying = false;
      }
    },
    {
      validator: ({ code }) => {
        if (typeof code !== 'string' || !/^[0-9]{4,8}$/.test(code)) {
          throw ApplicationFailure.nonRetryable('The code is 4 to 8 digits.', OTP_FAILURE.invalid);
        }
        if (state !== 'awaiting_otp') {
          if (otpFailure) refuse(otpFailure);
          throw ApplicationFailure.nonRetryable(
            `The payment is ${state}; it waits for no code.`,
            OTP_FAILURE.notAwaited,
            {
              state,
            },
          );
        }
        const now = Date.now();
        if (verifying) refuse({ reason: 'otp_too_soon', retryAfterMs: OTP_RULES.minSpacingMs });
        const refusal = checkSubmission({ sentAt, lastRequestAt, attempts, now });
        if (refusal) refuse(refusal);
      },
    },
  );

  const done = async (snapshot?: SavedMethodPaymentSnapshot) => {
    await condition(allHandlersFinished);
    return snapshot ?? { state, ...last };
  };

  const first = await gateway.payWithToken({ paymentId, at: Date.now() });
  switch (first.outcome) {
    case 'succeeded':
      await record('succeeded', first);
      return done();
    case 'failed':
      await record('failed', first);
      return done();
    case 'otp': {
      sentAt = Date.now();
      lastRequestAt = sentAt;
      attempts = await records.otpAttemptsToday({ partnerClientId: input.partnerClientId, now: sentAt });
      await record('awaiting_otp', first);
      // The code dies 5 minutes after it was sent; a verdict (update) moves the state on before that.
      const answered = await condition(() => state !== 'awaiting_otp', OTP_RULES.codeLifetimeMs);
      if (!answered) {
        await condition(() => !verifying);
        if (state === 'awaiting_otp') {
          otpFailure = { reason: 'otp_expired', expiredAt: sentAt + OTP_RULES.codeLifetimeMs };
          await record('failed', { resultCode: codeOf('otp_expired'), message: refusalMessage(otpFailure) });
        }
      }
      if (state !== 'pending') return done();
      break;
    }
    case 'redirect':
      await record('awaiting_customer', first);
      break;
    case 'pending':
      await record('pending', first);
      break;
  }

  // IPN or poll: wait for the notification, then ask api/query, until giveUpAfter.
  let lastAnswer: { resultCode: number } | undefined;
  const ask = async (attempt: number) => {
    const asked = await gateway.queryTokenPayment({ paymentId, attempt });
    lastAnswer = asked;
    return asked.final ? asked : undefined;
  };
  const schedule: AskSchedule = {
    firstWait: timing.resultWait,
    giveUpAt: Date.now() + durationMs(timing.giveUpAfter),
  };
  // Since the strict gateway nothing is concluded without the gateway's word: an operator is told
  // (needs_attention) and payrun goes on asking; a customer who confirms late is heard. Runs from before
  // recorded a customer who did not confirm in time as failed, and stopped asking.
  if (patched('saved-method-payment-asks-after-attention')) {
    const heard = await waitOrAskThenAttend(
      () => notified,
      ask,
      schedule,
      () =>
        record('needs_attention', {
          resultCode: lastAnswer!.resultCode,
          message:
            state === 'awaiting_customer'
              ? 'The customer has not confirmed at the payment page; payrun keeps asking the gateway.'
              : 'No final result arrived from the gateway; payrun keeps asking. Check it with the gateway.',
        }),
    );
    if (heard.decided)
      await record(
        outcomeOf(heard.decided.resultCode) === 'succeeded' ? 'succeeded' : 'failed',
        heard.decided,
      );
    return done();
  }
  const heard = await waitForNotificationOrAsk(() => notified, ask, schedule);
  if (heard.decided) {
    await record(outcomeOf(heard.decided.resultCode) === 'succeeded' ? 'succeeded' : 'failed', heard.decided);
  } else if (state === 'awaiting_customer') {
    await record('failed', {
      resultCode: lastAnswer!.resultCode,
      message: 'The customer did not confirm in time.',
    });
  } else {
    await record('needs_attention', {
      resultCode: lastAnswer!.resultCode,
      message: 'No final result arrived from the gateway; check it with the gateway.',
    });
  }
  return done();
}
