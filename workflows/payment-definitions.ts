/** Types, signals and pure helpers of the payment workflow, shared with the API and activities. */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { Duration } from '@temporalio/common';

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
  /** autoCapture false: paid but not captured; the capture operation is not in the spec. */
  | 'authorized_not_captured'
  /** No final result within resultWait; the gateway still reported the order as waiting. */
  | 'expired';

export interface PaymentTiming {
  /** Attempt timeout of one gateway call. */
  gatewayAttemptTimeout: Duration;
  /** How long to wait for the IPN before asking api/query; doubles after each query. */
  ipnTimeout: Duration;
  /** Longest wait between two queries. */
  maxQueryInterval: Duration;
  /** After this, a payment the customer never completed ends as expired. */
  resultWait: Duration;
}

export interface PaymentInput {
  paymentId: string;
  requestType: PaymentRequestType;
  autoCapture: boolean;
  /** POS only: the scanned code, sent RSA-encrypted by the gateway client; never stored in a table. */
  paymentCode?: string;
  timing: PaymentTiming;
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
export const paymentStatusQuery = defineQuery<PaymentStatus>('paymentStatus');

/**
 * Codes that are not an outcome yet: 7000/7002 pending, 1000 waiting for the customer (real gateway),
 * 10 connection trouble, 8000/8200 customer steps. Everything else decides the payment.
 */
const NOT_FINAL = new Set([7000, 7002, 1000, 10, 8000, 8200]);
export const isFinalPaymentCode = (code: number) => !NOT_FINAL.has(code);

/** Final status of a decided payment. */
export const decidedStatus = (resultCode: number, autoCapture: boolean): PaymentStatus =>
  resultCode !== 0 ? 'failed' : autoCapture ? 'succeeded' : 'authorized_not_captured';

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
