/**
 * What the disbursement workflow shares with its callers: identity, statuses and their transitions,
 * input and result, the signal and the query. Pure code: the API, activities and db/ import it.
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { Duration } from '@temporalio/common';
import type { ApprovalRequest } from '../approvals';

export const disbursementWorkflowId = (disbursementId: string) => `disbursement/${disbursementId}`;

/**
 * [awaiting_approval →] checking_wallet → checking_balance → paying → pending → succeeded | failed |
 * needs_attention; an outcome learnt after an operator was told (payrun keeps asking) moves needs_attention
 * on to succeeded or failed. One the approval policy holds for approvers waits first, and ends rejected or
 * expired, nothing paid, when they do not approve.
 */
export type DisbursementStatus =
  | 'awaiting_approval'
  | 'checking_wallet'
  | 'checking_balance'
  | 'paying'
  | 'pending'
  | 'succeeded'
  | 'failed'
  | 'needs_attention'
  | 'rejected'
  | 'expired';

const TRANSITIONS: Readonly<Record<DisbursementStatus, readonly DisbursementStatus[]>> = {
  awaiting_approval: ['checking_wallet', 'paying', 'rejected', 'expired'],
  checking_wallet: ['checking_balance', 'failed'],
  checking_balance: ['paying', 'failed'],
  paying: ['pending', 'succeeded', 'failed'],
  pending: ['succeeded', 'failed', 'needs_attention'],
  succeeded: [],
  failed: [],
  needs_attention: ['succeeded', 'failed'],
  rejected: [],
  expired: [],
};

/** A status nothing follows (a record's `queued` is before any): the workflow returns once it records one. */
export const isFinalDisbursementStatus = (status: DisbursementStatus | 'queued'): boolean =>
  status !== 'queued' && TRANSITIONS[status]?.length === 0;

/** The next status, or an error naming the forbidden move. */
export function disbursementTransition(from: DisbursementStatus, to: DisbursementStatus): DisbursementStatus {
  if (from !== to && !TRANSITIONS[from].includes(to))
    throw new Error(`A disbursement cannot go from ${from} to ${to}`);
  return to;
}

/**
 * The statuses a record may reach `to` from: the transition table, and the API's `queued` before a first
 * step. A write that is not one of these moves (an activity attempt running again after an earlier
 * attempt recorded the answer) would take the record back, so it is not made.
 */
export function statusesBefore(to: DisbursementStatus): Array<DisbursementStatus | 'queued'> {
  const before = (Object.keys(TRANSITIONS) as DisbursementStatus[]).filter((from) =>
    TRANSITIONS[from].includes(to),
  );
  return to === 'checking_wallet' || to === 'paying' ? ['queued', ...before] : before;
}

/** Whether a record may go from `from` to `to` (records move forward only: db/ reads it). */
export const canMoveDisbursement = (from: string, to: string) =>
  from === to || statusesBefore(to as DisbursementStatus).includes(from as DisbursementStatus);

export type DisbursementReceiver =
  | { kind: 'wallet'; walletId: string; walletName: string; personalId: string | null }
  | {
      kind: 'bank';
      bankAccountNo?: string;
      bankCardNo?: string;
      bankAccountHolderName: string;
      bankCode: string;
    };

export interface DisbursementInput {
  disbursementId: string;
  amount: number;
  description: string;
  receiver: DisbursementReceiver;
  /** Attempt timeout of one gateway call (see PayoutTiming.gatewayAttemptTimeout). */
  gatewayAttemptTimeout: Duration;
  /** How long to wait for the final result of a pending payout before asking an operator. */
  resultWait: Duration;
  /**
   * How long to wait for the result notification before asking the gateway (api/query), doubling up to
   * an hour between asks. Absent in inputs of runs started before it existed: they wait for the notification.
   */
  ipnTimeout?: Duration;
  /** Present when the approval policy asks for approvers: nothing moves until they approve. */
  approval?: ApprovalRequest;
  /**
   * Set by the API when `disbursement.pay` has no rate limit (GATEWAY_RATE_LIMITS): the payout is made as a
   * local activity in the workflow task that decides it, not on pay's own queue, whose server-side limit
   * it would bypass. Absent in runs started before it existed, and whenever a limit is set.
   */
  disburseInWorkflowTask?: true;
}

export interface DisbursementResult {
  status: DisbursementStatus;
  resultCode?: number;
  message?: string;
}

export interface DisbursementNotice {
  resultCode: number;
  message: string;
  transId?: string;
}

export const disbursementResultSignal = defineSignal<[DisbursementNotice]>('disbursementResult');
export const disbursementStatusQuery = defineQuery<DisbursementStatus>('disbursementStatus');
