/**
 * The payout activities as the workflows call them. Each method's name is the activity type recorded in
 * every stored history, so none is ever renamed; activities/payouts implements these interfaces.
 */
import type {
  DisbursementInput,
  DisbursementNotice,
  DisbursementReceiver,
  DisbursementStatus,
} from './disbursements';
import type {
  Actor,
  BatchStatus,
  GatewayBatchTotals,
  PayoutBatchResult,
  RunStatus,
  StateCounts,
  StateTotals,
} from './runs';

// ---- payout runs and their batches

export interface BatchSync {
  /** The gateway is still validating the batch (no item states yet). */
  validating: boolean;
  counts: StateCounts;
  gatewayTotals?: GatewayBatchTotals;
}

export interface Reconciliation {
  balanced: boolean;
  uploaded: StateTotals;
  accounted: StateTotals;
  byState: StateCounts;
  gateway: { count: number; amount: number; succeeded: number; succeededAmount: number };
  differences: string[];
}

/** batch/create's answer: a short merchant balance creates nothing, and the batch waits for a top-up. */
export interface BatchUpload {
  outcome: 'accepted' | 'insufficient_funds';
  amount: number;
}

export interface BatchStatusRecord {
  runId: string;
  batchId: string;
  status: BatchStatus;
  reason?: string;
  /** The gateway's code, when the gateway's refusal ended the batch. */
  resultCode?: number;
}

export interface RunStatusRecord {
  runId: string;
  status: RunStatus;
  reason?: string;
  /** With `scheduled`: when the run pays (ISO, UTC). */
  executeAt?: string;
}

/**
 * What a scheduled run's check ahead of its time found (the activity records each warning and its event once):
 * the balance against this run and every run scheduled before it, and the receivers the gateway refused.
 */
export interface ScheduledRunCheck {
  /** null: the gateway did not tell the balance; the check says so rather than guess. */
  balance: number | null;
  /** This run's total plus every other scheduled run that pays at or before it. */
  needed: number;
  fundsShort: boolean;
  receiversChecked: number;
  receiversRefused: number;
}

export interface DecisionRecord {
  runId: string;
  decision: 'approve' | 'reject';
  by: Actor;
  note?: string;
  /**
   * false: an approval that leaves the run waiting for more approvers (recorded with the run's approvals,
   * not as its decision). Absent: the decision that settles the run, as every decision before runs could
   * need two approvers.
   */
  settles?: false;
}

export interface PayoutActivities {
  /** batch init: issues the mToken batch/create needs. */
  initiateBatch(input: { batchId: string }): Promise<{ mToken: string }>;
  createBatch(input: { batchId: string; mToken: string; attempt?: number }): Promise<BatchUpload>;
  /** Every page of batch/query, each item's state recorded; `mustKnow`: an answer that tells nothing is asked again. */
  syncBatchItems(input: { batchId: string; mustKnow?: true }): Promise<BatchSync>;
  checkBalance(input: { batchId: string }): Promise<{ balance: number }>;
  /** batch/pay; each `attempt` (a new one only after a top-up or a resume) has a requestId of its own. */
  payBatch(input: {
    batchId: string;
    attempt: number;
    /** The hold whose release resumed this step (contracts/holds). */
    releasedHold?: string;
  }): Promise<{ outcome: 'accepted' | 'insufficient_funds' }>;
  recordBatchStatus(input: BatchStatusRecord): Promise<void>;
  recordRunStatus(input: RunStatusRecord): Promise<void>;
  recordDecision(input: DecisionRecord): Promise<void>;
  /** The merchant's disbursement balance now (gateway "Disbursement: merchant balance"), for the forecast. */
  readMerchantBalance(input: Record<string, never>): Promise<{ balance: number; asOf: string }>;
  /** Ahead of a scheduled run's time: receivers (wallet check) and the merchant balance; warns, never cancels. */
  checkScheduledRun(input: { runId: string }): Promise<ScheduledRunCheck>;
  /** Counts the whole run against its upload and the gateway's totals, and records the run's end. */
  reconcileRun(input: { runId: string; batches: PayoutBatchResult[] }): Promise<Reconciliation>;
}

// ---- single disbursements

export type WalletReceiver = Extract<DisbursementReceiver, { kind: 'wallet' }>;

/** The gateway's answer to a payout, as the disbursement activities tell it. */
export interface DisbursementAnswer {
  outcome: 'succeeded' | 'failed' | 'pending';
  /** Absent only when the answer read back from the record had no code. */
  resultCode?: number;
  message: string;
  transId?: string;
  /** The activity recorded the answer itself; a pay on a worker older than `records` did not. */
  recorded?: true;
}

/**
 * What api/query proves about a payout: only evidence counts (an answer naming this payout with its amount
 * and a transId, of a payout's kind); anything else is unknown, with why.
 */
export interface DisbursementQueryAnswer {
  state: 'succeeded' | 'failed' | 'pending' | 'unknown';
  notice?: DisbursementNotice;
  reason?: string;
}

export interface DisbursementStatusRecord {
  disbursementId: string;
  status: DisbursementStatus;
  resultCode?: number;
  message?: string;
  transId?: string;
}

/**
 * `records`: the activity writes the status it stands for itself (patch `disbursement-records-in-activities`);
 * without it the workflow records each step with recordDisbursement, as runs from before the patch replay.
 */
export interface DisbursementActivities {
  checkDisbursementWallet(input: {
    disbursementId: string;
    receiver: WalletReceiver;
    records?: true;
  }): Promise<{ resultCode: number; message: string }>;
  disbursementBalance(input: { disbursementId: string; records?: true }): Promise<{ balance: number }>;
  /** The whole payout in one activity (patch `disbursement-in-one-activity`), every step recorded. */
  /** `releasedHold`: the hold whose release resumed this step (contracts/holds); it no longer stops it. */
  disburse(
    input: DisbursementInput & { releasedHold?: string },
  ): Promise<DisbursementAnswer & { recorded: true }>;
  payDisbursement(
    input: DisbursementInput & { records?: true; releasedHold?: string },
  ): Promise<DisbursementAnswer>;
  queryDisbursementResult(input: { disbursementId: string }): Promise<DisbursementQueryAnswer>;
  recordDisbursement(input: DisbursementStatusRecord): Promise<void>;
}
