import { toPublicKey, type KeyInput } from './crypto';
import { GatewayTransportError, GatewayValidationError } from './errors';
import { operationSpec, type OperationName, type RequestFields } from './operations';
import type { ValidationContext } from './operations/types';
import { encryptRequestFields } from './request-crypto';
import { interpretResponse, type GatewayResult } from './response';
import { redact } from './sensitive-fields';
import { sign, type SigningKeys } from './signature';
import { validateRequest } from './validation';

/** pino-compatible: `logger.info({ ...fields }, 'message')`. */
export interface GatewayLogger {
  info(fields: Record<string, unknown>, message?: string): void;
  warn(fields: Record<string, unknown>, message?: string): void;
  debug?(fields: Record<string, unknown>, message?: string): void;
}

export interface GatewayClientOptions {
  readonly baseUrl: string;
  readonly partnerCode: string;
  readonly accessKey: string;
  readonly secretKey: string;
  /** The gateway's RSA public key: PEM or Base64 DER (see crypto.ts). */
  readonly gatewayPublicKey: KeyInput;
  readonly fetch?: typeof fetch;
  readonly logger?: GatewayLogger;
  /** Clock for measuring call durations (tests pass a fake). */
  readonly now?: () => number;
}

export interface CallOptions {
  /** Facts some limits depend on (token flow, recurringAmount, refunded method). */
  readonly context?: ValidationContext;
  /** Overrides the table's timeout for this call. */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

export interface PreparedRequest {
  readonly url: string;
  /** The JSON body exactly as sent: partnerCode filled, encrypted fields as ciphertext, signed. */
  readonly body: Readonly<Record<string, unknown>>;
  readonly timeoutMs: number;
}

export interface GatewayClient {
  /**
   * Validates, encrypts, signs and sends one operation. Resolves with the gateway's answer when the
   * classification is a step of the process (success, wait-for-ipn, redirect-customer, ask-for-otp,
   * batch-created, resolve-by-query); rejects with GatewayResultError for final failures and
   * `retry-later`, GatewayTransportError when no answer arrived, GatewaySignatureError when the
   * answer is not authentic, GatewayValidationError (before sending anything) for bad input.
   * The caller always supplies requestId and orderId: re-sending after a timeout must reuse them.
   */
  call<Op extends OperationName>(
    operation: Op,
    fields: RequestFields<Op>,
    options?: CallOptions,
  ): Promise<GatewayResult<Op>>;
  /** Everything `call` does before the network, for inspection and tests. */
  prepare<Op extends OperationName>(
    operation: Op,
    fields: RequestFields<Op>,
    options?: CallOptions,
  ): PreparedRequest;
}

export function createGatewayClient(options: GatewayClientOptions): GatewayClient {
  const keys: SigningKeys = { accessKey: options.accessKey, secretKey: options.secretKey };
  const publicKey = toPublicKey(options.gatewayPublicKey);
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const now = options.now ?? Date.now;
  const logger = options.logger;
  const baseUrl = options.baseUrl.replace(/\/+$/, '');

  function prepare<Op extends OperationName>(
    operation: Op,
    fields: RequestFields<Op>,
    callOptions: CallOptions = {},
  ): PreparedRequest {
    const spec = operationSpec(operation);
    const given = fields as Readonly<Record<string, unknown>>;
    if (given.partnerCode !== undefined && given.partnerCode !== options.partnerCode) {
      throw new GatewayValidationError(operation, [
        {
          field: 'partnerCode',
          rule: 'set by the client',
          message: 'partnerCode comes from the client configuration',
        },
      ]);
    }
    const plain: Record<string, unknown> = {
      ...constantsOf(operation),
      ...given,
      partnerCode: options.partnerCode,
    };
    const violations = validateRequest(operation, plain, callOptions.context);
    if (violations.length > 0) throw new GatewayValidationError(operation, violations);

    const wire = encryptRequestFields(operation, plain, publicKey);
    wire.signature = sign(spec.signed, wire, keys);
    return { url: `${baseUrl}${spec.path}`, body: wire, timeoutMs: callOptions.timeoutMs ?? spec.timeoutMs };
  }

  async function call<Op extends OperationName>(
    operation: Op,
    fields: RequestFields<Op>,
    callOptions: CallOptions = {},
  ): Promise<GatewayResult<Op>> {
    const request = prepare(operation, fields, callOptions);
    const ids = { operation, requestId: request.body.requestId, orderId: request.body.orderId };
    logger?.debug?.({ ...ids, url: request.url, request: redact(request.body) }, 'gateway request');
    const started = now();

    const timeout = AbortSignal.timeout(request.timeoutMs);
    const signal = callOptions.signal ? AbortSignal.any([timeout, callOptions.signal]) : timeout;
    let status: number;
    let bodyText: string;
    try {
      const response = await fetchImpl(request.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=UTF-8', accept: 'application/json' },
        body: JSON.stringify(request.body),
        signal,
      });
      status = response.status;
      bodyText = await response.text();
    } catch (cause) {
      const timedOut = timeout.aborted;
      const error = new GatewayTransportError(
        operation,
        timedOut ? 'timeout' : 'network',
        timedOut ? `no answer within ${request.timeoutMs} ms` : `network error: ${errorMessage(cause)}`,
        undefined,
        { cause },
      );
      logger?.warn(
        { ...ids, durationMs: now() - started, errorType: error.type, reason: error.reason },
        'gateway call failed',
      );
      throw error;
    }

    const outcome = interpretResponse({ operation, status, bodyText, keys });
    const durationMs = now() - started;
    if (!outcome.ok) {
      const error = outcome.error;
      logger?.warn(
        {
          ...ids,
          durationMs,
          status,
          errorType: error.type,
          ...('resultCode' in error ? { resultCode: error.resultCode } : {}),
          ...('reason' in error ? { reason: error.reason } : {}),
        },
        'gateway call failed',
      );
      throw error;
    }
    const { result } = outcome;
    logger?.info(
      { ...ids, durationMs, status, resultCode: result.resultCode, action: result.classification.action },
      'gateway call',
    );
    logger?.debug?.({ ...ids, response: redact(result.body) }, 'gateway response');
    return result;
  }

  return { call, prepare };
}

/** Values fixed by the operation (e.g. requestType of a create variant) that the client fills in. */
function constantsOf(operation: OperationName): Record<string, string> {
  const constants: Record<string, string> = {};
  for (const [name, field] of Object.entries(operationSpec(operation).request)) {
    if (field.kind === 'string' && field.constant !== undefined) constants[name] = field.constant;
  }
  return constants;
}

function errorMessage(cause: unknown): string {
  if (cause instanceof Error) {
    const inner = cause.cause instanceof Error ? `: ${cause.cause.message}` : '';
    return `${cause.message}${inner}`;
  }
  return String(cause);
}
