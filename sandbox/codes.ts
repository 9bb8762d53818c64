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
} as const;
