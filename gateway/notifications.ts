import { GatewayFormatError, GatewaySignatureError } from './errors';
import { notificationSpecs, operationSpec, type NotificationFields, type OperationName } from './operations';
import type { AcknowledgementFormat, FieldSpec, NotificationKind } from './operations/types';
import { classifyResult } from './classify-result';
import type { Classification } from './result-codes';
import { signedValue, verifySignature, withSignature, type SigningKeys } from './signature';
import { checkFields, isPlainObject } from './validation';

/**
 * Incoming notifications (IPNs, the unbind call, redirect parameters): verify the signature over
 * the values exactly as received, then check the shape. Outgoing: the card-flow acknowledgement and,
 * for the sandbox and tests, signed notifications.
 */

export interface VerifiedNotification<K extends NotificationKind> {
  readonly kind: K;
  readonly fields: NotificationFields<K>;
  /** Present for kinds that carry a resultCode. */
  readonly classification?: Classification;
}

export type RedirectKind = 'payment.resultA' | 'payment.resultB';
export type QueryInput =
  string | URLSearchParams | Readonly<Record<string, string | readonly string[] | undefined>>;

/** Verifies and parses a JSON notification body (string or Buffer, as read from the socket). */
export function parseNotification<K extends NotificationKind>(
  kind: K,
  rawBody: string | Buffer,
  keys: SigningKeys,
): VerifiedNotification<K> {
  const text = Buffer.isBuffer(rawBody) ? rawBody.toString('utf8') : rawBody;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new GatewayFormatError(kind, 'body is not JSON');
  }
  if (!isPlainObject(body)) throw new GatewayFormatError(kind, 'body is not a JSON object');
  assertExactlySignable(kind, body);
  return verifyAndCheck(kind, body, keys);
}

/** Same parameters as list A/B, carried in the query string of the customer redirect. */
export function parseRedirectQuery<K extends RedirectKind>(
  kind: K,
  query: QueryInput,
  keys: SigningKeys,
): VerifiedNotification<K> {
  const raw = queryToRecord(query);
  const spec = notificationSpecs[kind];
  // Signed over the strings as received; only then are numeric fields typed.
  if (!verifySignature(spec.signed, raw, raw.signature, keys))
    throw new GatewaySignatureError(`redirect ${kind}`);
  const typed: Record<string, unknown> = { ...raw };
  for (const [name, field] of Object.entries(spec.fields as Record<string, FieldSpec>)) {
    const value = raw[name];
    if (field.kind === 'long' && value !== undefined)
      typed[name] = /^-?\d+$/.test(value) ? Number(value) : value;
    if ((field.kind === 'list' || field.kind === 'object') && value !== undefined)
      typed[name] = parseJsonParameter(value);
  }
  return check(kind, typed);
}

function verifyAndCheck<K extends NotificationKind>(
  kind: K,
  body: Record<string, unknown>,
  keys: SigningKeys,
): VerifiedNotification<K> {
  if (!verifySignature(notificationSpecs[kind].signed, body, body.signature, keys))
    throw new GatewaySignatureError(kind);
  return check(kind, body);
}

function check<K extends NotificationKind>(kind: K, body: Record<string, unknown>): VerifiedNotification<K> {
  const violations = checkFields(notificationSpecs[kind].fields, body, '', { strict: false });
  if (violations.length > 0) {
    const first = violations[0];
    throw new GatewayFormatError(kind, `${first?.field} breaks rule "${first?.rule}"`, violations);
  }
  const fields = body as NotificationFields<K>;
  return typeof body.resultCode === 'number'
    ? { kind, fields, classification: classifyResult(kind, body.resultCode) }
    : { kind, fields };
}

/**
 * JSON numbers lose their text when parsed; integers beyond 2^53 or non-canonical forms would sign
 * differently from what the gateway signed, so they are refused rather than mis-verified.
 */
function assertExactlySignable(kind: NotificationKind, body: Record<string, unknown>): void {
  for (const name of notificationSpecs[kind].signed) {
    const value = body[name];
    if (typeof value === 'number' && !Number.isSafeInteger(value)) {
      throw new GatewayFormatError(
        kind,
        `${name} is not a safe integer; its signature cannot be checked exactly`,
      );
    }
  }
}

function queryToRecord(query: QueryInput): Record<string, string> {
  const record: Record<string, string> = {};
  if (typeof query === 'string' || query instanceof URLSearchParams) {
    const params =
      typeof query === 'string' ? new URLSearchParams(query.startsWith('?') ? query.slice(1) : query) : query;
    for (const [name, value] of params) if (!(name in record)) record[name] = value;
    return record;
  }
  for (const [name, value] of Object.entries(query)) {
    const first = Array.isArray(value) ? (value[0] as string | undefined) : (value as string | undefined);
    if (first !== undefined) record[name] = first;
  }
  return record;
}

function parseJsonParameter(value: string): unknown {
  if (value === '' || value === 'null') return null;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

// ---- building (sandbox, tests) -----------------------------------------------------------------

/** A signed notification body of `kind` (the sandbox sends it as JSON to the merchant's ipnUrl). */
export function buildNotification<K extends NotificationKind>(
  kind: K,
  fields: Readonly<Record<string, unknown>>,
  keys: SigningKeys,
): NotificationFields<K> & { signature: string } {
  const spec = notificationSpecs[kind];
  const complete: Record<string, unknown> =
    'orderType' in spec && fields.orderType === undefined
      ? { ...fields, orderType: spec.orderType }
      : { ...fields };
  const violations = checkFields(spec.fields, complete, '', { strict: true });
  if (violations.length > 0)
    throw new GatewayFormatError(kind, `cannot build: ${violations[0]?.message}`, violations);
  return withSignature(spec.signed, complete, keys) as NotificationFields<K> & { signature: string };
}

/** Query string for the customer redirect carrying a signed list A/B notification. */
export function redirectQuery(notification: Readonly<Record<string, unknown>>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(notification))
    if (value !== undefined) params.set(name, signedValue(value));
  return params.toString();
}

// ---- acknowledgements --------------------------------------------------------------------------

export interface Acknowledgement {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/**
 * How to answer a notification: the operation that led to it decides when known (the one-time card
 * flow answers a signed JSON body); otherwise the kind's default. Formats the spec does not show are
 * HTTP 204 (the unbind call's documented answer, and the real gateway's IPN convention).
 */
export function acknowledgementFormat(
  kind: NotificationKind,
  operation?: OperationName,
): AcknowledgementFormat {
  const fromOperation = operation ? operationSpec(operation).acknowledgement : undefined;
  const spec = notificationSpecs[kind];
  return fromOperation ?? ('acknowledgement' in spec ? spec.acknowledgement : 'no-content');
}

export interface CardAckInput {
  readonly partnerCode: string;
  readonly requestId: string;
  readonly orderId: string;
  /** Merchant-side status of the order (0 when the merchant recorded it). */
  readonly resultCode: number;
  readonly message: string;
  readonly extraData?: string;
}

export const NO_CONTENT: Acknowledgement = { status: 204, headers: {}, body: '' };

/** The signed JSON acknowledgement of the card one-time flow. */
export function buildCardAck(
  input: CardAckInput,
  keys: SigningKeys,
  now: Date = new Date(),
): Acknowledgement {
  const body = buildNotification(
    'payment.cardAck',
    { ...input, extraData: input.extraData ?? '', responseTime: formatGmt7(now) },
    keys,
  );
  return {
    status: 200,
    headers: { 'content-type': 'application/json;charset=UTF-8' },
    body: JSON.stringify(body),
  };
}

/** The answer to send for a verified notification, in the format the flow asks. */
export function acknowledge<K extends NotificationKind>(
  notification: VerifiedNotification<K>,
  keys: SigningKeys,
  options: { operation?: OperationName; resultCode?: number; message?: string; now?: Date } = {},
): Acknowledgement {
  if (acknowledgementFormat(notification.kind, options.operation) === 'no-content') return NO_CONTENT;
  const fields = notification.fields as Record<string, unknown>;
  return buildCardAck(
    {
      partnerCode: String(fields.partnerCode),
      requestId: String(fields.requestId),
      orderId: String(fields.orderId),
      resultCode: options.resultCode ?? 0,
      message: options.message ?? 'Received',
      extraData: typeof fields.extraData === 'string' ? fields.extraData : '',
    },
    keys,
    options.now,
  );
}

const GMT7_OFFSET_MS = 7 * 60 * 60 * 1000;

/** `YYYY-MM-DD HH:mm:ss` in GMT+7 (the card acknowledgement's responseTime). */
export function formatGmt7(date: Date): string {
  return new Date(date.getTime() + GMT7_OFFSET_MS).toISOString().slice(0, 19).replace('T', ' ');
}

/** A card number kept for display: its last four digits only (`************1111`). */
export function maskCardNumber(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const digits = value.replace(/\D/g, '');
  return digits.length <= 4
    ? '*'.repeat(digits.length)
    : `${'*'.repeat(digits.length - 4)}${digits.slice(-4)}`;
}

/** The fields the spec declares, card numbers masked; undeclared keys inside declared objects dropped. */
function declaredOnly(spec: FieldSpec, value: unknown): unknown {
  if (spec.kind === 'object' && isPlainObject(value)) {
    const declared = Object.keys(spec.fields);
    // An object the spec only sketches (no declared fields) is kept as sent, card numbers masked.
    const names = declared.length > 0 ? declared.filter((name) => name in value) : Object.keys(value);
    return Object.fromEntries(
      names.map((name) => {
        const inner = spec.fields[name];
        const item = value[name];
        if (name === 'cardNumber') return [name, maskCardNumber(item)];
        return [name, inner ? declaredOnly(inner, item) : item];
      }),
    );
  }
  if (spec.kind === 'list' && Array.isArray(value)) return value.map((item) => declaredOnly(spec.of, item));
  return value;
}

/**
 * What payrun keeps of a verified notification (DESIGN decision 4, issue 23): the signed fields as
 * received, and apart from them the fields the spec lists but does not sign (`paymentOption`,
 * `promotionInfo`, `cardPaymentInfo`, batch counts…), which anyone on the path could have altered, with
 * card numbers masked to their last four digits. Fields the spec does not list are dropped.
 */
export function notificationRecord<K extends NotificationKind>(
  notification: VerifiedNotification<K>,
): { signed: Record<string, unknown>; unverified: Record<string, unknown> } {
  const spec = notificationSpecs[notification.kind];
  const body = notification.fields as Record<string, unknown>;
  const signedNames = new Set<string>(spec.signed);
  const signed: Record<string, unknown> = {};
  const unverified: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(body)) {
    // The signature itself is kept with what it signs (it is the notification's identity).
    if (signedNames.has(name) || name === 'signature') {
      signed[name] = value;
      continue;
    }
    const field = (spec.fields as Record<string, FieldSpec>)[name];
    if (field && value !== undefined) unverified[name] = declaredOnly(field, value);
  }
  return { signed, unverified };
}

/**
 * The notification a workflow is signalled with: the same fields as `notificationRecord` keeps (signed
 * and listed unsigned ones, card numbers masked), so nothing the spec does not list reaches history.
 */
export function withListedFieldsOnly<K extends NotificationKind>(
  notification: VerifiedNotification<K>,
): VerifiedNotification<K> {
  const { signed, unverified } = notificationRecord(notification);
  return { ...notification, fields: { ...unverified, ...signed } as NotificationFields<K> };
}
