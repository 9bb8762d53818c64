import type { OperationName } from '../gateway';
import type { LedgerEntry } from './ledger';

/**
 * The simulated gateway's own records. In memory only: a restart (or reset()) starts afresh, which
 * is what tests, demos and benchmarks want.
 */

/** An orderId taken by an operation that creates something (disbursement pay, batch init, buy, …). */
export interface OrderRecord {
  operation: OperationName;
  requestId: string;
}

export type MoneyOutStatus = 'succeeded' | 'failed' | 'pending';

export interface MoneyOutOrder {
  orderId: string;
  requestId: string;
  amount: number;
  transId?: number;
  resultCode: number;
  status: MoneyOutStatus;
  ledgerEntry?: LedgerEntry;
}

export type BatchPhase = 'initiated' | 'validating' | 'created' | 'paying' | 'paid';
export type BatchItemState = 'INELIGIBLE' | 'ELIGIBLE' | 'SUCCEEDED' | 'FAILED' | 'PENDING';

export interface BatchItem {
  id: string;
  walletId: string;
  walletName?: string;
  amount: number;
  description?: string;
  storeId?: string;
  /** Unset while the batch is being validated. */
  state?: BatchItemState;
  resultCode?: number;
  message?: string;
  transId?: number;
  ledgerEntry?: LedgerEntry;
}

export interface Batch {
  orderId: string;
  mToken: string;
  /** The total announced by batch/init; batch/create must upload exactly this amount. */
  amount: number;
  phase: BatchPhase;
  initRequestId: string;
  ipnUrl?: string;
  createRequestId?: string;
  payRequestId?: string;
  description?: string;
  items: BatchItem[];
}

export interface SandboxState {
  orders: Map<string, OrderRecord>;
  disbursements: Map<string, MoneyOutOrder>;
  remittances: Map<string, MoneyOutOrder>;
  batches: Map<string, Batch>;
  /** requestIds that already received the transient 10 of a "0010" receiver. */
  transientFailuresSent: Set<string>;
}

export function createState(): SandboxState {
  return {
    orders: new Map(),
    disbursements: new Map(),
    remittances: new Map(),
    batches: new Map(),
    transientFailuresSent: new Set(),
  };
}
