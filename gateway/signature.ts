import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The one signing module (client, notification verifier, sandbox, tests).
 *
 * Signed text: the signed field names sorted a to z, each written `name=value`, joined by `&`;
 * `accessKey` is always in the list and its value is the merchant access key from configuration
 * (never a value found in a body). HMAC-SHA256 keyed with the secret key, lowercase hex.
 */

export interface SigningKeys {
  readonly accessKey: string;
  readonly secretKey: string;
}

/**
 * How a value appears in the signed text: exactly as sent. Strings as they are (for encrypted
 * fields, the ciphertext); numbers and booleans as their JSON text; an absent or null field as the
 * empty string. Objects and arrays — no signed list holds one today — would sign as their compact
 * JSON text in the order they are sent.
 */
export function signedValue(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
    return String(value);
  return JSON.stringify(value);
}

export function signedText(
  signedFields: readonly string[],
  values: Readonly<Record<string, unknown>>,
  accessKey: string,
): string {
  // Plain code-unit order: the spec's "a to z" over ASCII field names.
  return [...signedFields]
    .sort()
    .map((name) => `${name}=${name === 'accessKey' ? accessKey : signedValue(values[name])}`)
    .join('&');
}

export function hmacSha256Hex(text: string, secretKey: string): string {
  return createHmac('sha256', Buffer.from(secretKey, 'utf8')).update(Buffer.from(text, 'utf8')).digest('hex');
}

export function sign(
  signedFields: readonly string[],
  values: Readonly<Record<string, unknown>>,
  keys: SigningKeys,
): string {
  return hmacSha256Hex(signedText(signedFields, values, keys.accessKey), keys.secretKey);
}

const HEX_SHA256 = /^[0-9a-fA-F]{64}$/;

/** Constant-time comparison of a received signature with the one we compute. */
export function verifySignature(
  signedFields: readonly string[],
  values: Readonly<Record<string, unknown>>,
  signature: unknown,
  keys: SigningKeys,
): boolean {
  if (typeof signature !== 'string' || !HEX_SHA256.test(signature)) return false;
  const expected = Buffer.from(sign(signedFields, values, keys), 'hex');
  const received = Buffer.from(signature, 'hex');
  return expected.length === received.length && timingSafeEqual(expected, received);
}

/** Returns a copy of `values` with its `signature` set (responses, notifications, acknowledgements). */
export function withSignature<T extends Record<string, unknown>>(
  signedFields: readonly string[],
  values: T,
  keys: SigningKeys,
): T & { signature: string } {
  return { ...values, signature: sign(signedFields, values, keys) };
}
