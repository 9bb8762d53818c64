import { ApplicationFailure } from '@temporalio/activity';
import {
  GatewayResultError,
  GatewaySignatureError,
  GatewayValidationError,
  type GatewayClient,
  type OperationName,
  type RequestFields,
} from '../gateway';

/**
 * Turns a gateway failure into what Temporal should do with it. Transport failures and "retry later"
 * stay ordinary errors, so the activity is retried with the same requestId; a final answer, a request
 * we built wrongly, or a forged response become non-retryable failures whose type and details say why.
 */
export function asActivityFailure(error: unknown): unknown {
  if (error instanceof GatewayResultError && !error.retryable) {
    return ApplicationFailure.nonRetryable(error.message, 'GatewayRejected', {
      operation: error.operation,
      resultCode: error.resultCode,
      gatewayMessage: error.gatewayMessage,
    });
  }
  if (error instanceof GatewayValidationError) {
    return ApplicationFailure.nonRetryable(error.message, 'GatewayInvalidRequest', {
      operation: error.operation,
      field: error.field,
      rule: error.rule,
    });
  }
  if (error instanceof GatewaySignatureError) {
    return ApplicationFailure.nonRetryable(error.message, 'GatewaySignatureMismatch', {
      source: error.source,
    });
  }
  return error;
}

/** `client.call` with failures mapped for Temporal. */
export async function callGateway<Op extends OperationName>(
  gateway: GatewayClient,
  operation: Op,
  fields: RequestFields<Op>,
) {
  try {
    return await gateway.call(operation, fields);
  } catch (error) {
    throw asActivityFailure(error);
  }
}
