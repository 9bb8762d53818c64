/**
 * The activities of payments, refunds and terminal settlements, as the workflows call them. Each method
 * name is an activity type recorded in stored histories: a name never changes.
 */
import type { ConfirmAction, ConfirmOutcome, PaymentNotice, PaymentStatus } from './payments';
import type { RefundOutcome } from './refunds';
import type { TerminalSettlementInput, TerminalSettlementResult } from './terminal-settlements';

/** What api/query told about a payment; `known: false` when the answer proves nothing. */
export type QueriedPayment = PaymentNotice & { known?: false };

export interface PaymentStatusChange {
  paymentId: string;
  status: PaymentStatus;
  resultCode?: number;
  message?: string;
}

export interface ConfirmPaymentInput {
  paymentId: string;
  action: ConfirmAction;
  reason: 'operator' | 'hold-over';
  /** Which decision this is (a decision after an unknown outcome needs a requestId of its own). */
  seq?: number;
}

export interface PaymentConfirmation {
  paymentId: string;
  status: PaymentStatus;
  action: 'capture' | 'cancel' | 'expire';
  by: string;
  resultCode: number;
  message: string;
}

export interface PaymentResultRecord {
  paymentId: string;
  status: PaymentStatus;
  notice: PaymentNotice;
  /** Authorizations: until when the gateway holds the money (epoch ms). */
  holdExpiresAt?: number;
}

export interface PaymentActivities {
  /** api/create (or api/pos); a retry re-sends the same order. */
  createPayment(input: {
    paymentId: string;
    paymentCode?: string;
  }): Promise<{ status: PaymentStatus; notice?: PaymentNotice }>;
  queryPayment(input: { paymentId: string }): Promise<QueriedPayment>;
  recordPaymentStatus(input: PaymentStatusChange): Promise<void>;
  /** The gateway's confirm: capture or cancel an authorization. */
  confirmPayment(input: ConfirmPaymentInput): Promise<ConfirmOutcome>;
  recordConfirmation(input: PaymentConfirmation): Promise<void>;
  recordPaymentResult(input: PaymentResultRecord): Promise<void>;
  /** api/refund for a refund the API reserved. */
  /** `releasedHold`: the hold whose release resumed this refund (contracts/holds). */
  createRefund(input: { refundId: string; releasedHold?: string }): Promise<RefundOutcome>;
  queryRefund(input: { refundId: string }): Promise<RefundOutcome>;
  markRefundNeedsAttention(input: { refundId: string }): Promise<void>;
  /** A refund its approvers rejected, or nobody approved in time: final, its amount refundable again. */
  recordRefundNotApproved(input: { refundId: string; status: 'rejected' | 'expired' }): Promise<void>;
  /** card/settle of one terminal. */
  settleTerminal(input: TerminalSettlementInput): Promise<TerminalSettlementResult>;
}
