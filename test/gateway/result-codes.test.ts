import { describe, expect, it } from 'vitest';
import {
  ASSUMED_CODES,
  classifyResult,
  codeOf,
  GatewayResultError,
  isAlreadySubmitted,
  isPending,
  isUndecided,
  outcomeOf,
  RESULT_CODES,
  resultCodeInfo,
} from '../../gateway';

const SPEC_CODES = [
  0, 10, 20, 22, 40, 42, 99, 1002, 1007, 1008, 1100, 1507, 2001, 2019, 4001, 4002, 4003, 7000, 7002, 8000,
  8003, 8200,
];

describe('result codes', () => {
  it('lists every code of the spec once', () => {
    for (const code of SPEC_CODES) expect(resultCodeInfo(code)?.source).toBe('spec');
    expect(new Set(RESULT_CODES.map((c) => c.code)).size).toBe(RESULT_CODES.length);
    for (const code of Object.values(ASSUMED_CODES)) expect(resultCodeInfo(code)?.source).toBe('assumption');
  });

  it.each([
    ['tokenization.pay', 0, 'success', true],
    ['payment.captureWallet', 0, 'redirect-customer', false],
    ['payment.payWithEdc', 0, 'wait-for-ipn', false],
    ['payment.query', 7000, 'wait-for-ipn', false],
    ['refund.create', 7002, 'wait-for-ipn', false],
    ['disbursement.pay', 10, 'retry-later', false],
    ['disbursement.pay', 20, 'final-failure', false],
    ['disbursement.pay', 22, 'final-failure', false],
    ['disbursement.pay', 40, 'resolve-by-query', false],
    ['disbursement.pay', 41, 'resolve-by-query', false],
    ['disbursement.pay', 42, 'final-failure', false],
    ['disbursement.pay', 1100, 'final-failure', true],
    ['tokenization.pay', 8000, 'redirect-customer', false],
    ['tokenization.pay', 8200, 'ask-for-otp', false],
    ['tokenization.verify', 8201, 'ask-for-otp', false],
    ['tokenization.verify', 8203, 'final-failure', true],
    ['batch.create', 0, 'wait-for-ipn', false],
    ['batch.create', 8003, 'batch-created', false],
    ['batch.created', 8003, 'batch-created', false],
    ['batch.pay', 7000, 'wait-for-ipn', false],
    ['payment.resultA', 0, 'success', true],
    ['subscription.pay', 1001, 'final-failure', true],
    ['subscription.pay', 2101, 'final-failure', true],
  ] as const)('%s %i → %s', (source, code, action, final) => {
    const classification = classifyResult(source, code);
    expect(classification.action).toBe(action);
    expect(classification.final).toBe(final);
  });

  it('treats unknown codes as final failures', () => {
    expect(classifyResult('disbursement.pay', 123456)).toMatchObject({
      action: 'final-failure',
      final: true,
      known: false,
    });
  });
});

describe('outcomes: what a code says happened, in the words processes branch on', () => {
  it.each([
    [0, 'succeeded', false],
    [7000, 'pending', true],
    [7002, 'provider_processing', true],
    [1000, 'awaiting_customer', true],
    [8000, 'redirect_customer', true],
    [8200, 'otp_required', true],
    [10, 'retry_later', true],
    [40, 'duplicate_request', false],
    [41, 'duplicate_order', false],
    [42, 'not_found', false],
    [1001, 'insufficient_funds', false],
    [1100, 'merchant_balance_short', false],
    [2001, 'token_invalid', false],
    [2101, 'subscription_paused', false],
    [8203, 'otp_locked', false],
    [99, 'failed', false],
    [123456, 'failed', false],
  ] as const)('%i → %s (undecided: %s)', (code, outcome, undecided) => {
    expect(outcomeOf(code)).toBe(outcome);
    expect(isUndecided(outcomeOf(code))).toBe(undecided);
  });

  it('names pending and already-submitted families once', () => {
    expect([7000, 7002, 1000].map((code) => isPending(outcomeOf(code)))).toEqual([true, true, false]);
    expect([40, 41, 42].map((code) => isAlreadySubmitted(outcomeOf(code)))).toEqual([true, true, false]);
  });

  it('gives the code payrun records for an outcome it concludes itself', () => {
    expect(codeOf('link_expired')).toBe(1005);
    expect(codeOf('otp_expired')).toBe(8202);
    expect(codeOf('merchant_balance_short')).toBe(1100);
    expect(codeOf('succeeded')).toBe(0);
  });

  it('gives every code of the table an outcome, and the gateway error carries it', () => {
    for (const info of RESULT_CODES) expect(outcomeOf(info.code)).toBe(info.outcome);
    const error = new GatewayResultError(
      'disbursement.pay',
      1100,
      'short',
      classifyResult('disbursement.pay', 1100),
      {},
    );
    expect(error.outcome).toBe('merchant_balance_short');
  });
});
