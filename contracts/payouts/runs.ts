/**
 * What the payout workflows share with their callers: identities, inputs, statuses, and the
 * signals, updates and queries. Pure code: the API imports it to address the workflows.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { Duration } from '@temporalio/common';
import type { DecisionProof, RefusedDecision } from '../shared/decision-proof';

// ---- identities: every id derives from the run, so a retry or a replay can never invent a new order
export const payoutRunWorkflowId = (runId: string) => `payout-run/${runId}`;
export const payoutBatchWorkflowId = (batchId: string) => `payout-batch/${batchId}`;
/** One read of the merchant's disbursement balance for the forecast: a fresh id each time, as a balance is read, not made. */
export const merchantBalanceWorkflowId = (readId: string) => `merchant-balance/${readId}`;
/** The batch's gateway orderId is the batch id itself: `<runId>-b001`. */
export const payoutBatchId = (runId: string, seq: number) => `${runId}-b${String(seq).padStart(3, '0')}`;

export type ItemState =
  'QUEUED' | 'ELIGIBLE' | 'INELIGIBLE' | 'SUCCEEDED' | 'FAILED' | 'PENDING' | 'CANCELLED';

export type RunStatus =
  /** A retry of failed rows being edited (docs/payout-runs.md): no workflow yet, nothing can be paid. */
  | 'draft'
  | 'awaiting_approval'
  | 'scheduled'
  | 'cancelled'
  | 'rejected'
  | 'expired'
  | 'running'
  | 'awaiting_funds'
  | 'reconciled'
  | 'needs_attention'
  /**
   * A schedule's occurrence over a daily cap of the approval policy (docs/payout-runs.md): recorded so the
   * month's salaries are not silently missing, never started, never paid.
   */
  | 'refused';

/**
 * Where a run's record may go from each status: forward only (db/ reads it); awaiting funds and back. A later
 * status may come before an earlier one (the decision's own write, delayed by a worker's death, can land after
 * the reconciliation): the later one is kept and the earlier one refused.
 */
const RUN_MOVES: Readonly<Record<RunStatus, readonly RunStatus[]>> = {
  // Submitted (then it waits for approval like any run), or discarded (expired: its payout ids are released).
  draft: ['awaiting_approval', 'expired'],
  awaiting_approval: [
    'scheduled',
    'running',
    'awaiting_funds',
    'reconciled',
    'needs_attention',
    'rejected',
    'expired',
  ],
  // Approved to pay at a time: it pays from then (running…), or is cancelled and never pays.
  scheduled: ['running', 'awaiting_funds', 'reconciled', 'needs_attention', 'cancelled'],
  running: ['awaiting_funds', 'reconciled', 'needs_attention'],
  awaiting_funds: ['running', 'reconciled', 'needs_attention'],
  reconciled: [],
  needs_attention: [],
  rejected: [],
  expired: [],
  cancelled: [],
  refused: [],
};
export const canMoveRun = (from: string, to: string) =>
  from === to || (RUN_MOVES[from as RunStatus]?.includes(to as RunStatus) ?? false);

export type BatchStatus =
  | 'queued'
  | 'initiating'
  | 'creating'
  | 'validating'
  | 'checking_balance'
  | 'awaiting_funds'
  | 'paying'
  | 'awaiting_result'
  | 'settling'
  | 'completed'
  | 'needs_attention'
  | 'failed';

/**
 * After its first wait for a notification (`ipnTimeout`), a batch asks the gateway again after twice as
 * long each time, at most 30 minutes apart (contracts/shared/backoff.ts). Not a setting: the waits are in
 * every stored batch history.
 */
export const BATCH_ASK_GROWTH = { growth: 2, maxWait: '30 minutes' } as const satisfies {
  growth: number;
  maxWait: Duration;
};

export interface PayoutTiming {
  /**
   * How long one attempt of a gateway call may take before Temporal retries it (with the same
   * requestId); also how long a page-by-page sync may go without a heartbeat. After a worker crash,
   * the lost attempt is retried once this passes.
   */
  gatewayAttemptTimeout: Duration;
  /** How long to wait for a gateway notification before asking with batch/query. */
  ipnTimeout: Duration;
  /** First wait before re-checking PENDING items; doubles up to `pendingMaxInterval`. */
  pendingFirstCheck: Duration;
  pendingMaxInterval: Duration;
  /** After this long with items still PENDING, the batch ends as needs_attention. */
  pendingGiveUpAfter: Duration;
}

/** The waits that are not settings; `gatewayAttemptTimeout` and `ipnTimeout` are (platform/config.ts). */
export const DEFAULT_PAYOUT_TIMING: Omit<PayoutTiming, 'gatewayAttemptTimeout' | 'ipnTimeout'> = {
  pendingFirstCheck: '1 minute',
  pendingMaxInterval: '1 hour',
  pendingGiveUpAfter: '3 days',
};

export interface Actor {
  keyId: string;
  name: string;
}

export interface PayoutBatchInput {
  runId: string;
  batchId: string;
  itemCount: number;
  totalAmount: number;
  timing: PayoutTiming;
}

export interface PayoutRunInput {
  runId: string;
  batches: Array<{ batchId: string; itemCount: number; totalAmount: number }>;
  uploadedBy: Actor;
  /** ISO time after which an undecided run expires. */
  approvalDeadline: string;
  parallelBatches: number;
  timing: PayoutTiming;
  /**
   * Distinct people other than the uploader who must approve, from the approval policy's payout-run band
   * when the run was uploaded. Absent in runs started before payout runs were under the policy: 1.
   */
  approvers?: number;
  /**
   * How long before a scheduled run's time it checks its receivers and the merchant balance (a warning, never a
   * cancellation). Absent in runs started before scheduling existed: `DEFAULT_SCHEDULE_CHECK_AHEAD`.
   */
  scheduleCheckAhead?: Duration;
}

/** PAYOUT_SCHEDULE_CHECK_AHEAD's default (platform/config.ts). */
export const DEFAULT_SCHEDULE_CHECK_AHEAD: Duration = '24h';

/** The furthest ahead a run may be scheduled: a year and a few days, so "same day next year" fits. */
export const MAX_SCHEDULE_AHEAD_DAYS = 370;

/**
 * The action a decision proof signs for an approval: with a time to pay at, the time is part of what is signed,
 * so nobody between the API and the workflow can move an approved run's payment to another day.
 */
export const approvalAction = (executeAt?: string) =>
  executeAt === undefined ? 'approve' : `approve@${executeAt}`;

/** The approvers a run waits for: its input's, or 1 for a run started before the input carried it. */
export const approversOf = (input: Pick<PayoutRunInput, 'approvers'>) => input.approvers ?? 1;

export interface StateTotals {
  count: number;
  amount: number;
}

export type StateCounts = Partial<Record<ItemState, StateTotals>>;

/** The gateway's own totals for a batch, as its query reports them. */
export interface GatewayBatchTotals {
  totalUploadedCount: number;
  totalUploadedAmount: number;
  totalSucceedCount: number;
  totalSucceedAmount: number;
  totalErrorCount: number;
  totalErrorAmount: number;
  totalPendingCount: number;
  totalPendingAmount: number;
}

export interface PayoutBatchResult {
  batchId: string;
  status: BatchStatus;
  counts: StateCounts;
  gatewayTotals?: GatewayBatchTotals;
}

export interface BatchNotice {
  stage: 'created' | 'paid';
  resultCode: number;
}

export interface Decision {
  decision: 'approve' | 'reject';
  by: Actor;
  note?: string;
  /**
   * An approval may name when the run pays (ISO 8601, normalised to UTC by the API); the approval that lets
   * the run start decides, and without one it pays at once. Signed with the decision (`approvalAction`).
   */
  executeAt?: string;
  /** The API's signature over this decision; without a valid one the run refuses it (contracts/shared/decision-proof.ts). */
  proof?: DecisionProof;
}

/** Cancel a scheduled run before it starts; signed like a decision (action `cancel`). */
export interface CancelRequest {
  by: Actor;
  note?: string;
  proof?: DecisionProof;
}

export interface RunProgress {
  runId: string;
  status: RunStatus;
  decidedBy?: Actor;
  /** The approvals admitted so far, in order, and how many the run needs ("approvals: 1 of 2"). */
  approvedBy: Actor[];
  approversRequired: number;
  batchesDone: number;
  batchCount: number;
  /** When a scheduled run pays (ISO, UTC). */
  executeAt?: string;
  /** Decisions refused for their proof (forged, replayed, for another run): who they claimed to be, and why. */
  refusedDecisions?: RefusedDecision[];
}

/** The gateway reported a batch stage (8003 created, or the payment result). */
export const batchNotificationSignal = defineSignal<[BatchNotice]>('batchNotification');
/**
 * The operator topped up the merchant balance: try paying again. A money decision, so it carries the API's
 * proof (contracts/shared/decision-proof.ts), made for the run's workflow; the run passes it on to its
 * batches, which check it against their parent run.
 */
export const resumeSignal = defineSignal<[{ by: Actor; proof?: unknown }]>('resume');
export const batchStatusQuery = defineQuery<BatchStatus>('batchStatus');

/** Approve or reject; answers the caller with the run's new status, or refuses (maker ≠ checker). */
export const decideUpdate = defineUpdate<RunStatus, [Decision]>('decide');
export const runProgressQuery = defineQuery<RunProgress>('progress');
/** Cancel a scheduled run; answers `cancelled`, or refuses once the run has started (or was never scheduled). */
export const cancelScheduledUpdate = defineUpdate<RunStatus, [CancelRequest]>('cancelScheduled');
