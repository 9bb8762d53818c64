import {
  BINDING_AMOUNT_RANGES,
  SUBSCRIPTION_FREQUENCIES,
  SUBSCRIPTION_MIN_AMOUNT,
  type AmountRange,
} from '../limits';
import { bool, constant, encrypted, long, object, oneOf, required, text } from './fields';
import {
  amountRange,
  onlyWhen,
  requires,
  subscriptionInfoRules,
  tokenPayAmount,
  withinRecurringAmount,
  zeroOrAtLeast,
} from './rules';
import {
  extraData,
  LINK_WALLET_CLIENT_ID_PATTERN,
  orderGroupId,
  orderId,
  requestId,
  resultFields,
  TIMEOUT,
} from './shared';
import type { FieldMap, OperationSpec, Rule } from './types';

/** Document 2: saved cards, wallet binding, subscriptions. Strings are bounded by its Limits table. */

const partnerCode = () => required(text(20));
const lang = () => oneOf(['vi', 'en'], { maxLength: 20 });
const partnerClientId = (maxLength?: number) => required(text(maxLength, { minLength: 1 }));

const BINDING_SIGNED = [
  'accessKey',
  'amount',
  'extraData',
  'ipnUrl',
  'orderId',
  'orderInfo',
  'partnerClientId',
  'partnerCode',
  'redirectUrl',
  'requestId',
  'requestType',
] as const;

const TOKEN_SIGNED = [
  'accessKey',
  'orderId',
  'partnerClientId',
  'partnerCode',
  'requestId',
  'token',
] as const;

/** Token payloads, before RSA encryption. */
const savedToken = () => object({ value: required(text()), requireSecurityCode: bool() });
const subscriptionToken = () => object({ value: required(text()), initialOrderId: required(text()) });

const bindingRequest = <E extends FieldMap>(requestType: string, extra: E) => ({
  partnerCode: partnerCode(),
  partnerName: text(),
  storeId: text(),
  requestId: requestId(),
  amount: required(long(0)),
  orderId: orderId(),
  orderInfo: text(200),
  orderGroupId: orderGroupId(),
  redirectUrl: text(200),
  ipnUrl: text(200),
  partnerClientId: partnerClientId(),
  extraData: extraData(),
  requestType: constant(requestType),
  userInfo: object({ name: text(), phoneNumber: text(), email: text() }),
  lang: lang(),
  ...extra,
});

const bindingResponse = () => ({
  ...resultFields(),
  amount: long(),
  payUrl: text(),
  partnerClientId: text(50),
  deeplink: text(),
  qrCodeUrl: text(),
  deeplinkMiniApp: text(),
});

function bindingCreate<E extends FieldMap>(
  requestType: string,
  summary: string,
  extra: E,
  rules: readonly Rule[],
) {
  return {
    document: 2,
    summary,
    path: '/v2/gateway/api/create',
    request: bindingRequest(requestType, extra),
    signed: BINDING_SIGNED,
    rules,
    timeoutMs: TIMEOUT.moneyMovement,
    response: { fields: bindingResponse() },
    successAction: 'redirect-customer',
    notification: 'payment.resultB',
  } satisfies OperationSpec;
}

const cardEmail = requires('userInfo.email', 'for card binding (document 2)');

/** Card flows accept 0 (bind only, document 2 "What the service does") or the Limits range. */
function zeroOrRange([min, max]: AmountRange): Rule[] {
  return [zeroOrAtLeast(min), amountRange([0, max])];
}

const payResponse = () => ({
  ...resultFields(),
  amount: long(),
  transId: long(),
  partnerClientId: text(),
  payUrl: text(),
  deeplink: text(),
  qrCodeUrl: text(),
});

const tokenResponse = () => ({
  ...resultFields(),
  aesToken: text(),
  partnerClientId: text(),
  timestamp: long(),
});

export const tokenizationOperations = {
  'binding.payWithCC': bindingCreate(
    'payWithCC',
    'International card: first payment (or 0 to bind only) with card saving',
    {},
    [...zeroOrRange(BINDING_AMOUNT_RANGES.card), cardEmail],
  ),
  'binding.payWithATM': bindingCreate(
    'payWithATM',
    'Domestic card: first payment (or 0 to bind only) with card saving',
    {},
    [...zeroOrRange(BINDING_AMOUNT_RANGES.domestic), cardEmail],
  ),
  'binding.linkWallet': bindingCreate(
    'linkWallet',
    'Wallet binding (0 binds only; 1000 or more binds and pays)',
    {
      orderId: orderId(50),
      partnerClientId: required(text(undefined, { pattern: LINK_WALLET_CLIENT_ID_PATTERN })),
      userInfo: object({ phoneNumber: text(), partnerClientAlias: text() }),
    },
    [zeroOrAtLeast(BINDING_AMOUNT_RANGES.wallet[0])],
  ),
  'subscription.start': bindingCreate(
    'subscription',
    'Subscription authorization (first payment or free trial)',
    {
      orderId: orderId(50),
      userInfo: object({ name: text(), phoneNumber: text(), email: text(), partnerClientAlias: text() }),
      subscriptionInfo: required(
        object({
          name: text(),
          partnerSubsId: text(),
          subsOwner: text(),
          type: oneOf(['FIXED', 'VARIABLE']),
          recurringAmount: long(SUBSCRIPTION_MIN_AMOUNT),
          frequency: oneOf(SUBSCRIPTION_FREQUENCIES),
          nextPaymentDate: text(10, { format: 'date' }),
          expiryDate: text(10, { format: 'date' }),
        }),
      ),
    },
    [zeroOrAtLeast(SUBSCRIPTION_MIN_AMOUNT), subscriptionInfoRules()],
  ),
  'tokenization.cbQuery': {
    document: 2,
    summary: 'Fetch a missed callbackToken of a binding',
    path: '/v2/gateway/api/tokenization/cbQuery',
    request: {
      partnerCode: partnerCode(),
      requestId: requestId(),
      orderId: orderId(),
      partnerClientId: partnerClientId(),
      lang: lang(),
    },
    signed: ['accessKey', 'orderId', 'partnerClientId', 'partnerCode', 'requestId'],
    timeoutMs: TIMEOUT.lookup,
    response: { fields: { ...resultFields(), callbackToken: text() } },
  },
  'tokenization.bind': {
    document: 2,
    summary: 'Exchange the callbackToken for the AES-encrypted recurring token',
    path: '/v2/gateway/api/tokenization/bind',
    request: {
      partnerCode: partnerCode(),
      callbackToken: required(text()),
      requestId: requestId(),
      orderId: orderId(),
      partnerClientId: partnerClientId(),
      lang: lang(),
    },
    signed: ['accessKey', 'callbackToken', 'orderId', 'partnerClientId', 'partnerCode', 'requestId'],
    timeoutMs: TIMEOUT.lookup,
    response: { fields: tokenResponse() },
  },
  'tokenization.pay': {
    document: 2,
    summary: 'Charge a saved card or bound wallet (8000 redirect, 8200 OTP)',
    path: '/v2/gateway/api/tokenization/pay',
    request: {
      partnerCode: partnerCode(),
      partnerName: text(),
      storeId: text(),
      orderId: orderId(),
      amount: required(long()),
      requestId: requestId(),
      token: required(encrypted(savedToken())),
      partnerClientId: partnerClientId(),
      orderInfo: text(200),
      orderGroupId: orderGroupId(),
      autoCapture: bool(),
      redirectUrl: text(200),
      ipnUrl: text(200),
      extraData: extraData(),
      userInfo: object({ partnerClientAlias: text() }),
      lang: lang(),
    },
    signed: [
      'accessKey',
      'amount',
      'extraData',
      'orderId',
      'orderInfo',
      'partnerClientId',
      'partnerCode',
      'requestId',
      'token',
    ],
    rules: [tokenPayAmount()],
    timeoutMs: TIMEOUT.moneyMovement,
    response: { fields: payResponse() },
    notification: 'payment.resultB',
    assumptions: ['The IPN of a token payment is signed with list B (callbackToken empty).'],
  },
  'tokenization.verify': {
    document: 2,
    summary: 'Confirm a token payment with the two-factor code after 8200',
    path: '/v2/gateway/api/tokenization/verify',
    request: {
      partnerCode: partnerCode(),
      orderId: orderId(),
      requestId: requestId(),
      securityCode: required(text(undefined, { minLength: 1 })),
      token: required(encrypted(savedToken())),
      lang: lang(),
    },
    signed: ['accessKey', 'orderId', 'partnerCode', 'requestId', 'securityCode', 'token'],
    timeoutMs: TIMEOUT.moneyMovement,
    response: { fields: payResponse() },
    notification: 'payment.resultB',
  },
  'tokenization.delete': {
    document: 2,
    summary: 'Delete a saved card token',
    path: '/v2/gateway/api/tokenization/delete',
    request: {
      partnerCode: partnerCode(),
      requestId: requestId(),
      orderId: orderId(),
      storeId: text(),
      token: required(encrypted(savedToken())),
      partnerClientId: partnerClientId(),
      lang: lang(),
    },
    signed: TOKEN_SIGNED,
    timeoutMs: TIMEOUT.lookup,
    response: { fields: { ...resultFields(), partnerClientId: text() } },
  },
  'subscription.create': {
    document: 2,
    summary: 'Exchange the subscription callbackToken for the AES-encrypted subscription token',
    path: '/v2/gateway/api/subscription/create',
    request: {
      partnerCode: partnerCode(),
      callbackToken: required(text()),
      requestId: requestId(),
      orderId: orderId(50),
      partnerClientId: partnerClientId(50),
      lang: lang(),
    },
    signed: ['accessKey', 'callbackToken', 'orderId', 'partnerClientId', 'partnerCode', 'requestId'],
    timeoutMs: TIMEOUT.lookup,
    response: { fields: tokenResponse() },
  },
  'subscription.pay': {
    document: 2,
    summary: 'Charge one subscription cycle (no customer action)',
    path: '/v2/gateway/api/subscription/pay',
    request: {
      partnerCode: partnerCode(),
      partnerName: text(),
      orderId: orderId(),
      amount: required(long(1000)),
      requestId: requestId(),
      token: required(encrypted(subscriptionToken())),
      partnerClientId: partnerClientId(50),
      orderInfo: text(200),
      orderGroupId: orderGroupId(),
      extraData: extraData(),
      nextPaymentDate: text(10, { format: 'date' }),
      lang: lang(),
    },
    signed: [
      'accessKey',
      'amount',
      'extraData',
      'orderId',
      'orderInfo',
      'partnerClientId',
      'partnerCode',
      'requestId',
      'token',
    ],
    rules: [withinRecurringAmount()],
    timeoutMs: TIMEOUT.moneyMovement,
    response: { fields: { ...resultFields(), amount: long(), transId: long(), partnerClientId: text() } },
  },
  'subscription.manage': {
    document: 2,
    summary: 'Pause, cancel or reactivate a subscription',
    path: '/v2/gateway/api/subscription/manage',
    request: {
      partnerCode: partnerCode(),
      requestId: requestId(),
      orderId: orderId(50),
      token: required(encrypted(subscriptionToken())),
      partnerClientId: partnerClientId(50),
      lang: lang(),
      action: required(oneOf(['pause', 'cancel', 'reactivate'], { maxLength: 20 })),
      redirectUrl: text(200),
      ipnUrl: text(200),
    },
    signed: TOKEN_SIGNED,
    rules: [
      onlyWhen('redirectUrl', 'action', ['reactivate'], 'is taken by the reactivate action only'),
      onlyWhen('ipnUrl', 'action', ['reactivate'], 'is taken by the reactivate action only'),
    ],
    timeoutMs: TIMEOUT.lookup,
    response: { fields: { ...resultFields(), partnerClientId: text() } },
    assumptions: ['The reactivate token payload and its response/IPN are not shown: same as pause/cancel.'],
  },
} satisfies Record<string, OperationSpec>;
