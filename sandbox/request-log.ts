/**
 * What the sandbox received, read-only: the operation, orderId and requestId of every request that passed
 * authentication and decryption, in arrival order (`admin.requests()`). Tests check every id payrun sends
 * against the spec's limits with it (test/api/order-id-namespace.test.ts). It keeps the latest
 * REQUEST_LOG_LIMIT requests, so a long-running dev sandbox does not grow without bound.
 */
import type { OperationName } from '../gateway';

export interface ReceivedRequest {
  operation: OperationName;
  /** As sent (before lenient reading); absent when the request carried none. */
  orderId?: string;
  requestId?: string;
}

export const REQUEST_LOG_LIMIT = 20_000;

const logs = new WeakMap<object, ReceivedRequest[]>();

/** Called by the pipeline once per request it reads. `world` keys the log: a reset sandbox starts a new one. */
export function recordRequest(
  world: object,
  operation: OperationName,
  wire: Readonly<Record<string, unknown>>,
): void {
  let log = logs.get(world);
  if (!log) logs.set(world, (log = []));
  log.push({
    operation,
    ...(typeof wire.orderId === 'string' ? { orderId: wire.orderId } : {}),
    ...(typeof wire.requestId === 'string' ? { requestId: wire.requestId } : {}),
  });
  if (log.length > REQUEST_LOG_LIMIT) log.splice(0, log.length - REQUEST_LOG_LIMIT);
}

export function requestsReceived(world: object): ReceivedRequest[] {
  return [...(logs.get(world) ?? [])];
}
