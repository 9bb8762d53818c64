import { disbursementOperations } from './disbursement';
import { notificationSpecs } from './notifications';
import { paymentOperations } from './payments';
import { tokenizationOperations } from './tokenization';
import type { EncryptedField, FieldSpec, NotificationKind, OperationSpec, ShapeOf } from './types';

/**
 * THE operation table. Client, validation, notification handling, the sandbox and the tests read
 * it; adding an operation is adding one entry to the document's file.
 */
export const operations = {
  ...paymentOperations,
  ...tokenizationOperations,
  ...disbursementOperations,
} satisfies Record<string, OperationSpec>;

export { notificationSpecs };

export type Operations = typeof operations;
export type OperationName = keyof Operations;

/** Fields the client fills itself; callers never pass them. */
type ClientFilled = 'partnerCode';

/** What a caller passes to `client.call(operation, …)`: plaintext, without partnerCode/signature. */
export type RequestFields<Op extends OperationName> = Omit<ShapeOf<Operations[Op]['request']>, ClientFilled>;

/** Response body of an operation (every field optional: the gateway omits what does not apply). */
export type ResponseBody<Op extends OperationName> = Partial<
  ShapeOf<Operations[Op]['response']['fields']>
> & {
  resultCode: number;
  message?: string;
  signature?: string;
} & Record<string, unknown>;

export type NotificationFields<K extends NotificationKind> = ShapeOf<
  (typeof notificationSpecs)[K]['fields']
> &
  Record<string, unknown>;

export function operationSpec(name: OperationName): OperationSpec {
  const spec: OperationSpec | undefined = (operations as Record<string, OperationSpec>)[name];
  if (!spec) throw new TypeError(`Unknown gateway operation: ${String(name)}`);
  return spec;
}

export const operationNames = Object.keys(operations) as OperationName[];

export function isOperationName(name: string): name is OperationName {
  return Object.hasOwn(operations, name);
}

/** Names of the request fields sent RSA-encrypted. */
export function encryptedFields(name: OperationName): string[] {
  return Object.entries(operationSpec(name).request)
    .filter((entry): entry is [string, EncryptedField] => entry[1].kind === 'encrypted')
    .map(([field]) => field);
}

/** Operations served by one path, e.g. every requestType of api/create (for the sandbox's router). */
export function operationsAtPath(path: string): OperationName[] {
  return operationNames.filter((name) => operationSpec(name).path === path);
}

/** The operation a create-style request addresses, chosen by its requestType among those at `path`. */
export function operationForRequest(
  path: string,
  requestType: unknown,
  hasPartnerClientId = false,
): OperationName | undefined {
  const candidates = operationsAtPath(path);
  if (candidates.length <= 1) return candidates[0];
  const matching = candidates.filter((name) => {
    const field: FieldSpec | undefined = operationSpec(name).request.requestType;
    return field?.kind === 'string' && field.constant === requestType;
  });
  // payWithCC exists twice: one-time (document 1) and with card saving (document 2, partnerClientId signed).
  if (matching.length > 1)
    return matching.find((name) => 'partnerClientId' in operationSpec(name).request === hasPartnerClientId);
  return matching[0];
}

export * from './types';
export { ORDER_ID_PATTERN, LINK_WALLET_CLIENT_ID_PATTERN, TIMEOUT } from './shared';
export { AUTHORIZATION_HOLD_MS } from './payments';
