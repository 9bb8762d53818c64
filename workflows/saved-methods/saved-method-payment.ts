import {
  allHandlersFinished,
  ApplicationFailure,
  condition,
  patched,
  setHandler,
} from '@temporalio/workflow';
import { gatewayOf, recordsOf } from '../shared/activity-profiles';
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
  type OtpVerification,
  type SavedMethodActivities,
  type SavedMethodPaymentInput,
  type SavedMethodPaymentNotice,
  type SavedMethodPaymentSnapshot,
  type SavedMethodPaymentState,
  type TokenPaymentAnswer,
} from '../../contracts/saved-methods';
import { whileHeld } from '../holds/while-held';

const records = recordsOf<SavedMethodActivities>();

/**
 * Pay with a saved method: tokenization/pay → 0 done · 7000/7002 (and 40/41) wait for the IPN, then
 * api/query · 8000 the customer confirms at payUrl, wait likewise · 8200 wait for submitOtp (document
 * 2's rules checked here first), tokenization/verify. The token never enters the workflow: activities
 * load and decrypt it by payment id.
 */
export async function savedMethodPayment(
  input: SavedMethodPaymentInput,
): Promise<SavedMethodPaymentSnapshot> {
  const run = openRun(input);
  answerQueriesAndNotices(run);
  acceptCodes(run);
  // Stopped before it is sent while charges are held (the activity tells its amount).
  const first = await whileHeld(
    { kind: 'charge', objectId: run.paymentId },
    ({ releasedHold }) =>
      run.gateway.payWithToken({
        paymentId: run.paymentId,
        at: Date.now(),
        ...(releasedHold && { releasedHold }),
      }),
    (holding) => {
      run.held = holding;
    },
  );
  if (await settledByFirstAnswer(run, first)) return done(run);
  await waitForResult(run);
  return done(run);
}

// ---- one run and what its steps share

type Gateway = ReturnType<typeof gatewayOf<SavedMethodActivities>>;
type Words = { resultCode?: number; message?: string; transId?: string };

interface Run {
  readonly input: SavedMethodPaymentInput;
  readonly paymentId: string;
  readonly gateway: Gateway;
  state: SavedMethodPaymentState;
  last: { resultCode?: number; message?: string };
  notified?: SavedMethodPaymentNotice;
  /** The two-factor round: when the code was sent, the user's latest request, the user's attempts today. */
  sentAt: number;
  lastRequestAt: number;
  attempts: OtpAttempt[];
  verifying: boolean;
  verifyCount: number;
  otpFailure?: OtpRefusal;
  /** Charges are held: nothing was sent, and the API's create is answered without waiting for the release. */
  held: boolean;
}

function openRun(input: SavedMethodPaymentInput): Run {
  return {
    input,
    paymentId: input.paymentId,
    gateway: gatewayOf<SavedMethodActivities>(input.timing.gatewayAttemptTimeout),
    state: 'starting',
    last: {},
    sentAt: 0,
    lastRequestAt: 0,
    attempts: [],
    verifying: false,
    verifyCount: 0,
    held: false,
  };
}

/** The state as handlers may have changed it: a function call defeats narrowing across awaits. */
const stateOf = (run: Run): SavedMethodPaymentState => run.state;

/** Every change of state goes through the transition table and is recorded. */
async function record(run: Run, next: SavedMethodPaymentState, extra: Words = {}) {
  const moved = savedMethodPaymentTransition(run.state, next);
  await records.recordTokenPayment({ paymentId: run.paymentId, state: next, ...extra });
  run.state = moved;
  run.last = { resultCode: extra.resultCode, message: extra.message };
}

/** The answer once every update in flight has answered its caller. */
async function done(run: Run): Promise<SavedMethodPaymentSnapshot> {
  await condition(allHandlersFinished);
  return { state: run.state, ...run.last };
}

const refuse = (refusal: OtpRefusal): never => {
  throw ApplicationFailure.nonRetryable(refusalMessage(refusal), OTP_REFUSAL_TYPE[refusal.reason], refusal);
};

// ---- what callers ask and tell

function answerQueriesAndNotices(run: Run) {
  setHandler(savedMethodPaymentStateQuery, () => run.state);
  setHandler(savedMethodPaymentResultSignal, (result) => {
    if (!isUndecided(outcomeOf(result.resultCode))) run.notified ??= result;
  });
  setHandler(savedMethodPaymentStartedUpdate, async () => {
    await condition(() => run.state !== 'starting' || run.held);
    return { state: run.state, ...run.last, ...(run.held && { held: true }) };
  });
}

// ---- the first answer

/** Records what tokenization/pay said; true when that settles the payment. */
async function settledByFirstAnswer(run: Run, first: TokenPaymentAnswer): Promise<boolean> {
  switch (first.outcome) {
    case 'succeeded':
      await record(run, 'succeeded', first);
      return true;
    case 'failed':
      await record(run, 'failed', first);
      return true;
    case 'otp':
      return settledByCode(run, first);
    case 'redirect':
      await record(run, 'awaiting_customer', first);
      return false;
    case 'pending':
      await record(run, 'pending', first);
      return false;
  }
}

/** 8200: a code went to the customer; true unless the code was accepted and the result is pending. */
async function settledByCode(run: Run, first: TokenPaymentAnswer): Promise<boolean> {
  run.sentAt = Date.now();
  run.lastRequestAt = run.sentAt;
  run.attempts = await records.otpAttemptsToday({
    partnerClientId: run.input.partnerClientId,
    now: run.sentAt,
  });
  await record(run, 'awaiting_otp', first);
  // The code dies 5 minutes after it was sent; a verdict (update) moves the state on before that.
  const answered = await condition(() => run.state !== 'awaiting_otp', OTP_RULES.codeLifetimeMs);
  if (!answered) await expireCode(run);
  return stateOf(run) !== 'pending';
}

/** The code's lifetime ran out: the payment fails, unless a verification under way just decided it. */
async function expireCode(run: Run) {
  await condition(() => !run.verifying);
  if (stateOf(run) !== 'awaiting_otp') return;
  run.otpFailure = { reason: 'otp_expired', expiredAt: run.sentAt + OTP_RULES.codeLifetimeMs };
  await record(run, 'failed', { resultCode: codeOf('otp_expired'), message: refusalMessage(run.otpFailure) });
}

// ---- the customer's code (submitOtp)

function acceptCodes(run: Run) {
  setHandler(submitOtpUpdate, ({ code }) => verifyCode(run, code), {
    validator: ({ code }) => checkCode(run, code),
  });
}

/** Refuses, before anything is sent, a code that is malformed, unawaited or against document 2's rules. */
function checkCode(run: Run, code: string) {
  if (typeof code !== 'string' || !/^[0-9]{4,8}$/.test(code)) {
    throw ApplicationFailure.nonRetryable('The code is 4 to 8 digits.', OTP_FAILURE.invalid);
  }
  if (run.state !== 'awaiting_otp') {
    if (run.otpFailure) refuse(run.otpFailure);
    throw ApplicationFailure.nonRetryable(
      `The payment is ${run.state}; it waits for no code.`,
      OTP_FAILURE.notAwaited,
      { state: run.state },
    );
  }
  const now = Date.now();
  if (run.verifying) refuse({ reason: 'otp_too_soon', retryAfterMs: OTP_RULES.minSpacingMs });
  const { sentAt, lastRequestAt, attempts } = run;
  const refusal = checkSubmission({ sentAt, lastRequestAt, attempts, now });
  if (refusal) refuse(refusal);
}

/** tokenization/verify with the code; the verdict answers the update. */
async function verifyCode(run: Run, code: string): Promise<OtpVerdict> {
  const now = Date.now();
  run.lastRequestAt = now;
  run.verifying = true;
  try {
    const answer = await run.gateway.verifyTokenPayment({
      paymentId: run.paymentId,
      code,
      attempt: ++run.verifyCount,
      at: now,
    });
    run.attempts.push({ at: now, kind: 'verify', outcome: answer.attemptOutcome });
    return await verdictOn(run, answer, now);
  } finally {
    run.verifying = false;
  }
}

async function verdictOn(run: Run, answer: OtpVerification, now: number): Promise<OtpVerdict> {
  switch (answer.attemptOutcome) {
    case 'accepted':
      await record(run, outcomeOf(answer.resultCode) === 'succeeded' ? 'succeeded' : 'pending', answer);
      return { state: run.state, resultCode: answer.resultCode, message: answer.message };
    case 'wrong':
      return wrongCode(run, now);
    case 'locked':
      return failCode(run, { reason: 'otp_locked', until: nextDayStart(now) }, answer.resultCode);
    case 'expired': {
      const expiredAt = run.sentAt + OTP_RULES.codeLifetimeMs;
      return failCode(run, { reason: 'otp_expired', expiredAt }, answer.resultCode);
    }
    case 'too_soon':
      return refuse({ reason: 'otp_too_soon', retryAfterMs: OTP_RULES.minSpacingMs });
    default:
      await record(run, 'failed', answer);
      throw ApplicationFailure.nonRetryable(answer.message, OTP_FAILURE.failed, {
        resultCode: answer.resultCode,
      });
  }
}

/** A wrong code: the attempts left today, or the user locked until the next day. */
async function wrongCode(run: Run, now: number): Promise<never> {
  const left = attemptsLeft(run.attempts, now);
  if (left > 0) {
    throw ApplicationFailure.nonRetryable(
      `The code is wrong; ${left} attempt${left === 1 ? '' : 's'} left today.`,
      OTP_FAILURE.wrong,
      { attemptsLeft: left },
    );
  }
  return failCode(run, { reason: 'otp_locked', until: nextDayStart(now) }, codeOf('otp_locked'));
}

/** The payment fails for this refusal of its code, and the update is refused with it. */
async function failCode(run: Run, refusal: OtpRefusal, resultCode: number): Promise<never> {
  run.otpFailure = refusal;
  await record(run, 'failed', { resultCode, message: refusalMessage(refusal) });
  return refuse(refusal);
}

// ---- waiting for the result

/** IPN or poll: wait for the notification, then ask api/query, until giveUpAfter. */
async function waitForResult(run: Run) {
  let lastAnswer: { resultCode: number } | undefined;
  const ask = async (attempt: number) => {
    const asked = await run.gateway.queryTokenPayment({ paymentId: run.paymentId, attempt });
    lastAnswer = asked;
    return asked.final ? asked : undefined;
  };
  const { timing } = run.input;
  const schedule: AskSchedule = {
    firstWait: timing.resultWait,
    giveUpAt: Date.now() + durationMs(timing.giveUpAfter),
  };
  // Since the strict gateway nothing is concluded without the gateway's word: an operator is told
  // (needs_attention) and payrun goes on asking; a customer who confirms late is heard. Runs from before
  // recorded a customer who did not confirm in time as failed, and stopped asking.
  if (patched('saved-method-payment-asks-after-attention'))
    return askUntilDecided(run, ask, schedule, () => lastAnswer!.resultCode);
  return askUntilGiveUp(run, ask, schedule, () => lastAnswer!.resultCode);
}

type Ask = (attempt: number) => Promise<(Words & { resultCode: number }) | undefined>;

async function askUntilDecided(run: Run, ask: Ask, schedule: AskSchedule, lastCode: () => number) {
  const heard = await waitOrAskThenAttend(
    () => run.notified,
    ask,
    schedule,
    () =>
      record(run, 'needs_attention', {
        resultCode: lastCode(),
        message:
          run.state === 'awaiting_customer'
            ? 'The customer has not confirmed at the payment page; payrun keeps asking the gateway.'
            : 'No final result arrived from the gateway; payrun keeps asking. Check it with the gateway.',
      }),
  );
  if (heard.decided) await recordDecided(run, heard.decided);
}

/** Before patch saved-method-payment-asks-after-attention: asking stopped at giveUpAfter. */
async function askUntilGiveUp(run: Run, ask: Ask, schedule: AskSchedule, lastCode: () => number) {
  const heard = await waitForNotificationOrAsk(() => run.notified, ask, schedule);
  if (heard.decided) {
    await recordDecided(run, heard.decided);
  } else if (run.state === 'awaiting_customer') {
    await record(run, 'failed', { resultCode: lastCode(), message: 'The customer did not confirm in time.' });
  } else {
    await record(run, 'needs_attention', {
      resultCode: lastCode(),
      message: 'No final result arrived from the gateway; check it with the gateway.',
    });
  }
}

const recordDecided = (run: Run, decided: Words & { resultCode: number }) =>
  record(run, outcomeOf(decided.resultCode) === 'succeeded' ? 'succeeded' : 'failed', decided);
