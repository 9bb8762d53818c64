import { isOperationName, operationSpec, type OperationName } from './operations';
import type { NotificationKind, ResultAction } from './operations/types';

export type { ResultAction };

/**
 * Every result code of the spec plus the ones a real integration meets that the spec leaves out
 * (`source: 'assumption'`, listed in README "Assumptions"). `final` follows the spec's Final column:
 * true when the outcome of the order will not change. `action` is what payrun does next.
 */
export interface ResultCodeInfo {
  readonly code: number;
  readonly meaning: string;
  readonly final: boolean;
  readonly action: ResultAction;
  readonly source: 'spec' | 'assumption';
}

export interface Classification {
  readonly code: number;
  readonly meaning: string;
  readonly final: boolean;
  readonly action: ResultAction;
  readonly known: boolean;
}

const spec = (code: number, meaning: string, final: boolean, action: ResultAction): ResultCodeInfo => ({
  code,
  meaning,
  final,
  action,
  source: 'spec',
});
const assumed = (code: number, meaning: string, final: boolean, action: ResultAction): ResultCodeInfo => ({
  code,
  meaning,
  final,
  action,
  source: 'assumption',
});

export const RESULT_CODES: readonly ResultCodeInfo[] = [
  spec(0, 'Successful', true, 'success'),
  spec(10, 'Server connection error (maintenance)', false, 'retry-later'),
  // 20 and 22: the order was not created, so nothing is final on the gateway side, but re-sending the
  // same content cannot succeed: the request must be corrected by a person or a fix.
  spec(20, 'Bad format request', false, 'final-failure'),
  spec(22, 'Amount out of range', false, 'final-failure'),
  // Decision 2 of DESIGN.md: a duplicate means "already submitted" — find out by query or IPN.
  spec(40, 'Duplicated requestId', false, 'resolve-by-query'),
  assumed(41, 'Duplicated orderId', false, 'resolve-by-query'),
  spec(42, 'Invalid orderId or orderId not found', false, 'final-failure'),
  spec(99, 'Unknown error', true, 'final-failure'),
  assumed(1001, 'Insufficient funds in the customer account', true, 'final-failure'),
  spec(
    1002,
    'Refund failed (meaning not given by the spec; the real gateway: rejected by the instrument issuer)',
    true,
    'final-failure',
  ),
  assumed(1000, 'Waiting for the customer to confirm the payment', false, 'wait-for-ipn'),
  assumed(1005, 'Payment link or QR expired before the customer paid', true, 'final-failure'),
  assumed(1006, 'The customer declined the payment', true, 'final-failure'),
  assumed(
    1017,
    'The authorization was cancelled by the merchant; nothing was captured',
    true,
    'final-failure',
  ),
  assumed(
    1018,
    'The authorization hold expired before a capture; the held amount went back to the customer',
    true,
    'final-failure',
  ),
  spec(1007, 'Inactive or nonexistent user account', true, 'final-failure'),
  spec(1008, "Amount exceeds the user's receiving limit", true, 'final-failure'),
  spec(1100, 'Merchant balance insufficient', true, 'final-failure'),
  spec(1507, 'Bank card/account not found or bank code unknown', true, 'final-failure'),
  spec(2001, 'Invalid token (does not exist or deleted)', true, 'final-failure'),
  spec(2019, 'Invalid orderGroupId', true, 'final-failure'),
  assumed(2100, 'Subscription not active (cancelled or unknown)', true, 'final-failure'),
  assumed(2101, 'Subscription paused', true, 'final-failure'),
  assumed(2102, 'Subscription expired (on or after expiryDate)', true, 'final-failure'),
  spec(4001, 'User account restricted', true, 'final-failure'),
  spec(4002, 'User account not verified by the C06 identity check', true, 'final-failure'),
  spec(4003, 'Receiver account info invalid', true, 'final-failure'),
  spec(7000, 'Transaction being processed', false, 'wait-for-ipn'),
  spec(7002, 'Being processed by the payment instrument provider', false, 'wait-for-ipn'),
  spec(
    8000,
    'Token payment needs validation at the provider: redirect the customer',
    false,
    'redirect-customer',
  ),
  spec(8003, 'Batch disbursement creation succeeded', false, 'batch-created'),
  spec(8200, 'Waiting for two-factor confirmation', false, 'ask-for-otp'),
  assumed(8201, 'Wrong security code; the user may try again', false, 'ask-for-otp'),
  assumed(8202, 'Security code expired (5 minutes)', true, 'final-failure'),
  assumed(8203, 'Security code locked after 5 wrong confirmations until the next day', true, 'final-failure'),
  assumed(8204, 'Security code requested too often (3 seconds spacing)', false, 'retry-later'),
  assumed(8205, 'Daily security-code SMS limit reached', true, 'final-failure'),
  assumed(13, 'Merchant authentication failed (invalid signature or keys)', true, 'final-failure'),
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

export function resultCodeInfo(code: number): ResultCodeInfo | undefined {
  return BY_CODE.get(code);
}

/**
 * What to do with `resultCode` returned by `source` (an operation's response, or a notification).
 * Unknown codes are final failures: acting on a guess could move money twice.
 */
export function classifyResult(source: OperationName | NotificationKind, resultCode: number): Classification {
  const info = BY_CODE.get(resultCode);
  const base: Classification = info
    ? { code: resultCode, meaning: info.meaning, final: info.final, action: info.action, known: true }
    : {
        code: resultCode,
        meaning: 'Unknown result code',
        final: true,
        action: 'final-failure',
        known: false,
      };
  if (!isOperationName(source)) return base;
  const operation = operationSpec(source);
  const override = operation.results?.[resultCode];
  // A create's 0 means "the order exists"; the money outcome comes later (customer, IPN).
  const successAction =
    resultCode === 0 && operation.successAction && operation.successAction !== 'success'
      ? { action: operation.successAction, final: false, meaning: 'Accepted; outcome follows' }
      : {};
  return {
    ...base,
    ...successAction,
    ...(override?.final === undefined ? {} : { final: override.final }),
    ...(override?.action === undefined ? {} : { action: override.action }),
    ...(override?.note === undefined ? {} : { meaning: override.note }),
  };
}
