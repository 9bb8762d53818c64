import { list, long, nullable, object, oneOf, required, text } from './fields';
import type { NotificationKind, NotificationSpec } from './types';

/**
 * Every message the gateway sends us (IPNs, the unbind call) and the one signed answer we send
 * back (card-flow acknowledgement). Incoming shapes are open: the gateway may add fields, and only
 * the signed ones matter for trust.
 */

const LIST_A = [
  'accessKey',
  'amount',
  'extraData',
  'message',
  'orderId',
  'orderInfo',
  'orderType',
  'partnerCode',
  'payType',
  'requestId',
  'responseTime',
  'resultCode',
  'transId',
] as const;

const LIST_B = [
  'accessKey',
  'amount',
  'callbackToken',
  'extraData',
  'message',
  'orderId',
  'orderInfo',
  'orderType',
  'partnerClientId',
  'partnerCode',
  'payType',
  'requestId',
  'responseTime',
  'resultCode',
  'transId',
] as const;

const MONEY_OUT_SIGNED = [
  'accessKey',
  'amount',
  'extraData',
  'message',
  'orderId',
  'orderInfo',
  'orderType',
  'partnerCode',
  'requestId',
  'responseTime',
  'resultCode',
  'transId',
] as const;

const BATCH_SIGNED = [
  'accessKey',
  'amount',
  'message',
  'orderId',
  'partnerCode',
  'requestId',
  'requestType',
  'resultCode',
] as const;

const identity = () => ({
  partnerCode: required(text()),
  orderId: required(text()),
  requestId: required(text()),
});

const paymentFields = () => ({
  ...identity(),
  amount: required(long()),
  partnerUserId: text(),
  partnerClientId: text(),
  callbackToken: text(),
  storeId: text(),
  orderInfo: text(),
  orderType: text(),
  transId: long(),
  resultCode: required(long()),
  message: text(),
  payType: text(),
  responseTime: long(),
  extraData: text(),
  paymentOption: text(),
  userFee: long(),
  promotionInfo: nullable(list(object({}, { open: true }))),
  cardPaymentInfo: object({ cardType: text(), cardNumber: text() }, { open: true }),
});

const moneyOutFields = () => ({
  ...identity(),
  amount: required(long()),
  orderInfo: text(),
  partnerUserId: text(),
  orderType: text(),
  transId: long(),
  resultCode: required(long()),
  message: text(),
  responseTime: long(),
  extraData: text(),
});

const batchCounts = {
  totalUploadedCount: long(),
  totalUploadedAmount: long(),
  totalSucceedCount: long(),
  totalSucceedAmount: long(),
  totalErrorCount: long(),
  totalErrorAmount: long(),
};

const batchFields = (info: Record<string, ReturnType<typeof long>>) => ({
  ...identity(),
  amount: required(long()),
  resultCode: required(long()),
  message: text(),
  requestType: oneOf(['batchWallet']),
  disbursementBatchInfo: object(info, { open: true }),
});

export const notificationSpecs = {
  'payment.resultA': {
    document: 1,
    summary:
      'Payment result (IPN and redirect), signed list A: wallet, pay-later, POS, delivery, terminal, platform wallets, method link',
    channel: 'ipn',
    fields: paymentFields(),
    signed: LIST_A,
    orderType: 'svc_wallet',
    acknowledgement: 'no-content',
  },
  'payment.resultB': {
    document: 1,
    summary:
      'Payment/binding result (IPN and redirect), signed list B: card payments, card and wallet binding, subscription',
    channel: 'ipn',
    fields: paymentFields(),
    signed: LIST_B,
    orderType: 'svc_wallet',
    acknowledgement: 'no-content',
  },
  'payment.cardAck': {
    document: 1,
    summary: "Merchant's signed answer to the card one-time flow IPN (HTTP 200, JSON)",
    channel: 'ack',
    fields: {
      ...identity(),
      resultCode: required(long()),
      message: text(),
      responseTime: required(text(19, { format: 'gmt7-datetime' })),
      extraData: text(),
    },
    signed: [
      'accessKey',
      'extraData',
      'message',
      'orderId',
      'partnerCode',
      'requestId',
      'responseTime',
      'resultCode',
    ],
    assumptions: [
      'responseTime is the string "YYYY-MM-DD HH:mm:ss" in GMT+7 (as described), signed as that text.',
    ],
  },
  'disbursement.result': {
    document: 3,
    summary: 'Single disbursement result',
    channel: 'ipn',
    fields: moneyOutFields(),
    signed: MONEY_OUT_SIGNED,
    orderType: 'svc_disbursement',
    acknowledgement: 'no-content',
  },
  'remittance.result': {
    document: 3,
    summary: 'Remittance order result (not shown in the spec: modelled on the disbursement notification)',
    channel: 'ipn',
    fields: moneyOutFields(),
    signed: MONEY_OUT_SIGNED,
    orderType: 'svc_remittance',
    acknowledgement: 'no-content',
    assumptions: [
      'Same fields and signed list as the single disbursement notification, orderType svc_remittance.',
    ],
  },
  'batch.created': {
    document: 3,
    summary: 'Batch creation result; 8003 means created, request the batch payment',
    channel: 'ipn',
    fields: batchFields(batchCounts),
    signed: BATCH_SIGNED,
    acknowledgement: 'no-content',
  },
  'batch.paid': {
    document: 3,
    summary: 'Batch payment result with pending totals; query the items next',
    channel: 'ipn',
    fields: batchFields({ ...batchCounts, totalPendingCount: long(), totalPendingAmount: long() }),
    signed: BATCH_SIGNED,
    acknowledgement: 'no-content',
  },
  'token.unbind': {
    document: 2,
    summary: 'The customer removed a saved card; the merchant answers 204',
    channel: 'unbind',
    fields: {
      ...identity(),
      requestType: required(oneOf(['remove'])),
      partnerClientId: required(text()),
      tokenType: required(oneOf(['credit', 'atm'])),
    },
    signed: [
      'accessKey',
      'orderId',
      'partnerClientId',
      'partnerCode',
      'requestId',
      'requestType',
      'tokenType',
    ],
    acknowledgement: 'no-content',
  },
} satisfies Record<NotificationKind, NotificationSpec>;
