import {
  buildResponse,
  decryptRequestFields,
  encryptedFields,
  operationForRequest,
  operationSpec,
  operationsAtPath,
  validateRequest,
  verifySignature,
  type OperationName,
  type Violation,
} from '../gateway';
import { CODE } from './codes';
import { defaultMessage, type HandlerOutcome, type HandlerTable } from './handler';
import { readLikeTheGateway } from './leniency';
import { recordRequest } from './request-log';
import type { SandboxWorld } from './world';

/**
 * One gateway request, from raw body to answer, in the order the real gateway plausibly works:
 * route → authenticate (partnerCode, signature over the wire values) → decrypt and read leniently
 * (numeric strings, empty optionals, unknown fields: see leniency.ts) → requestId (a requestId read
 * before is answered 40, never replayed) → request faults → validate → orderId uniqueness → handler.
 */
export type Reply =
  | { kind: 'answer'; status: number; body: Record<string, unknown> }
  /** The request was processed; keep the connection open and answer nothing until the client gives up. */
  | { kind: 'hang'; abandon: () => void }
  /** The request was processed; destroy the socket instead of answering. */
  | { kind: 'drop' };

const { unknownError: UNKNOWN_ERROR, badFormat: BAD_FORMAT, amountOutOfRange: AMOUNT_OUT_OF_RANGE } = CODE;
const { duplicateRequestId: DUPLICATE_REQUEST_ID, invalidSignature: INVALID_SIGNATURE } = CODE;

export function isGatewayPath(path: string): boolean {
  return operationsAtPath(path).length > 0;
}

export async function handleGatewayRequest(
  world: SandboxWorld,
  handlers: HandlerTable,
  path: string,
  rawBody: string,
): Promise<Reply> {
  const { merchant, keys } = world.config;
  let wire: unknown;
  try {
    wire = JSON.parse(rawBody);
  } catch {
    return answer(world, undefined, {}, BAD_FORMAT, 'Bad format request: the body is not JSON');
  }
  if (!isPlainObject(wire)) return answer(world, undefined, {}, BAD_FORMAT, 'the body must be a JSON object');

  const hasPartnerClientId = wire.partnerClientId !== undefined && wire.partnerClientId !== '';
  const operation = operationForRequest(path, wire.requestType, hasPartnerClientId);
  if (!operation) {
    const served = operationsAtPath(path)
      .map((name) => operationSpec(name).request.requestType)
      .map((field) => (field?.kind === 'string' ? field.constant : undefined))
      .filter(Boolean);
    return answer(
      world,
      undefined,
      wire,
      BAD_FORMAT,
      `requestType must be one of ${served.join(', ')} at ${path}`,
    );
  }
  const spec = operationSpec(operation);

  if (wire.partnerCode !== merchant.partnerCode)
    return answer(world, operation, wire, INVALID_SIGNATURE, 'Unknown partnerCode');
  if (!verifySignature(spec.signed, wire, wire.signature, keys))
    return answer(
      world,
      operation,
      wire,
      INVALID_SIGNATURE,
      `Invalid signature: expected HMAC-SHA256 (secret key) over ${spec.signed.join(', ')}`,
    );

  let plain: Record<string, unknown>;
  try {
    // Lenient reading comes after the signature check, so it cannot change what was signed.
    plain = readLikeTheGateway(operation, decryptRequestFields(operation, wire, world.config.privateKey));
  } catch (error) {
    return answer(
      world,
      operation,
      wire,
      BAD_FORMAT,
      `${encryptedFields(operation).join(', ')} cannot be decrypted with the sandbox key ` +
        `(RSA PKCS#1 v1.5 with the sandbox public key, Base64): ${(error as Error).message}`,
    );
  }

  const requestId = typeof wire.requestId === 'string' && wire.requestId !== '' ? wire.requestId : undefined;
  recordRequest(world, operation, wire);
  if (requestId !== undefined) {
    const claim = world.idempotency.claim(requestId, operation);
    if (claim.kind === 'duplicate')
      return answer(
        world,
        operation,
        wire,
        DUPLICATE_REQUEST_ID,
        claim.answered
          ? `Duplicated requestId: ${requestId} was already used (${claim.operation}); retry with a different requestId`
          : `Duplicated requestId: ${requestId} is still being processed (${claim.operation})`,
      );
  }
  const release = () => {
    if (requestId !== undefined) world.idempotency.release(requestId);
  };

  // The orderId names the call for seeded fault rules (lookups with a fresh orderId each time fall
  // back to their requestId's place in the traffic, which is as repeatable as the traffic).
  const identity = typeof wire.orderId === 'string' ? wire.orderId : (requestId ?? '');
  // A rule by orderIdPrefix matches the orderId, or the requestId of an operation that has none.
  const faults = world.faults.forRequest(
    operation,
    identity,
    typeof wire.orderId === 'string' ? wire.orderId : requestId,
    plain,
  );
  if (faults.latencyMs > 0) await world.scheduler.sleep(faults.latencyMs);
  if (faults.httpStatus !== undefined) {
    // A proxy in front of the gateway answered: the request never reached it, so its requestId is unread.
    release();
    return {
      kind: 'answer',
      status: faults.httpStatus,
      body: { message: `sandbox fault: HTTP ${faults.httpStatus}, nothing was processed` },
    };
  }
  if (faults.resultCode !== undefined) {
    // Like the transient 10 of a 0010 receiver: nothing happened, so the same requestId may come again.
    release();
    return answer(
      world,
      operation,
      wire,
      faults.resultCode,
      `sandbox fault: resultCode ${faults.resultCode}, nothing was processed`,
    );
  }

  let result: HandlerOutcome;
  try {
    result = process(world, handlers, operation, plain, requestId);
  } catch (error) {
    release();
    world.config.logger.warn(
      { operation, requestId, error: error instanceof Error ? error.stack : String(error) },
      'sandbox handler failed',
    );
    return answer(world, operation, wire, UNKNOWN_ERROR, `Sandbox error: ${(error as Error).message}`);
  }

  const reply = answer(world, operation, wire, result.resultCode, result.message, result.fields);
  if (requestId !== undefined) {
    if (result.untouched?.requestId) release();
    else world.idempotency.finish(requestId);
  }
  world.config.logger.info(
    { operation, requestId, orderId: wire.orderId, resultCode: result.resultCode },
    'sandbox request',
  );
  // A hung or dropped answer comes after the work: the gateway did it, the merchant never heard.
  if (faults.hang) return { kind: 'hang', abandon: () => undefined };
  if (faults.garble)
    return {
      kind: 'answer',
      status: 200,
      body: { message: 'sandbox fault: an answer without a resultCode' },
    };
  return faults.dropResponse ? { kind: 'drop' } : reply;
}

function process(
  world: SandboxWorld,
  handlers: HandlerTable,
  operation: OperationName,
  plain: Record<string, unknown>,
  requestId: string | undefined,
): HandlerOutcome {
  const handler = handlers[operation];
  const context = handler?.validationContext?.(plain, world) ?? {};
  const violations = validateRequest(operation, plain, context);
  if (violations.length > 0) {
    const code = violations.every(isAmountRange) ? AMOUNT_OUT_OF_RANGE : BAD_FORMAT;
    return { resultCode: code, message: `${defaultMessage(code)}: ${describe(violations)}` };
  }
  if (!handler)
    return {
      resultCode: UNKNOWN_ERROR,
      message:
        `${operation} is not simulated yet by the payrun sandbox (document ${operationSpec(operation).document}); ` +
        'see sandbox/README.md',
    };
  // Every operation that reaches a handler has a requestId (validation requires it).
  const request = { operation, fields: plain, requestId: requestId!, orderId: String(plain.orderId ?? '') };
  if (handler.createsOrder) {
    const taken = world.state.orders.get(request.orderId);
    if (taken)
      return {
        resultCode: CODE.duplicateOrderId,
        message: `Duplicated orderId: ${request.orderId} was already used by ${taken.operation} (requestId ${taken.requestId})`,
      };
  }
  const result = handler.handle(request, world);
  if (handler.createsOrder && !result.untouched?.orderId)
    world.state.orders.set(request.orderId, { operation, requestId: request.requestId });
  return result;
}

/**
 * 22 is for amounts outside their range; anything else (types, patterns, sums, rules) is 20. The
 * table's rule names vary (`range …`, `at most recurringAmount …`, `0 or at least …`), hence the list.
 */
function isAmountRange(violation: Violation): boolean {
  const name = violation.field
    .split('.')
    .pop()
    ?.replace(/\[\d+\]$/, '');
  return name === 'amount' && /^(range|min|max|greater than|at most|0 or at least)\b/.test(violation.rule);
}

function describe(violations: readonly Violation[]): string {
  const shown = violations.slice(0, 5).map((v) => `${v.field} (${v.rule}): ${v.message}`);
  const more = violations.length > 5 ? `; and ${violations.length - 5} more` : '';
  return `${shown.join('; ')}${more}`;
}

function answer(
  world: SandboxWorld,
  operation: OperationName | undefined,
  wire: Readonly<Record<string, unknown>>,
  resultCode: number,
  message?: string,
  extra: Readonly<Record<string, unknown>> = {},
): { kind: 'answer'; status: number; body: Record<string, unknown> } {
  const fields: Record<string, unknown> = {
    ...(typeof wire.partnerCode === 'string' ? { partnerCode: wire.partnerCode } : {}),
    ...(typeof wire.requestId === 'string' ? { requestId: wire.requestId } : {}),
    ...(typeof wire.orderId === 'string' ? { orderId: wire.orderId } : {}),
    responseTime: world.now(),
    resultCode,
    message: message ?? defaultMessage(resultCode),
    ...extra,
  };
  const body = operation ? buildResponse(operation, fields, world.config.keys) : fields;
  return { kind: 'answer', status: 200, body };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
