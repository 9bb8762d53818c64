import type { Violation } from './operations/types';
import type { Classification, ResultOutcome } from './result-codes';

/**
 * One class per kind of failure, each with an explicit `type` string (stripe-node style), so callers
 * branch on `error.type` (or instanceof) and activities can map them to Temporal failures without
 * parsing messages.
 */

export type GatewayErrorType =
  | 'validation_error'
  | 'transport_error'
  | 'gateway_result_error'
  | 'signature_error'
  | 'format_error'
  | 'crypto_error';

export abstract class GatewayError extends Error {
  abstract readonly type: GatewayErrorType;
  /** Whether re-sending the same request (same requestId) may succeed. */
  abstract readonly retryable: boolean;
}

/** The input broke a rule of the table; nothing was sent. */
export class GatewayValidationError extends GatewayError {
  override readonly name = 'GatewayValidationError';
  readonly type = 'validation_error' as const;
  readonly retryable = false;
  readonly field: string;
  readonly rule: string;

  constructor(
    readonly operation: string,
    readonly violations: readonly Violation[],
  ) {
    const first = violations[0] ?? { field: '(request)', rule: 'invalid', message: 'invalid request' };
    const more = violations.length > 1 ? ` (and ${violations.length - 1} more)` : '';
    super(`${operation}: ${first.field} breaks rule "${first.rule}": ${first.message}${more}`);
    this.field = first.field;
    this.rule = first.rule;
  }
}

export type TransportFailure = 'network' | 'timeout' | 'http_status' | 'unparseable_body';

/** The call did not produce a gateway answer: the request may or may not have arrived. */
export class GatewayTransportError extends GatewayError {
  override readonly name = 'GatewayTransportError';
  readonly type = 'transport_error' as const;
  readonly retryable: boolean;

  constructor(
    readonly operation: string,
    readonly reason: TransportFailure,
    message: string,
    readonly status?: number,
    options?: { cause?: unknown; retryable?: boolean },
  ) {
    super(`${operation}: ${message}`, options?.cause === undefined ? undefined : { cause: options.cause });
    this.retryable = options?.retryable ?? true;
  }
}

/** The gateway answered with a result code whose classification is a failure. */
export class GatewayResultError extends GatewayError {
  override readonly name = 'GatewayResultError';
  readonly type = 'gateway_result_error' as const;
  readonly retryable: boolean;
  readonly final: boolean;
  /** What the code says happened (result-codes.ts): callers branch on this, never on the number. */
  readonly outcome: ResultOutcome;

  constructor(
    readonly operation: string,
    readonly resultCode: number,
    readonly gatewayMessage: string,
    readonly classification: Classification,
    readonly body: Readonly<Record<string, unknown>>,
  ) {
    super(`${operation}: result ${resultCode} (${classification.meaning}): ${gatewayMessage}`);
    this.retryable = classification.action === 'retry-later';
    this.final = classification.final;
    this.outcome = classification.outcome;
  }
}

/** A response or notification whose signature does not match: never trust its content. */
export class GatewaySignatureError extends GatewayError {
  override readonly name = 'GatewaySignatureError';
  readonly type = 'signature_error' as const;
  readonly retryable = false;

  constructor(
    readonly source: string,
    message = 'signature mismatch',
  ) {
    super(`${source}: ${message}`);
  }
}

/** An incoming notification (or redirect query) that is not the expected shape. */
export class GatewayFormatError extends GatewayError {
  override readonly name = 'GatewayFormatError';
  readonly type = 'format_error' as const;
  readonly retryable = false;

  constructor(
    readonly source: string,
    message: string,
    readonly violations: readonly Violation[] = [],
  ) {
    super(`${source}: ${message}`);
  }
}

/** Keys or ciphertexts that cannot be used (wrong AES key length, bad RSA key, payload too long). */
export class GatewayCryptoError extends GatewayError {
  override readonly name = 'GatewayCryptoError';
  readonly type = 'crypto_error' as const;
  readonly retryable = false;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
  }
}

export function isGatewayError(error: unknown): error is GatewayError {
  return error instanceof GatewayError;
}
