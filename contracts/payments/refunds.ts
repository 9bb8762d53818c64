/**
 * What the refund workflow shares with its callers: identity, statuses and their transitions, input
 * and outcome. Pure code: the API, activities and db/ import it.
 */
import type { Duration } from '@temporalio/common';
import { defineUpdate } from '@temporalio/workflow';
import type { ApprovalRequest } from '../approvals';

export const refundWorkflowId = (refundId: string) => `refund/${refundId}`;

/**
 * [awaiting_approval →] created → pending → succeeded | failed | needs_attention (not known when an operator is
 * told; payrun keeps asking, and an outcome learnt then moves it on to succeeded or failed). A refund the
 * approval policy holds for approvers ends rejected or expired, nothing sent, when they do not approve.
 */
export type RefundStatus =
  | 'awaiting_approval'
  | 'created'
  | 'pending'
  | 'succeeded'
  | 'failed'
  | 'needs_attention'
  | 'rejected'
  | 'expired';
export type RefundItemStatus = 'pending' | 'succeeded' | 'failed';

const TRANSITIONS: Readonly<Record<RefundStatus, readonly RefundStatus[]>> = {
  awaiting_approval: ['pending', 'succeeded', 'failed', 'rejected', 'expired'],
  created: ['pending', 'succeeded', 'failed'],
  pending: ['succeeded', 'failed', 'needs_attention'],
  succeeded: [],
  failed: [],
  // An outcome learnt after an operator was told (payrun keeps asking).
  needs_attention: ['succeeded', 'failed'],
  rejected: [],
  expired: [],
};

/** Statuses that end a refund; the amount of one that moved no money is refundable again. */
export const FINAL_REFUND_STATUSES: readonly RefundStatus[] = ['succeeded', 'failed', 'rejected', 'expired'];

/** The next status, or an error naming the forbidden move. */
export function refundTransition(from: RefundStatus, to: RefundStatus): RefundStatus {
  if (from !== to && !TRANSITIONS[from].includes(to))
    throw new Error(`A refund cannot go from ${from} to ${to}`);
  return to;
}

export interface RefundTiming {
  gatewayAttemptTimeout: Duration;
  /** First wait before api/refund/query when the refund (or one of its items) is pending; doubles. */
  firstCheck: Duration;
  maxInterval: Duration;
  /** Still pending after this: an operator looks at it. */
  giveUpAfter: Duration;
}

export interface RefundInput {
  refundId: string;
  timing: RefundTiming;
  /** Present when the approval policy asks for approvers: nothing is sent until they approve. */
  approval?: ApprovalRequest;
}

export interface RefundOutcome {
  status: RefundStatus;
  resultCode?: number;
  message?: string;
}

/**
 * Completes once the refund's record holds the gateway's first answer (or the approvers' refusal): the
 * refund call sends it with the workflow's start (update-with-start) and reads the record once
 * afterwards, instead of reading it every 50 ms.
 */
export const refundAnsweredUpdate = defineUpdate<void, []>('refundAnswered');
