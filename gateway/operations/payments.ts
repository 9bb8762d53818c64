import { bool, constant, list, long, object, oneOf, required, text, encrypted } from './fields';
import { PAYMENT_AMOUNT_RANGES, type AmountRange } from '../limits';
import { amountRange, refundAmount, requires } from './rules';
import {
  deliveryInfo,
  extraData,
  items,
  lang,
  methodItem,
  orderGroupId,
  orderId,
  partnerCode,
  promotionInfo,
  requestId,
  resultFields,
  TIMEOUT,
  url,
  userInfo,
} from './shared';
import type { FieldMap, OperationSpec, Rule } from './types';

/** Document 1: one-time payments, POS, status query, refunds, card-terminal settlement. */

const CREATE_PATH = '/v2/gateway/api/create';

/**
 * How long the gateway holds an authorized, uncaptured payment (autoCapture false) before it lets
 * the authorization go. Not in the spec: 7 days, the usual hold of wallets and card schemes. After
 * it, confirm answers 1018 and the held amount is the customer's again.
 */
export const AUTHORIZATION_HOLD_MS = 7 * 24 * 60 * 60 * 1000;

/** Document 1 signs every create variant with the same list. */
export const CREATE_SIGNED = [
  'accessKey',
  'amount',
  'extraData',
  'ipnUrl',
  'orderId',
  'orderInfo',
  'partnerCode',
  'redirectUrl',
  'requestId',
  'requestType',
] as const;

const CAPTURE_WALLET_RESPONSE_SIGNED = [
  'accessKey',
  'amount',
  'message',
  'orderId',
  'partnerCode',
  'payUrl',
  'requestId',
  'responseTime',
  'resultCode',
] as const;

const createRequest = <E extends FieldMap>(
  requestType: string,
  orderIdMax: number | undefined,
  extra: E,
) => ({
  partnerCode: partnerCode(),
  partnerName: text(),
  subPartnerCode: text(50),
  storeId: text(50),
  storeName: text(),
  requestId: requestId(),
  amount: required(long()),
  orderId: orderId(orderIdMax),
  orderInfo: text(255),
  orderGroupId: orderGroupId(),
  redirectUrl: url(),
  ipnUrl: url(),
  requestType: constant(requestType),
  extraData: extraData(),
  items: items(),
  deliveryInfo: deliveryInfo(),
  userInfo: userInfo(),
  referenceId: text(200),
  autoCapture: bool(),
  lang: lang(),
  ...extra,
});

const createResponse = () => ({
  ...resultFields(),
  amount: long(),
  payUrl: text(),
  deeplink: text(),
  qrCodeUrl: text(),
  deeplinkMiniApp: text(),
  shortLink: text(),
  userFee: long(),
});

const emailRequired = requires('userInfo.email', 'for this requestType (document 1)');

interface CreateOptions<E extends FieldMap> {
  summary: string;
  range: AmountRange;
  orderIdMax?: number;
  extra: E;
  rules?: readonly Rule[];
  notification?: 'payment.resultA' | 'payment.resultB';
}

function paymentCreate<E extends FieldMap>(requestType: string, options: CreateOptions<E>) {
  return {
    document: 1,
    summary: options.summary,
    path: CREATE_PATH,
    request: createRequest(requestType, options.orderIdMax, options.extra),
    signed: CREATE_SIGNED,
    rules: [amountRange(options.range, `amount for requestType ${requestType}`), ...(options.rules ?? [])],
    timeoutMs: TIMEOUT.moneyMovement,
    response: { fields: createResponse() },
    successAction: 'redirect-customer',
    notification: options.notification ?? 'payment.resultA',
  } satisfies OperationSpec;
}

export const paymentOperations = {
  'payment.captureWallet': {
    ...paymentCreate('captureWallet', {
      summary: 'Wallet payment (web, app, QR); answers payUrl/deeplink/qrCodeUrl',
      range: PAYMENT_AMOUNT_RANGES.captureWallet,
      orderIdMax: 200,
      extra: {},
    }),
    response: { fields: createResponse(), signed: CAPTURE_WALLET_RESPONSE_SIGNED },
  },
  'payment.payWithCC': {
    ...paymentCreate('payWithCC', {
      summary: 'One-time international credit card payment',
      range: PAYMENT_AMOUNT_RANGES.payWithCC,
      extra: {},
      rules: [emailRequired],
      notification: 'payment.resultB',
    }),
    acknowledgement: 'signed-json',
  },
  'payment.payWithPlatformPayA': paymentCreate('payWithPlatformPayA', {
    summary: 'Device-platform wallet A (web merchants)',
    range: PAYMENT_AMOUNT_RANGES.payWithPlatformPayA,
    extra: {},
    rules: [emailRequired],
  }),
  'payment.payWithPlatformPayB': paymentCreate('payWithPlatformPayB', {
    summary: 'Device-platform wallet B (web merchants)',
    range: PAYMENT_AMOUNT_RANGES.payWithPlatformPayB,
    extra: {},
    rules: [emailRequired],
  }),
  'payment.onDelivery': paymentCreate('onDelivery', {
    summary: 'QR printed on the parcel, paid on delivery',
    range: PAYMENT_AMOUNT_RANGES.onDelivery,
    extra: {},
  }),
  'payment.payWithVTS': paymentCreate('payWithVTS', {
    summary: 'Pay-later payment',
    range: PAYMENT_AMOUNT_RANGES.payWithVTS,
    extra: {},
  }),
  'payment.payWithEdc': {
    ...paymentCreate('payWithEdc', {
      summary: 'Push a payment to a card/QR terminal; the result arrives by IPN',
      range: PAYMENT_AMOUNT_RANGES.payWithEdc,
      orderIdMax: 200,
      extra: {
        storeId: required(text(50)),
        serialNumber: text(),
        instrumentType: oneOf(['QR', 'CARD', '']),
      },
    }),
    successAction: 'wait-for-ipn',
  },
  'payment.payWithMethod': paymentCreate('payWithMethod', {
    summary: 'Collection link: the customer picks wallet, domestic card or international card',
    range: PAYMENT_AMOUNT_RANGES.payWithMethod,
    extra: { items: list(methodItem, 50), orderExpireTime: long(0) },
  }),
  'payment.pos': {
    document: 1,
    summary: 'Quick pay: the cashier scans the payment code shown in the customer app',
    path: '/v2/gateway/api/pos',
    request: {
      partnerCode: partnerCode(),
      storeId: text(50),
      storeName: text(),
      orderId: orderId(),
      amount: required(long()),
      requestId: requestId(),
      paymentCode: required(encrypted(text())),
      orderInfo: text(),
      orderGroupId: orderGroupId(),
      autoCapture: bool(),
      ipnUrl: url(),
      extraData: extraData(),
      items: items(),
      userInfo: userInfo(),
      lang: lang(),
    },
    signed: [
      'accessKey',
      'amount',
      'extraData',
      'orderId',
      'orderInfo',
      'partnerCode',
      'paymentCode',
      'requestId',
    ],
    rules: [amountRange(PAYMENT_AMOUNT_RANGES.pos, 'POS amount')],
    timeoutMs: TIMEOUT.moneyMovement,
    response: {
      fields: { ...resultFields(), amount: long(), transId: long(), promotionInfo: promotionInfo() },
    },
    notification: 'payment.resultA',
  },
  'payment.query': {
    document: 1,
    summary: 'Status of a payment order; resultCode is the transaction outcome',
    path: '/v2/gateway/api/query',
    request: { partnerCode: partnerCode(), requestId: requestId(), orderId: orderId(), lang: lang() },
    signed: ['accessKey', 'orderId', 'partnerCode', 'requestId'],
    timeoutMs: TIMEOUT.lookup,
    response: {
      fields: {
        ...resultFields(),
        extraData: text(),
        amount: long(),
        transId: long(),
        payType: text(),
        refundTrans: list(
          object(
            { orderId: text(), amount: long(), resultCode: long(), transId: long(), createdTime: long() },
            { open: true },
          ),
        ),
        promotionInfo: promotionInfo(),
        lastUpdated: long(),
      },
    },
  },
  'refund.create': {
    document: 1,
    summary: 'Full or partial refund of a successful purchase',
    path: '/v2/gateway/api/refund',
    request: {
      partnerCode: partnerCode(),
      orderId: orderId(),
      requestId: requestId(),
      amount: required(long()),
      transId: required(long()),
      lang: lang(),
      description: text(),
      transGroup: list(object({ itemId: text(), amount: long(), transId: long() })),
    },
    signed: ['accessKey', 'amount', 'description', 'orderId', 'partnerCode', 'requestId', 'transId'],
    rules: [refundAmount()],
    timeoutMs: TIMEOUT.moneyMovement,
    response: {
      fields: {
        ...resultFields(),
        amount: long(),
        transId: long(),
        transGroup: list(
          object({
            itemId: text(),
            amount: long(),
            refundTransId: long(),
            resultCode: long(),
            message: text(),
          }),
        ),
      },
    },
  },
  'refund.query': {
    document: 1,
    summary: 'Result of a refund (by the refund orderId)',
    path: '/v2/gateway/api/refund/query',
    request: { partnerCode: partnerCode(), requestId: requestId(), orderId: orderId(), lang: lang() },
    signed: ['accessKey', 'orderId', 'partnerCode', 'requestId'],
    timeoutMs: TIMEOUT.lookup,
    response: {
      fields: {
        ...resultFields(),
        refundTrans: list(
          object(
            { orderId: text(), amount: long(), resultCode: long(), transId: long(), createdTime: long() },
            { open: true },
          ),
        ),
        items: list(
          object(
            {
              id: text(),
              resultCode: long(),
              resultDescription: text(),
              refundCount: text(),
              refundAmount: text(),
            },
            { open: true },
          ),
        ),
      },
    },
  },
  'payment.confirm': {
    document: 1,
    summary: 'Capture or cancel a payment authorized with autoCapture false (not in the spec; assumed)',
    path: '/v2/gateway/api/confirm',
    request: {
      partnerCode: partnerCode(),
      requestId: requestId(),
      orderId: orderId(),
      requestType: required(oneOf(['capture', 'cancel'])),
      amount: required(long(1000, 50_000_000)),
      description: text(255),
      lang: lang(),
    },
    signed: ['accessKey', 'amount', 'description', 'orderId', 'partnerCode', 'requestId', 'requestType'],
    timeoutMs: TIMEOUT.moneyMovement,
    response: {
      fields: { ...resultFields(), amount: long(), transId: long(), requestType: text() },
    },
    assumptions: [
      'The operation is not in the spec: path, fields and signed list are those of the real gateway.',
      'The answer is final and carries no signature; no notification follows it.',
      'A capture must name the authorized amount (22 otherwise, as the spec says for captures).',
    ],
  },
  'card.settle': {
    document: 1,
    summary: 'Settle the card transactions of a terminal',
    path: '/v2/gateway/card/settle',
    request: {
      partnerCode: partnerCode(),
      storeId: required(text(50)),
      serialNumber: required(text()),
      requestId: requestId(),
    },
    signed: ['accessKey', 'partnerCode', 'requestId', 'serialNumber', 'storeId'],
    timeoutMs: TIMEOUT.moneyMovement,
    response: { fields: { responseTime: long(), resultCode: required(long()), message: text() } },
  },
} satisfies Record<string, OperationSpec>;
