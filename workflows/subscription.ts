/**
 * One subscription, for years: authorization (IPN with callbackToken, or api/query + cbQuery) →
 * subscription/create → each cycle's charge on its date → pause / cancel / reactivate → expiry.
 * History stays bounded by continue-as-new; each charge's orderId derives from the cycle, so a replay
 * or a crash never charges a cycle twice. The token never enters the workflow: activities load it.
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
import { gatewayOf, gatewayOnQueueOf, recordsOf } from './activity-profiles';
import { operationQueueOf } from './gateway-queues';
import type { SubscriptionActivities } from '../activities/subscriptions';
import { inRange, SUBSCRIPTION_MIN_AMOUNT } from '../gateway/limits';
import { codeOf, isPending, isUndecided, outcomeOf, type ResultOutcome } from '../gateway/result-codes';
import { cycleDate, dayOfGmt7, firstCycleOnOrAfter, instantOf, type BillingAnchor } from './billing-calendar';
import { durationMs } from './durations';
import {
  authorizationSignal,
  cancelUpdate,
  chargeOrderId,
  chargeResultSignal,
  cycleAmountUpdate,
  FINAL_SUBSCRIPTION_STATUSES,
  pauseUpdate,
  reactivateUpdate,
  reactivationSignal,
  SUBSCRIPTION_REFUSED,
  subscriptionViewQuery,
  transition,
  type AuthorizationResult,
  type ManageRequest,
  type SubscriptionInput,
  type SubscriptionState,
  type SubscriptionStatus,
  type SubscriptionView,
} from './subscription-definitions';

const records = recordsOf<SubscriptionActivities>();

export async function subscription(input: SubscriptionInput): Promise<SubscriptionView> {
  const result = await billSubscription(input);
  // A pause/cancel/reactivate that ended the subscription answers its caller before the run closes.
  await condition(allHandlersFinished);
  return result;
}

/** Whether the gateway's answer is one of the outcomes the caller expects. */
const answered = (answer: { resultCode: number }, ...expected: ResultOutcome[]) =>
  expected.includes(outcomeOf(answer.resultCode));
/**
 * api/query on the authorization order says nothing final yet: the customer may still authorize.
 * Runs that queried before the patch took 7002 and 1000 for a refusal (not_authorized after one
 * query); they replay that path.
 */
const stillAuthorizing = (answer: { resultCode: number }) =>
  answered(answer, 'pending', 'not_found') ||
  (isUndecided(outcomeOf(answer.resultCode)) && patched('subscription-authorization-undecided'));

async function billSubscription(input: SubscriptionInput): Promise<SubscriptionView> {
  const { timing, subscriptionId: id } = input;
  const gateway = gatewayOf<SubscriptionActivities>(timing.gatewayAttemptTimeout);
  /** subscription/pay on its own queue, where GATEWAY_RATE_LIMITS spreads a billing day's charges. */
  const chargeQueue = gatewayOnQueueOf<SubscriptionActivities>(
    operationQueueOf(workflowInfo().taskQueue, 'subscription.pay'),
    timing.gatewayAttemptTimeout,
  );
  const state: SubscriptionState = input.state ?? {
    status: 'authorizing',
    anchorDate: '',
    anchorCycle: 1,
    nextCycle: 1,
    failures: 0,
    manageSeq: 0,
    reportedAmounts: {},
  };
  const anchor = (): BillingAnchor => ({
    anchorDate: state.anchorDate,
    anchorCycle: state.anchorCycle,
    frequency: input.frequency,
  });
  const today = () => dayOfGmt7(Date.now());
  const expired = () => input.expiryDate !== undefined && today() >= input.expiryDate;
  /** The status as handlers may have changed it (defeats narrowing across awaits). */
  const status = (): SubscriptionStatus => state.status;
  const isFinal = () => FINAL_SUBSCRIPTION_STATUSES.includes(state.status);
  const view = (): SubscriptionView => ({
    status: state.status,
    ...(state.statusReason ? { statusReason: state.statusReason } : {}),
    failures: state.failures,
    ...(state.anchorDate && !isFinal()
      ? { nextCycle: state.nextCycle, nextPaymentDate: cycleDate(anchor(), state.nextCycle) }
      : {}),
  });
  const move = async (to: SubscriptionStatus, reason?: string | null) => {
    state.status = transition(state.status, to);
    state.statusReason = reason ?? undefined;
    await records.recordSubscription({
      subscriptionId: id,
      status: state.status,
      statusReason: reason ?? null,
      failures: state.failures,
      ...(state.anchorDate
        ? {
            nextCycle: state.nextCycle,
            nextPaymentDate: isFinal() ? null : cycleDate(anchor(), state.nextCycle),
          }
        : {}),
    });
  };

  // ---- signals, updates, query
  let authorization: AuthorizationResult | undefined;
  let reactivation: { resultCode: number; message?: string } | undefined;
  const chargeResults = new Map<string, { resultCode: number; message?: string; transId?: string }>();
  let busy = false; // one gateway conversation at a time: manage calls wait for a charge to finish
  setHandler(subscriptionViewQuery, view);
  setHandler(authorizationSignal, (result) => {
    authorization ??= result;
  });
  setHandler(reactivationSignal, (result) => {
    if (result.orderId === state.reactivationOrderId) reactivation ??= result;
  });
  setHandler(chargeResultSignal, (result) => {
    if (!isPending(outcomeOf(result.resultCode))) chargeResults.set(result.orderId, result);
  });

  const manage = async (action: 'pause' | 'cancel' | 'reactivate') => {
    await condition(() => !busy);
    busy = true;
    try {
      state.manageSeq += 1;
      return await gateway.manageSubscription({ subscriptionId: id, action, seq: state.manageSeq });
    } finally {
      busy = false;
    }
  };
  // An ApplicationFailure fails the update and answers its caller; any other error thrown by an update
  // handler would fail the workflow task instead, again on every retry, and the caller would never hear.
  const refuse = (message: string) => {
    throw ApplicationFailure.nonRetryable(message, SUBSCRIPTION_REFUSED);
  };
  setHandler(
    pauseUpdate,
    async ({ by, reason }) => {
      const answer = await manage('pause');
      if (!answered(answer, 'succeeded', 'subscription_paused'))
        refuse(`The gateway refused the pause: ${answer.resultCode} ${answer.message}`);
      if (state.status === 'active' || state.status === 'retrying')
        await move('paused', `Paused by ${by}${reason ? `: ${reason}` : ''}`);
      return view();
    },
    {
      validator: (_request: ManageRequest) => {
        if (state.status !== 'active' && state.status !== 'retrying')
          refuse(`Only an active subscription can be paused; this one is ${state.status}.`);
      },
    },
  );
  setHandler(
    cancelUpdate,
    async ({ by, reason }) => {
      if (state.status !== 'needs_reauthorization') {
        const answer = await manage('cancel');
        if (!answered(answer, 'succeeded', 'subscription_cancelled'))
          refuse(`The gateway refused the cancel: ${answer.resultCode} ${answer.message}`);
      }
      if (!isFinal() || state.status === 'needs_reauthorization')
        await move('cancelled', `Cancelled by ${by}${reason ? `: ${reason}` : ''}`);
      return view();
    },
    {
      validator: (_request: ManageRequest) => {
        if (!['active', 'retrying', 'paused', 'reactivating', 'needs_reauthorization'].includes(state.status))
          refuse(`This subscription is ${state.status}; it cannot be cancelled.`);
      },
    },
  );
  setHandler(
    reactivateUpdate,
    async () => {
      const answer = await manage('reactivate');
      if (!answered(answer, 'redirect_customer', 'succeeded'))
        refuse(`The gateway refused the reactivation: ${answer.resultCode} ${answer.message}`);
      state.reactivationOrderId = answer.orderId;
      reactivation = undefined;
      await move('reactivating', 'Waiting for the customer to confirm the reactivation');
      return { ...view(), payUrl: answer.payUrl, deeplink: answer.deeplink };
    },
    {
      validator: (_request: ManageRequest) => {
        if (state.status !== 'paused')
          refuse(`Only a paused subscription can be reactivated; this one is ${state.status}.`);
        if (expired()) refuse(`The subscription expired on ${input.expiryDate}; it cannot be reactivated.`);
      },
    },
  );
  // The cycle whose charge (with its insufficient-funds retry) is under way: its amount was taken when
  // the charge began, so an amount reported for it now would be kept and never charged.
  let chargingCycle: number | undefined;
  // One write of the reported amounts at a time, each taking the amounts as they are when it starts: two
  // updates in quick succession would otherwise race at the database and could leave the older amount.
  let recordingAmounts = false;
  setHandler(
    cycleAmountUpdate,
    async ({ amount, cycle }) => {
      const target = cycle ?? state.nextCycle;
      state.reportedAmounts[String(target)] = amount;
      // The record shows the amount of the next charge (the console and the API read it there).
      if (patched('record-reported-amounts')) {
        await condition(() => !recordingAmounts);
        recordingAmounts = true;
        try {
          await records.recordSubscription({
            subscriptionId: id,
            reportedAmounts: { ...state.reportedAmounts },
          });
        } finally {
          recordingAmounts = false;
        }
      }
      return { cycle: target, amount };
    },
    {
      validator: ({ amount, cycle }) => {
        if (input.type !== 'VARIABLE') refuse('Only a VARIABLE subscription takes a cycle amount.');
        if (!Number.isInteger(amount) || !inRange(amount, [SUBSCRIPTION_MIN_AMOUNT, input.recurringAmount]))
          refuse(
            `The amount must be ${SUBSCRIPTION_MIN_AMOUNT}..${input.recurringAmount} VND (the recurringAmount).`,
          );
        if (cycle !== undefined && cycle < state.nextCycle) refuse(`Cycle ${cycle} is already billed.`);
        const target = cycle ?? state.nextCycle;
        if (target === chargingCycle)
          refuse(
            `Cycle ${target} is being charged now with the amount reported before; report the amount of cycle ${target + 1}.`,
          );
        if (isFinal()) refuse(`This subscription is ${state.status}.`);
      },
    },
  );

  // ---- authorization (first run only)
  if (state.status === 'authorizing') {
    const started = await gateway.startSubscriptionAuthorization({ subscriptionId: id });
    if (outcomeOf(started.resultCode) !== 'succeeded') {
      await move(
        'not_authorized',
        `The gateway refused the subscription: ${started.resultCode} ${started.message}`,
      );
      return view();
    }
    const giveUpAt = Date.now() + durationMs(timing.authorizationGiveUpAfter);
    let checks = 0;
    while (!authorization && state.status === 'authorizing') {
      if (await condition(() => authorization !== undefined, timing.authorizationIpnWait)) break;
      const checked = await gateway.checkSubscriptionAuthorization({ subscriptionId: id });
      checks += 1;
      // Not an answer yet: still processing (7000/7002), the customer has not acted (1000), not found.
      if (!stillAuthorizing(checked)) {
        authorization = {
          resultCode: checked.resultCode,
          message: checked.message,
          transId: checked.transId,
        };
      } else if (Date.now() >= giveUpAt) {
        authorization = {
          resultCode: codeOf('link_expired'),
          message: `The customer did not authorize (checked ${checks} times)`,
        };
      }
    }
    if (state.status !== 'authorizing') return view(); // cancelled meanwhile
    const auth = authorization!;
    if (outcomeOf(auth.resultCode) !== 'succeeded') {
      await move(
        'not_authorized',
        `The customer did not authorize: ${auth.resultCode} ${auth.message ?? ''}`.trim(),
      );
      return view();
    }
    const activated = await gateway.activateSubscription({
      subscriptionId: id,
      callbackToken: auth.callbackToken,
    });
    if (outcomeOf(activated.resultCode) !== 'succeeded') {
      await move(
        'not_authorized',
        `subscription/create failed: ${activated.resultCode} ${activated.message}`,
      );
      return view();
    }
    // Anchor: the requested first payment date is cycle 1; otherwise the authorization charged cycle 0 today.
    const authorizedOn = today();
    if (input.nextPaymentDate) {
      state.anchorDate = input.nextPaymentDate;
      state.anchorCycle = 1;
    } else {
      state.anchorDate = authorizedOn;
      state.anchorCycle = 0;
    }
    state.nextCycle = 1;
    if (input.initialAmount >= SUBSCRIPTION_MIN_AMOUNT) {
      await records.recordSubscriptionCharge({
        subscriptionId: id,
        orderId: id,
        cycle: 0,
        attempt: 0,
        amount: input.initialAmount,
        dueDate: authorizedOn,
        status: 'succeeded',
        resultCode: auth.resultCode,
        ...(auth.transId ? { transId: auth.transId } : {}),
      });
    }
    if (patched('activation-one-record')) {
      // The anchor and the active status in one write: one activity (six history events) fewer per
      // subscription, which counts on a billing day (docs/performance.md).
      state.status = transition(state.status, 'active');
      state.statusReason = undefined;
      await records.recordSubscription({
        subscriptionId: id,
        status: state.status,
        statusReason: null,
        failures: state.failures,
        anchorDate: state.anchorDate,
        anchorCycle: state.anchorCycle,
        nextCycle: state.nextCycle,
        nextPaymentDate: cycleDate(anchor(), state.nextCycle),
      });
    } else {
      await records.recordSubscription({
        subscriptionId: id,
        status: 'authorizing',
        anchorDate: state.anchorDate,
        anchorCycle: state.anchorCycle,
      });
      await move('active');
    }
  }

  // ---- waiting helpers
  const expiryInstant = input.expiryDate ? instantOf(input.expiryDate, 0) : Number.POSITIVE_INFINITY;
  /** Sleeps until `at` (or expiry); wakes early when the status leaves `while`. */
  const waitUntil = async (at: number, stillWaiting: () => boolean) => {
    const until = Math.min(at, expiryInstant);
    if (until === Number.POSITIVE_INFINITY) {
      await condition(() => !stillWaiting());
      return;
    }
    while (stillWaiting() && Date.now() < until) {
      await condition(() => !stillWaiting(), until - Date.now());
    }
  };

  // ---- one cycle
  const settlePending = async (
    cycle: number,
    attempt: number,
    amount: number,
    dueDate: string,
    orderId: string,
  ) => {
    for (let check = 1; check <= timing.pendingMaxChecks; check++) {
      await condition(() => chargeResults.has(orderId), timing.pendingCheckInterval);
      const notified = chargeResults.get(orderId);
      const result =
        notified ??
        (await gateway.querySubscriptionCharge({
          subscriptionId: id,
          cycle,
          attempt,
          amount,
          dueDate,
          check,
        }));
      const settled = outcomeOf(result.resultCode);
      if (!isPending(settled) && settled !== 'not_found') {
        await records.recordSubscriptionCharge({
          subscriptionId: id,
          cycle,
          attempt,
          amount,
          dueDate,
          status: settled === 'succeeded' ? 'succeeded' : 'failed',
          resultCode: result.resultCode,
          ...(result.message ? { message: result.message } : {}),
          ...(result.transId ? { transId: result.transId } : {}),
        });
        return result.resultCode;
      }
    }
    return undefined; // still pending: recorded as pending, an operator checks it with the gateway
  };

  const chargeCycle = async (cycle: number) => {
    const dueDate = cycleDate(anchor(), cycle);
    const reported = state.reportedAmounts[String(cycle)];
    const amount = input.type === 'FIXED' ? input.recurringAmount : reported;
    delete state.reportedAmounts[String(cycle)];
    if (amount === undefined) {
      await records.recordSubscriptionCharge({
        subscriptionId: id,
        cycle,
        attempt: 0,
        amount: 0,
        dueDate,
        status: 'skipped',
        message: 'No amount was reported for this VARIABLE cycle before its date',
      });
      return;
    }
    const nextPaymentDate = cycleDate(anchor(), cycle + 1);
    for (let attempt = 0; attempt <= 1; attempt++) {
      busy = true;
      let resultCode: number | undefined;
      let message: string | undefined;
      try {
        // Runs recorded before the operation queues charged on the main queue and replay that way.
        const charges = patched('charge-on-operation-queue') ? chargeQueue : gateway;
        const paid = await charges.chargeSubscriptionCycle({
          subscriptionId: id,
          cycle,
          attempt,
          amount,
          dueDate,
          nextPaymentDate,
          chargedOn: today(),
          frequency: input.frequency,
        });
        resultCode = paid.resultCode;
        message = paid.message;
        if (paid.outcome === 'pending') {
          resultCode = await settlePending(
            cycle,
            attempt,
            amount,
            dueDate,
            chargeOrderId(id, cycle, attempt),
          );
        }
      } finally {
        busy = false;
      }
      const outcome = resultCode === undefined ? undefined : outcomeOf(resultCode);
      if (outcome === undefined || outcome === 'succeeded') {
        state.failures = 0;
        if (state.status === 'retrying') await move('active');
        return;
      }
      if (outcome === 'insufficient_funds') {
        state.failures += 1;
        if (attempt === 0) {
          await move(
            'retrying',
            `Cycle ${cycle}: insufficient funds; one retry after ${String(timing.insufficientFundsRetryDelay)}`,
          );
          await waitUntil(
            Date.now() + durationMs(timing.insufficientFundsRetryDelay),
            () => state.status === 'retrying',
          );
          if (state.status !== 'retrying' || expired()) return;
          continue;
        }
        await move(
          'paused',
          `Insufficient funds twice on cycle ${cycle}: the gateway paused the subscription; the customer must reactivate it`,
        );
        return;
      }
      if (outcome === 'token_invalid') {
        await move(
          'needs_reauthorization',
          `Cycle ${cycle}: the token is no longer valid (${resultCode}); the customer must authorize a new subscription`,
        );
        return;
      }
      if (outcome === 'subscription_cancelled')
        return move('cancelled', `The gateway reports the subscription cancelled (${resultCode})`);
      if (outcome === 'subscription_paused')
        return move('paused', `The gateway reports the subscription paused (${resultCode}); reactivate it`);
      if (outcome === 'subscription_expired')
        return move('expired', `The gateway reports the subscription expired (${resultCode})`);
      // Any other final code: the cycle is recorded as failed, billing goes on with the next cycle.
      if (state.status === 'retrying')
        await move('active', `Cycle ${cycle} failed: ${resultCode} ${message ?? ''}`.trim());
      return;
    }
  };

  // ---- the billing loop
  let cyclesThisRun = 0;
  for (;;) {
    if (isFinal()) return view();
    // Still retrying here: the expiry came before the retry of the cycle. Before the patch the loop
    // spun without waiting (its workflow task failed, again on every retry), so no history goes on
    // from here and stuck runs take this path at their next task.
    if (state.status === 'retrying' && patched('subscription-expired-before-retry')) {
      await move(
        'expired',
        `Expired on ${input.expiryDate} before the retry of cycle ${state.nextCycle - 1}`,
      );
      continue;
    }
    if (state.status === 'paused') {
      await waitUntil(Number.POSITIVE_INFINITY, () => state.status === 'paused');
      if (state.status === 'paused') await move('expired', `Expired on ${input.expiryDate} while paused`);
      continue;
    }
    if (state.status === 'reactivating') {
      await waitUntil(Number.POSITIVE_INFINITY, () => state.status === 'reactivating' && !reactivation);
      if (state.status !== 'reactivating') continue;
      const answer = reactivation;
      reactivation = undefined;
      if (!answer) {
        await move(
          'expired',
          `Expired on ${input.expiryDate} before the customer confirmed the reactivation`,
        );
      } else if (outcomeOf(answer.resultCode) === 'succeeded') {
        state.failures = 0;
        // Cycles whose dates passed while paused are not charged afterwards.
        state.nextCycle = firstCycleOnOrAfter(anchor(), state.nextCycle, today());
        await move('active', null);
      } else if (outcomeOf(answer.resultCode) === 'subscription_expired') {
        await move('expired', 'The subscription expired before the customer confirmed the reactivation');
      } else {
        await move(
          'paused',
          `The customer did not confirm the reactivation: ${answer.resultCode} ${answer.message ?? ''}`.trim(),
        );
      }
      continue;
    }
    const due = cycleDate(anchor(), state.nextCycle);
    if (input.expiryDate && due >= input.expiryDate) {
      await waitUntil(expiryInstant, () => state.status === 'active');
      if (state.status === 'active')
        await move('expired', `Expired on ${input.expiryDate}; no cycle is due before it`);
      continue;
    }
    await waitUntil(instantOf(due, timing.billingHourGmt7), () => state.status === 'active');
    if (state.status !== 'active') continue;
    if (expired()) {
      await move('expired', `Expired on ${input.expiryDate}`);
      continue;
    }
    const cycle = state.nextCycle;
    chargingCycle = cycle;
    try {
      await chargeCycle(cycle);
    } finally {
      chargingCycle = undefined;
    }
    state.nextCycle = Math.max(state.nextCycle, cycle + 1);
    if (!isFinal() && status() !== 'paused') {
      await records.recordSubscription({
        subscriptionId: id,
        status: state.status,
        nextCycle: state.nextCycle,
        nextPaymentDate: cycleDate(anchor(), state.nextCycle),
        failures: state.failures,
      });
    } else if (status() === 'paused') {
      await records.recordSubscription({
        subscriptionId: id,
        status: state.status,
        nextCycle: state.nextCycle,
        failures: state.failures,
      });
    }
    cyclesThisRun += 1;
    if (!isFinal() && (cyclesThisRun >= timing.cyclesPerRun || workflowInfo().continueAsNewSuggested)) {
      await condition(allHandlersFinished);
      await continueAsNew<typeof subscription>({ ...input, state });
    }
  }
}
