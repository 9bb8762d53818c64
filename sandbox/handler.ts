import { resultCodeInfo, type OperationName, type ValidationContext } from '../gateway';
import type { SandboxWorld } from './world';

/**
 * The contract between the request pipeline and the per-domain handlers. The pipeline has already
 * authenticated, decrypted, validated and claimed the requestId; a handler only tells the story of
 * its operation and returns the result code and the response fields specific to it.
 */
export interface GatewayRequest {
  readonly operation: OperationName;
  /** Plaintext request (encrypted fields decrypted), valid against the operation table. */
  readonly fields: Readonly<Record<string, unknown>>;
  readonly requestId: string;
  /** Every document-3 operation but exchange-rate carries one. */
  readonly orderId: string;
}

export interface HandlerOutcome {
  readonly resultCode: number;
  /** Defaults to the code's meaning from gateway/result-codes. */
  readonly message?: string;
  /** Response fields beyond partnerCode/requestId/orderId/responseTime/resultCode/message. */
  readonly fields?: Readonly<Record<string, unknown>>;
  /**
   * Nothing happened: do not keep the requestId (transient 10: the same requestId may be re-sent)
   * and/or do not take the orderId (1100: top up, then submit the same order again).
   */
  readonly untouched?: { readonly requestId?: boolean; readonly orderId?: boolean };
}

export interface OperationHandler {
  /** The operation creates an order under its orderId; a reused orderId is refused with 41. */
  readonly createsOrder?: boolean;
  /**
   * Facts the request does not carry but its limits depend on (token flow, recurringAmount, refunded
   * method), looked up in the sandbox's records so validation answers 22 like the real gateway.
   * Receives the decrypted request before validation: read it defensively.
   */
  validationContext?(fields: Readonly<Record<string, unknown>>, world: SandboxWorld): ValidationContext;
  handle(request: GatewayRequest, world: SandboxWorld): HandlerOutcome;
}

export type HandlerTable = Partial<Record<OperationName, OperationHandler>>;

export function outcome(
  resultCode: number,
  message?: string,
  fields?: Readonly<Record<string, unknown>>,
): HandlerOutcome {
  return { resultCode, message: message ?? defaultMessage(resultCode), ...(fields ? { fields } : {}) };
}

export function defaultMessage(resultCode: number): string {
  return resultCodeInfo(resultCode)?.meaning ?? `Result ${resultCode}`;
}
