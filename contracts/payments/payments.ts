/** Types, signals and pure helpers of the payment workflow, shared with the API and activities. */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { Duration } from '@temporalio/common';
import { isUndecided, outcomeOf } from '../../gateway/result-codes';

export const paymentWorkflowId = (paymentId: string) => `payment/${paymentId}`;

/** The requestTypes of document 1's creation endpoint, plus `pos` (quick pay with a scanned code). */
export const PAYMENT_REQUEST_TYPES = [
  'captureWallet',
  'payWithCC',
  'payWithPlatformPayA',
  'payWithPlatformPayB',
  'onDelivery',
  'payWithVTS',
  'payWithEdc',
  'payWithMethod',
  'pos',
] as const;
export type PaymentRequestType = (typeof PAYMENT_REQUEST_TYPES)[number];

export type PaymentStatus =
  | 'created'
  | 'awaiting_customer'
  | 'pending'
  | 'succeeded'
  | 'failed'
  /** autoCapture false: paid but not captured; waits for a capture or a cancel within the hold. */
  | 'authorized_not_captured'
  /** The authorization was cancelled (by an operator, or by the gateway's answer): nothing captured. */
  | 'cancelled'
  /** Nobody captured within the hold period: the gateway let the authorization go, nothing captured. */
  | 'authorization_expired'
  /** No final result within resultWait; the gateway still reported the order as waiting. */
  | 'expired';

/**
 * Where a payment's record may go from each status: forward only (db/ reads it). `expired` is payrun having
 * stopped waiting, not the gateway's word: a result heard later still moves it on.
 */
const PAYMENT_MOVES: Readonly<Record<PaymentStatus, readonly PaymentStatus[]>> = {
  created: ['awaiting_customer', 'pending', 'succeeded', 'failed', 'authorized_not_captured', 'expired'],
  awaiting_customer: ['pending', 'succeeded', 'failed', 'authorized_not_captured', 'expired'],
  pending: ['succeeded', 'failed', 'authorized_not_captured', 'expired'],
  expired: ['succeeded', 'failed', 'authorized_not_captured'],
  authorized_not_captured: ['succeeded', 'cancelled', 'authorization_expired'],
  succeeded: [],
  failed: [],
  cancelled: [],
  authorization_expired: [],
};
/** Every status a payment's record can hold. */
export const PAYMENT_STATUSES = Object.keys(PAYMENT_MOVES) as readonly PaymentStatus[];

export const canMovePayment = (from: string, to: string) =>
  from === to || (PAYMENT_MOVES[from as PaymentStatus]?.includes(to as PaymentStatus) ?? false);

export interface PaymentTiming {
  /** Attempt timeout of one gateway call. */
  gatewayAttemptTimeout: Duration;
  /** How long to wait for the IPN before asking api/query; doubles after each query. */
  ipnTimeout: Duration;
  /** Longest wait between two queries. */
  maxQueryInterval: Duration;
  /** After this, a payment the customer never completed ends as expired. */
  resultWait: Duration;
  /**
   * How long an authorized payment (autoCapture false) waits for a capture or cancel: the gateway's
   * hold (gateway/ AUTHORIZATION_HOLD_MS). Absent in workflows started before capture existed.
   */
  authorizationHold?: Duration;
}

export interface PaymentInput {
  paymentId: string;
  requestType: PaymentRequestType;
  autoCapture: boolean;
  /** POS only: the scanned code, sent RSA-encrypted by the gateway client; never stored in a table. */
  paymentCode?: string;
  timing: PaymentTiming;
  /**
   * Benchmark comparison only (STEPS_AS_QUEUED_ACTIVITIES): the create and the result's write run as queued
   * activities, the design before they ran in the workflow task that decides them. Absent in production.
   */
  queuedSteps?: true;
  /**
   * The payment desk made the create and held the payment while it waited (docs/payments.md, "The payment
   * desk"): the workflow starts at the wait for the result, from the status the record had. Absent otherwise.
   */
  answered?: 'awaiting_customer' | 'pending';
}

/** What a notification (or api/query, or a POS answer) says about the payment. */
export interface PaymentNotice {
  resultCode: number;
  message: string;
  transId?: string;
  payType?: string;
  paymentOption?: string;
  promotions?: unknown[];
  cardPaymentInfo?: Record<string, unknown>;
  source: 'create' | 'ipn' | 'query';
}

export interface PaymentResult {
  status: PaymentStatus;
  resultCode?: number;
  message?: string;
}

export const paymentResultSignal = defineSignal<[PaymentNotice]>('paymentResult');

/** An operator's decision about an authorized payment. */
export type ConfirmAction = 'capture' | 'cancel';
export interface ConfirmRequest {
  action: ConfirmAction;
  /** Who decided (the API key's name). */
  by: string;
}
/**
 * What the gateway made of a confirm, classified by the activity (no result-code numbers here). `unknown`:
 * the answer was lost and the query cannot tell; the payment stays authorized for another decision.
 */
export interface ConfirmOutcome {
  outcome: 'captured' | 'cancelled' | 'expired' | 'refused' | 'unknown';
  resultCode: number;
  message: string;
}
export interface ConfirmResult {
  status: PaymentStatus;
  resultCode: number;
  message: string;
}
/** Capture or cancel; refused (failure type CONFIRM_REFUSED) unless the payment is authorized and undecided. */
export const confirmPaymentUpdate = defineUpdate<ConfirmResult, [ConfirmRequest]>('confirmPayment');
export const CONFIRM_REFUSED = 'payment_not_authorized';

export const confirmedStatus: Readonly<
  Record<Exclude<ConfirmOutcome['outcome'], 'refused' | 'unknown'>, PaymentStatus>
> = {
  captured: 'succeeded',
  cancelled: 'cancelled',
  expired: 'authorization_expired',
};
export const paymentStatusQuery = defineQuery<PaymentStatus>('paymentStatus');

/**
 * Completes once the payment's record has left `created` (the gateway's answer to the create, with the
 * customer's links, or a result, is written): the create call sends it with the workflow's start
 * (update-with-start) and reads the record once afterwards, instead of reading it again and again.
 */
export const paymentAnsweredUpdate = defineUpdate<PaymentStatus, []>('paymentAnswered');

/** Pending, waiting for the customer, a customer step or connection trouble are not an outcome yet. */
export const isFinalPaymentCode = (code: number) => !isUndecided(outcomeOf(code));

/** Final status of a decided payment. */
export const decidedStatus = (resultCode: number, autoCapture: boolean): PaymentStatus =>
  outcomeOf(resultCode) !== 'succeeded' ? 'failed' : autoCapture ? 'succeeded' : 'authorized_not_captured';

const text = (value: unknown) => (value === undefined || value === null ? undefined : String(value));

/** The notification-like part of an answer (create of POS, api/query, an IPN). */
export function noticeOf(body: Record<string, unknown>, source: PaymentNotice['source']): PaymentNotice {
  const payType = text(body.payType);
  return {
    resultCode: Number(body.resultCode),
    message: String(body.message ?? ''),
    ...(body.transId !== undefined && body.transId !== null && body.transId !== 0
      ? { transId: String(body.transId) }
      : {}),
    ...(payType ? { payType } : {}),
    ...(text(body.paymentOption) ? { paymentOption: text(body.paymentOption) } : {}),
    ...(Array.isArray(body.promotionInfo) ? { promotions: body.promotionInfo as unknown[] } : {}),
    ...(body.cardPaymentInfo && typeof body.cardPaymentInfo === 'object'
      ? { cardPaymentInfo: body.cardPaymentInfo as Record<string, unknown> }
      : {}),
    source,
  };
}
