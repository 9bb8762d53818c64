/**
 * One subscription, for years: authorization (IPN with callbackToken, or api/query + cbQuery) →
 * subscription/create → each cycle's charge on its date → pause / cancel / reactivate → expiry.
 * History stays bounded by continue-as-new; each charge's orderId derives from the cycle, so a replay
 * or a crash never charges a cycle twice. The token never enters the workflow: activities load it.
 *
 * Every timer and activity below is part of the stored histories of running subscriptions: moving a
 * call, or evaluating a `patched()` at another point, breaks their replay (docs/workflow-versioning.md).
 */
import {
  allHandlersFinished,
  ApplicationFailure,
  condition,
  continueAsNew,
  patched,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import {
  gatewayLocallyOf,
  gatewayOf,
  gatewayOnQueueOf,
  recordsLocallyOf,
  recordsOf,
} from '../shared/activity-profiles';
import { operationQueueOf, durationMs } from '../../contracts/shared';
import type { SubscriptionActivities } from '../../contracts/subscriptions';
import { inRange, SUBSCRIPTION_MIN_AMOUNT } from '../../gateway/limits';
import { codeOf, isPending, isUndecided, outcomeOf, type ResultOutcome } from '../../gateway/result-codes';
import {
  cycleDate,
  dayOfGmt7,
  firstCycleOnOrAfter,
  instantOf,
  type BillingAnchor,
  authorizationSignal,
  billingRunChargeSignal,
  billingRunHeldSignal,
  type BillingRunCharge,
  cancelUpdate,
  chargeOrderId,
  chargeResultSignal,
  cycleAmountUpdate,
  DEFAULT_SUBSCRIPTION_TIMING,
  dunningScheduleSignal,
  afterPauseSteps,
  followsUpPause,
  noticeInstant,
  retryInstant,
  type DunningSchedule,
  FINAL_SUBSCRIPTION_STATUSES,
  pauseUpdate,
  reactivateUpdate,
  reactivationSignal,
  SUBSCRIPTION_REFUSED,
  subscriptionStartAnsweredUpdate,
  subscriptionViewQuery,
  subscriptionTransition,
  type AuthorizationResult,
  type ManageRequest,
  type SubscriptionInput,
  type SubscriptionState,
  type SubscriptionStatus,
  type SubscriptionTiming,
  type SubscriptionView,
} from '../../contracts/subscriptions';
import { waitForNotificationOrAsk } from '../shared/wait-or-ask';
import { whileHeld } from '../holds/while-held';
import { acceptPriceChanges, amountUnderPriceChange, remindOfReauthorization } from './price-changes';
import { tellSubscriber } from './notices';

const records = recordsOf<SubscriptionActivities>();
const recordsInTask = recordsLocallyOf<SubscriptionActivities>();

export async function subscription(input: SubscriptionInput): Promise<SubscriptionView> {
  const result = await billSubscription(input);
  // A pause/cancel/reactivate that ended the subscription answers its caller before the run closes.
  await condition(allHandlersFinished);
  return result;
}

async function billSubscription(input: SubscriptionInput): Promise<SubscriptionView> {
  const run = openRun(input);
  // Handlers first, in this order: notifications and updates that came with the start are delivered
  // as each handler is set.
  noteNotifications(run);
  acceptManagement(run);
  acceptCycleAmounts(run);
  acceptPriceChanges(run);
  answerWhenStartRecorded(run);
  if (run.state.status === 'authorizing') {
    // The onboarding's gateway calls and the activation's records run in the workflow task that decides
    // them (local activities): two workflow tasks and three queued activities fewer per subscription.
    // Runs that began authorizing before the patch replay with queued activities.
    run.onboardInTasks = !input.queuedSteps && since(run, 'onboarding-in-workflow-tasks');
    const authorization = await authorize(run);
    if (!authorization || !(await activate(run, authorization))) return view(run);
  }
  return billCycles(run);
}

// ---- one run and what its steps share

type Gateway = ReturnType<typeof gatewayOf<SubscriptionActivities>>;
type ChargeNotice = { orderId: string; resultCode: number; message?: string; transId?: string };

/** One run of the workflow; `state` is what continue-as-new carries to the next run. */
interface Run {
  readonly input: SubscriptionInput;
  readonly id: string;
  readonly timing: SubscriptionTiming;
  readonly state: SubscriptionState;
  readonly gateway: Gateway;
  /** subscription/pay on its own queue, where GATEWAY_RATE_LIMITS spreads a billing day's charges. */
  readonly chargeQueue: Gateway;
  /** Workflow time of the expiry; never, without an expiry date. */
  readonly expiryInstant: number;
  authorization?: AuthorizationResult;
  reactivation?: { resultCode: number; message?: string };
  readonly chargeResults: Map<string, ChargeNotice>;
  /** The billing run's word on each cycle handed over to it, by cycle. */
  readonly runCharges: Map<number, BillingRunCharge>;
  /** Cycles the billing run left unclaimed because charges are held: taken back without waiting for the grace. */
  readonly heldByRun: Set<number>;
  /** One gateway conversation at a time: manage calls wait for a charge to finish. */
  busy: boolean;
  /**
   * The cycle whose charge (with its insufficient-funds retry) is under way: its amount was taken when
   * the charge began, so an amount reported for it now would be kept and never charged.
   */
  chargingCycle?: number;
  /** A write of the reported amounts is under way (see recordReportedAmounts). */
  recordingAmounts: boolean;
  /** The next cycle the last successful charge recorded itself (see recordCycleBilled). */
  billedByCharge?: { nextCycle: number; nextPaymentDate: string };
  /** A price change's new authorization is being exchanged for its token (price-changes.ts). */
  reauthorizing?: boolean;
  /** Status moves whose record is being written (see move). */
  moving: number;
  /**
   * The cycle's success was read from the rows after its wait, which a pause may have ended while recording
   * the cycle it knew then: the cycle's record waits for that write, so the later one is last.
   */
  successReadLate?: boolean;
  /** The gateway's answer to the start is recorded (a later run's was long ago). */
  startRecorded: boolean;
  /** Authorization and activation run as local activities (patch `onboarding-in-workflow-tasks`). */
  onboardInTasks?: boolean;
}

/**
 * Whether this run takes the path the patch `id` added. A run born on the subscription desk (`startAnswered` in its
 * input, since 2026-11-30, carried by continue-as-new) began after every patch listed here existed: it takes
 * each new path without recording it, since a patch costs its run's history a marker and a TemporalChangeVersion
 * upsert. A patch added after the desk is not in this list: it is `patched()` in every run.
 */
const PATCHES_BEFORE_THE_DESK: ReadonlySet<string> = new Set([
  'activation-in-one-step',
  'activation-one-record',
  'authorization-check-in-workflow-task',
  'authorization-checks-grow',
  'billing-run-handover',
  'billing-run-success-from-row',
  'charge-on-operation-queue',
  'dunning-after-pause',
  'dunning-schedule',
  'hand-over-in-workflow-task',
  'notices-before-charge',
  'onboarding-in-workflow-tasks',
  'pending-charge-asks-past-unsettled-notice',
  'price-change-amount',
  'price-reauthorization-reminders',
  'reactivation-asks-operator',
  'record-reported-amounts',
  'run-word-read-in-workflow-task',
  'subscription-authorization-undecided',
  'subscription-charge-records-billing',
  'subscription-expired-before-retry',
  'unsettled-charge-needs-attention',
]);

function since(run: Run, id: string): boolean {
  return (run.input.startAnswered === true && PATCHES_BEFORE_THE_DESK.has(id)) || patched(id);
}

/** The onboarding's gateway calls: local activities since `onboarding-in-workflow-tasks`. */
const onboardingGateway = (run: Run): Gateway =>
  run.onboardInTasks
    ? gatewayLocallyOf<SubscriptionActivities>(run.timing.gatewayAttemptTimeout)
    : run.gateway;
/** The activation's records: local activities since `onboarding-in-workflow-tasks`. */
const onboardingRecords = (run: Run): typeof records => (run.onboardInTasks ? recordsInTask : records);

function openRun(input: SubscriptionInput): Run {
  const { timing } = input;
  return {
    input,
    id: input.subscriptionId,
    timing,
    state: input.state ?? {
      status: 'authorizing',
      anchorDate: '',
      anchorCycle: 1,
      nextCycle: 1,
      failures: 0,
      manageSeq: 0,
      reportedAmounts: {},
      ...(input.dunning && { dunning: input.dunning }),
    },
    gateway: gatewayOf<SubscriptionActivities>(timing.gatewayAttemptTimeout),
    chargeQueue: gatewayOnQueueOf<SubscriptionActivities>(
      operationQueueOf(workflowInfo().taskQueue, 'subscription.pay'),
      timing.gatewayAttemptTimeout,
    ),
    expiryInstant: input.expiryDate ? instantOf(input.expiryDate, 0) : Number.POSITIVE_INFINITY,
    chargeResults: new Map(),
    runCharges: new Map(),
    heldByRun: new Set(),
    busy: false,
    recordingAmounts: false,
    moving: 0,
    startRecorded: input.state !== undefined || input.startAnswered === true,
  };
}

const anchor = ({ state, input }: Run): BillingAnchor => ({
  anchorDate: state.anchorDate,
  anchorCycle: state.anchorCycle,
  frequency: input.frequency,
});
const today = () => dayOfGmt7(Date.now());
const expired = ({ input }: Run) => input.expiryDate !== undefined && today() >= input.expiryDate;
/** The status as handlers may have changed it: a function call defeats narrowing across awaits. */
const status = (run: Run): SubscriptionStatus => run.state.status;
const isFinal = (run: Run) => FINAL_SUBSCRIPTION_STATUSES.includes(run.state.status);

function view(run: Run): SubscriptionView {
  const { state } = run;
  return {
    status: state.status,
    ...(state.statusReason ? { statusReason: state.statusReason } : {}),
    failures: state.failures,
    ...(state.anchorDate && !isFinal(run)
      ? { nextCycle: state.nextCycle, nextPaymentDate: cycleDate(anchor(run), state.nextCycle) }
      : {}),
  };
}

/** Every change of status goes through the transition table and is recorded for the console. */
async function move(run: Run, to: SubscriptionStatus, reason?: string | null) {
  const { state } = run;
  state.status = subscriptionTransition(state.status, to);
  state.statusReason = reason ?? undefined;
  run.moving += 1;
  try {
    await records.recordSubscription({
      subscriptionId: run.id,
      status: state.status,
      statusReason: reason ?? null,
      failures: state.failures,
      ...(state.anchorDate
        ? {
            nextCycle: state.nextCycle,
            nextPaymentDate: isFinal(run) ? null : cycleDate(anchor(run), state.nextCycle),
          }
        : {}),
    });
  } finally {
    run.moving -= 1;
  }
}

/** Whether the gateway's answer is one of the outcomes the caller expects. */
const answered = (answer: { resultCode: number }, ...expected: ResultOutcome[]) =>
  expected.includes(outcomeOf(answer.resultCode));

// ---- what callers and the gateway tell the workflow

/**
 * The create call's wait for the gateway's answer to the start. A handler adds no command to the history
 * (only an update that is sent does), so runs started before it replay unchanged without a `patched()`.
 */
function answerWhenStartRecorded(run: Run) {
  setHandler(subscriptionStartAnsweredUpdate, async () => {
    await condition(() => run.startRecorded);
  });
}

/** Notifications are only noted here; the step waiting for one acts on it, in the workflow's order. */
function noteNotifications(run: Run) {
  setHandler(subscriptionViewQuery, () => view(run));
  setHandler(authorizationSignal, (result) => {
    run.authorization ??= result;
  });
  setHandler(reactivationSignal, (result) => {
    if (result.orderId === run.state.reactivationOrderId) run.reactivation ??= result;
  });
  setHandler(billingRunHeldSignal, ({ cycle }) => {
    run.heldByRun.add(cycle);
  });
  setHandler(billingRunChargeSignal, (notice) => {
    run.runCharges.set(notice.cycle, notice);
  });
  setHandler(chargeResultSignal, (result) => {
    if (!isPending(outcomeOf(result.resultCode))) run.chargeResults.set(result.orderId, result);
  });
  // Only kept: it takes effect at the next failure (or the next cycle's notice), never mid-step.
  setHandler(dunningScheduleSignal, (schedule) => {
    run.state.dunning = schedule ?? undefined;
  });
}

/**
 * An ApplicationFailure fails the update and answers its caller; any other error thrown by an update
 * handler would fail the workflow task instead, again on every retry, and the caller would never hear.
 */
function refuse(message: string): never {
  throw ApplicationFailure.nonRetryable(message, SUBSCRIPTION_REFUSED);
}

const signedBy = ({ by, reason }: ManageRequest) => `${by}${reason ? `: ${reason}` : ''}`;

function acceptManagement(run: Run) {
  setHandler(pauseUpdate, (request) => pause(run, request), {
    validator: (_request: ManageRequest) => {
      if (run.state.status !== 'active' && run.state.status !== 'retrying')
        refuse(`Only an active subscription can be paused; this one is ${run.state.status}.`);
    },
  });
  setHandler(cancelUpdate, (request) => cancel(run, request), {
    validator: (_request: ManageRequest) => {
      if (
        ![
          'active',
          'retrying',
          'paused',
          'reactivating',
          'needs_attention',
          'needs_reauthorization',
        ].includes(run.state.status)
      )
        refuse(`This subscription is ${run.state.status}; it cannot be cancelled.`);
    },
  });
  setHandler(reactivateUpdate, () => reactivate(run), {
    validator: (_request: ManageRequest) => {
      if (run.state.status !== 'paused')
        refuse(`Only a paused subscription can be reactivated; this one is ${run.state.status}.`);
      if (expired(run))
        refuse(`The subscription expired on ${run.input.expiryDate}; it cannot be reactivated.`);
    },
  });
}

/** The gateway hears of a pause, cancel or reactivation first; the workflow follows what it accepted. */
async function manage(run: Run, action: 'pause' | 'cancel' | 'reactivate') {
  await condition(() => !run.busy);
  run.busy = true;
  try {
    run.state.manageSeq += 1;
    return await run.gateway.manageSubscription({ subscriptionId: run.id, action, seq: run.state.manageSeq });
  } finally {
    run.busy = false;
  }
}

async function pause(run: Run, request: ManageRequest) {
  const answer = await manage(run, 'pause');
  if (!answered(answer, 'succeeded', 'subscription_paused'))
    refuse(`The gateway refused the pause: ${answer.resultCode} ${answer.message}`);
  // A charge that ended or paused the subscription while the pause waited for it has the last word.
  if (status(run) === 'active' || status(run) === 'retrying')
    await move(run, 'paused', `Paused by ${signedBy(request)}`);
  return view(run);
}

async function cancel(run: Run, request: ManageRequest) {
  // Its token is no longer valid (2001): nothing is left at the gateway to cancel, only the record.
  if (status(run) !== 'needs_reauthorization') {
    const answer = await manage(run, 'cancel');
    if (!answered(answer, 'succeeded', 'subscription_cancelled'))
      refuse(`The gateway refused the cancel: ${answer.resultCode} ${answer.message}`);
  }
  if (!isFinal(run) || status(run) === 'needs_reauthorization')
    await move(run, 'cancelled', `Cancelled by ${signedBy(request)}`);
  return view(run);
}

/** The customer confirms a reactivation by a notification; the billing loop waits for it. */
async function reactivate(run: Run) {
  const answer = await manage(run, 'reactivate');
  if (!answered(answer, 'redirect_customer', 'succeeded'))
    refuse(`The gateway refused the reactivation: ${answer.resultCode} ${answer.message}`);
  run.state.reactivationOrderId = answer.orderId;
  run.reactivation = undefined;
  await move(run, 'reactivating', 'Waiting for the customer to confirm the reactivation');
  return { ...view(run), payUrl: answer.payUrl, deeplink: answer.deeplink };
}

/** VARIABLE subscriptions: the merchant reports each cycle's amount before its date. */
function acceptCycleAmounts(run: Run) {
  setHandler(cycleAmountUpdate, (report) => takeCycleAmount(run, report), {
    validator: (report) => refuseCycleAmount(run, report),
  });
}

function refuseCycleAmount(run: Run, { amount, cycle }: { amount: number; cycle?: number }) {
  const { input, state } = run;
  if (input.type !== 'VARIABLE') refuse('Only a VARIABLE subscription takes a cycle amount.');
  if (!Number.isInteger(amount) || !inRange(amount, [SUBSCRIPTION_MIN_AMOUNT, input.recurringAmount]))
    refuse(
      `The amount must be ${SUBSCRIPTION_MIN_AMOUNT}..${input.recurringAmount} VND (the recurringAmount).`,
    );
  if (cycle !== undefined && cycle < state.nextCycle) refuse(`Cycle ${cycle} is already billed.`);
  const target = cycle ?? state.nextCycle;
  if (target === run.chargingCycle)
    refuse(
      `Cycle ${target} is being charged now with the amount reported before; report the amount of cycle ${target + 1}.`,
    );
  if (isFinal(run)) refuse(`This subscription is ${state.status}.`);
}

async function takeCycleAmount(run: Run, { amount, cycle }: { amount: number; cycle?: number }) {
  const target = cycle ?? run.state.nextCycle;
  run.state.reportedAmounts[String(target)] = amount;
  // The record shows the amount of the next charge (the console and the API read it there).
  if (since(run, 'record-reported-amounts')) await recordReportedAmounts(run);
  return { cycle: target, amount };
}

/**
 * One write at a time, each taking the amounts as they are when it starts: two updates in quick
 * succession would otherwise race at the database and could leave the older amount.
 */
async function recordReportedAmounts(run: Run) {
  await condition(() => !run.recordingAmounts);
  run.recordingAmounts = true;
  try {
    await records.recordSubscription({
      subscriptionId: run.id,
      reportedAmounts: { ...run.state.reportedAmounts },
    });
  } finally {
    run.recordingAmounts = false;
  }
}

// ---- authorization and activation (first run only)

/** The customer's authorization; undefined (recorded not_authorized) when there is none. */
async function authorize(run: Run): Promise<AuthorizationResult | undefined> {
  // The subscription desk made the start and recorded its answer (a refusal never gets a workflow).
  if (!run.input.startAnswered && !(await startAuthorization(run))) return undefined;
  // Nothing changes the status meanwhile: pause, cancel and reactivate refuse an authorizing subscription.
  const authorization = await customersAnswer(run);
  if (outcomeOf(authorization.resultCode) !== 'succeeded') {
    await move(
      run,
      'not_authorized',
      `The customer did not authorize: ${authorization.resultCode} ${authorization.message ?? ''}`.trim(),
    );
    return undefined;
  }
  return authorization;
}

/** The authorization's start; false (recorded not_authorized) when the gateway refused it. */
async function startAuthorization(run: Run): Promise<boolean> {
  const started = await onboardingGateway(run).startSubscriptionAuthorization({ subscriptionId: run.id });
  // The activity recorded the answer (links or refusal) before it returned.
  run.startRecorded = true;
  // 40/41: the order exists (its first answer was lost): the customer's answer is waited for as usual.
  const alreadySubmitted = 'alreadySubmitted' in started && started.alreadySubmitted === true;
  if (outcomeOf(started.resultCode) !== 'succeeded' && !alreadySubmitted) {
    await move(
      run,
      'not_authorized',
      `The gateway refused the subscription: ${started.resultCode} ${started.message}`,
    );
    return false;
  }
  return true;
}

/**
 * api/query on the authorization order says nothing final yet: the customer may still authorize.
 * Runs that queried before the patch took 7002 and 1000 for a refusal (not_authorized after one
 * query); they replay that path.
 */
const stillAuthorizing = (run: Run, answer: { resultCode: number; known?: false }) =>
  // An answer that is no word about this authorization (a refused query): the customer may still act.
  answer.known === false ||
  answered(answer, 'pending', 'not_found') ||
  (isUndecided(outcomeOf(answer.resultCode)) && since(run, 'subscription-authorization-undecided'));

/**
 * Checks with the gateway while a customer has not answered grow apart (2, 4, 8, 8… minutes with the default
 * wait): a sign-up burst of thousands waiting at once asks the gateway, and Temporal, a third as often as a
 * steady 2-minute rhythm would over a 30-minute link (5 checks, not 15), for at most 8 minutes' delay when the
 * notification was lost.
 */
const AUTHORIZATION_CHECKS_GROW = { growth: 2, maxWait: '8 minutes' } as const;

/**
 * The IPN, else a check with the gateway after authorizationIpnWait, then further apart
 * (AUTHORIZATION_CHECKS_GROW); an undecided check after authorizationGiveUpAfter counts as an expired link.
 */
async function customersAnswer(run: Run): Promise<AuthorizationResult> {
  const { timing } = run;
  const giveUpAt = Date.now() + durationMs(timing.authorizationGiveUpAfter);
  // Notified already (with the start, or while the authorization was being started): no wait at all.
  if (run.authorization) return run.authorization;
  const heard = await waitForNotificationOrAsk(
    () => run.authorization,
    (checks) => checkAuthorization(run, checks, giveUpAt),
    // Not giveUpAt here: the helper would cut the last wait short at it, a timer running subscriptions
    // never recorded; the check itself answers the expired link.
    {
      firstWait: timing.authorizationIpnWait,
      // Runs that started waiting before the patch keep their steady rhythm on replay.
      ...(since(run, 'authorization-checks-grow') && AUTHORIZATION_CHECKS_GROW),
    },
  );
  return heard.decided!; // the schedule sets no limit: the wait ends only with an answer
}

/**
 * The check's api/query: a local activity in the workflow task its timer wakes (patch
 * `authorization-check-in-workflow-task`), one task and 6 events per check instead of 2 tasks, a queued
 * activity and 11 events. A sign-up burst has every waiting customer checked several times (2, 6, 14…
 * minutes), and those checks took as much of the machine as the sign-ups themselves. A query moves no
 * money and writes nothing, so an attempt run twice (its task lost with its worker) is harmless. Checks
 * made before the patch replay with the queued activity; a run that waited across the deployment checks
 * locally from then on.
 */
const checkingGateway = (run: Run): Gateway =>
  !run.input.queuedSteps && since(run, 'authorization-check-in-workflow-task')
    ? gatewayLocallyOf<SubscriptionActivities>(run.timing.gatewayAttemptTimeout)
    : run.gateway;

/** One check with the gateway; undefined while the customer may still authorize. */
async function checkAuthorization(
  run: Run,
  checks: number,
  giveUpAt: number,
): Promise<AuthorizationResult | undefined> {
  const checked = await checkingGateway(run).checkSubscriptionAuthorization({ subscriptionId: run.id });
  // Not an answer yet: still processing (7000/7002), the customer has not acted (1000), not found.
  if (!stillAuthorizing(run, checked))
    return { resultCode: checked.resultCode, message: checked.message, transId: checked.transId };
  if (Date.now() >= giveUpAt)
    return {
      resultCode: codeOf('link_expired'),
      message: `The customer did not authorize (checked ${checks} times)`,
    };
  // An IPN that came during the check is the answer: the helper would wait (start a timer) once more.
  return run.authorization;
}

/** subscription/create turns the authorization into a subscription; billing starts from its anchor. */
async function activate(run: Run, authorization: AuthorizationResult): Promise<boolean> {
  // Runs that activated before the patch replay with the call and its records as local activities of their own.
  if (run.onboardInTasks && since(run, 'activation-in-one-step'))
    return activateInOneStep(run, authorization);
  const activated = await onboardingGateway(run).activateSubscription({
    subscriptionId: run.id,
    callbackToken: authorization.callbackToken,
  });
  if (await refusedActivation(run, activated)) return false;
  const authorizedOn = today();
  anchorBilling(run, authorizedOn);
  if (run.input.initialAmount >= SUBSCRIPTION_MIN_AMOUNT)
    await recordAuthorizationCharge(run, authorization, authorizedOn);
  await recordActivation(run);
  return true;
}

/** subscription/create not accepted: the subscription ends not_authorized, with the gateway's answer. */
async function refusedActivation(
  run: Run,
  activated: { resultCode: number; message?: string },
): Promise<boolean> {
  if (outcomeOf(activated.resultCode) === 'succeeded') return false;
  await move(
    run,
    'not_authorized',
    `subscription/create failed: ${activated.resultCode} ${activated.message}`,
  );
  return true;
}

/** The requested first payment date is cycle 1; otherwise the authorization charged cycle 0 today. */
function anchorBilling({ input, state }: Run, authorizedOn: string) {
  Object.assign(state, anchorOf(input, authorizedOn));
}

const anchorOf = (input: SubscriptionInput, authorizedOn: string) =>
  input.nextPaymentDate
    ? { anchorDate: input.nextPaymentDate, anchorCycle: 1, nextCycle: 1 }
    : { anchorDate: authorizedOn, anchorCycle: 0, nextCycle: 1 };

/**
 * subscription/create and everything the workflow decides on its success, in one local activity: the
 * authorization's charge, the activation's record and, for a plain first cycle, its hand-over to the day's billing
 * run (which `leaveToBillingRun` then finds made). The task that hears the customer's answer thus runs one local
 * activity, not three: two markers and two activations of the workflow fewer per subscription. The authorization
 * day is read before the call rather than after it, which differs only across midnight (GMT+7) and then names the
 * day the customer authorized.
 */
async function activateInOneStep(run: Run, authorization: AuthorizationResult): Promise<boolean> {
  const { input, state } = run;
  const authorizedOn = today();
  const active: SubscriptionState = {
    ...state,
    ...anchorOf(input, authorizedOn),
    status: subscriptionTransition(state.status, 'active'),
    statusReason: undefined,
  };
  const firstAnchor: BillingAnchor = { ...active, frequency: input.frequency };
  const due = cycleDate(firstAnchor, 1);
  const handOver =
    run.timing.billingRunGrace &&
    handable({ ...run, state: active }) &&
    !(input.expiryDate && due >= input.expiryDate)
      ? {
          subscriptionId: run.id,
          cycle: 1,
          amount: state.authorizedAmount ?? input.recurringAmount,
          dueDate: due,
          runStartsInMs: Math.max(0, instantOf(due, run.timing.billingHourGmt7) - Date.now()),
          billingHourGmt7: run.timing.billingHourGmt7,
        }
      : undefined;
  const activated = await onboardingGateway(run).activateAndRecord({
    subscriptionId: run.id,
    callbackToken: authorization.callbackToken,
    ...(input.initialAmount >= SUBSCRIPTION_MIN_AMOUNT && {
      authorizationCharge: authorizationChargeOf(run, authorization, authorizedOn),
    }),
    activation: {
      subscriptionId: run.id,
      status: active.status,
      statusReason: null,
      failures: active.failures,
      anchorDate: active.anchorDate,
      anchorCycle: active.anchorCycle,
      nextCycle: active.nextCycle,
      nextPaymentDate: due,
    },
    ...(handOver && { handOver }),
  });
  if (await refusedActivation(run, activated)) return false;
  Object.assign(state, active);
  if (handOver) state.handedCycle = 1;
  return true;
}

/** The authorization's own payment (initialAmount) is cycle 0, with the subscription's orderId. */
async function recordAuthorizationCharge(run: Run, authorization: AuthorizationResult, authorizedOn: string) {
  await onboardingRecords(run).recordSubscriptionCharge(
    authorizationChargeOf(run, authorization, authorizedOn),
  );
}

const authorizationChargeOf = (run: Run, authorization: AuthorizationResult, authorizedOn: string) => ({
  subscriptionId: run.id,
  orderId: run.id,
  cycle: 0,
  attempt: 0,
  amount: run.input.initialAmount,
  dueDate: authorizedOn,
  status: 'succeeded' as const,
  resultCode: authorization.resultCode,
  ...(authorization.transId ? { transId: authorization.transId } : {}),
});

async function recordActivation(run: Run) {
  const { state } = run;
  if (since(run, 'activation-one-record')) {
    // The anchor and the active status in one write: one activity (six history events) fewer per
    // subscription, which counts on a billing day (docs/performance.md).
    state.status = subscriptionTransition(state.status, 'active');
    state.statusReason = undefined;
    await onboardingRecords(run).recordSubscription({
      subscriptionId: run.id,
      status: state.status,
      statusReason: null,
      failures: state.failures,
      anchorDate: state.anchorDate,
      anchorCycle: state.anchorCycle,
      nextCycle: state.nextCycle,
      nextPaymentDate: cycleDate(anchor(run), state.nextCycle),
    });
  } else {
    await records.recordSubscription({
      subscriptionId: run.id,
      status: 'authorizing',
      anchorDate: state.anchorDate,
      anchorCycle: state.anchorCycle,
    });
    await move(run, 'active');
  }
}

// ---- the billing loop

/** Each turn acts on the status as it is now (updates change it between turns), until it is final. */
async function billCycles(run: Run): Promise<SubscriptionView> {
  let cyclesThisRun = 0;
  for (;;) {
    if (isFinal(run)) return view(run);
    // Still retrying here: the expiry came before the retry of the cycle. Before the patch the loop
    // spun without waiting (its workflow task failed, again on every retry), so no history goes on
    // from here and stuck runs take this path at their next task.
    if (status(run) === 'retrying' && since(run, 'subscription-expired-before-retry')) {
      await expireBeforeRetry(run);
    } else if (run.state.dunningPause && since(run, 'dunning-after-pause')) {
      await followUpPause(run, run.state.dunningPause);
    } else if (status(run) === 'paused') {
      await waitWhilePaused(run);
    } else if (status(run) === 'reactivating' || status(run) === 'needs_attention') {
      await awaitReactivation(run);
    } else if (await billNextCycle(run)) {
      cyclesThisRun += 1;
      await continueAsNewWhenDue(run, cyclesThisRun);
    }
  }
}

async function expireBeforeRetry(run: Run) {
  const { input, state } = run;
  await move(
    run,
    'expired',
    `Expired on ${input.expiryDate} before the retry of cycle ${state.nextCycle - 1}`,
  );
}

/** A new run every cyclesPerRun cycles, or sooner when Temporal suggests it, keeps each history small. */
async function continueAsNewWhenDue(run: Run, cyclesThisRun: number) {
  if (isFinal(run)) return;
  if (cyclesThisRun < run.timing.cyclesPerRun && !workflowInfo().continueAsNewSuggested) return;
  // An update still at work would be cut off, and its caller never answered.
  await condition(allHandlersFinished);
  await continueAsNew<typeof subscription>({ ...run.input, state: run.state });
}

/** Sleeps until `at` (or the expiry); wakes early when `stillWaiting` turns false. */
async function sleepUntil(run: Run, at: number, stillWaiting: () => boolean) {
  const until = Math.min(at, run.expiryInstant);
  if (until === Number.POSITIVE_INFINITY) {
    await condition(() => !stillWaiting());
    return;
  }
  while (stillWaiting() && Date.now() < until) {
    await condition(() => !stillWaiting(), until - Date.now());
  }
}

/** Paused: only a reactivation (or cancel) moves it on; the expiry ends it. */
async function waitWhilePaused(run: Run) {
  await sleepUntil(run, Number.POSITIVE_INFINITY, () => status(run) === 'paused');
  if (status(run) === 'paused') await move(run, 'expired', `Expired on ${run.input.expiryDate} while paused`);
}

/**
 * The customer's answer to the reactivation, by notification, until the expiry. The spec gives nothing to
 * ask about it: after reactivationWait without an answer an operator is told (needs_attention), and a late
 * answer still moves it on (patch `reactivation-asks-operator`; runs from before waited without end).
 */
async function awaitReactivation(run: Run) {
  const waiting = () =>
    (status(run) === 'reactivating' || status(run) === 'needs_attention') && !run.reactivation;
  if (status(run) === 'reactivating' && since(run, 'reactivation-asks-operator'))
    await tellOperatorAfterWait(run, waiting);
  await sleepUntil(run, Number.POSITIVE_INFINITY, waiting);
  if (status(run) !== 'reactivating' && status(run) !== 'needs_attention') return; // cancelled meanwhile
  const answer = run.reactivation;
  run.reactivation = undefined;
  await moveOnReactivationAnswer(run, answer);
}

/** After reactivationWait without the customer's answer, an operator is told (needs_attention). */
async function tellOperatorAfterWait(run: Run, waiting: () => boolean) {
  // Runs started before the setting existed carry no reactivationWait in their input: the default.
  const wait = run.timing.reactivationWait ?? DEFAULT_SUBSCRIPTION_TIMING.reactivationWait!;
  const until = Date.now() + durationMs(wait);
  await sleepUntil(run, until, waiting);
  if (waiting() && Date.now() < run.expiryInstant)
    await move(
      run,
      'needs_attention',
      `The customer has not confirmed the reactivation within ${String(wait)}, and the ` +
        'gateway offers no way to ask: contact the customer, or cancel. A confirmation that comes later ' +
        'still reactivates the subscription.',
    );
}

/** Active again, paused again or expired, as the customer's answer (none: the expiry came first) says. */
async function moveOnReactivationAnswer(run: Run, answer: Run['reactivation']) {
  const { state } = run;
  if (!answer) {
    await move(
      run,
      'expired',
      `Expired on ${run.input.expiryDate} before the customer confirmed the reactivation`,
    );
  } else if (outcomeOf(answer.resultCode) === 'succeeded') {
    state.failures = 0;
    // Cycles whose dates passed while paused are not charged afterwards.
    state.nextCycle = firstCycleOnOrAfter(anchor(run), state.nextCycle, today());
    await move(run, 'active', null);
  } else if (outcomeOf(answer.resultCode) === 'subscription_expired') {
    await move(run, 'expired', 'The subscription expired before the customer confirmed the reactivation');
  } else {
    await move(
      run,
      'paused',
      `The customer did not confirm the reactivation: ${answer.resultCode} ${answer.message ?? ''}`.trim(),
    );
  }
}

/** Sleeps until the next cycle's billing hour and charges it; true when a cycle was billed. */
async function billNextCycle(run: Run): Promise<boolean> {
  const { state, input } = run;
  const due = cycleDate(anchor(run), state.nextCycle);
  if (input.expiryDate && due >= input.expiryDate) {
    await sleepUntil(run, run.expiryInstant, () => status(run) === 'active');
    if (status(run) === 'active')
      await move(run, 'expired', `Expired on ${input.expiryDate}; no cycle is due before it`);
    return false;
  }
  const chargeAt = instantOf(due, run.timing.billingHourGmt7);
  // Reminders of a price rise the customer has not authorized fall between cycles (runs without one never
  // come here, so their histories are unchanged).
  if (run.state.priceChange?.reauthorizationOrderId && since(run, 'price-reauthorization-reminders'))
    await remindOfReauthorization(run, chargeAt);
  // Only subscriptions whose schedule asks for it: the default path (and every older history) is unchanged.
  if (run.state.dunning?.noticeBeforeAttemptHours && since(run, 'notices-before-charge'))
    await noticeBeforeCharge(run, run.state.dunning, state.nextCycle, chargeAt);
  // Only subscriptions started with a billing-run grace come here (older histories never do); the patch
  // keeps any execution that ran this code before a later change on its recorded path.
  const fromRun =
    run.timing.billingRunGrace && since(run, 'billing-run-handover')
      ? await leaveToBillingRun(run, state.nextCycle, due, chargeAt)
      : undefined;
  if (!fromRun) {
    await sleepUntil(run, chargeAt, () => status(run) === 'active');
    if (status(run) !== 'active') return false; // paused or cancelled meanwhile
    if (expired(run)) {
      await move(run, 'expired', `Expired on ${input.expiryDate}`);
      return false;
    }
  }
  const cycle = state.nextCycle;
  run.chargingCycle = cycle;
  try {
    await chargeCycle(run, cycle, fromRun);
  } finally {
    run.chargingCycle = undefined;
  }
  state.nextCycle = Math.max(state.nextCycle, cycle + 1);
  await recordCycleBilled(run);
  return true;
}

/**
 * A paused subscription's record names the cycle a resume would charge: its move wrote the cycle it knew
 * then, which a pause that came while the run's success was unread (or the second failure's pause) has
 * moved past. A final one was recorded by its move.
 */
async function recordCycleBilled(run: Run) {
  const { state } = run;
  if (run.successReadLate) {
    run.successReadLate = false;
    await condition(() => run.moving === 0);
  }
  if (status(run) === 'paused') {
    await records.recordSubscription({
      subscriptionId: run.id,
      status: state.status,
      nextCycle: state.nextCycle,
      nextPaymentDate: cycleDate(anchor(run), state.nextCycle),
      failures: state.failures,
    });
  } else if (!isFinal(run) && !billedByCharge(run)) {
    await records.recordSubscription({
      subscriptionId: run.id,
      status: state.status,
      nextCycle: state.nextCycle,
      nextPaymentDate: cycleDate(anchor(run), state.nextCycle),
      failures: state.failures,
    });
  }
}

/** The successful charge already wrote exactly this record: active, no failures, the same next cycle. */
function billedByCharge(run: Run): boolean {
  const { state, billedByCharge: billed } = run;
  return (
    billed !== undefined &&
    state.status === 'active' &&
    state.failures === 0 &&
    billed.nextCycle === state.nextCycle &&
    billed.nextPaymentDate === cycleDate(anchor(run), state.nextCycle)
  );
}

// ---- one cycle's charge

interface CycleCharge {
  cycle: number;
  attempt: number;
  amount: number;
  dueDate: string;
}
type ChargeAnswer = { resultCode?: number; message?: string };

// ---- the billing run (docs/subscriptions.md "A billing day")

/**
 * A plain cycle: FIXED (its amount known now), no price change pending, no notice before the charge.
 * Anything else stays with the workflow, which alone knows the amount and the notices.
 */
const handable = ({ input, state }: Run) =>
  input.type === 'FIXED' &&
  state.status === 'active' &&
  !state.priceChange &&
  !state.dunning?.noticeBeforeAttemptHours;

/**
 * The hand-over is written in the workflow task that decides it, as a local activity: the task that hears
 * the authorization (or the previous cycle's word) then also sets the next wait, with no task of its own.
 * As repeatable as the queued write it replaces (it never writes backwards, nor for a cycle already
 * claimed), so a task lost with its worker writes it again harmlessly. Runs that handed a cycle over
 * before the patch replay with the queued write.
 */
const handOverRecords = (run: Run) =>
  !run.input.queuedSteps && since(run, 'hand-over-in-workflow-task') ? recordsInTask : records;

/**
 * The cycle handed to the day's billing run, and its word on the first attempt waited for (one signal);
 * undefined when the workflow charges the cycle itself: not a plain cycle, paused or cancelled meanwhile,
 * or no word within the grace after the cycle's hour. Before charging itself, the workflow takes the
 * cycle back; a run that claimed it first sent the same order (`<id>-c<cycle>`, same requestId), which the
 * workflow's own charge then finds recorded, or the gateway answers 40/41 and api/query settles it: the
 * cycle is never charged twice. The retry, dunning and the gateway's pause stay with the workflow.
 */
async function leaveToBillingRun(
  run: Run,
  cycle: number,
  dueDate: string,
  chargeAt: number,
): Promise<BillingRunCharge | undefined> {
  const { state } = run;
  if (!handable(run)) {
    if (state.handedCycle !== undefined) await takeBackFromRun(run, Math.min(state.handedCycle, cycle));
    return undefined;
  }
  if (state.handedCycle !== cycle) {
    await handOverRecords(run).handOverCycle({
      subscriptionId: run.id,
      cycle,
      amount: state.authorizedAmount ?? run.input.recurringAmount,
      dueDate,
      runStartsInMs: Math.max(0, chargeAt - Date.now()),
      billingHourGmt7: run.timing.billingHourGmt7,
    });
    state.handedCycle = cycle;
  }
  const heard = () => run.runCharges.get(cycle);
  const giveUpAt = Math.max(chargeAt, Date.now()) + durationMs(run.timing.billingRunGrace!);
  // A run held before it claimed the cycle says so: the cycle is taken back now, not at the grace, and the
  // workflow's own charge stops at the hold, listed there. Histories without that signal wait as before.
  await sleepUntil(run, giveUpAt, () => handable(run) && !heard() && !run.heldByRun.has(cycle));
  run.heldByRun.delete(cycle);
  const notice = heard() ?? (await settleWithRun(run, cycle));
  if (notice) {
    state.handedCycle = notice.handedNext?.cycle;
    return notice;
  }
  return undefined;
}

/**
 * The run signals only a charge that did not succeed; a success is read from the rows here, at the end of
 * the grace (or when a pause, cancel or price change ends the wait first), with the hand-over taken back
 * when there is none. Older histories took it back without reading.
 */
async function settleWithRun(run: Run, cycle: number): Promise<BillingRunCharge | undefined> {
  if (!since(run, 'billing-run-success-from-row')) {
    await takeBackFromRun(run, cycle);
    return undefined;
  }
  run.state.handedCycle = undefined;
  // Read in the task the grace timer wakes, as a local activity (patch run-word-read-in-workflow-task): the
  // cycle then costs the workflow one task after its window, not two. Repeatable: it reads the row, and
  // otherwise takes the hand-over back, which a second time changes nothing.
  const reader =
    !run.input.queuedSteps && since(run, 'run-word-read-in-workflow-task') ? recordsInTask : records;
  const notice = await reader.settleHandedCycle({ subscriptionId: run.id, cycle });
  run.successReadLate = notice !== undefined;
  return notice;
}

async function takeBackFromRun(run: Run, cycle: number) {
  run.state.handedCycle = undefined;
  await records.takeBackCycle({ subscriptionId: run.id, cycle });
}

/** The run's answer taken as the first attempt's; a pending one is followed here, as after chargeOnce. */
async function answerFromRun(run: Run, charge: CycleCharge, notice: BillingRunCharge): Promise<ChargeAnswer> {
  run.billedByCharge = notice.billed;
  if (notice.outcome !== 'pending') return { resultCode: notice.resultCode, message: notice.message };
  run.busy = true;
  try {
    return { resultCode: await settlePendingCharge(run, charge), message: notice.message };
  } finally {
    run.busy = false;
  }
}

/** At most two attempts: one retry after insufficient funds. */
async function chargeCycle(run: Run, cycle: number, fromRun?: BillingRunCharge) {
  run.billedByCharge = undefined;
  const dueDate = cycleDate(anchor(run), cycle);
  // Only a subscription with a price change pending takes this path: the others replay as before.
  const priced =
    run.state.priceChange && since(run, 'price-change-amount')
      ? await amountUnderPriceChange(run, cycle, dueDate)
      : { amount: takeAmountOf(run, cycle) };
  const amount = priced.amount;
  if (amount === undefined) return recordSkippedCycle(run, cycle, dueDate, priced.skipReason);
  const nextPaymentDate = cycleDate(anchor(run), cycle + 1);
  for (let attempt = 0; attempt <= 1; attempt++) {
    const charge = { cycle, attempt, amount, dueDate };
    const answer =
      attempt === 0 && fromRun
        ? await answerFromRun(run, charge, fromRun)
        : await chargeOnce(run, charge, nextPaymentDate);
    if (!(await retryAfter(run, { cycle, attempt, amount }, answer))) return;
  }
}

/**
 * FIXED charges the recurringAmount authorized (the first authorization's, or the one an applied price
 * change brought); VARIABLE the amount reported for the cycle, used once.
 */
function takeAmountOf({ input, state }: Run, cycle: number): number | undefined {
  const reported = state.reportedAmounts[String(cycle)];
  const amount = input.type === 'FIXED' ? (state.authorizedAmount ?? input.recurringAmount) : reported;
  delete state.reportedAmounts[String(cycle)];
  return amount;
}

async function recordSkippedCycle(run: Run, cycle: number, dueDate: string, reason?: string) {
  await records.recordSubscriptionCharge({
    subscriptionId: run.id,
    cycle,
    attempt: 0,
    amount: 0,
    dueDate,
    status: 'skipped',
    message: reason ?? 'No amount was reported for this VARIABLE cycle before its date',
  });
}

/** subscription/pay, and a pending charge followed to its result; no resultCode: still pending. */
async function chargeOnce(run: Run, charge: CycleCharge, nextPaymentDate: string): Promise<ChargeAnswer> {
  run.busy = true;
  run.billedByCharge = undefined;
  try {
    // Runs recorded before the operation queues charged on the main queue and replay that way.
    const charges = since(run, 'charge-on-operation-queue') ? run.chargeQueue : run.gateway;
    // A successful charge records the next cycle itself: one activity fewer per billed cycle. Runs
    // recorded before the patch write it with an activity of their own and replay that way.
    const chargeRecordsBilling = since(run, 'subscription-charge-records-billing');
    const chargedOn = today();
    // Stopped before it is sent while charges are held; resumed as the same order when released.
    const paid = await whileHeld(
      {
        kind: 'charge',
        amountVnd: charge.amount,
        objectId: chargeOrderId(run.id, charge.cycle, charge.attempt),
      },
      ({ releasedHold }) =>
        charges.chargeSubscriptionCycle({
          subscriptionId: run.id,
          ...charge,
          nextPaymentDate,
          chargedOn,
          frequency: run.input.frequency,
          ...(chargeRecordsBilling && { nextCycleOnSuccess: charge.cycle + 1 }),
          ...(releasedHold && { releasedHold }),
        }),
    );
    if ('billed' in paid && paid.billed) run.billedByCharge = paid.billed;
    if (paid.outcome !== 'pending') return { resultCode: paid.resultCode, message: paid.message };
    return { resultCode: await settlePendingCharge(run, charge), message: paid.message };
  } finally {
    run.busy = false;
  }
}

/**
 * A pending charge: its notification, else subscription/query every pendingCheckInterval, at most
 * pendingMaxChecks times. A notification whose code does not settle the charge (42, not found) is
 * passed over and the check asks the gateway.
 */
async function settlePendingCharge(run: Run, charge: CycleCharge): Promise<number | undefined> {
  const orderId = chargeOrderId(run.id, charge.cycle, charge.attempt);
  if (!since(run, 'pending-charge-asks-past-unsettled-notice'))
    return settlePendingChargeUnpatched(run, charge);
  const heard = await waitForNotificationOrAsk<SettledCharge>(
    () => {
      const result = run.chargeResults.get(orderId);
      return settles(result) ? result : undefined;
    },
    async (check) => {
      const asked = await run.gateway.querySubscriptionCharge({ subscriptionId: run.id, ...charge, check });
      return settles(asked) ? asked : undefined;
    },
    { firstWait: run.timing.pendingCheckInterval, maxAsks: run.timing.pendingMaxChecks },
  );
  if (heard.decided === undefined) {
    // Still unsettled: an operator checks it with the gateway; the charge's record says so (runs from
    // before the strict gateway left it pending).
    if (since(run, 'unsettled-charge-needs-attention'))
      await records.recordSubscriptionCharge({
        subscriptionId: run.id,
        ...charge,
        status: 'needs_attention',
        message:
          `No final result after ${run.timing.pendingMaxChecks} checks, ${String(run.timing.pendingCheckInterval)} ` +
          'apart: check this charge with the gateway before charging the customer again.',
      });
    return undefined;
  }
  return recordSettledCharge(run, charge, heard.decided);
}

/** The answer that ended a pending charge, from its notification or a query. */
interface SettledCharge {
  resultCode: number;
  message?: string;
  transId?: string;
}

async function recordSettledCharge(run: Run, charge: CycleCharge, result: SettledCharge): Promise<number> {
  const settled = outcomeOf(result.resultCode);
  await records.recordSubscriptionCharge({
    subscriptionId: run.id,
    ...charge,
    status: settled === 'succeeded' ? 'succeeded' : 'failed',
    resultCode: result.resultCode,
    ...(result.message ? { message: result.message } : {}),
    ...(result.transId ? { transId: result.transId } : {}),
  });
  return result.resultCode;
}

/**
 * Runs recorded before the patch took a notification that does not settle the charge as the end of
 * its checks: the remaining ones ran out at once, without a query. They replay this way.
 */
async function settlePendingChargeUnpatched(run: Run, charge: CycleCharge): Promise<number | undefined> {
  const { timing } = run;
  const orderId = chargeOrderId(run.id, charge.cycle, charge.attempt);
  const heard = () => run.chargeResults.has(orderId);
  for (let check = 1; check <= timing.pendingMaxChecks; check++) {
    await condition(heard, timing.pendingCheckInterval);
    const notified = heard() ? run.chargeResults.get(orderId) : undefined;
    const result =
      notified ?? (await run.gateway.querySubscriptionCharge({ subscriptionId: run.id, ...charge, check }));
    if (settles(result)) return recordSettledCharge(run, charge, result);
  }
  return undefined;
}

/**
 * A charge's answer that ends it: neither still pending nor an order the gateway does not know, nor a query
 * answer that proves nothing about it (`known: false`).
 */
function settles(
  answer: { resultCode: number; known?: false } | undefined,
): answer is { resultCode: number } {
  if (!answer || answer.known === false) return false;
  const outcome = outcomeOf(answer.resultCode);
  return !isPending(outcome) && outcome !== 'not_found';
}

/** What an attempt's answer means for the subscription; true when the cycle is to be charged again. */
async function retryAfter(
  run: Run,
  { cycle, attempt, amount }: { cycle: number; attempt: number; amount: number },
  { resultCode, message }: ChargeAnswer,
) {
  const outcome = resultCode === undefined ? undefined : outcomeOf(resultCode);
  // Still pending after every check: billing goes on, an operator settles it with the gateway.
  if (outcome === undefined || outcome === 'succeeded') {
    run.state.failures = 0;
    if (status(run) === 'retrying') await move(run, 'active');
    return false;
  }
  if (outcome === 'insufficient_funds') {
    const schedule = run.state.dunning;
    // Subscriptions left on the default schedule (and every older history) take the path below unchanged.
    if (schedule && since(run, 'dunning-schedule'))
      return dunningRetry(run, schedule, { cycle, attempt, amount });
    return retryAfterInsufficientFunds(run, cycle, attempt);
  }
  await endCycleFailed(run, cycle, outcome, resultCode!, message);
  return false;
}

/** The gateway pauses a subscription at the second failure, so the first one earns one retry. */
async function retryAfterInsufficientFunds(run: Run, cycle: number, attempt: number): Promise<boolean> {
  const delay = run.timing.insufficientFundsRetryDelay;
  run.state.failures += 1;
  if (attempt !== 0) {
    await move(
      run,
      'paused',
      `Insufficient funds twice on cycle ${cycle}: the gateway paused the subscription; the customer must reactivate it`,
    );
    return false;
  }
  await move(run, 'retrying', `Cycle ${cycle}: insufficient funds; one retry after ${String(delay)}`);
  await sleepUntil(run, Date.now() + durationMs(delay), () => status(run) === 'retrying');
  // Paused or cancelled meanwhile, or expired: no retry (billCycles ends an expired one).
  return status(run) === 'retrying' && !expired(run);
}

/** A final failure: the gateway's word on the subscription ends it; any other code fails only the cycle. */
async function endCycleFailed(
  run: Run,
  cycle: number,
  outcome: ResultOutcome,
  resultCode: number,
  message: string | undefined,
) {
  if (outcome === 'token_invalid')
    await move(
      run,
      'needs_reauthorization',
      `Cycle ${cycle}: the token is no longer valid (${resultCode}); the customer must authorize a new subscription`,
    );
  else if (outcome === 'subscription_cancelled')
    await move(run, 'cancelled', `The gateway reports the subscription cancelled (${resultCode})`);
  else if (outcome === 'subscription_paused')
    await move(run, 'paused', `The gateway reports the subscription paused (${resultCode}); reactivate it`);
  else if (outcome === 'subscription_expired')
    await move(run, 'expired', `The gateway reports the subscription expired (${resultCode})`);
  // Any other final code: the cycle is recorded as failed, billing goes on with the next cycle.
  else if (status(run) === 'retrying')
    await move(run, 'active', `Cycle ${cycle} failed: ${resultCode} ${message ?? ''}`.trim());
}

// ---- dunning: a schedule's retry, its notices, and the follow-up of the pause

const at = (instant: number) => new Date(instant).toISOString();

/**
 * The gateway pauses a subscription at the second insufficient-funds failure (spec 2), so a schedule
 * moves only the one retry (hours later, or the next payday) and tells the customer before it; it never
 * adds an attempt. The retry is the same order `-r1` as on the default path: never a second charge.
 */
async function dunningRetry(
  run: Run,
  schedule: DunningSchedule,
  { cycle, attempt, amount }: { cycle: number; attempt: number; amount: number },
): Promise<boolean> {
  run.state.failures += 1;
  if (attempt !== 0) {
    const pausedAt = Date.now();
    await move(
      run,
      'paused',
      `Insufficient funds twice on cycle ${cycle}: the gateway paused the subscription; the customer must reactivate it`,
    );
    if (followsUpPause(schedule))
      run.state.dunningPause = { schedule, cycle, pausedAt, told: false, stepsDoneUntil: 0 };
    else await tellSubscriber(run.id, 'paused', `c${cycle}`, { cycle });
    return false;
  }
  const retryAt = retryInstant(schedule.retry, Date.now());
  await move(
    run,
    'retrying',
    `Cycle ${cycle}: insufficient funds; one retry at ${at(retryAt)} (dunning schedule ${schedule.name})`,
  );
  await tellSubscriber(run.id, 'charge_failed', `c${cycle}`, { cycle, amount, at: retryAt });
  const retrying = () => status(run) === 'retrying';
  if (schedule.noticeBeforeAttemptHours > 0) {
    await sleepUntil(run, noticeInstant(schedule, retryAt, Date.now()), retrying);
    if (retrying() && !expired(run) && Date.now() < run.expiryInstant)
      await tellSubscriber(run.id, 'upcoming_charge', `c${cycle}a1`, { cycle, amount, at: retryAt });
  }
  await sleepUntil(run, retryAt, retrying);
  // Paused or cancelled meanwhile, or expired: no retry (billCycles ends an expired one).
  return retrying() && !expired(run);
}

/** The notice before a cycle's first attempt, when its amount is known (a VARIABLE one may not be yet). */
async function noticeBeforeCharge(run: Run, schedule: DunningSchedule, cycle: number, chargeAt: number) {
  await sleepUntil(run, noticeInstant(schedule, chargeAt, Date.now()), () => status(run) === 'active');
  if (status(run) !== 'active' || cycle !== run.state.nextCycle || Date.now() >= run.expiryInstant) return;
  const amount =
    run.input.type === 'FIXED' ? run.input.recurringAmount : run.state.reportedAmounts[String(cycle)];
  if (amount !== undefined)
    await tellSubscriber(run.id, 'upcoming_charge', `c${cycle}a0`, { cycle, amount, at: chargeAt });
}

/** Paused, or asked to confirm a reactivation, and no answer from the customer yet. */
const waitingForCustomer = (run: Run) =>
  (status(run) === 'paused' || status(run) === 'reactivating' || status(run) === 'needs_attention') &&
  !run.reactivation;

/**
 * After a dunning pause: the reactivation link (subscription/manage reactivate) in the paused notice,
 * reminders, and the cancellation after N days, until the customer answers, an operator acts or the
 * subscription expires. Nothing is charged meanwhile: the gateway refuses payments while paused, and the
 * loop sends none; the cancel waits for any gateway call in flight (manage), so it never races a charge.
 */
async function followUpPause(run: Run, pause: NonNullable<SubscriptionState['dunningPause']>) {
  const { schedule, cycle } = pause;
  if (!pause.told) {
    if (schedule.afterPause.sendReactivationLink && status(run) === 'paused' && !expired(run))
      pause.payUrl = await askReactivationLink(run);
    pause.told = true;
    await tellSubscriber(run.id, 'paused', `c${cycle}`, {
      cycle,
      ...(pause.payUrl && { payUrl: pause.payUrl }),
    });
  }
  for (const step of afterPauseSteps(schedule, pause.pausedAt)) {
    if (step.at <= pause.stepsDoneUntil) continue; // taken by an earlier run (continue-as-new)
    await sleepUntil(run, step.at, () => waitingForCustomer(run));
    if (!waitingForCustomer(run) || Date.now() < step.at) break; // answered, acted on, or expired first
    pause.stepsDoneUntil = step.at;
    if (step.step === 'remind')
      await tellSubscriber(run.id, 'reactivation_reminder', `c${cycle}r${step.reminder}`, {
        cycle,
        ...(pause.payUrl && { payUrl: pause.payUrl }),
      });
    else await cancelAfterPause(run, schedule);
  }
  await sleepUntil(run, Number.POSITIVE_INFINITY, () => waitingForCustomer(run));
  await endPauseFollowUp(run, pause);
}

/** The link the customer confirms at; undefined when the gateway refuses (the notice then says to call). */
async function askReactivationLink(run: Run): Promise<string | undefined> {
  try {
    return (await reactivate(run)).payUrl;
  } catch {
    return undefined; // refused: the subscription stays paused; an operator may still reactivate it
  }
}

async function cancelAfterPause(run: Run, schedule: DunningSchedule) {
  const days = schedule.afterPause.cancelAfterDays;
  const answer = await manage(run, 'cancel');
  if (!answered(answer, 'succeeded', 'subscription_cancelled')) {
    await move(
      run,
      status(run),
      `The dunning schedule's cancellation after ${days} days was refused by the gateway (${answer.resultCode} ${answer.message}); an operator decides`,
    );
    return;
  }
  if (isFinal(run)) return; // an operator cancelled while the call was under way
  await move(
    run,
    'cancelled',
    `Cancelled by the dunning schedule ${schedule.name}: not reactivated within ${days} days`,
  );
  await tellSubscriber(run.id, 'cancelled', 'dunning', {});
}

/** The customer's answer, an operator's action or the expiry ended the wait: the pause is over, one way or another. */
async function endPauseFollowUp(run: Run, pause: NonNullable<SubscriptionState['dunningPause']>) {
  if (isFinal(run)) {
    run.state.dunningPause = undefined;
    return;
  }
  if (waitingForCustomer(run)) {
    run.state.dunningPause = undefined;
    await move(run, 'expired', `Expired on ${run.input.expiryDate} while paused`);
    return;
  }
  const answer = run.reactivation;
  run.reactivation = undefined;
  // An answer to a reactivation no longer awaited (a repeated notification): the follow-up goes on.
  if (status(run) !== 'reactivating' && status(run) !== 'needs_attention') return;
  const orderId = run.state.reactivationOrderId;
  await moveOnReactivationAnswer(run, answer);
  if (status(run) === 'active') {
    run.state.dunningPause = undefined;
    await tellSubscriber(run.id, 'reactivated', orderId ?? `c${pause.cycle}`, { cycle: pause.cycle });
  }
  // Declined: paused again; the follow-up goes on with the steps not taken yet (the link is not asked again).
}
