/**
 * The one retry decision every activity uses (activities/shared/gateway-calls.ts over gateway/retry.ts): what
 * Temporal retries with the same requestId, and the typed failures that stop it.
 */
import { describe, expect, it } from 'vitest';
import { ApplicationFailure } from '@temporalio/common';
import {
  askGateway,
  asActivityFailure,
  callGateway,
  GATEWAY_FAILURE_TYPES,
} from '../../activities/shared/gateway-calls';
import {
  classifyResult,
  createGatewayClient,
  GatewayFormatError,
  GatewayResultError,
  GatewaySignatureError,
  GatewayTransportError,
  GatewayValidationError,
  type GatewayClient,
} from '../../gateway';
import { samples, testKeyPair, TEST_KEYS } from '../gateway/support/samples';

const rejected = (code: number) =>
  new GatewayResultError('disbursement.pay', code, 'm', classifyResult('disbursement.pay', code), {
    orderId: 'o1',
    transId: 77,
  });

const failureType = (error: unknown) => (error instanceof ApplicationFailure ? error.type : undefined);
const nonRetryable = (error: unknown) => error instanceof ApplicationFailure && error.nonRetryable;

/** A client whose every call answers with `answer` (a result) or throws it (an error). */
const clientThat = (answer: unknown, throws = true): GatewayClient => ({
  call: async () => {
    if (throws) throw answer;
    return answer as never;
  },
  prepare: () => {
    throw new Error('not used');
  },
});

describe('asActivityFailure: the retry decision of gateway/retry.ts, used by every activity', () => {
  it('leaves transport trouble and "retry later" as they are: Temporal retries with the same requestId', () => {
    const timeout = new GatewayTransportError('payment.query', 'timeout', 'no answer');
    const unavailable = new GatewayTransportError('payment.query', 'http_status', 'HTTP 503', 503);
    expect(asActivityFailure(timeout)).toBe(timeout);
    expect(asActivityFailure(unavailable)).toBe(unavailable);
    const maintenance = rejected(10);
    expect(asActivityFailure(maintenance)).toBe(maintenance);
  });

  it('stops a 4xx without a result code with a typed failure instead of retrying it forever', () => {
    const notFound = new GatewayTransportError(
      'payment.query',
      'http_status',
      'HTTP 404 without a resultCode',
      404,
      {
        retryable: false,
      },
    );
    const failure = asActivityFailure(notFound);
    expect(nonRetryable(failure)).toBe(true);
    expect(failureType(failure)).toBe('gateway_request_refused');
    expect((failure as ApplicationFailure).details?.[0]).toMatchObject({
      status: 404,
      reason: 'http_status',
    });
  });

  it('types every final failure from the closed list, with why in its details', () => {
    const cases = [
      [rejected(1100), 'gateway_rejected', { resultCode: 1100, outcome: 'merchant_balance_short' }],
      [
        new GatewayValidationError('payment.query', []),
        'gateway_invalid_request',
        { operation: 'payment.query' },
      ],
    ] as const;
    for (const [error, type, details] of cases) {
      const failure = asActivityFailure(error);
      expect(nonRetryable(failure)).toBe(true);
      expect(failureType(failure)).toBe(type);
      expect(GATEWAY_FAILURE_TYPES).toContain(type);
      expect((failure as ApplicationFailure).details?.[0]).toMatchObject({
        ...details,
        decision: expect.any(String),
      });
    }
  });

  it('an answer payrun cannot use (bad signature, bad shape) is a lost answer: retried, never final', () => {
    for (const error of [
      new GatewaySignatureError('response of payment.captureWallet'),
      new GatewayFormatError('response of payment.query', 'resultCode is missing'),
    ]) {
      const failure = asActivityFailure(error) as ApplicationFailure;
      expect(failure).toBeInstanceOf(ApplicationFailure);
      expect(failure.nonRetryable).toBe(false);
      expect(GATEWAY_FAILURE_TYPES).toContain(failure.type);
    }
  });

  it("leaves failures that are not the gateway's to the activity's retry policy", () => {
    const missing = new Error('Batch b1 has no record');
    expect(asActivityFailure(missing)).toBe(missing);
  });
});

describe('askGateway: final answers as values, the rest decided as above', () => {
  it('returns a refusal with its outcome, and rejects with the typed failure otherwise', async () => {
    const refusal = await askGateway(
      clientThat(rejected(1001)),
      'disbursement.pay',
      samples['disbursement.pay'],
    );
    expect(refusal).toMatchObject({
      accepted: false,
      outcome: 'insufficient_funds',
      resultCode: 1001,
      message: 'm',
    });
    const failure = await callGateway(
      clientThat(rejected(1001)),
      'disbursement.pay',
      samples['disbursement.pay'],
    ).catch((error: unknown) => error);
    expect(failureType(failure)).toBe('gateway_rejected');
  });

  it('hands back a retryable outcome only when asked to (a code sent too soon)', async () => {
    const tooSoon = new GatewayResultError(
      'tokenization.verify',
      8204,
      'wait',
      classifyResult('tokenization.verify', 8204),
      {},
    );
    const asked = askGateway(clientThat(tooSoon), 'tokenization.verify', samples['tokenization.verify']);
    await expect(asked).rejects.toBe(tooSoon);
    const answered = await askGateway(
      clientThat(tooSoon),
      'tokenization.verify',
      samples['tokenization.verify'],
      {
        answerAlso: (outcome) => outcome === 'otp_too_soon',
      },
    );
    expect(answered).toMatchObject({ accepted: false, outcome: 'otp_too_soon' });
  });

  it('answers our own invalid request as invalid_request when the caller takes it as a refusal', async () => {
    const invalid = new GatewayValidationError('payment.query', [
      { field: 'orderId', rule: 'required', message: 'm' },
    ]);
    const answer = await askGateway(clientThat(invalid), 'payment.query', samples['payment.query'], {
      invalidRequestIsAnswer: true,
    });
    expect(answer).toMatchObject({ accepted: false, outcome: 'invalid_request', resultCode: 20 });
  });

  it('over real HTTP: a 404 without a result code fails once, typed, instead of being retried forever', async () => {
    const keyPair = testKeyPair();
    const client = createGatewayClient({
      baseUrl: 'http://gateway.invalid',
      partnerCode: 'MOMO',
      ...TEST_KEYS,
      gatewayPublicKey: keyPair.publicKey,
      fetch: async () => new Response('<html>not here</html>', { status: 404 }),
    });
    const failure = await callGateway(client, 'payment.query', samples['payment.query']).catch(
      (e: unknown) => e,
    );
    expect(nonRetryable(failure)).toBe(true);
    expect(failureType(failure)).toBe('gateway_request_refused');
  });
});
