/**
 * What the saved-method payment workflow (paying with a saved method) shares with its callers: identity,
 * states and their transitions, inputs, and the signal, updates and query. Pure code: the API,
 * activities and db/ import it.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { Duration } from '@temporalio/common';

import type { OtpRefusal } from './otp-rules';
export type { OtpAttempt, OtpAttemptKind, OtpAttemptOutcome, OtpRefusal } from './otp-rules';
export { checkNewCode, refusalMessage } from './otp-rules';

export const savedMethodPaymentWorkflowId = (paymentId: string) => `saved-method-payment/${paymentId}`;

/**
 * starting → succeeded | failed, or on to awaiting_otp (the customer's code), awaiting_customer
 * (confirm at the provider) or pending; those end succeeded, failed or (pending) needs_attention.
 */
export type SavedMethodPaymentState =
  'starting' | 'awaiting_otp' | 'awaiting_customer' | 'pending' | 'succeeded' | 'failed' | 'needs_attention';

const TRANSITIONS: Readonly<Record<SavedMethodPaymentState, readonly SavedMethodPaymentState[]>> = {
  starting: ['awaiting_otp', 'awaiting_customer', 'pending', 'succeeded', 'failed'],
  awaiting_otp: ['pending', 'succeeded', 'failed'],
  awaiting_customer: ['succeeded', 'failed', 'needs_attention'],
  pending: ['succeeded', 'failed', 'needs_attention'],
  succeeded: [],
  failed: [],
  // An outcome learnt after an operator was told (payrun keeps asking).
  needs_attention: ['succeeded', 'failed'],
};

export const FINAL_TOKEN_PAYMENT_STATES: readonly SavedMethodPaymentState[] = [
  'succeeded',
  'failed',
  'needs_attention',
];

/** Whether a payment's record may go from `from` to `to` (records move forward only: db/ reads it). */
export const canMoveSavedMethodPayment = (from: string, to: string) =>
  from === to ||
  (TRANSITIONS[from as SavedMethodPaymentState]?.includes(to as SavedMethodPaymentState) ?? false);

/** The next state, or an error naming the forbidden move. */
export function savedMethodPaymentTransition(
  from: SavedMethodPaymentState,
  to: SavedMethodPaymentState,
): SavedMethodPaymentState {
  if (from !== to && !TRANSITIONS[from].includes(to))
    throw new Error(`A saved-method payment cannot go from ${from} to ${to}`);
  return to;
}

export interface SavedMethodPaymentTiming {
  gatewayAttemptTimeout: Duration;
  /** Wait for the IPN before asking api/query, and between queries. */
  resultWait: Duration;
  /** After this long without a final result: the customer did not confirm (redirect), or an operator looks (pending). */
  giveUpAfter: Duration;
}

export interface SavedMethodPaymentInput {
  paymentId: string;
  /** The user (partnerClientId without the n<NNN>_ wallet prefix): the OTP rules are per user. */
  partnerClientId: string;
  timing: SavedMethodPaymentTiming;
}

export interface SavedMethodPaymentSnapshot {
  state: SavedMethodPaymentState;
  resultCode?: number;
  message?: string;
  /** Charges are held (the hold switch): nothing was sent; it goes on when the hold is released. */
  held?: boolean;
}

export interface OtpVerdict {
  state: SavedMethodPaymentState;
  resultCode?: number;
  message?: string;
}

export interface SavedMethodPaymentNotice {
  resultCode: number;
  message: string;
  transId?: string;
}

export const savedMethodPaymentResultSignal = defineSignal<[SavedMethodPaymentNotice]>('tokenPaymentResult');
/** Answers once the first gateway answer is known (so the API can hand over payUrl/deeplink or ask for the code). */
export const savedMethodPaymentStartedUpdate = defineUpdate<SavedMethodPaymentSnapshot, []>(
  'tokenPaymentStarted',
);
/** The failure types of a refused submitOtp: catalogue codes the API answers as they are. */
export const OTP_FAILURE = {
  /** Not 4 to 8 digits: nothing was sent. */
  invalid: 'otp_invalid',
  /** The payment waits for no code (any more). */
  notAwaited: 'otp_not_awaited',
  /** Wrong; details.attemptsLeft says how many tries remain today. */
  wrong: 'otp_wrong',
  /** Five wrong codes today; details.until says when the lock ends. */
  locked: 'otp_locked',
  /** The code is older than its lifetime. */
  expired: 'otp_expired',
  /** Sent too soon after the previous code; details.retryAfterMs. */
  tooSoon: 'otp_too_soon',
  /** The day's SMS limit is used up. */
  smsLimit: 'otp_sms_limit',
  /** Any other gateway answer; details.resultCode. */
  failed: 'otp_failed',
} as const;
export type OtpFailureType = (typeof OTP_FAILURE)[keyof typeof OTP_FAILURE];

/** The failure type of each refusal the code rules make (otp-rules.ts). */
export const OTP_REFUSAL_TYPE: Readonly<Record<OtpRefusal['reason'], OtpFailureType>> = {
  otp_too_soon: OTP_FAILURE.tooSoon,
  otp_expired: OTP_FAILURE.expired,
  otp_locked: OTP_FAILURE.locked,
  otp_sms_limit: OTP_FAILURE.smsLimit,
};

/** The customer's code; a refusal fails the update with one of OTP_FAILURE's types. */
export const submitOtpUpdate = defineUpdate<OtpVerdict, [{ code: string }]>('submitOtp');
export const savedMethodPaymentStateQuery = defineQuery<SavedMethodPaymentState>('tokenPaymentState');
