import { describe, expect, it } from 'vitest';
import {
  GatewayValidationError,
  operationSpec,
  validateRequest,
  type OperationName,
  type ValidationContext,
} from '../../gateway';
import { assertValidRequest } from '../../gateway/validation';
import { samples } from './support/samples';

function request(operation: OperationName, overrides: Record<string, unknown>): Record<string, unknown> {
  const constants: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(operationSpec(operation).request)) {
    if (field.kind === 'string' && field.constant) constants[name] = field.constant;
  }
  return {
    ...constants,
    ...(samples[operation] as Record<string, unknown>),
    partnerCode: 'MOMO',
    ...overrides,
  };
}

type Case = [
  label: string,
  operation: OperationName,
  overrides: Record<string, unknown>,
  context: ValidationContext,
  broken?: [field: string, rule: string],
];

const ok = (
  label: string,
  operation: OperationName,
  overrides: Record<string, unknown>,
  context: ValidationContext = {},
): Case => [label, operation, overrides, context];
const bad = (
  label: string,
  operation: OperationName,
  overrides: Record<string, unknown>,
  field: string,
  rule: string,
  context: ValidationContext = {},
): Case => [label, operation, overrides, context, [field, rule]];

const items = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `sku-${i}`, quantity: 1 }));
const batch = (n: number, amount = 1000) =>
  Array.from({ length: n }, (_, i) => ({ id: `item-${i}`, method: { walletId: '0912345678' }, amount }));
const bank = { bankAccountNo: '0123456789', bankAccountHolderName: 'NGUYEN VAN A', bankCode: '970436' };

const documentOne: Case[] = [
  ok('captureWallet min', 'payment.captureWallet', { amount: 1000 }),
  bad('captureWallet below min', 'payment.captureWallet', { amount: 999 }, 'amount', 'range 1000..50000000'),
  ok('captureWallet max', 'payment.captureWallet', { amount: 50_000_000 }),
  bad(
    'captureWallet above max',
    'payment.captureWallet',
    { amount: 50_000_001 },
    'amount',
    'range 1000..50000000',
  ),
  ok('payWithCC max', 'payment.payWithCC', { amount: 10_000_000 }),
  bad('payWithCC above max', 'payment.payWithCC', { amount: 10_000_001 }, 'amount', 'range 1000..10000000'),
  bad(
    'payWithCC without email',
    'payment.payWithCC',
    { userInfo: { name: 'A' } },
    'userInfo.email',
    'required',
  ),
  bad(
    'platform pay A without email',
    'payment.payWithPlatformPayA',
    { userInfo: undefined },
    'userInfo.email',
    'required',
  ),
  bad(
    'platform pay B without email',
    'payment.payWithPlatformPayB',
    { userInfo: {} },
    'userInfo.email',
    'required',
  ),
  ok('onDelivery max', 'payment.onDelivery', { amount: 20_000_000 }),
  bad('onDelivery above max', 'payment.onDelivery', { amount: 20_000_001 }, 'amount', 'range 1000..20000000'),
  bad('payWithVTS below min', 'payment.payWithVTS', { amount: 999 }, 'amount', 'range 1000..50000000'),
  bad('payWithEdc without storeId', 'payment.payWithEdc', { storeId: undefined }, 'storeId', 'required'),
  bad(
    'payWithEdc bad instrumentType',
    'payment.payWithEdc',
    { instrumentType: 'NFC' },
    'instrumentType',
    'one of',
  ),
  ok('payWithEdc terminal max', 'payment.payWithEdc', { amount: 50_000_000 }),
  bad(
    'payWithEdc above terminal max',
    'payment.payWithEdc',
    { amount: 50_000_001 },
    'amount',
    'range 1000..50000000',
  ),
  bad('payWithMethod above max', 'payment.payWithMethod', { amount: 50_000_001 }, 'amount', 'range'),
  ok('POS min', 'payment.pos', { amount: 1000 }),
  bad('POS below min', 'payment.pos', { amount: 999 }, 'amount', 'range 1000..5000000'),
  ok('POS max', 'payment.pos', { amount: 5_000_000 }),
  bad('POS above max', 'payment.pos', { amount: 5_000_001 }, 'amount', 'range 1000..5000000'),
  ok('refund min', 'refund.create', { amount: 1000 }),
  bad('refund below min', 'refund.create', { amount: 999 }, 'amount', 'range 1000..50000000'),
  ok('refund max', 'refund.create', { amount: 50_000_000 }),
  bad('refund above max', 'refund.create', { amount: 50_000_001 }, 'amount', 'range 1000..50000000'),
  bad(
    'refund of domestic card below 10000',
    'refund.create',
    { amount: 9999 },
    'amount',
    'range 10000..50000000',
    { refundOf: 'domestic-card' },
  ),
  ok(
    'refund of tokenization at 30000000',
    'refund.create',
    { amount: 30_000_000 },
    { refundOf: 'tokenization' },
  ),
  bad(
    'refund of tokenization above 30000000',
    'refund.create',
    { amount: 30_000_001 },
    'amount',
    'range 1000..30000000',
    { refundOf: 'tokenization' },
  ),
  ok('50 items', 'payment.captureWallet', { items: items(50) }),
  bad('51 items', 'payment.captureWallet', { items: items(51) }, 'items', 'at most 50 items'),
  ok('requestId of 50', 'payment.captureWallet', { requestId: 'r'.repeat(50) }),
  bad('requestId of 51', 'payment.captureWallet', { requestId: 'r'.repeat(51) }, 'requestId', 'maxLength 50'),
  bad('missing requestId', 'payment.query', { requestId: undefined }, 'requestId', 'required'),
  ok('extraData of 1000', 'payment.captureWallet', {
    extraData: Buffer.from(`{"k":"${'x'.repeat(740)}"}`)
      .toString('base64')
      .slice(0, 1000),
  }),
  bad(
    'extraData above 1000',
    'payment.captureWallet',
    { extraData: Buffer.from(`{"k":"${'x'.repeat(800)}"}`).toString('base64') },
    'extraData',
    'maxLength 1000',
  ),
  bad(
    'extraData not Base64 JSON',
    'payment.captureWallet',
    { extraData: 'bm90IGpzb24=' },
    'extraData',
    'format base64-json',
  ),
  ok('orderId with separators', 'payment.captureWallet', { orderId: 'A1-b_2.c3' }),
  bad('orderId ending with a separator', 'payment.captureWallet', { orderId: 'A1-' }, 'orderId', 'pattern'),
  bad('orderId with a space', 'payment.query', { orderId: 'A 1' }, 'orderId', 'pattern'),
  ok('captureWallet orderId of 200', 'payment.captureWallet', { orderId: 'a'.repeat(200) }),
  bad(
    'captureWallet orderId of 201',
    'payment.captureWallet',
    { orderId: 'a'.repeat(201) },
    'orderId',
    'maxLength 200',
  ),
  ok('orderInfo of 255 Vietnamese characters', 'payment.captureWallet', { orderInfo: 'đ'.repeat(255) }),
  bad(
    'orderInfo of 256',
    'payment.captureWallet',
    { orderInfo: 'đ'.repeat(256) },
    'orderInfo',
    'maxLength 255',
  ),
  bad('unknown field', 'payment.query', { orderID: 'x' }, 'orderID', 'unknown field'),
  bad(
    'wrong requestType for the variant',
    'payment.captureWallet',
    { requestType: 'payWithCC' },
    'requestType',
    'one of',
  ),
  bad('amount not whole', 'payment.captureWallet', { amount: 1000.5 }, 'amount', 'integer'),
];

const documentTwo: Case[] = [
  ok('card binding 0 (bind only)', 'binding.payWithCC', { amount: 0 }),
  bad('card binding 999', 'binding.payWithCC', { amount: 999 }, 'amount', '0 or at least 1000'),
  ok('card binding max', 'binding.payWithCC', { amount: 10_000_000 }),
  bad('card binding above max', 'binding.payWithCC', { amount: 10_000_001 }, 'amount', 'range 0..10000000'),
  ok('payWithATM min', 'binding.payWithATM', { amount: 10_000 }),
  bad('payWithATM below min', 'binding.payWithATM', { amount: 9999 }, 'amount', '0 or at least 10000'),
  ok('payWithATM max', 'binding.payWithATM', { amount: 50_000_000 }),
  bad('payWithATM above max', 'binding.payWithATM', { amount: 50_000_001 }, 'amount', 'range 0..50000000'),
  ok('linkWallet 1000 (bind and pay)', 'binding.linkWallet', { amount: 1000 }),
  bad('linkWallet 500', 'binding.linkWallet', { amount: 500 }, 'amount', '0 or at least 1000'),
  ok('linkWallet multi-wallet client id', 'binding.linkWallet', { partnerClientId: 'n001_user@example.com' }),
  bad(
    'linkWallet client id regex',
    'binding.linkWallet',
    { partnerClientId: 'user 42' },
    'partnerClientId',
    'pattern',
  ),
  bad(
    'linkWallet orderId above 50',
    'binding.linkWallet',
    { orderId: 'a'.repeat(51) },
    'orderId',
    'maxLength 50',
  ),
  bad(
    'binding orderInfo above 200',
    'binding.payWithCC',
    { orderInfo: 'x'.repeat(201) },
    'orderInfo',
    'maxLength 200',
  ),
  bad(
    'binding without partnerClientId',
    'binding.payWithCC',
    { partnerClientId: undefined },
    'partnerClientId',
    'required',
  ),
  ok('token pay card max', 'tokenization.pay', { amount: 10_000_000 }, { tokenKind: 'card' }),
  bad(
    'token pay card above max',
    'tokenization.pay',
    { amount: 10_000_001 },
    'amount',
    'range 1000..10000000 for token flow card',
    { tokenKind: 'card' },
  ),
  ok('token pay domestic min', 'tokenization.pay', { amount: 10_000 }, { tokenKind: 'domestic' }),
  bad(
    'token pay domestic below min',
    'tokenization.pay',
    { amount: 9999 },
    'amount',
    'range 10000..50000000',
    { tokenKind: 'domestic' },
  ),
  ok('token pay wallet max', 'tokenization.pay', { amount: 30_000_000 }, { tokenKind: 'wallet' }),
  bad(
    'token pay wallet above max',
    'tokenization.pay',
    { amount: 30_000_001 },
    'amount',
    'range 1000..30000000',
    { tokenKind: 'wallet' },
  ),
  bad(
    'token pay without context: widest range',
    'tokenization.pay',
    { amount: 50_000_001 },
    'amount',
    'range 1000..50000000',
  ),
  bad('token pay without token', 'tokenization.pay', { token: undefined }, 'token', 'required'),
  bad(
    'token payload without value',
    'tokenization.pay',
    { token: { requireSecurityCode: true } },
    'token.value',
    'required',
  ),
  ok(
    'subscription pay = recurringAmount',
    'subscription.pay',
    { amount: 100_000 },
    { recurringAmount: 100_000 },
  ),
  bad(
    'subscription pay above recurringAmount',
    'subscription.pay',
    { amount: 100_001 },
    'amount',
    'at most recurringAmount 100000',
    { recurringAmount: 100_000 },
  ),
  bad('subscription pay below 1000', 'subscription.pay', { amount: 999 }, 'amount', 'min 1000'),
  bad(
    'subscription pay bad date',
    'subscription.pay',
    { nextPaymentDate: '2030-02-30' },
    'nextPaymentDate',
    'format date',
  ),
  bad(
    'free trial without nextPaymentDate',
    'subscription.start',
    {
      subscriptionInfo: { name: 'S', type: 'FIXED', recurringAmount: 100_000, frequency: 'MONTHLY' },
    },
    'subscriptionInfo.nextPaymentDate',
    'required when amount is 0',
  ),
  ok('immediate start computes nextPaymentDate', 'subscription.start', {
    amount: 100_000,
    subscriptionInfo: { name: 'S', type: 'FIXED', recurringAmount: 100_000, frequency: 'MONTHLY' },
  }),
  bad(
    'subscription bad frequency',
    'subscription.start',
    {
      subscriptionInfo: {
        name: 'S',
        type: 'FIXED',
        recurringAmount: 100_000,
        frequency: 'YEARLY',
        nextPaymentDate: '2030-01-01',
      },
    },
    'subscriptionInfo.frequency',
    'one of',
  ),
  bad(
    'subscription without subscriptionInfo',
    'subscription.start',
    { subscriptionInfo: undefined },
    'subscriptionInfo',
    'required',
  ),
  bad('manage with unknown action', 'subscription.manage', { action: 'resume' }, 'action', 'one of'),
  ok('reactivate with urls', 'subscription.manage', {
    action: 'reactivate',
    ipnUrl: 'https://m/ipn',
    redirectUrl: 'https://m/r',
  }),
  bad(
    'pause with ipnUrl',
    'subscription.manage',
    { action: 'pause', ipnUrl: 'https://m/ipn' },
    'ipnUrl',
    'only with action reactivate',
  ),
  bad('verify without securityCode', 'tokenization.verify', { securityCode: '' }, 'securityCode', 'required'),
  bad(
    'partnerCode above 20 in document 2',
    'tokenization.bind',
    { partnerCode: 'P'.repeat(21) },
    'partnerCode',
    'maxLength 20',
  ),
];

const documentThree: Case[] = [
  ok('batch of 1000', 'batch.create', { disbursements: batch(1000), amount: 1_000_000 }),
  bad(
    'batch of 1001',
    'batch.create',
    { disbursements: batch(1001), amount: 1_001_000 },
    'disbursements',
    'at most 1000 items',
  ),
  bad(
    'empty batch',
    'batch.create',
    { disbursements: [], amount: 1000 },
    'disbursements',
    'at least 1 items',
  ),
  bad(
    'batch amount is not the sum',
    'batch.create',
    { disbursements: batch(2), amount: 3000 },
    'amount',
    'sum of disbursements',
  ),
  ok('batch item max', 'batch.create', { disbursements: batch(1, 200_000_000), amount: 200_000_000 }),
  bad(
    'batch item above max',
    'batch.create',
    { disbursements: batch(1, 200_000_001), amount: 200_000_001 },
    'disbursements[0].amount',
    'max 200000000',
  ),
  bad(
    'batch item below min',
    'batch.create',
    { disbursements: batch(1, 999), amount: 999 },
    'disbursements[0].amount',
    'min 1000',
  ),
  bad(
    'batch item id regex',
    'batch.create',
    { disbursements: [{ id: 'x y', method: { walletId: '0912345678' }, amount: 1000 }], amount: 1000 },
    'disbursements[0].id',
    'pattern',
  ),
  bad(
    'batch duplicate item ids',
    'batch.create',
    { disbursements: [...batch(1), ...batch(1)], amount: 2000 },
    'disbursements[1].id',
    'unique',
  ),
  bad('batch without mToken', 'batch.create', { mToken: undefined }, 'mToken', 'required'),
  ok('disburse to wallet min', 'disbursement.pay', { amount: 1000 }),
  bad(
    'disburse to wallet below min',
    'disbursement.pay',
    { amount: 999 },
    'amount',
    'range 1000..200000000 for requestType disburseToWallet',
  ),
  ok('disburse to wallet max', 'disbursement.pay', { amount: 200_000_000 }),
  bad(
    'disburse to wallet above max',
    'disbursement.pay',
    { amount: 200_000_001 },
    'amount',
    'range 1000..200000000',
  ),
  ok('disburse to bank min', 'disbursement.pay', {
    requestType: 'disburseToBank',
    amount: 10_000,
    disbursementMethod: bank,
  }),
  bad(
    'disburse to bank below min',
    'disbursement.pay',
    { requestType: 'disburseToBank', amount: 9999, disbursementMethod: bank },
    'amount',
    'range 10000..20000000 for requestType disburseToBank',
  ),
  ok('disburse to bank max', 'disbursement.pay', {
    requestType: 'disburseToBank',
    amount: 20_000_000,
    disbursementMethod: bank,
  }),
  bad(
    'disburse to bank above max',
    'disbursement.pay',
    { requestType: 'disburseToBank', amount: 20_000_001, disbursementMethod: bank },
    'amount',
    'range 10000..20000000',
  ),
  bad(
    'disburse to bank with account and card',
    'disbursement.pay',
    { requestType: 'disburseToBank', amount: 20_000, disbursementMethod: { ...bank, bankCardNo: '9704' } },
    'disbursementMethod.bankAccountNo',
    'exactly one of bankAccountNo, bankCardNo',
  ),
  bad(
    'disburse to wallet with a +84 number',
    'disbursement.pay',
    { disbursementMethod: { walletId: '+84912345678' } },
    'disbursementMethod.walletId',
    'pattern',
  ),
  ok('remit to wallet min', 'remittance.create', { amount: 1000 }),
  bad(
    'remit to wallet below min',
    'remittance.create',
    { amount: 999 },
    'amount',
    'range 1000..200000000 for requestType remitToWallet',
  ),
  bad(
    'remit to wallet above max',
    'remittance.create',
    { amount: 200_000_001 },
    'amount',
    'range 1000..200000000',
  ),
  ok('remit to bank min', 'remittance.create', {
    requestType: 'remitToBank',
    amount: 50_000,
    receiver: bank,
  }),
  bad(
    'remit to bank below min',
    'remittance.create',
    { requestType: 'remitToBank', amount: 49_999, receiver: bank },
    'amount',
    'range 50000..200000000 for requestType remitToBank',
  ),
  ok('remit to bank max', 'remittance.create', {
    requestType: 'remitToBank',
    amount: 200_000_000,
    receiver: bank,
  }),
  bad(
    'remit to bank above max',
    'remittance.create',
    { requestType: 'remitToBank', amount: 200_000_001, receiver: bank },
    'amount',
    'range 50000..200000000',
  ),
  bad(
    'two-step remittance to bank',
    'remittance.create',
    { requestType: 'remitToBank', amount: 50_000, receiver: bank, autoCapture: false },
    'autoCapture',
    'false only for remitToWallet',
  ),
  bad(
    'remittance without reason',
    'remittance.create',
    {
      remittanceInfo: {
        name: 'J',
        partnerName: 'P',
        orderingCountry: 'US',
        sourceCurrency: 'USD',
        sourceAmount: 1,
      },
    },
    'remittanceInfo.reason',
    'required',
  ),
  ok('personalId of 12 digits', 'remittance.create', {
    receiver: { walletId: '0912345678', personalId: '123456789012' },
  }),
  bad(
    'personalId of 13 digits',
    'remittance.create',
    { receiver: { walletId: '0912345678', personalId: '1234567890123' } },
    'receiver.personalId',
    'maxLength 12',
  ),
  bad(
    'personalId not digits',
    'disbursement.verify',
    { disbursementMethod: { walletId: '0912345678', personalId: 'A12' } },
    'disbursementMethod.personalId',
    'pattern',
  ),
  ok('buy 1.01', 'remittance.buy', { rateInfo: { baseCurrency: 'USD', amount: 1.01 } }),
  bad(
    'buy 1.00',
    'remittance.buy',
    { rateInfo: { baseCurrency: 'USD', amount: 1 } },
    'rateInfo.amount',
    'greater than 1',
  ),
  bad(
    'buy with 3 decimals',
    'remittance.buy',
    { rateInfo: { baseCurrency: 'USD', amount: 10.123 } },
    'rateInfo.amount',
    'at most 2 decimals',
  ),
  ok('exchangeAmount of 12 digits', 'remittance.buy', {
    rateInfo: { baseCurrency: 'USD', amount: 2, exchangeAmount: 999_999_999_999 },
  }),
  bad(
    'exchangeAmount of 13 digits',
    'remittance.buy',
    { rateInfo: { baseCurrency: 'USD', amount: 2, exchangeAmount: 1_000_000_000_000 } },
    'rateInfo.exchangeAmount',
    'max 999999999999',
  ),
  bad(
    'unsupported base currency',
    'remittance.exchangeRate',
    { baseCurrency: 'CHF' },
    'baseCurrency',
    'one of',
  ),
  ok('pageSize 50', 'batch.query', { pageSize: 50 }),
  bad('pageSize 51', 'batch.query', { pageSize: 51 }, 'pageSize', 'max 50'),
  bad('pageNum 0', 'batch.query', { pageNum: 0 }, 'pageNum', 'min 1'),
  bad('unknown state filter', 'batch.query', { states: ['DONE'] }, 'states[0]', 'one of'),
  bad(
    'disbursement requestId above 50',
    'disbursement.pay',
    { requestId: 'r'.repeat(51) },
    'requestId',
    'maxLength 50',
  ),
];

describe.each([
  ['document 1', documentOne],
  ['document 2', documentTwo],
  ['document 3', documentThree],
])('limits of %s', (_document, cases) => {
  it.each(cases)('%s', (_label, operation, overrides, context, broken) => {
    const violations = validateRequest(operation, request(operation, overrides), context);
    if (!broken) {
      expect(violations).toEqual([]);
      return;
    }
    const [field, rule] = broken;
    expect(violations.length).toBeGreaterThan(0);
    expect(violations[0]?.field).toBe(field);
    expect(violations[0]?.rule).toContain(rule);
  });
});

describe('validation error', () => {
  it('names the field and the rule', () => {
    let caught: unknown;
    try {
      assertValidRequest('payment.pos', request('payment.pos', { amount: 5_000_001 }));
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(GatewayValidationError);
    const error = caught as GatewayValidationError;
    expect(error.type).toBe('validation_error');
    expect(error.field).toBe('amount');
    expect(error.rule).toBe('range 1000..5000000');
    expect(error.message).toContain('amount');
    expect(error.message).toContain('1000..5000000');
  });
});
