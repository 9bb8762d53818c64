import {
  BATCH_ITEM_AMOUNT_RANGE,
  DISBURSEMENT_AMOUNT_RANGES,
  MAX_BATCH_ITEMS,
  MAX_BATCH_PAGE_SIZE,
  MAX_EXCHANGE_AMOUNT,
  REMITTANCE_AMOUNT_RANGES,
} from '../limits';
import {
  bool,
  constant,
  decimal,
  encrypted,
  list,
  long,
  nullable,
  object,
  oneOf,
  required,
  text,
} from './fields';
import {
  amountIsSumOf,
  amountRangeByRequestType,
  receiverMatchesRequestType,
  remittanceInfoRules,
  uniqueIds,
} from './rules';
import { CREATE_SIGNED } from './payments';
import {
  COUNTRY_PATTERN,
  CURRENCY_PATTERN,
  DOMESTIC_PHONE_PATTERN,
  extraData,
  GENDERS,
  lang,
  ORDER_ID_PATTERN,
  orderGroupId,
  orderId,
  partnerCode,
  PERSONAL_ID_PATTERN,
  PHONE_PATTERN,
  requestId,
  resultFields,
  TIMEOUT,
  url,
  walletReceiver,
} from './shared';
import type { OperationSpec, ResultOverride } from './types';

/** Document 3: remittance, single disbursement, batch disbursement. */

const BASE_CURRENCIES = ['USD', 'EUR', 'AUD', 'CAD', 'GBP', 'JPY', 'KRW', 'TWD', 'THB'] as const;
const DMY_DATE = { format: 'dmy-date' } as const;

const rateInfo = () =>
  object({
    baseCurrency: required(oneOf(BASE_CURRENCIES)),
    exchangeCurrency: oneOf(['VND']),
    rate: long(1),
    amount: decimal({ exclusiveMin: 1, maxDecimals: 2 }),
    exchangeAmount: long(0, MAX_EXCHANGE_AMOUNT),
  });

/** Wallet and bank receiver fields in one payload; the request type decides which must be present. */
const remittanceReceiver = () =>
  object({
    walletId: text(undefined, { pattern: PHONE_PATTERN }),
    walletName: text(),
    bankAccountNo: text(),
    bankCardNo: text(),
    bankAccountHolderName: text(),
    bankCode: text(),
    nationality: text(2, { pattern: COUNTRY_PATTERN }),
    dob: text(10, DMY_DATE),
    gender: oneOf(GENDERS),
    phoneNumber: text(undefined, { pattern: PHONE_PATTERN }),
    personalId: text(12, { pattern: PERSONAL_ID_PATTERN }),
  });

const disbursementReceiver = () =>
  object({
    walletId: text(undefined, { pattern: DOMESTIC_PHONE_PATTERN }),
    walletName: text(),
    personalId: nullable(text(12, { pattern: PERSONAL_ID_PATTERN })),
    bankAccountNo: text(),
    bankCardNo: text(),
    bankAccountHolderName: text(),
    bankCode: text(),
  });

const batchInfo = () => ({ totalUploadedAmount: long(), totalUploadedCount: long() });

/** Document 3: "Batch" codes — 7000, 7002 and 8003 are non-final. */
const BATCH_RESULTS: Readonly<Record<number, ResultOverride>> = {
  8003: { final: false, action: 'batch-created', note: 'Creation validated; request the batch payment' },
};

const moneyOutResponse = () => ({
  ...resultFields(),
  amount: long(),
  transId: long(),
  balance: nullable(long()),
});

export const disbursementOperations = {
  'remittance.exchangeRate': {
    document: 3,
    summary: 'VND rate of a foreign currency',
    path: '/v2/gateway/api/remittance/exchange-rate',
    request: {
      partnerCode: partnerCode(),
      requestId: requestId(),
      baseCurrency: oneOf(BASE_CURRENCIES),
      lang: lang(),
    },
    signed: ['accessKey', 'partnerCode', 'requestId'],
    timeoutMs: TIMEOUT.lookup,
    response: { fields: { ...resultFields(), rateInfo: rateInfo() } },
  },
  'remittance.buy': {
    document: 3,
    summary: 'Convert foreign currency to VND at the quoted rate',
    path: '/v2/gateway/api/remittance/buy',
    request: {
      partnerCode: partnerCode(),
      orderId: orderId(),
      requestId: requestId(),
      rateInfo: required({
        ...rateInfo(),
        fields: { ...rateInfo().fields, amount: required(decimal({ exclusiveMin: 1, maxDecimals: 2 })) },
      }),
      lang: lang(),
    },
    signed: ['accessKey', 'orderId', 'partnerCode', 'requestId'],
    timeoutMs: TIMEOUT.moneyMovement,
    response: { fields: { ...resultFields(), rateInfo: rateInfo() } },
  },
  'remittance.verify': {
    document: 3,
    summary: 'Check that a wallet can receive a remittance',
    path: '/v2/gateway/api/remittance/verify',
    request: {
      partnerCode: partnerCode(),
      orderId: orderId(),
      requestId: requestId(),
      requestType: constant('checkWallet'),
      receiver: required(encrypted(walletReceiver(PHONE_PATTERN))),
      lang: lang(),
    },
    signed: ['accessKey', 'orderId', 'partnerCode', 'receiver', 'requestId', 'requestType'],
    timeoutMs: TIMEOUT.lookup,
    response: { fields: resultFields() },
  },
  'remittance.create': {
    document: 3,
    summary: 'Remittance order to a wallet or a bank',
    path: '/v2/gateway/api/remittance/create',
    request: {
      partnerCode: partnerCode(),
      orderId: orderId(),
      requestId: requestId(),
      receiver: required(encrypted(remittanceReceiver())),
      requestType: required(oneOf(['remitToWallet', 'remitToBank'])),
      ipnUrl: url(),
      orderInfo: text(),
      amount: required(long()),
      lang: lang(),
      orderGroupId: orderGroupId(),
      remittanceInfo: required(
        object({
          name: text(),
          senderNationality: text(2, { pattern: COUNTRY_PATTERN }),
          senderDob: text(10, DMY_DATE),
          senderGender: oneOf(GENDERS),
          senderPersonalId: text(),
          partnerName: text(),
          orderingCountry: text(2, { pattern: COUNTRY_PATTERN }),
          sourceCurrency: text(3, { pattern: CURRENCY_PATTERN }),
          sourceAmount: decimal({ exclusiveMin: 0, maxDecimals: 2 }),
          reason: oneOf(['RSN01', 'RSN02', 'RSN03', 'RSN04', 'RSN05', 'RSN06']),
        }),
      ),
      autoCapture: bool(),
      extraData: extraData(),
    },
    signed: [
      'accessKey',
      'amount',
      'extraData',
      'orderId',
      'orderInfo',
      'partnerCode',
      'receiver',
      'requestId',
      'requestType',
    ],
    rules: [
      amountRangeByRequestType(REMITTANCE_AMOUNT_RANGES),
      receiverMatchesRequestType('receiver', ['remitToBank']),
      remittanceInfoRules(),
      {
        name: 'two-step remittance is wallet only',
        check: (fields) =>
          fields.autoCapture === false && fields.requestType !== 'remitToWallet'
            ? [
                {
                  field: 'autoCapture',
                  rule: 'false only for remitToWallet',
                  message: 'autoCapture false (two-step) is available for remitToWallet only',
                },
              ]
            : [],
      },
    ],
    timeoutMs: TIMEOUT.moneyMovement,
    response: { fields: moneyOutResponse() },
    notification: 'remittance.result',
    assumptions: [
      'Response (not shown) is shaped like disbursement/pay.',
      'IPN (not shown) is the single disbursement notification with orderType svc_remittance.',
      'Result codes (not shown) follow disbursement/pay.',
    ],
  },
  'disbursement.verify': {
    document: 3,
    summary: 'Check that a wallet can receive a disbursement',
    path: '/v2/gateway/api/disbursement/verify',
    request: {
      partnerCode: partnerCode(),
      orderId: orderId(),
      requestId: requestId(),
      requestType: constant('checkWallet'),
      disbursementMethod: required(encrypted(walletReceiver(DOMESTIC_PHONE_PATTERN))),
      lang: lang(),
    },
    signed: ['accessKey', 'disbursementMethod', 'orderId', 'partnerCode', 'requestId', 'requestType'],
    timeoutMs: TIMEOUT.lookup,
    response: { fields: resultFields() },
  },
  'disbursement.balance': {
    document: 3,
    summary: 'Remaining disbursement (and remittance) balance',
    path: '/v2/gateway/api/disbursement/balance',
    request: {
      partnerCode: partnerCode(),
      orderId: orderId(),
      requestId: requestId(),
      lang: lang(),
      orderGroupId: orderGroupId(),
    },
    signed: ['accessKey', 'orderId', 'partnerCode', 'requestId'],
    timeoutMs: TIMEOUT.lookup,
    response: { fields: { ...resultFields(), amount: long(), currency: text() } },
  },
  'disbursement.pay': {
    document: 3,
    summary: 'Pay VND from the disbursement balance to a wallet or a bank account/card',
    path: '/v2/gateway/api/disbursement/pay',
    request: {
      partnerCode: partnerCode(),
      storeId: text(),
      orderId: orderId(),
      amount: required(long()),
      requestId: requestId(),
      requestType: required(oneOf(['disburseToWallet', 'disburseToBank'])),
      disbursementMethod: required(encrypted(disbursementReceiver())),
      ipnUrl: url(),
      extraData: extraData(),
      orderInfo: text(),
      orderGroupId: orderGroupId(),
      lang: lang(),
    },
    signed: [
      'accessKey',
      'amount',
      'disbursementMethod',
      'extraData',
      'orderId',
      'orderInfo',
      'partnerCode',
      'requestId',
      'requestType',
    ],
    rules: [
      amountRangeByRequestType(DISBURSEMENT_AMOUNT_RANGES),
      receiverMatchesRequestType('disbursementMethod', ['disburseToBank']),
    ],
    timeoutMs: TIMEOUT.moneyMovement,
    response: { fields: moneyOutResponse() },
    notification: 'disbursement.result',
  },
  'batch.init': {
    document: 3,
    summary: 'Initiate a batch disbursement and obtain its mToken (request not shown in the spec)',
    path: '/v2/gateway/api/create',
    request: {
      partnerCode: partnerCode(),
      requestId: requestId(),
      amount: required(long(BATCH_ITEM_AMOUNT_RANGE[0], MAX_BATCH_ITEMS * BATCH_ITEM_AMOUNT_RANGE[1])),
      orderId: orderId(),
      orderInfo: text(255),
      redirectUrl: url(),
      ipnUrl: url(),
      requestType: constant('initiate'),
      extraData: extraData(),
      lang: lang(),
    },
    signed: CREATE_SIGNED,
    timeoutMs: TIMEOUT.moneyMovement,
    response: { fields: { ...resultFields(), amount: long(), mToken: required(text()) } },
    assumptions: [
      'Initiating request: POST /v2/gateway/api/create with requestType "initiate" (the real gateway\'s ' +
        'mToken initiation), amount = batch total, signed with the document-1 create list.',
      'Response carries mToken; it is not signed.',
    ],
  },
  'batch.create': {
    document: 3,
    summary: 'Create a batch of up to 1000 wallet disbursements; 8003 IPN when validated',
    path: '/v2/gateway/api/disbursement/batch/create',
    request: {
      mToken: required(text(undefined, { minLength: 1 })),
      partnerCode: partnerCode(),
      orderId: orderId(),
      requestId: requestId(),
      description: text(),
      requestType: constant('batchWallet'),
      disbursements: required({
        ...list(
          object({
            id: required(text(undefined, { pattern: ORDER_ID_PATTERN })),
            method: required(walletReceiver(DOMESTIC_PHONE_PATTERN)),
            amount: required(long(...BATCH_ITEM_AMOUNT_RANGE)),
            description: text(),
            storeId: text(),
          }),
          1000,
        ),
        minItems: 1,
      }),
      amount: required(long(1000)),
      lang: lang(),
      orderGroupId: orderGroupId(),
      ipnUrl: url(),
    },
    signed: ['accessKey', 'amount', 'mToken', 'orderId', 'partnerCode', 'requestId', 'requestType'],
    rules: [amountIsSumOf('disbursements'), uniqueIds('disbursements', 'id')],
    timeoutMs: TIMEOUT.moneyMovement,
    response: { fields: { ...resultFields(), ...batchInfo() } },
    successAction: 'wait-for-ipn',
    results: BATCH_RESULTS,
    notification: 'batch.created',
    assumptions: [
      'The "header fields" mToken, partnerCode, orderId, requestId travel in the JSON body (the signature covers them).',
    ],
  },
  'batch.pay': {
    document: 3,
    summary: 'Confirm payment of a created batch; result by IPN',
    path: '/v2/gateway/api/disbursement/batch/pay',
    request: {
      partnerCode: partnerCode(),
      orderId: orderId(),
      requestId: requestId(),
      lang: lang(),
      orderGroupId: orderGroupId(),
    },
    signed: ['accessKey', 'orderId', 'partnerCode', 'requestId'],
    timeoutMs: TIMEOUT.moneyMovement,
    response: { fields: { ...resultFields(), ...batchInfo() } },
    successAction: 'wait-for-ipn',
    results: BATCH_RESULTS,
    notification: 'batch.paid',
  },
  'batch.query': {
    document: 3,
    summary: 'One page of batch items with their states',
    path: '/v2/gateway/api/disbursement/batch/query',
    request: {
      partnerCode: partnerCode(),
      requestId: requestId(),
      orderId: orderId(),
      pageSize: required(long(1, MAX_BATCH_PAGE_SIZE)),
      pageNum: required(long(1)),
      states: list(oneOf(['INELIGIBLE', 'ELIGIBLE', 'SUCCEEDED', 'FAILED', 'PENDING'])),
      lang: lang(),
    },
    signed: ['accessKey', 'orderId', 'pageNum', 'pageSize', 'partnerCode', 'requestId'],
    timeoutMs: TIMEOUT.lookup,
    response: {
      fields: {
        ...resultFields(),
        ...batchInfo(),
        totalSucceedCount: long(),
        totalSucceedAmount: long(),
        totalErrorCount: long(),
        totalErrorAmount: long(),
        totalPendingCount: long(),
        totalPendingAmount: long(),
        disbursements: list(
          object(
            {
              id: text(),
              method: object({ walletId: text(), walletName: text() }, { open: true }),
              amount: long(),
              description: text(),
              storeId: text(),
              resultCode: long(),
              message: text(),
              transId: long(),
              state: oneOf(['INELIGIBLE', 'ELIGIBLE', 'SUCCEEDED', 'FAILED', 'PENDING']),
            },
            { open: true },
          ),
        ),
        pageNum: long(),
        pageSize: long(),
        totalPages: long(),
      },
    },
    results: BATCH_RESULTS,
    assumptions: ['pageNum and pageSize are required so that both sides sign the same text.'],
  },
} satisfies Record<string, OperationSpec>;
