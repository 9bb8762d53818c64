import { ASSUMED_CODES } from '../gateway';

/** Result codes the sandbox answers, by situation (meanings live in gateway/result-codes.ts). */
export const CODE = {
  success: 0,
  serverConnectionError: 10,
  badFormat: 20,
  amountOutOfRange: 22,
  duplicateRequestId: 40,
  duplicateOrderId: ASSUMED_CODES.duplicateOrderId,
  invalidOrder: 42,
  unknownError: 99,
  invalidSignature: ASSUMED_CODES.invalidSignature,
  merchantBalanceInsufficient: 1100,
  invalidToken: 2001,
  invalidOrderGroupId: 2019,
  processing: 7000,
  processingAtProvider: 7002,
  batchCreated: 8003,
  insufficientFunds: ASSUMED_CODES.insufficientFunds,
  refundFailed: 1002,
  /** Not in the spec (the real gateway's "URL or QR expired"); unknown to gateway/result-codes. */
  linkExpired: 1005,
  /** Not in the spec (the real gateway's "customer declined"); unknown to gateway/result-codes. */
  customerDeclined: 1006,
  redirectCustomer: 8000,
  twoFactorRequired: 8200,
  subscriptionNotActive: ASSUMED_CODES.subscriptionNotActive,
  subscriptionPaused: ASSUMED_CODES.subscriptionPaused,
  subscriptionExpired: ASSUMED_CODES.subscriptionExpired,
  wrongSecurityCode: ASSUMED_CODES.wrongSecurityCode,
  securityCodeExpired: ASSUMED_CODES.securityCodeExpired,
  securityCodeLocked: ASSUMED_CODES.securityCodeLocked,
  securityCodeTooFrequent: ASSUMED_CODES.securityCodeTooFrequent,
  securityCodeDailyLimit: ASSUMED_CODES.securityCodeDailyLimit,
} as const;
