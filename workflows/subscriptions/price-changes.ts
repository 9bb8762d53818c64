/**
 * Dated price changes inside the subscription workflow: accepting one (the customer is told and asked to
 * authorize the new amount), the customer's new authorization, reminders before the date, and the amount
 * a cycle charges once the date has come (contracts/subscriptions/price-changes.ts says why every new
 * FIXED price takes a new authorization).
 *
 * Money: a cycle charges the amount of the authorization in use, or the new amount only once the customer
 * authorized it and its token has replaced the old one (adoptReauthorization, before the charge); the
 * charging activity refuses anything above the authorized amount again. The charge's orderId stays the
 * cycle's, so a price change never makes a second order for a cycle.
 */
import { ApplicationFailure, condition, patched, setHandler } from '@temporalio/workflow';
import { recordsOf } from '../shared/activity-profiles';
import {
  addDays,
  dayOfGmt7,
  decideCycleAmount,
  FINAL_SUBSCRIPTION_STATUSES,
  instantOf,
  planPriceChangeSignal,
  priceChangeUpdate,
  PRICE_CHANGE_UNAUTHORIZED,
  reauthorizationOrderId,
  reauthorizationSignal,
  REAUTHORIZATION_REMINDER_DAYS,
  SUBSCRIPTION_REFUSED,
  type PriceChangeAccepted,
  type PriceChangeOrder,
  type ScheduledPriceChange,
  type SubscriptionActivities,
  type SubscriptionInput,
  type SubscriptionState,
} from '../../contracts/subscriptions';
import { SUBSCRIPTION_MIN_AMOUNT } from '../../gateway/limits';
import { outcomeOf } from '../../gateway/result-codes';

const records = recordsOf<SubscriptionActivities>();

/** What of the workflow's run this file reads and sets (subscription.ts's Run has all of it). */
export interface PriceRun {
  readonly input: SubscriptionInput;
  readonly id: string;
  readonly state: SubscriptionState;
  readonly gateway: Pick<
    SubscriptionActivities,
    'announcePriceChange' | 'activateReauthorization' | 'adoptReauthorization'
  >;
  readonly expiryInstant: number;
  busy: boolean;
  chargingCycle?: number;
  reauthorizing?: boolean;
}

const authorizedAmount = ({ state, input }: PriceRun) => state.authorizedAmount ?? input.recurringAmount;

function refuse(message: string): never {
  throw ApplicationFailure.nonRetryable(message, SUBSCRIPTION_REFUSED);
}

export function acceptPriceChanges(run: PriceRun) {
  setHandler(priceChangeUpdate, (order) => schedulePriceChange(run, order), {
    validator: (order) => refusePriceChange(run, order),
  });
  setHandler(reauthorizationSignal, (notice) => takeReauthorization(run, notice));
  setHandler(planPriceChangeSignal, (order) => takePlanPriceChange(run, order));
}

/** Plan changes remembered: a plan changes its price a few times a year, a delivery is repeated within minutes. */
const PLAN_CHANGES_REMEMBERED = 10;

/**
 * A plan's change, handed over by its planPriceChange workflow: the update's rules and steps, with the
 * refusal recorded on the change's row (a signal has no caller to answer). Taken once per id, so a page
 * handed over again never asks the customer twice nor supersedes a change that came after it.
 */
async function takePlanPriceChange(run: PriceRun, order: PriceChangeOrder) {
  const taken = run.state.planPriceChangesTaken ?? [];
  if (taken.includes(order.priceChangeId)) return;
  run.state.planPriceChangesTaken = [...taken, order.priceChangeId].slice(-PLAN_CHANGES_REMEMBERED);
  try {
    refusePriceChange(run, order);
  } catch (error) {
    await records.recordPriceChange({
      subscriptionId: run.id,
      priceChangeId: order.priceChangeId,
      status: 'refused',
      statusReason: (error as Error).message,
    });
    return;
  }
  await schedulePriceChange(run, order);
}

function refusePriceChange(run: PriceRun, { newAmount, effectiveDate }: PriceChangeOrder) {
  const { state, input } = run;
  if (input.type !== 'FIXED')
    refuse('Only a FIXED subscription takes a price change; a VARIABLE one reports each cycle.');
  if (FINAL_SUBSCRIPTION_STATUSES.includes(state.status) || state.status === 'authorizing')
    refuse(`This subscription is ${state.status}; its price cannot change.`);
  if (!Number.isInteger(newAmount) || newAmount < SUBSCRIPTION_MIN_AMOUNT)
    refuse(`The new amount must be a whole number of at least ${SUBSCRIPTION_MIN_AMOUNT} VND.`);
  if (newAmount === authorizedAmount(run)) refuse(`The subscription is charged ${newAmount} VND already.`);
  if (effectiveDate <= dayOfGmt7(Date.now())) refuse('The price change must take effect on a future day.');
  if (input.expiryDate && effectiveDate >= input.expiryDate)
    refuse(`The subscription expires on ${input.expiryDate}, before the price change would apply.`);
}

/**
 * The newest change supersedes one not yet applied. Each gets a gateway order of its own (`-p<n>`) for
 * the customer's new authorization; reminders whose day has passed already are not sent late.
 */
async function schedulePriceChange(run: PriceRun, order: PriceChangeOrder): Promise<PriceChangeAccepted> {
  const { state } = run;
  const superseded = state.priceChange;
  const hour = run.input.timing.billingHourGmt7;
  state.reauthorizations = (state.reauthorizations ?? 0) + 1;
  const change: ScheduledPriceChange = {
    ...order,
    reauthorizationOrderId: reauthorizationOrderId(run.id, state.reauthorizations),
    remindersSent: REAUTHORIZATION_REMINDER_DAYS.filter(
      (days) => instantOf(addDays(order.effectiveDate, -days), hour) <= Date.now(),
    ),
  };
  state.priceChange = change;
  if (superseded)
    await records.recordPriceChange({
      subscriptionId: run.id,
      priceChangeId: superseded.priceChangeId,
      status: 'superseded',
      statusReason: `Superseded by ${order.priceChangeId} before it applied`,
      priceFlag: null,
    });
  const announced = await run.gateway.announcePriceChange({
    subscriptionId: run.id,
    priceChangeId: order.priceChangeId,
    newAmount: order.newAmount,
    effectiveDate: order.effectiveDate,
    reauthorizationOrderId: change.reauthorizationOrderId,
  });
  return { priceChangeId: order.priceChangeId, ...(announced.payUrl && { payUrl: announced.payUrl }) };
}

/** The customer's answer to the new authorization, by notification: only the open change's order counts. */
async function takeReauthorization(
  run: PriceRun,
  notice: { orderId: string; resultCode: number; message?: string; callbackToken?: string },
) {
  const change = run.state.priceChange;
  if (!change || notice.orderId !== change.reauthorizationOrderId || change.authorized) return;
  if (outcomeOf(notice.resultCode) !== 'succeeded') {
    // Only the reason: a fallback recorded meanwhile keeps its status.
    await records.recordPriceChange({
      subscriptionId: run.id,
      priceChangeId: change.priceChangeId,
      statusReason: `The customer did not authorize: ${notice.resultCode} ${notice.message ?? ''}`.trim(),
    });
    return;
  }
  await activateReauthorization(run, change, notice.callbackToken);
}

/** One exchange at a time; the change is marked authorized only when the gateway handed out its token. */
async function activateReauthorization(run: PriceRun, change: ScheduledPriceChange, callbackToken?: string) {
  await condition(() => !run.reauthorizing);
  if (change.authorized) return undefined;
  run.reauthorizing = true;
  try {
    const answer = await run.gateway.activateReauthorization({
      subscriptionId: run.id,
      priceChangeId: change.priceChangeId,
      orderId: change.reauthorizationOrderId,
      ...(callbackToken && { callbackToken }),
    });
    if (answer.authorized) change.authorized = true;
    return answer;
  } finally {
    run.reauthorizing = false;
  }
}

/** Reminders (7 and 1 days before the date, at the billing hour) that fall before `until`. */
export async function remindOfReauthorization(run: PriceRun, until: number) {
  const hour = run.input.timing.billingHourGmt7;
  for (const days of REAUTHORIZATION_REMINDER_DAYS) {
    const change = run.state.priceChange;
    if (!change) return;
    const waiting = () =>
      run.state.status === 'active' && run.state.priceChange === change && !change.authorized;
    if (!waiting()) return;
    if (change.remindersSent?.includes(days)) continue;
    const at = instantOf(addDays(change.effectiveDate, -days), hour);
    if (at >= until) return; // after this cycle: the next turn sends it
    await sleepUntil(run, at, waiting);
    if (!waiting() || Date.now() < at) return;
    change.remindersSent = [...(change.remindersSent ?? []), days];
    let freshOrder = true;
    if (patched('reminder-asks-first')) {
      // The customer may have authorized the open order and its notification been lost: ask first. A new
      // order only when the gateway says the open one never will be (declined, link expired); otherwise the
      // reminder goes with the same order, so no customer holds two authorizations of one change.
      const answer = await activateReauthorization(run, change);
      if (!waiting()) return;
      freshOrder = answer?.orderClosed === true;
    }
    if (freshOrder) {
      // A fresh order and link: the one sent with the notice expired long ago. Its notification is the one
      // that counts from now on.
      run.state.reauthorizations = (run.state.reauthorizations ?? 0) + 1;
      change.reauthorizationOrderId = reauthorizationOrderId(run.id, run.state.reauthorizations);
    }
    await run.gateway.announcePriceChange({
      subscriptionId: run.id,
      priceChangeId: change.priceChangeId,
      newAmount: change.newAmount,
      effectiveDate: change.effectiveDate,
      reauthorizationOrderId: change.reauthorizationOrderId,
      reminderDaysBefore: days,
    });
  }
}

async function sleepUntil(run: PriceRun, at: number, stillWaiting: () => boolean) {
  const until = Math.min(at, run.expiryInstant);
  while (stillWaiting() && Date.now() < until) {
    await condition(() => !stillWaiting(), until - Date.now());
  }
}

/**
 * The amount of a cycle of a subscription with a price change pending; undefined (with the reason) when
 * the cycle is not charged. A change not yet authorized when its cycle comes is asked about once (the
 * customer's notification may have been lost) before its fallback decides.
 */
export async function amountUnderPriceChange(
  run: PriceRun,
  cycle: number,
  dueDate: string,
): Promise<{ amount?: number; skipReason?: string }> {
  const change = run.state.priceChange!;
  if (dueDate >= change.effectiveDate && !change.authorized) await activateReauthorization(run, change);
  await condition(() => !run.reauthorizing);
  const decision = decideCycleAmount({ authorized: authorizedAmount(run), dueDate, open: change });
  if (decision.applies) {
    // The new token replaces the old before the charge: the charge goes out on the authorization of its amount.
    // One gateway conversation at a time: a pause or cancel waits until the token is the new one.
    await condition(() => !run.busy);
    run.busy = true;
    try {
      await run.gateway.adoptReauthorization({
        subscriptionId: run.id,
        priceChangeId: change.priceChangeId,
        newAmount: change.newAmount,
      });
    } finally {
      run.busy = false;
    }
    run.state.authorizedAmount = change.newAmount;
    run.state.priceChange = undefined;
    await records.recordPriceChange({
      subscriptionId: run.id,
      priceChangeId: change.priceChangeId,
      status: 'applied',
      statusReason: `Applied from cycle ${cycle} (${dueDate})`,
      priceFlag: null,
    });
    return { amount: decision.charge };
  }
  if (decision.fallback && !change.fallbackRecorded) {
    change.fallbackRecorded = true;
    await records.recordPriceChange({
      subscriptionId: run.id,
      priceChangeId: change.priceChangeId,
      status: decision.fallback === 'flag' ? 'flagged' : 'charged_old',
      statusReason:
        decision.fallback === 'flag'
          ? `Not authorized by ${change.effectiveDate}: no cycle is charged until the customer authorizes ${change.newAmount} VND`
          : `Not authorized by ${change.effectiveDate}: cycles charge ${decision.charge} VND until the customer authorizes ${change.newAmount} VND`,
      ...(decision.fallback === 'flag' && { priceFlag: PRICE_CHANGE_UNAUTHORIZED }),
    });
  }
  if (decision.fallback === 'flag')
    return {
      skipReason: `Not charged: the customer has not authorized the new price of ${change.newAmount} VND (${PRICE_CHANGE_UNAUTHORIZED})`,
    };
  return { amount: decision.charge };
}
