/**
 * What the subscription workflow shares with its callers: identities, statuses and their transition
 * table, inputs, and the signals, queries and updates. Pure code: the API imports it.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { Duration } from '@temporalio/common';
import type { Frequency } from './billing-calendar';
import type { ScheduledPriceChange } from './price-changes';
import type { DunningSchedule } from './dunning';

export type { Frequency };

export const subscriptionWorkflowId = (subscriptionId: string) => `subscription/${subscriptionId}`;
/** Gateway orderIds derive from the subscription and the cycle: a replay or a crash never invents a new one. */
export const chargeOrderId = (subscriptionId: string, cycle: number, attempt: number) =>
  attempt === 0 ? `${subscriptionId}-c${cycle}` : `${subscriptionId}-c${cycle}-r${attempt}`;
export const manageOrderId = (subscriptionId: string, seq: number) => `${subscriptionId}-m${seq}`;

export type SubscriptionType = 'FIXED' | 'VARIABLE';

/**
 * authorizing → active ⇄ retrying (one insufficient-funds failure) → paused (second failure, or an
 * operator) → reactivating (customer asked to confirm) → active. needs_attention: the customer's answer to
 * a reactivation did not come within reactivationWait, and the spec gives no way to ask (a late answer still
 * moves it on). Final: cancelled, expired, not_authorized (the customer never authorized),
 * needs_reauthorization (the token is no longer valid).
 */
export type SubscriptionStatus =
  | 'authorizing'
  | 'active'
  | 'retrying'
  | 'paused'
  | 'reactivating'
  | 'needs_attention'
  | 'cancelled'
  | 'expired'
  | 'not_authorized'
  | 'needs_reauthorization';

const TRANSITIONS: Readonly<Record<SubscriptionStatus, readonly SubscriptionStatus[]>> = {
  authorizing: ['active', 'not_authorized', 'expired', 'cancelled'],
  active: ['retrying', 'paused', 'cancelled', 'expired', 'needs_reauthorization'],
  retrying: ['active', 'paused', 'cancelled', 'expired', 'needs_reauthorization'],
  paused: ['reactivating', 'cancelled', 'expired'],
  reactivating: ['active', 'paused', 'cancelled', 'expired', 'needs_attention'],
  needs_attention: ['active', 'paused', 'cancelled', 'expired'],
  cancelled: [],
  expired: [],
  not_authorized: [],
  needs_reauthorization: ['cancelled'],
};

export const FINAL_SUBSCRIPTION_STATUSES: readonly SubscriptionStatus[] = [
  'cancelled',
  'expired',
  'not_authorized',
  'needs_reauthorization',
];

export const canTransition = (from: SubscriptionStatus, to: SubscriptionStatus) =>
  from === to || TRANSITIONS[from].includes(to);

/** The next status, or an error naming the forbidden move. */
export function subscriptionTransition(from: SubscriptionStatus, to: SubscriptionStatus): SubscriptionStatus {
  if (!canTransition(from, to)) throw new Error(`A subscription cannot go from ${from} to ${to}`);
  return to;
}

export interface SubscriptionTiming {
  /** Charges run at this hour (GMT+7) of each cycle's date. */
  billingHourGmt7: number;
  /** Wait between the first insufficient-funds failure of a cycle and its one retry. */
  insufficientFundsRetryDelay: Duration;
  /** Wait for the authorization IPN before asking the gateway (tokenization/cbQuery). */
  authorizationIpnWait: Duration;
  /** Give up on the customer's authorization after this long (the link lives 15 minutes). */
  authorizationGiveUpAfter: Duration;
  /** Wait between checks of a pending (7000/7002) charge. */
  pendingCheckInterval: Duration;
  /** A pending charge with no final result after this many checks is recorded as unresolved. */
  pendingMaxChecks: number;
  gatewayAttemptTimeout: Duration;
  /** Continue-as-new after this many cycles (or when Temporal suggests it). */
  cyclesPerRun: number;
  /**
   * How long a reactivation waits for the customer's confirmation (by notification; the spec has no query
   * for it) before an operator is told (needs_attention). Absent in runs started before it existed.
   */
  reactivationWait?: Duration;
  /**
   * Present: the workflow hands each plain cycle to the day's billing run and charges it itself only when
   * the run has not answered this long after the cycle's hour (docs/subscriptions.md). Absent (runs started
   * before the billing run, or SUBSCRIPTION_BILLING_PATH=self): every cycle is charged by its workflow.
   */
  billingRunGrace?: Duration;
}

export const DEFAULT_SUBSCRIPTION_TIMING: SubscriptionTiming = {
  billingHourGmt7: 9,
  insufficientFundsRetryDelay: '1 day',
  authorizationIpnWait: '2 minutes',
  authorizationGiveUpAfter: '30 minutes',
  pendingCheckInterval: '10 minutes',
  pendingMaxChecks: 144,
  gatewayAttemptTimeout: '1 minute',
  cyclesPerRun: 24,
  reactivationWait: '1 day',
};

/** Progress carried from one run to the next (continue-as-new). */
export interface SubscriptionState {
  status: SubscriptionStatus;
  anchorDate: string;
  anchorCycle: number;
  /** The next cycle to charge. */
  nextCycle: number;
  statusReason?: string;
  /** Consecutive insufficient-funds failures. */
  failures: number;
  manageSeq: number;
  reactivationOrderId?: string;
  /** VARIABLE: amounts reported for cycles not yet charged. */
  reportedAmounts: Record<string, number>;
  /**
   * The recurringAmount of the authorization in use, once a price change replaced the first one (absent:
   * the input's). A FIXED cycle charges exactly it.
   */
  authorizedAmount?: number;
  /** The price change not yet applied (contracts/subscriptions/price-changes.ts). */
  priceChange?: ScheduledPriceChange;
  /** How many new authorizations were asked for: numbers their gateway orders. */
  reauthorizations?: number;
  /** The newest plan price changes it took (planPriceChange signal): one delivered again changes nothing. */
  planPriceChangesTaken?: string[];
  /** The subscription's dunning schedule; absent: the default (one retry after the configured delay, no notices). */
  dunning?: DunningSchedule;
  /** A pause after insufficient funds that the schedule follows up (link, reminders, cancellation). */
  dunningPause?: DunningPause;
  /** The cycle handed over to the billing run (written on the record as run_cycle), if any. */
  handedCycle?: number;
}

/** Progress of the follow-up of one pause, carried by continue-as-new so no step is taken twice. */
export interface DunningPause {
  /** The schedule as it was at the pause: a later change applies to the next pause. */
  schedule: DunningSchedule;
  cycle: number;
  pausedAt: number;
  /** The paused notice went out (with the link when one was asked for). */
  told: boolean;
  payUrl?: string;
  /** Reminders and the cancellation due at or before this instant were taken. */
  stepsDoneUntil: number;
}

export interface SubscriptionInput {
  subscriptionId: string;
  type: SubscriptionType;
  recurringAmount: number;
  frequency: Frequency;
  /** Amount of the authorization (0: free trial or later start; ≥ 1000 also charges now). */
  initialAmount: number;
  nextPaymentDate?: string;
  expiryDate?: string;
  timing: SubscriptionTiming;
  /** Set by continue-as-new. */
  state?: SubscriptionState;
  /**
   * Benchmark comparison only (STEPS_AS_QUEUED_ACTIVITIES): the onboarding's calls and records, the
   * authorization's checks, the hand-over and the reading of the run's word run as queued activities, the
   * design before they ran in the workflow task that decides them. Absent in production.
   */
  queuedSteps?: true;
  /**
   * The subscription desk made the authorization's start and recorded its answer (docs/subscriptions.md, "The
   * subscription desk"): the workflow begins at the customer's answer. Absent: the workflow makes the start.
   */
  startAnswered?: true;
  /** The dunning schedule it follows from the start (a desk subscription's, which no signal brought). */
  dunning?: DunningSchedule;
}

export interface SubscriptionView {
  status: SubscriptionStatus;
  statusReason?: string;
  nextCycle?: number;
  nextPaymentDate?: string;
  failures: number;
}

export interface AuthorizationResult {
  resultCode: number;
  message?: string;
  callbackToken?: string;
  transId?: string;
}
/** The customer's authorization IPN (list B, orderId = the subscription's initial orderId). */
export const authorizationSignal = defineSignal<[AuthorizationResult]>('subscriptionAuthorized');
/** The customer's answer to a reactivation (IPN of the manage request). */
export const reactivationSignal =
  defineSignal<[{ orderId: string; resultCode: number; message?: string }]>('subscriptionReactivation');
/** A charge's notification, should the gateway send one. */
export const chargeResultSignal =
  defineSignal<[{ orderId: string; resultCode: number; message?: string; transId?: string }]>(
    'subscriptionChargeResult',
  );

/** The subscription's dunning schedule was set (null: back to the default); applies from the next failure. */
export const dunningScheduleSignal = defineSignal<[DunningSchedule | null]>('dunningSchedule');

export const subscriptionViewQuery = defineQuery<SubscriptionView>('subscriptionView');

/**
 * Completes once the gateway's answer to the subscription's start (the customer's links, or a refusal)
 * is recorded: the create call sends it with the workflow's start and reads the record once afterwards,
 * instead of reading it again and again.
 */
export const subscriptionStartAnsweredUpdate = defineUpdate<void, []>('subscriptionStartAnswered');

export interface ManageRequest {
  by: string;
  reason?: string;
}
/** The failure type of a refused pause, cancel, reactivation or cycle amount (the message says why). */
export const SUBSCRIPTION_REFUSED = 'subscription_refused';
export const pauseUpdate = defineUpdate<SubscriptionView, [ManageRequest]>('pause');
export const cancelUpdate = defineUpdate<SubscriptionView, [ManageRequest]>('cancel');
export const reactivateUpdate = defineUpdate<
  SubscriptionView & { payUrl?: string; deeplink?: string },
  [ManageRequest]
>('reactivate');
export const cycleAmountUpdate = defineUpdate<
  { cycle: number; amount: number },
  [{ amount: number; cycle?: number }]
>('cycleAmount');

/** One charge of one cycle: submitted, then its answer; skipped when a cycle is passed over. */
export type ChargeStatus = 'submitted' | 'succeeded' | 'failed' | 'pending' | 'skipped' | 'needs_attention';

/**
 * Where a charge record may go from each status: forward only. A write that would move it back (an
 * activity attempt running again after an earlier one recorded the answer) is not made, so no status is
 * reached twice and no event is emitted twice.
 */
const CHARGE_MOVES: Readonly<Record<ChargeStatus, readonly ChargeStatus[]>> = {
  submitted: ['pending', 'succeeded', 'failed', 'needs_attention'],
  pending: ['succeeded', 'failed', 'needs_attention'],
  needs_attention: ['succeeded', 'failed'],
  succeeded: [],
  failed: [],
  skipped: [],
};
export const chargeMayMove = (from: ChargeStatus | undefined, to: ChargeStatus) =>
  from === undefined || from === to || CHARGE_MOVES[from].includes(to);
