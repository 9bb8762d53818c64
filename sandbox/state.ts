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

/** Documents 1 and 2: a payment the customer makes (one-time, POS, terminal, token, subscription charge). */
export type PaymentStatus = 'awaiting-customer' | 'pending' | 'succeeded' | 'failed' | 'expired';

/** How the customer paid; decides refund limits and which terminal payments settle. */
export type PaymentMethod =
  'wallet' | 'credit' | 'domestic' | 'pay-later' | 'platform' | 'terminal-card' | 'terminal-qr';

export interface Payment {
  orderId: string;
  requestId: string;
  operation: OperationName;
  /** The IPN kind of this payment; absent where the spec shows none (subscription charges). */
  notification?: 'payment.resultA' | 'payment.resultB';
  amount: number;
  orderInfo: string;
  extraData: string;
  ipnUrl?: string;
  redirectUrl?: string;
  partnerClientId?: string;
  storeId?: string;
  serialNumber?: string;
  status: PaymentStatus;
  /** What api/query answers now: 7000 while waiting for the customer, 8200/8000 for token steps. */
  resultCode: number;
  message?: string;
  transId?: number;
  payType: string;
  method: PaymentMethod;
  /** Paid with a saved token (refunds of tokenization payments are capped at 30 000 000). */
  viaToken: boolean;
  /** Token payments: the token charged (tokenization/verify must send the same one). */
  tokenValue?: string;
  /** Binding / subscription flows: carried by the list-B notification. */
  callbackToken?: string;
  promotionInfo: Record<string, unknown>[];
  cardPaymentInfo?: { cardType: string; cardNumber: string };
  paymentOption?: string;
  /** Terminal card payments: settled by card/settle (then no longer refundable through the API). */
  settled?: boolean;
  refunds: Refund[];
  createdAt: number;
  lastUpdated: number;
  ledgerEntry?: LedgerEntry;
  /** Sent with `autoCapture: false`: a success only authorizes; confirm captures or cancels. */
  autoCapture: boolean;
  hold?: CaptureHold;
}

/** The hold of an uncaptured payment: money reserved from the customer, not yet the merchant's. */
export interface CaptureHold {
  status: 'held' | 'captured' | 'cancelled' | 'expired';
  expiresAt: number;
  /** The confirm request that decided it. */
  confirmRequestId?: string;
}

export type RefundStatus = 'succeeded' | 'pending' | 'failed';

export interface RefundItem {
  itemId: string;
  amount: number;
  refundTransId?: number;
  resultCode: number;
  status: RefundStatus;
  ledgerEntry?: LedgerEntry;
}

export interface Refund {
  orderId: string;
  requestId: string;
  payment: Payment;
  amount: number;
  transId?: number;
  resultCode: number;
  status: RefundStatus;
  description?: string;
  /** Per-item refunds (transGroup); empty for a plain refund. */
  items: RefundItem[];
  createdAt: number;
  ledgerEntry?: LedgerEntry;
}

export type TokenFlow = 'card' | 'domestic' | 'wallet';

/** A saved card or bound wallet (document 2), known by its token `value`. */
export interface SavedToken {
  value: string;
  flow: TokenFlow;
  partnerClientId: string;
  /** orderId of the binding that created it (the unbind notification names it). */
  initialOrderId: string;
  status: 'active' | 'revoked';
  /** The decrypted `aesToken` payload handed to the merchant. */
  payload: Record<string, string>;
  createdAt: number;
}

export type AuthorizationKind = TokenFlow | 'subscription';

/** A binding or subscription authorization: customer approval → callbackToken → token. */
export interface Authorization {
  orderId: string;
  requestId: string;
  kind: AuthorizationKind;
  partnerClientId: string;
  status: 'awaiting-customer' | 'approved' | 'declined' | 'expired' | 'failed';
  callbackToken?: string;
  /** Created at approval; handed out (AES-encrypted) by tokenization/bind or subscription/create. */
  token?: SavedToken;
}

export type SubscriptionStatus = 'authorizing' | 'active' | 'paused' | 'cancelled' | 'not-authorized';

export interface Subscription {
  initialOrderId: string;
  partnerClientId: string;
  status: SubscriptionStatus;
  name?: string;
  type: 'FIXED' | 'VARIABLE';
  recurringAmount: number;
  frequency: string;
  expiryDate?: string;
  /** The date the sandbox holds (the sent one when within 2 days of the calculated one). */
  nextPaymentDate?: string;
  /** The date the sandbox calculated from the frequency at the last charge. */
  calculatedNextPaymentDate?: string;
  /** The date the merchant sent with the last charge, if any. */
  requestedNextPaymentDate?: string;
  lastPaymentDate?: string;
  /** Consecutive charges refused for insufficient funds; the second pauses the subscription. */
  insufficientFundsFailures: number;
  tokenValue?: string;
  userAlias: string;
  profileId: string;
  charges: string[];
}

export interface SandboxState {
  orders: Map<string, OrderRecord>;
  disbursements: Map<string, MoneyOutOrder>;
  remittances: Map<string, MoneyOutOrder>;
  batches: Map<string, Batch>;
  /** requestIds that already received the transient 10 of a "0010" receiver. */
  transientFailuresSent: Set<string>;
  payments: Map<string, Payment>;
  paymentsByTransId: Map<number, Payment>;
  refunds: Map<string, Refund>;
  /** storeId → serial numbers of its terminals, most recent last. */
  terminals: Map<string, string[]>;
  authorizations: Map<string, Authorization>;
  tokens: Map<string, SavedToken>;
  subscriptions: Map<string, Subscription>;
  /** Customer funds by user (partnerClientId without the `n<NNN>_` link prefix); absent = plenty. */
  customerFunds: Map<string, number>;
}

export function createState(): SandboxState {
  return {
    orders: new Map(),
    disbursements: new Map(),
    remittances: new Map(),
    batches: new Map(),
    transientFailuresSent: new Set(),
    payments: new Map(),
    paymentsByTransId: new Map(),
    refunds: new Map(),
    terminals: new Map(),
    authorizations: new Map(),
    tokens: new Map(),
    subscriptions: new Map(),
    customerFunds: new Map(),
  };
}
