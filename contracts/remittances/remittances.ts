/**
 * What the remittance workflow shares with its callers: identities, inputs, statuses, limits, and the
 * signal and query. Pure code: the API imports it to address the workflow.
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { Duration } from '@temporalio/common';
import type { REMITTANCE_AMOUNT_RANGES } from '../../gateway/limits';
import type { ApprovalRequest } from '../approvals';

// ---- identities: every gateway id derives from the remittance, so a retry or a replay never invents a new order
export const remittanceWorkflowId = (remittanceId: string) => `remittance/${remittanceId}`;
export const remittanceQuoteWorkflowId = (quoteId: string) => `remittance-quote/${quoteId}`;
/** Gateway orderIds of one remittance: the create is the remittance id itself (IPNs name it). */
export const remittanceOrderIds = (remittanceId: string) => ({
  verify: `${remittanceId}-verify`,
  buy: `${remittanceId}-buy`,
  create: remittanceId,
});

/** The nine base currencies the spec quotes against VND. */
export const BASE_CURRENCIES = ['USD', 'EUR', 'AUD', 'CAD', 'GBP', 'JPY', 'KRW', 'TWD', 'THB'] as const;
export type BaseCurrency = (typeof BASE_CURRENCIES)[number];

export const REMITTANCE_REASONS = ['RSN01', 'RSN02', 'RSN03', 'RSN04', 'RSN05', 'RSN06'] as const;
export type RemittanceReason = (typeof REMITTANCE_REASONS)[number];

export type RemittanceRequestType = keyof typeof REMITTANCE_AMOUNT_RANGES;

/**
 * Where a remittance is. Before `buying` nothing has moved and a stop is `failed`; from the buy on,
 * VND exists for this remittance, so anything short of `succeeded` is `needs_attention`.
 */
export type RemittanceStatus =
  | 'accepted'
  | 'awaiting_approval'
  | 'quoting'
  | 'verifying_receiver'
  | 'checking_balance'
  | 'buying'
  | 'sending'
  | 'awaiting_result'
  | 'awaiting_capture'
  | 'succeeded'
  | 'failed'
  | 'needs_attention'
  | 'rejected'
  | 'expired';

export const FINAL_REMITTANCE_STATUSES: readonly RemittanceStatus[] = [
  'succeeded',
  'failed',
  'needs_attention',
  'rejected',
  'expired',
];

/**
 * Where a remittance's record may go from each status: forward only (db/ reads it). `checking_balance`
 * comes twice, for the foreign balance before the buy and the VND after it, so it may still fail (nothing
 * bought) or need attention (VND bought). A result learnt after an operator was told moves
 * `needs_attention` on to `succeeded`.
 */
const REMITTANCE_MOVES: Readonly<Record<RemittanceStatus, readonly RemittanceStatus[]>> = {
  // `failed` from `accepted`: the API could not start the workflow.
  accepted: ['quoting', 'failed'],
  // Held before any gateway step for its approvers: nothing has moved, so it ends rejected, expired or
  // (the API could not start the workflow) failed, or goes on to its first quote.
  awaiting_approval: ['quoting', 'rejected', 'expired', 'failed'],
  quoting: ['verifying_receiver', 'checking_balance', 'buying', 'failed'],
  verifying_receiver: ['checking_balance', 'failed'],
  checking_balance: ['quoting', 'buying', 'sending', 'failed', 'needs_attention'],
  buying: ['checking_balance', 'failed', 'needs_attention'],
  sending: ['awaiting_result', 'awaiting_capture', 'succeeded', 'needs_attention'],
  awaiting_result: ['succeeded', 'needs_attention'],
  awaiting_capture: ['succeeded', 'needs_attention'],
  needs_attention: ['succeeded'],
  succeeded: [],
  failed: [],
  rejected: [],
  expired: [],
};
export const canMoveRemittance = (from: string, to: string) =>
  from === to || (REMITTANCE_MOVES[from as RemittanceStatus]?.includes(to as RemittanceStatus) ?? false);

/** How the final result reached payrun. */
export type ResultSource = 'create' | 'ipn' | 'poll';

export interface RemittanceTiming {
  /** How long one attempt of a gateway call may take before Temporal retries it with the same requestId. */
  gatewayAttemptTimeout: Duration;
  /** First wait between retries of a gateway call (doubles up to 5 minutes). */
  gatewayRetryInterval: Duration;
  /** How long to wait for the result IPN before asking the gateway (api/query); doubles while pending. */
  ipnTimeout: Duration;
  /** After this long without a final result, the remittance becomes needs_attention. */
  resultGiveUpAfter: Duration;
  /** A quote older than this is fetched again before buying. */
  quoteTtl: Duration;
}

/** The waits that are not settings; `ipnTimeout` and `quoteTtl` are (platform/config.ts). */
export const DEFAULT_REMITTANCE_TIMING: Omit<RemittanceTiming, 'ipnTimeout' | 'quoteTtl'> = {
  gatewayAttemptTimeout: '2 minutes',
  gatewayRetryInterval: '2 seconds',
  resultGiveUpAfter: '3 days',
};

/** The workflow's input carries amounts and kinds only; receiver and sender details stay in PostgreSQL. */
export interface RemittanceInput {
  remittanceId: string;
  requestType: RemittanceRequestType;
  baseCurrency: BaseCurrency;
  /** Foreign amount to convert (> 1.00, two decimals at most). */
  foreignAmount: number;
  /** VND to send; absent: the whole exchangeAmount of the buy. */
  amount?: number;
  /** false: two-step (wallet only); the gateway completes it later. */
  autoCapture: boolean;
  timing: RemittanceTiming;
  /**
   * The VND the approval policy weighed (and the daily caps counted): the remittance never sends more.
   * Absent in runs started before approvals.
   */
  valuedVnd?: number;
  /** Set when the policy asks for approvers: the workflow waits for them before its first gateway step. */
  approval?: ApprovalRequest;
}

export interface RemittanceResult {
  resultCode: number;
  message?: string;
  transId?: string;
}

export interface RemittanceProgress {
  remittanceId: string;
  status: RemittanceStatus;
  rate?: number;
  quotes: number;
  exchangeAmount?: number;
  amountSent?: number;
  result?: RemittanceResult & { source: ResultSource };
}

/** The gateway's result notification for this remittance (final codes only matter). */
export const remittanceResultSignal = defineSignal<[RemittanceResult]>('remittanceResult');
export const remittanceProgressQuery = defineQuery<RemittanceProgress>('remittanceProgress');

/** exchangeAmount = amount × rate, rounded to whole VND (what the gateway's buy answers). */
export const exchangeAmountOf = (foreignAmount: number, rate: number) => Math.round(foreignAmount * rate);
