import type { ResultAction } from './operations/types';

export type { ResultAction };

/**
 * What a result code says happened, in the words processes branch on. Workflows, activities and the
 * API compare these names, never the numbers: the numbers live in this table only.
 */
export type ResultOutcome =
  | 'succeeded'
  /** The gateway is still processing: the IPN or a query tells the end. */
  | 'pending'
  /** The instrument's provider is processing what the customer did (the money is on its way). */
  | 'provider_processing'
  /** The order exists; the customer has not acted yet. */
  | 'awaiting_customer'
  /** The customer must confirm at the provider (payUrl/deeplink). */
  | 'redirect_customer'
  /** The customer must type the code sent by SMS. */
  | 'otp_required'
  | 'retry_later'
  /** This requestId was sent before and is still being answered: ask again with the same one. */
  | 'duplicate_request'
  /** This orderId exists already: find its outcome by query or IPN, never send a new order. */
  | 'duplicate_order'
  | 'not_found'
  | 'invalid_request'
  | 'insufficient_funds'
  | 'merchant_balance_short'
  | 'link_expired'
  | 'declined'
  | 'authorization_cancelled'
  | 'authorization_expired'
  | 'token_invalid'
  | 'subscription_cancelled'
  | 'subscription_paused'
  | 'subscription_expired'
  | 'batch_created'
  | 'otp_wrong'
  | 'otp_expired'
  | 'otp_locked'
  | 'otp_too_soon'
  | 'otp_sms_limit'
  /** Any other final failure: the code and message say which. */
  | 'failed';

/**
 * Every result code of the spec plus the ones a real integration meets that the spec leaves out
 * (`source: 'assumption'`, listed in README "Assumptions"). `final` follows the spec's Final column:
 * true when the outcome of the order will not change. `action` is what payrun does next; `outcome`
 * is what happened, in the words callers branch on.
 */
export interface ResultCodeInfo {
  readonly code: number;
  readonly meaning: string;
  readonly final: boolean;
  readonly action: ResultAction;
  readonly outcome: ResultOutcome;
  readonly source: 'spec' | 'assumption';
}

export interface Classification {
  readonly code: number;
  readonly meaning: string;
  readonly final: boolean;
  readonly action: ResultAction;
  readonly outcome: ResultOutcome;
  readonly known: boolean;
}

const entry =
  (source: ResultCodeInfo['source']) =>
  (
    code: number,
    meaning: string,
    final: boolean,
    action: ResultAction,
    outcome: ResultOutcome,
  ): ResultCodeInfo => ({ code, meaning, final, action, outcome, source });
const spec = entry('spec');
const assumed = entry('assumption');

export const RESULT_CODES: readonly ResultCodeInfo[] = [
  spec(0, 'Successful', true, 'success', 'succeeded'),
  spec(10, 'Server connection error (maintenance)', false, 'retry-later', 'retry_later'),
  // 20 and 22: the order was not created, so nothing is final on the gateway side, but re-sending the
  // same content cannot succeed: the request must be corrected by a person or a fix.
  spec(20, 'Bad format request', false, 'final-failure', 'invalid_request'),
  spec(22, 'Amount out of range', false, 'final-failure', 'invalid_request'),
  // Decision 2 of DESIGN.md: a duplicate means "already submitted" — find out by query or IPN.
  spec(40, 'Duplicated requestId', false, 'resolve-by-query', 'duplicate_request'),
  assumed(41, 'Duplicated orderId', false, 'resolve-by-query', 'duplicate_order'),
  spec(42, 'Invalid orderId or orderId not found', false, 'final-failure', 'not_found'),
  spec(99, 'Unknown error', true, 'final-failure', 'failed'),
  assumed(1001, 'Insufficient funds in the customer account', true, 'final-failure', 'insufficient_funds'),
  spec(
    1002,
    'Refund failed (meaning not given by the spec; the real gateway: rejected by the instrument issuer)',
    true,
    'final-failure',
    'failed',
  ),
  assumed(
    1000,
    'Waiting for the customer to confirm the payment',
    false,
    'wait-for-ipn',
    'awaiting_customer',
  ),
  assumed(1005, 'Payment link or QR expired before the customer paid', true, 'final-failure', 'link_expired'),
  assumed(1006, 'The customer declined the payment', true, 'final-failure', 'declined'),
  assumed(
    1017,
    'The authorization was cancelled by the merchant; nothing was captured',
    true,
    'final-failure',
    'authorization_cancelled',
  ),
  assumed(
    1018,
    'The authorization hold expired before a capture; the held amount went back to the customer',
    true,
    'final-failure',
    'authorization_expired',
  ),
  spec(1007, 'Inactive or nonexistent user account', true, 'final-failure', 'failed'),
  spec(1008, "Amount exceeds the user's receiving limit", true, 'final-failure', 'failed'),
  spec(1100, 'Merchant balance insufficient', true, 'final-failure', 'merchant_balance_short'),
  spec(1507, 'Bank card/account not found or bank code unknown', true, 'final-failure', 'failed'),
  spec(2001, 'Invalid token (does not exist or deleted)', true, 'final-failure', 'token_invalid'),
  spec(2019, 'Invalid orderGroupId', true, 'final-failure', 'failed'),
  assumed(
    2100,
    'Subscription not active (cancelled or unknown)',
    true,
    'final-failure',
    'subscription_cancelled',
  ),
  assumed(2101, 'Subscription paused', true, 'final-failure', 'subscription_paused'),
  assumed(
    2102,
    'Subscription expired (on or after expiryDate)',
    true,
    'final-failure',
    'subscription_expired',
  ),
  spec(4001, 'User account restricted', true, 'final-failure', 'failed'),
  spec(4002, 'User account not verified by the C06 identity check', true, 'final-failure', 'failed'),
  spec(4003, 'Receiver account info invalid', true, 'final-failure', 'failed'),
  spec(7000, 'Transaction being processed', false, 'wait-for-ipn', 'pending'),
  spec(
    7002,
    'Being processed by the payment instrument provider',
    false,
    'wait-for-ipn',
    'provider_processing',
  ),
  spec(
    8000,
    'Token payment needs validation at the provider: redirect the customer',
    false,
    'redirect-customer',
    'redirect_customer',
  ),
  spec(8003, 'Batch disbursement creation succeeded', false, 'batch-created', 'batch_created'),
  spec(8200, 'Waiting for two-factor confirmation', false, 'ask-for-otp', 'otp_required'),
  assumed(8201, 'Wrong security code; the user may try again', false, 'ask-for-otp', 'otp_wrong'),
  assumed(8202, 'Security code expired (5 minutes)', true, 'final-failure', 'otp_expired'),
  assumed(
    8203,
    'Security code locked after 5 wrong confirmations until the next day',
    true,
    'final-failure',
    'otp_locked',
  ),
  assumed(
    8204,
    'Security code requested too often (3 seconds spacing)',
    false,
    'retry-later',
    'otp_too_soon',
  ),
  assumed(8205, 'Daily security-code SMS limit reached', true, 'final-failure', 'otp_sms_limit'),
  assumed(13, 'Merchant authentication failed (invalid signature or keys)', true, 'final-failure', 'failed'),
];

/** Codes chosen for situations the spec names but does not number; the sandbox uses the same. */
export const ASSUMED_CODES = {
  duplicateOrderId: 41,
  insufficientFunds: 1001,
  invalidSignature: 13,
  subscriptionNotActive: 2100,
  subscriptionPaused: 2101,
  subscriptionExpired: 2102,
  wrongSecurityCode: 8201,
  securityCodeExpired: 8202,
  securityCodeLocked: 8203,
  securityCodeTooFrequent: 8204,
  securityCodeDailyLimit: 8205,
  awaitingCustomer: 1000,
  linkExpired: 1005,
  customerDeclined: 1006,
  authorizationCancelled: 1017,
  authorizationExpired: 1018,
} as const;

const BY_CODE = new Map(RESULT_CODES.map((info) => [info.code, info]));

/** What `code` says happened. An unknown code is a failure: acting on a guess could move money twice. */
export function outcomeOf(code: number): ResultOutcome {
  return BY_CODE.get(code)?.outcome ?? 'failed';
}

/**
 * The code payrun records for an outcome it concludes itself (a link that lapsed, a code that
 * expired): the first code of the table with that outcome.
 */
export function codeOf(outcome: Exclude<ResultOutcome, 'failed'>): number {
  const info = RESULT_CODES.find((candidate) => candidate.outcome === outcome);
  if (!info) throw new Error(`No result code means ${outcome}`);
  return info.code;
}

/** Outcomes that are a step on the way, not the end: waiting for the gateway, the customer, or a retry. */
const UNDECIDED: ReadonlySet<ResultOutcome> = new Set([
  'pending',
  'provider_processing',
  'awaiting_customer',
  'redirect_customer',
  'otp_required',
  'retry_later',
]);
export const isUndecided = (outcome: ResultOutcome) => UNDECIDED.has(outcome);

/** Sent before (same requestId or same orderId): resolve by query or IPN, never by a new order. */
export const isAlreadySubmitted = (outcome: ResultOutcome) =>
  outcome === 'duplicate_request' || outcome === 'duplicate_order';

/** Still being processed, by the gateway or the provider: the outcome comes by IPN or query. */
export const isPending = (outcome: ResultOutcome) =>
  outcome === 'pending' || outcome === 'provider_processing';

export function resultCodeInfo(code: number): ResultCodeInfo | undefined {
  return BY_CODE.get(code);
}
