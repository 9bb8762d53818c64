/**
 * The saved-method activities as the workflows call them: their names are the activity types recorded in
 * every history, so none is ever renamed. Inputs carry ids only: the token never enters a workflow.
 */
import type { BindingLinks, BindingStatus } from './bindings';
import type { OtpAttempt, OtpAttemptOutcome } from './otp-rules';
import type { SavedMethodPaymentState } from './payments';

/** The gateway's final refusal of a call, with its words. */
export interface SavedMethodRefusal {
  ok: false;
  resultCode: number;
  message: string;
}

export type BindingCreation = { ok: true; links: BindingLinks } | SavedMethodRefusal;

export interface BindingCallbackAnswer {
  resultCode: number;
  message: string;
  /** Set when the answer proves nothing about this binding (a refused query, another order's answer). */
  known?: false;
}

export type BindingTokenExchange = { ok: true; methodId: string } | SavedMethodRefusal;

export interface BindingRecord {
  bindingId: string;
  status: BindingStatus;
  resultCode?: number;
  message?: string;
}

export interface SavedMethodDeletionResult {
  status: 'deleted';
  resultCode: number;
  message: string;
}

/** What the first tokenization/pay said: paid, refused, a code was sent, the customer confirms, or wait. */
export interface TokenPaymentAnswer {
  outcome: 'succeeded' | 'failed' | 'otp' | 'redirect' | 'pending';
  resultCode: number;
  message: string;
  transId?: string;
}

export interface OtpVerification {
  attemptOutcome: OtpAttemptOutcome;
  resultCode: number;
  message: string;
  transId?: string;
}

/** `final` only with evidence: an answer naming this payment with its amount and transaction. */
export interface TokenPaymentQueryAnswer {
  final: boolean;
  resultCode: number;
  message: string;
  transId?: string;
}

export interface TokenPaymentRecord {
  paymentId: string;
  state: SavedMethodPaymentState;
  resultCode?: number;
  message?: string;
  transId?: string;
}

export interface SavedMethodActivities {
  /** The binding link (payWithCC, payWithATM or linkWallet), stored for the API to hand over. */
  createBinding(input: { bindingId: string }): Promise<BindingCreation>;
  /** tokenization/cbQuery, without handing the callbackToken to the workflow. */
  queryBindingCallback(input: { bindingId: string; attempt: number }): Promise<BindingCallbackAnswer>;
  /** tokenization/bind; the token is stored sealed and only the saved method's id comes back. */
  exchangeBindingToken(input: { bindingId: string }): Promise<BindingTokenExchange>;
  recordBinding(input: BindingRecord): Promise<void>;
  deleteSavedMethodAtGateway(input: { methodId: string }): Promise<SavedMethodDeletionResult>;
  /** `releasedHold`: the hold whose release resumed this payment (contracts/holds). */
  payWithToken(input: { paymentId: string; at: number; releasedHold?: string }): Promise<TokenPaymentAnswer>;
  /** tokenization/verify with the customer's code; the attempt is recorded, never the code. */
  verifyTokenPayment(input: {
    paymentId: string;
    code: string;
    attempt: number;
    at: number;
  }): Promise<OtpVerification>;
  queryTokenPayment(input: { paymentId: string; attempt: number }): Promise<TokenPaymentQueryAnswer>;
  recordTokenPayment(input: TokenPaymentRecord): Promise<void>;
  otpAttemptsToday(input: { partnerClientId: string; now: number }): Promise<OtpAttempt[]>;
}
