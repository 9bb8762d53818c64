import {
  GatewayResultError,
  GatewaySignatureError,
  GatewayTransportError,
  type GatewayError,
} from './errors';
import { operationSpec, type OperationName, type ResponseBody } from './operations';
import type { ResultAction } from './operations/types';
import { classifyResult } from './classify-result';
import type { Classification } from './result-codes';
import { sign, verifySignature, type SigningKeys } from './signature';
import { isPlainObject } from './validation';

/** A gateway-level answer the caller acts on (success, pending, redirect, OTP, batch created, duplicate). */
export interface GatewayResult<Op extends OperationName = OperationName> {
  readonly operation: Op;
  readonly resultCode: number;
  readonly message: string;
  readonly classification: Classification;
  readonly body: ResponseBody<Op>;
}

export type Outcome<Op extends OperationName> =
  | { readonly ok: true; readonly result: GatewayResult<Op> }
  | { readonly ok: false; readonly error: GatewayError };

/**
 * Actions that come back to the caller as an error rather than a result: a final failure (nothing
 * more will happen) and `retry-later` (the activity should fail and be retried with the same
 * requestId). Everything else is a normal step of a process and is returned.
 */
export const ERROR_ACTIONS: ReadonlySet<ResultAction> = new Set(['final-failure', 'retry-later']);

export interface RawResponse<Op extends OperationName> {
  readonly operation: Op;
  readonly status: number;
  readonly bodyText: string;
  readonly keys: SigningKeys;
}

/** The one place that turns an HTTP answer into a result or the right kind of error. */
export function interpretResponse<Op extends OperationName>(response: RawResponse<Op>): Outcome<Op> {
  const { operation, status, bodyText } = response;
  if (status >= 500) {
    return fail(
      new GatewayTransportError(operation, 'http_status', `HTTP ${status} from the gateway`, status),
    );
  }
  // A 4xx without a result code (JSON or not) is a routing/configuration problem; repeating it will
  // not help. Only "timeout" and "too many requests" may pass on their own.
  const retryable = status < 400 || status === 408 || status === 429;
  let body: unknown;
  try {
    body = JSON.parse(bodyText);
  } catch (cause) {
    return fail(
      new GatewayTransportError(
        operation,
        status >= 400 ? 'http_status' : 'unparseable_body',
        `HTTP ${status} with a body that is not JSON`,
        status,
        { cause, retryable },
      ),
    );
  }
  if (!isPlainObject(body) || typeof body.resultCode !== 'number') {
    return fail(
      new GatewayTransportError(
        operation,
        status >= 400 ? 'http_status' : 'unparseable_body',
        `HTTP ${status} without a resultCode`,
        status,
        {
          retryable,
        },
      ),
    );
  }
  const signed = operationSpec(operation).response.signed;
  // Successes must be signed where the spec lists a response signature; error answers are checked
  // when they carry one (the spec does not say whether they do).
  if (signed && (body.resultCode === 0 || body.signature !== undefined)) {
    if (!verifySignature(signed, body, body.signature, response.keys)) {
      return fail(new GatewaySignatureError(`response of ${operation}`, 'response signature mismatch'));
    }
  }
  const resultCode = body.resultCode;
  const message = typeof body.message === 'string' ? body.message : '';
  const classification = classifyResult(operation, resultCode);
  if (ERROR_ACTIONS.has(classification.action)) {
    return fail(new GatewayResultError(operation, resultCode, message, classification, body));
  }
  return {
    ok: true,
    result: { operation, resultCode, message, classification, body: body as ResponseBody<Op> },
  };
}

function fail(error: GatewayError): { ok: false; error: GatewayError } {
  return { ok: false, error };
}

/**
 * A response body as the gateway would send it (sandbox, tests): signed where the spec lists a
 * response signature, unsigned otherwise.
 */
export function buildResponse<Op extends OperationName>(
  operation: Op,
  fields: Readonly<Record<string, unknown>>,
  keys: SigningKeys,
): Record<string, unknown> {
  const signed = operationSpec(operation).response.signed;
  return signed ? { ...fields, signature: sign(signed, fields, keys) } : { ...fields };
}
