import {
  allHandlersFinished,
  ApplicationFailure,
  condition,
  patched,
  setHandler,
} from '@temporalio/workflow';
import { gatewayLocallyOf, gatewayOf, recordsLocallyOf, recordsOf } from '../shared/activity-profiles';
import { outcomeOf } from '../../gateway/result-codes';
import { durationMs } from '../../contracts/shared';
import { ASK_AFTER_ATTENTION, waitForNotificationOrAsk } from '../shared/wait-or-ask';
import {
  CONFIRM_REFUSED,
  confirmedStatus,
  confirmPaymentUpdate,
  decidedStatus,
  isFinalPaymentCode,
  paymentAnsweredUpdate,
  paymentResultSignal,
  paymentStatusQuery,
  type ConfirmOutcome,
  type ConfirmRequest,
  type ConfirmResult,
  type PaymentActivities,
  type PaymentInput,
  type PaymentNotice,
  type PaymentResult,
  type PaymentStatus,
  type PaymentTiming,
  type QueriedPayment,
} from '../../contracts/payments';

const records = recordsOf<PaymentActivities>();
const recordsInTask = recordsLocallyOf<PaymentActivities>();

/**
 * One one-time payment: api/create (or api/pos) → the customer pays → the IPN (list A or B by
 * requestType) decides it. A late IPN is covered by api/query with growing waits; 7000/7002 are never
 * taken as final. The redirect of the customer's browser changes nothing: only the IPN or the query do.
 * A payment authorized without capture then waits for an operator's capture or cancel (an update)
 * for the gateway's hold period; when nobody decides, payrun releases the hold itself.
 *
 * Every activity and timer below is part of stored histories: moving a call, or evaluating a `patched()`
 * at another point, breaks their replay (docs/workflow-versioning.md).
 */
export async function payment(input: PaymentInput): Promise<PaymentResult> {
  const run = openRun(input);
  answerStatus(run);
  answerWhenRecorded(run);
  acceptDecisions(run);
  listenForResult(run);
  // The payment desk made the create and held the payment until now: the wait for the result goes on here.
  if (input.answered !== undefined) {
    run.status = input.answered;
    run.recorded = true;
  } else {
    const created = await create(run);
    run.status = created.status;
    // The activity writes the record itself only when it has no result to hand over (links, or pending);
    // a result (a refusal, a POS success, a query's answer) is written by `record` below.
    if (created.notice === undefined) run.recorded = true;
    if (created.notice && isFinalPaymentCode(created.notice.resultCode))
      return afterDecision(run, await record(run, await completedAtOnce(run, created.notice)));
  }
  const heard = await hearResult(run);
  if (heard.decided !== undefined)
    return afterDecision(run, await record(run, heard.decided, resultRecords(run)));
  const expired = await expire(run, heard.lastAsked);
  // The order may still be payable: a customer who pays after payrun stopped waiting is heard (the
  // notification, or the query), and recorded, for ASK_AFTER_ATTENTION.for. Runs from before ended here.
  if (!patched('payment-hears-late-results')) return expired;
  const late = await hearLateResult(run);
  if (late === undefined) return expired;
  return afterDecision(run, await record(run, late, resultRecords(run)));
}

/**
 * api/create (or api/pos) in the first workflow task, as a local activity: the create call's answer is
 * then one workflow task from the start (about half the Temporal writes of a create). Runs begun before
 * the patch replay with the queued activity.
 */
async function create(run: Run) {
  const request = { paymentId: run.id, paymentCode: run.input.paymentCode };
  if (!run.input.queuedSteps && patched('payment-create-in-first-task'))
    return gatewayLocallyOf<PaymentActivities>(run.timing.gatewayAttemptTimeout).createPayment(request);
  return run.gateway.createPayment(request);
}

// ---- one run and what its steps share

type Gateway = ReturnType<typeof gatewayOf<PaymentActivities>>;

interface Run {
  readonly input: PaymentInput;
  readonly id: string;
  readonly timing: PaymentTiming;
  readonly gateway: Gateway;
  status: PaymentStatus;
  /** The first final notification; later ones are ignored. */
  final?: PaymentNotice;
  /** "Still pending" notifications received so far. */
  pendingNotices: number;
  /** The capture or cancel under way. */
  decision?: ConfirmRequest;
  /** The decision the gateway took (not a refused or unknown one). */
  confirmed?: ConfirmResult;
  /** Decisions sent so far: each has a requestId of its own. */
  decisions: number;
  /** The record has left `created`: what a create call waiting on `paymentAnsweredUpdate` reads is there. */
  recorded: boolean;
}

function openRun(input: PaymentInput): Run {
  return {
    input,
    id: input.paymentId,
    timing: input.timing,
    gateway: gatewayOf<PaymentActivities>(input.timing.gatewayAttemptTimeout),
    status: 'created',
    pendingNotices: 0,
    decisions: 0,
    recorded: false,
  };
}

function answerStatus(run: Run) {
  setHandler(paymentStatusQuery, () => run.status);
}

/**
 * The create call's wait for the gateway's answer. A handler adds no command to the history (only an
 * update that is sent does), so runs started before it replay unchanged without a `patched()`, whose
 * marker would cost every new payment an event.
 */
function answerWhenRecorded(run: Run) {
  setHandler(paymentAnsweredUpdate, async () => {
    await condition(() => run.recorded);
    return run.status;
  });
}

/** An operator's capture or cancel, accepted only while the payment is authorized and undecided. */
function acceptDecisions(run: Run) {
  setHandler(confirmPaymentUpdate, (request) => confirm(run, request, 'operator'), {
    validator: (request) => {
      if (request.action !== 'capture' && request.action !== 'cancel')
        throw ApplicationFailure.nonRetryable('action must be capture or cancel', CONFIRM_REFUSED);
      if (
        run.status !== 'authorized_not_captured' ||
        run.decision !== undefined ||
        run.confirmed !== undefined
      )
        throw ApplicationFailure.nonRetryable(
          `Payment ${run.id} is ${run.status}${run.decision ? ` (${run.decision.action} in progress)` : ''}; ` +
            'only an authorized, undecided payment can be captured or cancelled.',
          CONFIRM_REFUSED,
        );
    },
  });
}

function listenForResult(run: Run) {
  setHandler(paymentResultSignal, (notice) => {
    // Duplicate and late notifications are harmless: the first final one wins.
    if (isFinalPaymentCode(notice.resultCode)) run.final ??= notice;
    else run.pendingNotices += 1;
  });
}

// ---- the result

/**
 * A create that answered the result. POS answers 0 without payType: the success is recorded now, and
 * payType is taken from the IPN (or the query).
 */
async function completedAtOnce(run: Run, notice: PaymentNotice): Promise<PaymentNotice> {
  if (outcomeOf(notice.resultCode) !== 'succeeded' || notice.payType !== undefined) return notice;
  await record(run, notice);
  const more = (await condition(() => run.final !== undefined, run.timing.ipnTimeout))
    ? run.final!
    : await run.gateway.queryPayment({ paymentId: run.id });
  return {
    ...notice,
    payType: more.payType ?? notice.payType,
    paymentOption: more.paymentOption ?? notice.paymentOption,
    promotions: more.promotions ?? notice.promotions,
  };
}

/**
 * The notification, or api/query with growing waits. A "still pending" notification records the status
 * and waits again without asking; a late one is covered by the query. Running payments' histories hold
 * these timers (a change needs patched()).
 */
async function hearResult(run: Run) {
  const { timing } = run;
  let seenPending = 0;
  let lastAsked: QueriedPayment | undefined;
  const heard = await waitForNotificationOrAsk(
    () => run.final,
    () =>
      askForResult(run, (asked) => {
        lastAsked = asked;
      }),
    {
      firstWait: timing.ipnTimeout,
      growth: 2,
      maxWait: timing.maxQueryInterval,
      giveUpAfter: timing.resultWait,
    },
    {
      arrived: () => run.pendingNotices > seenPending,
      handle: async () => {
        seenPending = run.pendingNotices;
        await markPending(run);
      },
    },
  );
  return { decided: heard.decided, lastAsked };
}

/** api/query: a final answer that proves something, or undefined (and `undecided` hears the answer). */
async function askForResult(
  run: Run,
  undecided: (asked: QueriedPayment) => void,
): Promise<PaymentNotice | undefined> {
  const asked = await run.gateway.queryPayment({ paymentId: run.id });
  // A notification that came during the query is the answer (it carries more than the query).
  if (run.final !== undefined) return run.final;
  // An answer that proves nothing (a refused query, another order's) is no result (answers recorded
  // before the strict gateway carry no `known` and were taken as they came).
  if (asked.known !== false && isFinalPaymentCode(asked.resultCode)) return asked;
  if (outcomeOf(asked.resultCode) === 'provider_processing') await markPending(run);
  undecided(asked);
  return undefined;
}

async function markPending(run: Run) {
  if (run.status === 'pending') return;
  run.status = 'pending';
  await records.recordPaymentStatus({ paymentId: run.id, status: run.status });
  run.recorded = true;
}

/** No final result in time: the payment is expired, with the last answer the gateway gave. */
async function expire(run: Run, lastAsked: QueriedPayment | undefined): Promise<PaymentResult> {
  const { resultCode, message } = lastAsked!;
  const waited = String(run.timing.resultWait);
  run.status = 'expired';
  await records.recordPaymentStatus({
    paymentId: run.id,
    status: run.status,
    resultCode,
    message:
      lastAsked!.known === false
        ? `No final result after ${waited}; the last answer told nothing: ${message}`
        : `No final result after ${waited}; the gateway still answers ${resultCode}.`,
  });
  run.recorded = true;
  return { status: run.status, resultCode, message };
}

/** After expiry: a notification, or an answer to a steady query, for ASK_AFTER_ATTENTION.for. */
async function hearLateResult(run: Run): Promise<PaymentNotice | undefined> {
  const late = await waitForNotificationOrAsk(
    () => run.final,
    async () => {
      const asked = await run.gateway.queryPayment({ paymentId: run.id });
      if (run.final !== undefined) return run.final;
      return asked.known !== false && isFinalPaymentCode(asked.resultCode) ? asked : undefined;
    },
    { firstWait: ASK_AFTER_ATTENTION.every, giveUpAfterWaiting: ASK_AFTER_ATTENTION.for },
  );
  return late.decided;
}

/** The result's write: queued unless told otherwise (see resultRecords). */
async function record(run: Run, notice: PaymentNotice, writer = records): Promise<PaymentResult> {
  const next = decidedStatus(notice.resultCode, run.input.autoCapture);
  const holdExpiresAt = next === 'authorized_not_captured' ? Date.now() + durationMs(hold(run)) : undefined;
  await writer.recordPaymentResult({ paymentId: run.id, status: next, notice, holdExpiresAt });
  // Only now can an operator decide: the record they decide on exists.
  run.status = next;
  run.recorded = true;
  return { status: run.status, resultCode: notice.resultCode, message: notice.message };
}

/**
 * A result heard after the create (the notification, or the query) is written in the workflow task that
 * hears it, as a local activity: a paid payment then ends in that task (two workflow tasks from start to
 * end, was three). Idempotent like the queued write it replaces (the record moves forward only), so a task
 * lost with its worker writes it again harmlessly. Runs that recorded a result before the patch replay with
 * the queued write. A result the create answered (a POS, a refusal) stays queued: written locally, the
 * workflow would end in its first task together with the create call's update, and a notification arriving
 * meanwhile has the server refuse that completion; the fault matrix's POS cells (answer lost, hang) then
 * answered the create 500.
 */
const resultRecords = (run: Run) =>
  !run.input.queuedSteps && patched('payment-result-in-workflow-task') ? recordsInTask : records;

const hold = (run: Run) => run.timing.authorizationHold ?? '7 days';

// ---- an authorization: capture or cancel

/** An authorization waits for its capture or cancel; anything else is already the end. */
async function afterDecision(run: Run, result: PaymentResult): Promise<PaymentResult> {
  // Payments authorized before capture existed ended here; their histories must replay unchanged.
  if (result.status !== 'authorized_not_captured' || !patched('authorization-decision')) return result;
  const inTime = await condition(() => run.confirmed !== undefined, hold(run));
  if (!inTime && run.decision === undefined)
    await confirm(run, { action: 'cancel', by: 'payrun' }, 'hold-over');
  await condition(() => run.confirmed !== undefined && run.decision === undefined);
  await condition(allHandlersFinished);
  return { status: run.status, resultCode: run.confirmed!.resultCode, message: run.confirmed!.message };
}

/**
 * One decision at a time. A refusal (the gateway did not take it) leaves the payment authorized so
 * an operator may try again; at the end of the hold any outcome but a capture lets the hold go.
 */
async function confirm(
  run: Run,
  request: ConfirmRequest,
  reason: 'operator' | 'hold-over',
): Promise<ConfirmResult> {
  run.decision = request;
  try {
    const answer = await sendDecision(run, request, reason);
    // Refused, or unknown (its answer lost): the payment stays authorized for another decision.
    const refusedByGateway =
      (answer.outcome === 'refused' || answer.outcome === 'unknown') && reason === 'operator';
    const next = refusedByGateway ? run.status : statusAfterConfirm(answer, reason);
    await records.recordConfirmation({
      paymentId: run.id,
      status: next,
      action: reason === 'hold-over' ? 'expire' : request.action,
      by: request.by,
      resultCode: answer.resultCode,
      message: answer.message,
    });
    run.status = next;
    const result = { status: run.status, resultCode: answer.resultCode, message: answer.message };
    if (!refusedByGateway) run.confirmed = result;
    return result;
  } finally {
    run.decision = undefined;
  }
}

/** The gateway's confirm; each decision has a requestId of its own. */
async function sendDecision(run: Run, request: ConfirmRequest, reason: 'operator' | 'hold-over') {
  run.decisions += 1;
  return run.gateway.confirmPayment({
    paymentId: run.id,
    action: request.action,
    reason,
    ...(run.decisions > 1 ? { seq: run.decisions } : {}),
  });
}

/** The status a taken decision leaves: at the end of the hold, anything but a capture lets it lapse. */
function statusAfterConfirm(answer: ConfirmOutcome, reason: 'operator' | 'hold-over'): PaymentStatus {
  if (reason === 'hold-over' && answer.outcome !== 'captured') return 'authorization_expired';
  return confirmedStatus[
    answer.outcome === 'refused' || answer.outcome === 'unknown' ? 'expired' : answer.outcome
  ];
}
