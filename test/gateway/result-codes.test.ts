import { describe, expect, it } from 'vitest';
import { ASSUMED_CODES, classifyResult, RESULT_CODES, resultCodeInfo } from '../../gateway';

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
