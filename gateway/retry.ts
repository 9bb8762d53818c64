import {
  GatewayResultError,
  GatewaySignatureError,
  GatewayTransportError,
  GatewayValidationError,
} from './errors';

/**
 * Whether to send the same request again (same requestId, same orderId — never a new order). Pure, so it
 * can be tested alone and reused by activities to decide between a retryable and a non-retryable
 * Temporal failure. After how long is not decided here: Temporal retries the activity by its profile's
 * backoff (contracts/shared/backoff.ts).
 */

export interface RetryPolicy {
  readonly maxAttempts: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxAttempts: 5 };

export type RetryDecision =
  { readonly retry: true; readonly reason: string } | { readonly retry: false; readonly reason: string };

/** `attempt` is the number of the attempt that just failed, starting at 1. */
export function decideRetry(
  error: unknown,
  attempt: number,
  policy: RetryPolicy = DEFAULT_RETRY_POLICY,
): RetryDecision {
  const verdict = retryability(error);
  if (!verdict.retryable) return { retry: false, reason: verdict.reason };
  if (attempt >= policy.maxAttempts)
    return { retry: false, reason: `${verdict.reason}; gave up after ${attempt} attempts` };
  return { retry: true, reason: verdict.reason };
}

function retryability(error: unknown): { retryable: boolean; reason: string } {
  if (error instanceof GatewayValidationError)
    return { retryable: false, reason: 'invalid input: nothing was sent' };
  if (error instanceof GatewaySignatureError)
    return { retryable: false, reason: 'response signature mismatch: wrong keys or tampering' };
  if (error instanceof GatewayTransportError)
    return error.retryable
      ? {
          retryable: true,
          reason: `transport ${error.reason}: the request may not have arrived; resend it unchanged`,
        }
      : {
          retryable: false,
          reason: `transport ${error.reason} ${error.status ?? ''}: not a transient failure`.trim(),
        };
  if (error instanceof GatewayResultError)
    return error.retryable
      ? { retryable: true, reason: `result ${error.resultCode}: ${error.classification.meaning}` }
      : {
          retryable: false,
          reason: `result ${error.resultCode} is a final failure: ${error.classification.meaning}`,
        };
  return { retryable: false, reason: 'not a gateway error' };
}
