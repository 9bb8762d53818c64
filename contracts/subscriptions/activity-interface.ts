/**
 * The subscription activities as the workflow calls them: their names are the activity types recorded in
 * every history, so none is ever renamed. Inputs carry ids and amounts only: the token never enters a workflow.
 */
import type { Frequency } from './billing-calendar';
import type { ChargeStatus, SubscriptionStatus } from './subscriptions';
import type { PriceChangeStatus } from './price-changes';

/** The notices this capability asks for; the mail channel sends them (docs/subscriptions.md). */
export type SubscriberNoticeKind = 'price_change' | 'reauthorization_reminder';

export interface SubscriberNotice {
  kind: SubscriberNoticeKind;
  subscriptionId: string;
  /** One notice per subscription, kind and key: a retried activity records it once. */
  key: string;
  data: Record<string, string | number | boolean | null>;
}

export interface PriceChangeRecord {
  subscriptionId: string;
  priceChangeId: string;
  /** Absent: only the reason changes. */
  status?: PriceChangeStatus;
  statusReason?: string;
  /** The subscription's price flag: set while flagged, null when cleared. */
  priceFlag?: string | null;
}
import type { NoticeOutcome, NoticeRequest } from './notices';
import type { BillingRunActivities, HandOver } from './billing-runs';

/** The gateway's answer, in its words. */
export interface SubscriptionGatewayAnswer {
  resultCode: number;
  message: string;
}

export interface AuthorizationStart extends SubscriptionGatewayAnswer {
  /** 40/41: the first answer, with the customer's link, was lost; the customer may still authorize. */
  alreadySubmitted?: true;
}

export interface AuthorizationCheck extends SubscriptionGatewayAnswer {
  transId?: string;
  /** Set when the answer is no word about this authorization (a refused query, another order's answer). */
  known?: false;
}

/** One charge of one cycle: `<id>-c<cycle>` (`-r1` for the retry after insufficient funds). */
export interface ChargeAttempt {
  subscriptionId: string;
  cycle: number;
  attempt: number;
  amount: number;
  dueDate: string;
}

export interface CycleCharge extends ChargeAttempt {
  nextPaymentDate: string;
  chargedOn: string;
  frequency: Frequency;
  /**
   * The subscription's next cycle, written with the charge when it succeeds on an active subscription
   * (runs since patch `subscription-charge-records-billing`).
   */
  nextCycleOnSuccess?: number;
  /** The hold whose release resumed this charge (contracts/holds): it no longer stops it. */
  releasedHold?: string;
}

export interface CycleChargeResult extends SubscriptionGatewayAnswer {
  outcome: 'succeeded' | 'failed' | 'pending';
  transId?: string;
  /** Present when the charge also recorded the subscription's next cycle. */
  billed?: { nextCycle: number; nextPaymentDate: string };
}

export interface ChargeCheck extends SubscriptionGatewayAnswer {
  transId?: string;
  /** Set when the answer proves nothing about the charge: it stays unsettled. */
  known?: false;
}

export interface ManageRequestSent extends SubscriptionGatewayAnswer {
  orderId: string;
  payUrl?: string;
  deeplink?: string;
}

export interface SubscriptionRecord {
  subscriptionId: string;
  status?: SubscriptionStatus;
  statusReason?: string | null;
  nextCycle?: number;
  nextPaymentDate?: string | null;
  failures?: number;
  anchorDate?: string;
  anchorCycle?: number;
  /** VARIABLE: every amount reported and not yet charged (cycle number → VND). */
  reportedAmounts?: Record<string, number>;
}

export interface ChargeRecord extends ChargeAttempt {
  status: ChargeStatus;
  resultCode?: number;
  message?: string;
  transId?: string;
  orderId?: string;
}

/** Dated price changes (workflows/subscriptions/price-changes.ts); their own factory builds them. */
export interface PriceChangeActivities {
  /**
   * A price change told to the customer: api/create (requestType subscription) on the order
   * `reauthorizationOrderId` for the new recurringAmount, and the customer's link goes with the notice
   * (`price_change`; with `reminderDaysBefore`, a `reauthorization_reminder` with a fresh order and link:
   * the gateway's links expire within minutes).
   */
  announcePriceChange(input: {
    subscriptionId: string;
    priceChangeId: string;
    newAmount: number;
    effectiveDate: string;
    reauthorizationOrderId: string;
    reminderDaysBefore?: number;
  }): Promise<{ resultCode: number; message: string; payUrl?: string }>;
  /**
   * The customer's new authorization exchanged for its token (subscription/create on the `-p<n>` order),
   * kept sealed on the price change until its cycle; without a callbackToken, the gateway is asked first
   * whether the customer authorized. `authorized: false`: not (yet).
   */
  activateReauthorization(input: {
    subscriptionId: string;
    priceChangeId: string;
    orderId: string;
    callbackToken?: string;
  }): Promise<{
    authorized: boolean;
    message: string;
    /**
     * The gateway says this order will never be authorized (declined, its link expired): only then may a
     * reminder ask on a new order without the customer ending up with two authorizations of one change.
     */
    orderClosed?: boolean;
  }>;
  /**
   * At the change's cycle: the old authorization cancelled at the gateway, the new token and its
   * recurringAmount made the subscription's. Repeatable.
   */
  adoptReauthorization(input: {
    subscriptionId: string;
    priceChangeId: string;
    newAmount: number;
  }): Promise<void>;
  recordPriceChange(input: PriceChangeRecord): Promise<void>;
}

export interface SubscriptionActivities extends PriceChangeActivities, BillingRunActivities {
  /** api/create, requestType subscription: the customer's links are stored for the API to answer with. */
  startSubscriptionAuthorization(input: { subscriptionId: string }): Promise<AuthorizationStart>;
  /** api/query on the authorization's order, when its notification is late. */
  checkSubscriptionAuthorization(input: { subscriptionId: string }): Promise<AuthorizationCheck>;
  /** subscription/create with the callbackToken; the token is stored sealed and nothing secret comes back. */
  activateSubscription(input: {
    subscriptionId: string;
    callbackToken?: string;
  }): Promise<SubscriptionGatewayAnswer>;
  /**
   * The activation in one step (patch `activation-in-one-step`): subscription/create, then, when the gateway
   * accepted it, the records the workflow decided before the call (the authorization's charge, the activation)
   * and, when given, the hand-over of cycle 1 to its day's billing run. One local activity where there were
   * three: each costs the workflow task a marker and an activation. Repeatable as each of those was.
   */
  activateAndRecord(input: {
    subscriptionId: string;
    callbackToken?: string;
    authorizationCharge?: ChargeRecord;
    activation: SubscriptionRecord;
    handOver?: HandOver;
  }): Promise<SubscriptionGatewayAnswer>;
  /** subscription/pay for one attempt of one cycle; never sent twice for one order. */
  chargeSubscriptionCycle(input: CycleCharge): Promise<CycleChargeResult>;
  /** api/query on a charge's order: only evidence decides. */
  querySubscriptionCharge(input: ChargeAttempt & { check: number }): Promise<ChargeCheck>;
  /** subscription/manage. Reactivate answers 8000 with the customer's confirmation link. */
  manageSubscription(input: {
    subscriptionId: string;
    action: 'pause' | 'cancel' | 'reactivate';
    seq: number;
  }): Promise<ManageRequestSent>;
  recordSubscription(input: SubscriptionRecord): Promise<void>;
  /** A charge outcome learnt later (query, IPN), a skipped cycle, or the authorization charge (cycle 0). */
  recordSubscriptionCharge(input: ChargeRecord): Promise<void>;
  /**
   * One notice to the subscriber, at most once per noticeKey: sent, skipped (no address) or, after its
   * last attempt, recorded failed. Never throws for a mail problem on its last attempt.
   */
  sendSubscriptionNotice(input: NoticeRequest): Promise<NoticeOutcome>;
}
