import { describe, expect, it } from 'vitest';
import {
  classifyResult,
  decideRetry,
  GatewayResultError,
  GatewaySignatureError,
  GatewayTransportError,
  GatewayValidationError,
} from '../../gateway';

const policy = { maxAttempts: 4 };
const resultError = (code: number) =>
  new GatewayResultError('disbursement.pay', code, 'm', classifyResult('disbursement.pay', code), {});

describe('decideRetry', () => {
  it('retries transport failures, then gives up after maxAttempts (the waits are the profile backoff)', () => {
    const timeout = new GatewayTransportError('payment.query', 'timeout', 't');
    expect(decideRetry(timeout, 1, policy)).toMatchObject({ retry: true });
    expect(decideRetry(timeout, 2, policy)).toMatchObject({ retry: true });
    expect(decideRetry(timeout, 3, policy)).toMatchObject({ retry: true });
    expect(decideRetry(timeout, 4, policy)).toMatchObject({ retry: false });
  });

  it('retries 5xx but not a 4xx without a result code', () => {
    expect(decideRetry(new GatewayTransportError('x', 'http_status', 'm', 503), 1, policy).retry).toBe(true);
    expect(
      decideRetry(new GatewayTransportError('x', 'http_status', 'm', 404, { retryable: false }), 1, policy)
        .retry,
    ).toBe(false);
  });

  it('retries result 10 (maintenance) only', () => {
    expect(decideRetry(resultError(10), 1, policy).retry).toBe(true);
    expect(decideRetry(resultError(1100), 1, policy)).toMatchObject({
      retry: false,
      reason: expect.stringContaining('1100'),
    });
    expect(decideRetry(resultError(99), 1, policy).retry).toBe(false);
  });

  it('never retries invalid input, forged answers or unknown errors', () => {
    expect(decideRetry(new GatewayValidationError('x', []), 1, policy).retry).toBe(false);
    expect(decideRetry(new GatewaySignatureError('x'), 1, policy).retry).toBe(false);
    expect(decideRetry(new Error('boom'), 1, policy).retry).toBe(false);
  });
});
