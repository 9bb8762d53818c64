/**
 * The events payrun tells the merchant's other systems about: every type, the object it is about and the
 * shape of its snapshot, declared once. The database writer, the events API, webhook delivery, the
 * OpenAPI document and docs/events.md all follow this module. Pure code: no I/O.
 *
 * Versioning: `EVENT_SCHEMA_VERSION` changes only for a breaking change (a field removed, renamed or
 * given another meaning). New types and new snapshot fields are additions within a version, so
 * integrators must ignore what they do not know.
 */

export const EVENT_SCHEMA_VERSION = 1;

/** What each event type means, in the words docs/events.md uses. */
export const EVENT_CATALOGUE = {
  'payout_run.awaiting_approval': 'A payout file was uploaded and waits for a second person to approve it.',
  'payout_run.awaiting_funds': "A batch of the run is short of the merchant's disbursement balance.",
  'payout_run.reconciled': 'Every row reached a final state and the totals match the gateway.',
  'payout_run.needs_attention': 'The run ended with differences or pending items; statusReason says which.',
  'payout_item.succeeded': 'One row of a payout run was paid to its receiver.',
  'payout_item.failed':
    'One row of a payout run was refused or not paid; resultCode, message and reason say why. Nothing moved.',
  'payout_run.scheduled':
    'The run was approved to pay at executeAt; it waits until then and can be cancelled.',
  'payout_run.cancelled': 'A scheduled run was cancelled before its time; nothing was paid.',
  'payout_run.funds_short':
    'Ahead of its time, the balance is short of the run plus every run scheduled before it; it still pays then.',
  'payout_run.scheduled_check_failed':
    'Ahead of its time, the gateway refused some receivers of a scheduled run (or could not be asked).',
  'payout_run.refused':
    "A schedule's occurrence would take a daily cap past its limit: its run is recorded refused and never paid.",
  'disbursement.succeeded': 'A single disbursement reached the receiver.',
  'disbursement.failed': 'A single disbursement was refused; nothing was paid.',
  'remittance.succeeded': 'A remittance reached the receiver.',
  'remittance.needs_attention': 'VND was bought but not delivered; attentionReason says what to do.',
  'subscription.authorized': 'The customer authorized the subscription (or confirmed its reactivation).',
  'subscription.charged': 'A cycle was charged; `charge` says which.',
  'subscription.charge_failed': 'A cycle charge was refused; `charge` has the result code.',
  'subscription.paused': 'Billing is paused (two insufficient-funds failures, an operator, or the gateway).',
  'subscription.cancelled': 'The subscription is cancelled for good.',
  'subscription.notice_sent':
    'A notice reached the mail server for the subscriber (kind: upcoming_charge, charge_failed, paused, …).',
  'subscription.notice_failed':
    'A notice to the subscriber could not be sent after its attempts (or the mail server refused it).',
  'subscription.notice_requested':
    'Another flow asked for a notice to the subscriber (kind and data); payrun sends it when it knows the kind.',
  'payment.succeeded': 'A one-time payment was paid (or an authorization captured).',
  'payment.failed': 'A one-time payment was refused or abandoned.',
  'refund.succeeded': 'A refund (or every item of it that was paid back) succeeded.',
  'refund.failed': 'A refund was refused; its amount is refundable again.',
  'token_payment.otp_required': "A payment with a saved wallet waits for the customer's one-time code.",
  'token_payment.succeeded': 'A payment with a saved method was paid.',
  'token_payment.failed': 'A payment with a saved method was refused.',
  'saved_method.revoked': 'The customer removed a saved method in the app; it is never used again.',
  'approval.requested':
    'An item that pays money out waits for the approvers its amount needs; nothing moved.',
  'approval.approved': 'Every approver the item needs approved it; it goes on to pay.',
  'approval.rejected': 'An approver rejected the item; it is never paid.',
  'approval.expired': 'Nobody approved the item in time; it is never paid.',
  'hold.proposed':
    'An admin proposed to hold outgoing money of one kind; nothing is held until a second confirms.',
  'hold.held': 'A second admin confirmed: gateway steps of the kind stop before they send anything.',
  'hold.release_proposed':
    'An admin proposed to release a hold at a rate; it stays held until a second confirms.',
  'hold.released': 'The hold is over: its held items were resumed at the chosen rate.',
  'hold.withdrawn': 'A hold (or release) proposal was withdrawn before anyone confirmed it.',
  'approval_policy.proposed': 'An admin proposed a new approval policy; it waits for a second admin.',
  'approval_policy.approved':
    'A second admin approved a proposed approval policy; it applies from effectiveAt to items created then.',
  'approval_policy.rejected': 'An admin rejected a proposed approval policy; nothing changed.',
  'balance.low':
    'A merchant balance fell below its threshold, or short of the payout runs waiting for it, before a batch is refused.',
  'balance.recovered':
    'A merchant balance that was low is above its threshold and covers the runs waiting again.',
} as const;

export type EventType = keyof typeof EVENT_CATALOGUE;
export const EVENT_TYPES = Object.keys(EVENT_CATALOGUE) as EventType[];

export type EventObjectType =
  | 'payout_run'
  | 'payout_item'
  | 'disbursement'
  | 'remittance'
  | 'subscription'
  | 'payment'
  | 'refund'
  | 'token_payment'
  | 'saved_method'
  | 'approval'
  | 'hold'
  | 'approval_policy'
  | 'balance';

/** The object an event type is about: the part of its name before the dot. */
export const objectTypeOf = (type: EventType): EventObjectType =>
  type.slice(0, type.indexOf('.')) as EventObjectType;

export const isEventType = (value: string): value is EventType => Object.hasOwn(EVENT_CATALOGUE, value);

// ---- snapshots: public fields only. No secrets or tokens, no personal ids, no receiver names; wallet
// and account numbers appear only masked to their last four digits.

export interface PayoutRunSnapshot {
  runId: string;
  status: string;
  statusReason: string | null;
  fileName: string;
  rowCount: number;
  totalAmount: number;
  batchCount: number;
  uploadedAt: string;
  completedAt: string | null;
}

/**
 * One row of a payout run at its outcome. The object is the payout id: a row failed in a run and paid by its
 * retry is one object, its events in order. `reason` is payrun's explanation of the code (gateway/item-reasons).
 */
export interface PayoutItemSnapshot {
  runId: string;
  /** The run a retry family started from (the run itself when it is no retry). */
  rootRunId: string;
  /** The row's number in its file, the same in a retry of it. */
  itemNo: number;
  payoutId: string;
  /** The gateway order (batch) that carried the row. */
  orderId: string;
  amount: number;
  /** `wallet ****5678`: masked to its last four digits, as the API masks it (and as disbursements' labels read). */
  receiverLabel: string;
  state: string;
  resultCode: number | null;
  message: string | null;
  reason: { en: string; vi: string } | null;
  transId: string | null;
}

/** A run approved to pay at a time (docs/payout-runs.md, "Scheduling"). */
export interface ScheduledPayoutRunSnapshot extends PayoutRunSnapshot {
  executeAt: string | null;
}

/** The balance against what a scheduled run and every run scheduled before it will take. */
export interface FundsShortSnapshot extends ScheduledPayoutRunSnapshot {
  balance: number;
  /** This run's total plus `scheduledBefore`. */
  needed: number;
  scheduledBefore: number;
  checkedAt: string;
}

/** The receivers the gateway's wallet check refused ahead of a scheduled run (wallets masked), or why it could not ask. */
export interface ScheduledCheckFailedSnapshot extends ScheduledPayoutRunSnapshot {
  receiversChecked: number;
  receiversRefused: number;
  /** The first refusals, at most 50. */
  refused: Array<{ payoutId: string; row: number; wallet: string; resultCode: number; message: string }>;
  problem: string | null;
  checkedAt: string;
}

export interface DisbursementSnapshot {
  disbursementId: string;
  status: string;
  requestType: string;
  amount: number;
  /** `wallet …5678` or `bank 970436 …6789`. */
  receiverLabel: string;
  resultCode: number | null;
  message: string | null;
  transId: string | null;
}

export interface RemittanceSnapshot {
  remittanceId: string;
  status: string;
  statusReason: string | null;
  requestType: string;
  baseCurrency: string;
  foreignAmount: number;
  rateUsed: number | null;
  exchangeAmount: number | null;
  amountSent: number | null;
  receiverLabel: string;
  resultCode: number | null;
  transId: string | null;
  attentionReason: string | null;
  completedAt: string | null;
}

export interface SubscriptionChargeSnapshot {
  orderId: string;
  cycle: number;
  attempt: number;
  dueDate: string;
  amount: number;
  status: string;
  resultCode: number | null;
  message: string | null;
  transId: string | null;
}

export interface SubscriptionSnapshot {
  subscriptionId: string;
  status: string;
  statusReason: string | null;
  type: string;
  frequency: string;
  recurringAmount: number;
  nextPaymentDate: string | null;
  expiryDate: string | null;
  failures: number;
}

/** A notice to a subscriber: never its address, only the kind, language and outcome. */
export interface SubscriptionNoticeSnapshot {
  subscriptionId: string;
  noticeKey: string;
  kind: string;
  lang: string;
  status: string;
  /** Why it failed (the mail server's answer, attempts exhausted); null when sent. */
  reason: string | null;
}

/** A flow's request for a notice: the kind (a template payrun knows) and what the template shows. */
export interface SubscriptionNoticeRequestSnapshot {
  subscriptionId: string;
  noticeKey: string;
  kind: string;
  data: Record<string, string | number>;
}

export type SubscriptionChargeEventSnapshot = SubscriptionSnapshot & { charge: SubscriptionChargeSnapshot };

export interface PaymentSnapshot {
  paymentId: string;
  orderId: string;
  requestType: string;
  amount: number;
  status: string;
  resultCode: number | null;
  message: string | null;
  transId: string | null;
  payType: string | null;
  refundedAmount: number;
  completedAt: string | null;
}

export interface RefundSnapshot {
  refundId: string;
  paymentId: string;
  orderId: string;
  amount: number;
  status: string;
  resultCode: number | null;
  message: string | null;
  transId: string | null;
  items: Array<{ itemId: string; amount: number; status: string }>;
  completedAt: string | null;
}

export interface SavedMethodPaymentSnapshot {
  paymentId: string;
  methodId: string;
  kind: string;
  amount: number;
  state: string;
  resultCode: number | null;
  message: string | null;
  transId: string | null;
}

export interface SavedMethodSnapshot {
  methodId: string;
  kind: string;
  status: string;
  last4: string | null;
  cardType: string | null;
  bankCode: string | null;
  revokedAt: string | null;
}

/** An approval of outgoing money (contracts/approvals): what, how much, to whom (masked), who asked and decided. */
export interface ApprovalSnapshot {
  approvalId: string;
  kind: string;
  objectId: string;
  status: string;
  amount: number;
  receiverLabel: string;
  requiredApprovers: number;
  requestedBy: string;
  approvedBy: string[];
  requestedAt: string;
  expiresAt: string;
}

/** A hold of one kind of outgoing money (contracts/holds): who did what, and what it held. */
export interface HoldSnapshot {
  holdId: string;
  kind: string;
  status: string;
  reason: string;
  /** The admin whose action this event records. */
  by: string;
  proposedBy: string;
  heldBy: string[];
  /** Items held under this hold so far and their total in VND (released or not). */
  heldCount: number;
  heldTotalVnd: number;
  ratePerMinute: number | null;
}

/** A version of the approval policy (docs/approvals.md): the whole policy, when it applies, who asked and decided. */
export interface ApprovalPolicySnapshot {
  version: number;
  status: string;
  policy: unknown;
  effectiveFrom: string;
  effectiveAt: string | null;
  reason: string;
  proposedBy: string;
  decidedBy: string | null;
}

/** A merchant balance against its threshold (docs/payout-runs.md, "Balance warnings"). */
export interface BalanceSnapshot {
  currency: string;
  /** The balance the gateway reported (major units). */
  balance: number;
  threshold: number;
  /** What the payout runs waiting for funds (and a batch about to be created) need beyond the balance; 0 if covered. */
  shortBy: number;
  /** Those runs' total, and how many they are. */
  waitingAmount: number;
  waitingRuns: number;
}

/** The snapshot each event type carries. */
export interface EventSnapshots {
  'payout_run.awaiting_approval': PayoutRunSnapshot;
  'payout_run.awaiting_funds': PayoutRunSnapshot;
  'payout_run.reconciled': PayoutRunSnapshot;
  'payout_run.needs_attention': PayoutRunSnapshot;
  'payout_item.succeeded': PayoutItemSnapshot;
  'payout_item.failed': PayoutItemSnapshot;
  'payout_run.scheduled': ScheduledPayoutRunSnapshot;
  'payout_run.cancelled': ScheduledPayoutRunSnapshot;
  'payout_run.funds_short': FundsShortSnapshot;
  'payout_run.scheduled_check_failed': ScheduledCheckFailedSnapshot;
  'payout_run.refused': PayoutRunSnapshot;
  'disbursement.succeeded': DisbursementSnapshot;
  'disbursement.failed': DisbursementSnapshot;
  'remittance.succeeded': RemittanceSnapshot;
  'remittance.needs_attention': RemittanceSnapshot;
  'subscription.authorized': SubscriptionSnapshot;
  'subscription.charged': SubscriptionChargeEventSnapshot;
  'subscription.charge_failed': SubscriptionChargeEventSnapshot;
  'subscription.paused': SubscriptionSnapshot;
  'subscription.cancelled': SubscriptionSnapshot;
  'subscription.notice_sent': SubscriptionNoticeSnapshot;
  'subscription.notice_failed': SubscriptionNoticeSnapshot;
  'subscription.notice_requested': SubscriptionNoticeRequestSnapshot;
  'payment.succeeded': PaymentSnapshot;
  'payment.failed': PaymentSnapshot;
  'refund.succeeded': RefundSnapshot;
  'refund.failed': RefundSnapshot;
  'token_payment.otp_required': SavedMethodPaymentSnapshot;
  'token_payment.succeeded': SavedMethodPaymentSnapshot;
  'token_payment.failed': SavedMethodPaymentSnapshot;
  'saved_method.revoked': SavedMethodSnapshot;
  'approval.requested': ApprovalSnapshot;
  'approval.approved': ApprovalSnapshot;
  'approval.rejected': ApprovalSnapshot;
  'approval.expired': ApprovalSnapshot;
  'hold.proposed': HoldSnapshot;
  'hold.held': HoldSnapshot;
  'hold.release_proposed': HoldSnapshot;
  'hold.released': HoldSnapshot;
  'hold.withdrawn': HoldSnapshot;
  'approval_policy.proposed': ApprovalPolicySnapshot;
  'approval_policy.approved': ApprovalPolicySnapshot;
  'approval_policy.rejected': ApprovalPolicySnapshot;
  'balance.low': BalanceSnapshot;
  'balance.recovered': BalanceSnapshot;
}

/** An event as the events API lists it and as a webhook's body carries it. */
export interface PayrunEvent<T extends EventType = EventType> {
  id: string;
  type: T;
  apiVersion: number;
  createdAt: string;
  object: { type: EventObjectType; id: string };
  data: EventSnapshots[T];
}
