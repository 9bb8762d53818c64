import { randomBytes } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/activity';
import {
  codeOf,
  decideRetry,
  GatewayCryptoError,
  GatewayFormatError,
  GatewayResultError,
  GatewaySignatureError,
  GatewayTransportError,
  GatewayValidationError,
  isGatewayError,
  type CallOptions,
  type Evidence,
  type GatewayClient,
  type GatewayError,
  type OperationName,
  type RequestFields,
  type ResultAction,
  type ResultOutcome,
  type RetryPolicy,
} from '../../gateway';
import { OrderIdTaken } from '../../db/shared/gateway-order-ids';
import { lookupIdFor } from '../../gateway/ids';

/**
 * Every activity's gateway call goes through here, and gateway/retry.ts decides what a failure means:
 * send the same request again (transport trouble, "retry later") or stop with a typed, non-retryable
 * failure. How often and how long Temporal retries is the activity profile's business
 * (workflows/shared/activity-profiles.ts), so the decision here is unbounded in attempts.
 */
const RETRY_UNTIL_THE_PROFILE_STOPS: RetryPolicy = { maxAttempts: Number.POSITIVE_INFINITY };

/** The closed set of failure types an activity raises for the gateway; tests and workflows match on them. */
export const GATEWAY_FAILURE_TYPES = [
  /** A final answer (result code) the caller did not expect as a value. */
  'gateway_rejected',
  /** Our request broke a rule of the operation table: nothing was sent. */
  'gateway_invalid_request',
  /** The answer's signature does not match: never trust it. */
  'gateway_signature_mismatch',
  /** An HTTP 4xx without a result code: a routing or configuration problem that repeating cannot fix. */
  'gateway_request_refused',
  /** An answer that is not the expected shape, or keys that cannot encrypt the request. */
  'gateway_unusable_answer',
] as const;
export type GatewayFailureType = (typeof GATEWAY_FAILURE_TYPES)[number];

function failureOf(error: GatewayError): { type: GatewayFailureType; details: Record<string, unknown> } {
  if (error instanceof GatewayResultError)
    return {
      type: 'gateway_rejected',
      details: {
        operation: error.operation,
        resultCode: error.resultCode,
        outcome: error.outcome,
        gatewayMessage: error.gatewayMessage,
      },
    };
  if (error instanceof GatewayValidationError)
    return {
      type: 'gateway_invalid_request',
      details: { operation: error.operation, field: error.field, rule: error.rule },
    };
  if (error instanceof GatewaySignatureError)
    return { type: 'gateway_signature_mismatch', details: { source: error.source } };
  if (error instanceof GatewayTransportError)
    return {
      type: 'gateway_request_refused',
      details: { operation: error.operation, reason: error.reason, status: error.status },
    };
  if (error instanceof GatewayFormatError)
    return { type: 'gateway_unusable_answer', details: { source: error.source } };
  if (error instanceof GatewayCryptoError) return { type: 'gateway_unusable_answer', details: {} };
  return { type: 'gateway_unusable_answer', details: {} };
}

/**
 * What Temporal should do with a failure of a gateway call: the same error (Temporal retries it with
 * the same requestId) or a non-retryable ApplicationFailure whose type and details say why. Failures
 * that are not the gateway's (a missing row, the database) are left to the activity's retry policy.
 */
export function asActivityFailure(error: unknown, attempt = 1): unknown {
  // An orderId another object owns (db/shared/gateway-order-ids.ts): nothing was sent, and retrying cannot help.
  if (error instanceof OrderIdTaken)
    return ApplicationFailure.nonRetryable(error.message, 'order_id_taken', {
      orderId: error.orderId,
      ownerKind: error.ownerKind,
    });
  if (!isGatewayError(error)) return error;
  // An answer payrun cannot use (not the shape the table gives, or a signature that does not match) is an
  // answer lost: the request may have been taken. Sent again, the same requestId hears 40 and the outcome is
  // asked by query (or a lookup asks again with fresh ids); failing here could abandon money that moved.
  if (error instanceof GatewayFormatError || error instanceof GatewaySignatureError) {
    const { type, details } = failureOf(error);
    return ApplicationFailure.retryable(`${error.message} (treated as a lost answer)`, type, details);
  }
  const decision = decideRetry(error, attempt, RETRY_UNTIL_THE_PROFILE_STOPS);
  if (decision.retry) return error;
  const { type, details } = failureOf(error);
  return ApplicationFailure.nonRetryable(error.message, type, { ...details, decision: decision.reason });
}

/** `client.call` with failures decided as above: a final answer is a typed failure. */
export async function callGateway<Op extends OperationName>(
  gateway: GatewayClient,
  operation: Op,
  fields: RequestFields<Op>,
  options?: CallOptions,
) {
  try {
    return await gateway.call(operation, fields, options);
  } catch (error) {
    throw asActivityFailure(error);
  }
}

/** A gateway answer as a value: what the code says happened, whether the gateway took the request. */
export interface GatewayAnswer {
  /** false: a final refusal (or an outcome the caller asked to receive as a value). */
  readonly accepted: boolean;
  readonly outcome: ResultOutcome;
  /** What payrun does next for this operation (a create's success means "redirect the customer"). */
  readonly action: ResultAction;
  readonly resultCode: number;
  readonly message: string;
  readonly body: Record<string, unknown>;
}

export interface AskOptions extends CallOptions {
  /** Retryable outcomes the caller wants back as a value instead of a retry (e.g. otp_too_soon). */
  readonly answerAlso?: (outcome: ResultOutcome) => boolean;
  /** Our own invalid request comes back as an `invalid_request` refusal instead of a failure. */
  readonly invalidRequestIsAnswer?: boolean;
}

/**
 * `client.call` where final answers come back as values: the process decides what a refusal means.
 * Transport trouble and "retry later" are retried by Temporal; the rest is a typed failure.
 */
export async function askGateway<Op extends OperationName>(
  gateway: GatewayClient,
  operation: Op,
  fields: RequestFields<Op>,
  options: AskOptions = {},
): Promise<GatewayAnswer> {
  const { answerAlso, invalidRequestIsAnswer, ...callOptions } = options;
  try {
    const result = await gateway.call(operation, fields, callOptions);
    return {
      accepted: true,
      outcome: result.classification.outcome,
      action: result.classification.action,
      resultCode: result.resultCode,
      message: result.message,
      body: result.body as Record<string, unknown>,
    };
  } catch (error) {
    if (error instanceof GatewayResultError && (!error.retryable || answerAlso?.(error.outcome))) {
      return {
        accepted: false,
        outcome: error.outcome,
        action: error.classification.action,
        resultCode: error.resultCode,
        message: error.gatewayMessage,
        body: error.body as Record<string, unknown>,
      };
    }
    if (error instanceof GatewayValidationError && invalidRequestIsAnswer) {
      return {
        accepted: false,
        outcome: 'invalid_request',
        action: 'final-failure',
        resultCode: codeOf('invalid_request'),
        message: error.message,
        body: {},
      };
    }
    throw asActivityFailure(error);
  }
}

/**
 * A status query whose answer counts only as evidence (gateway/evidence.ts). Whatever stops the query
 * (a refusal, an answer payrun's own client rejects: no signature, another shape) is "not known yet", never
 * a failure of the process and never the order's result; transport trouble is retried like any call.
 */
export async function askForEvidence<Op extends OperationName>(
  gateway: GatewayClient,
  operation: Op,
  fields: RequestFields<Op>,
  read: (body: Record<string, unknown> | undefined) => Evidence,
): Promise<Evidence> {
  try {
    const result = await gateway.call(operation, fields);
    return read(result.body as Record<string, unknown>);
  } catch (error) {
    // "Retry later" (10) says nothing about the order and asks for the same request again: retried like
    // transport trouble, never read as an answer.
    if (error instanceof GatewayResultError && error.retryable) throw error;
    if (error instanceof GatewayResultError) return read(error.body as Record<string, unknown>);
    if (error instanceof GatewayTransportError && error.retryable) throw error;
    if (isGatewayError(error))
      return {
        state: 'unknown',
        reason: `payrun's client rejected the answer to ${operation}: ${error.message}`,
      };
    throw error;
  }
}

/**
 * A fresh id for a lookup (a query, a balance read, a wallet check): lookups create nothing, so each one
 * gets an id of its own and a lost answer is simply asked again. Valid as a requestId and as an orderId.
 */
export const lookupId = (base: string) => lookupIdFor(base, randomBytes(6).toString('hex'));
