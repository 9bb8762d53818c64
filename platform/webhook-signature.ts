/**
 * Webhook signatures, for payrun's sender and for integrators' receivers alike (this file depends on
 * nothing but node:crypto, so it can be copied into a receiver as it is).
 *
 * Each request carries `Payrun-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>]`: HMAC-SHA256, keyed with
 * the endpoint's signing secret, over `<t>.<raw body>`. During a secret rotation's overlap there is one
 * v1 per live secret. A receiver verifies against the raw body bytes, before parsing them, and refuses a
 * timestamp outside its replay window (5 minutes by default).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'payrun-signature';
export const DEFAULT_TOLERANCE_SECONDS = 300;

const hmac = (secret: string, timestamp: number, body: string | Buffer) =>
  createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex');

/** The header value for `body`, signed at `timestamp` (unix seconds) with each live secret. */
export function signWebhook(body: string | Buffer, secrets: readonly string[], timestamp: number): string {
  return [`t=${timestamp}`, ...secrets.map((secret) => `v1=${hmac(secret, timestamp, body)}`)].join(',');
}

export type VerifyResult =
  | { ok: true; timestamp: number }
  | { ok: false; reason: 'malformed_header' | 'outside_replay_window' | 'signature_mismatch' };

export interface VerifyOptions {
  /** The raw request body, exactly as received. */
  body: string | Buffer;
  /** The `Payrun-Signature` header. */
  header: string | undefined;
  /** Your signing secret; during a rotation, both the new and the old one. */
  secrets: string | readonly string[];
  /** How far the signed time may be from now, in seconds (default 300). */
  toleranceSeconds?: number;
  /** Now, in milliseconds (tests). */
  now?: number;
}

/** Checks a webhook request's signature in constant time. Act on the body only when `ok` is true. */
export function verifyWebhook(options: VerifyOptions): VerifyResult {
  const parts = (options.header ?? '').split(',').map((part) => part.trim().split('='));
  const timestampText = parts.find(([name]) => name === 't')?.[1];
  const signatures = parts.filter(([name, value]) => name === 'v1' && /^[0-9a-f]{64}$/.test(value ?? ''));
  if (!timestampText || !/^\d{1,12}$/.test(timestampText) || signatures.length === 0)
    return { ok: false, reason: 'malformed_header' };
  const timestamp = Number(timestampText);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (Math.abs((options.now ?? Date.now()) / 1000 - timestamp) > tolerance)
    return { ok: false, reason: 'outside_replay_window' };
  const secrets = typeof options.secrets === 'string' ? [options.secrets] : options.secrets;
  for (const secret of secrets) {
    const expected = Buffer.from(hmac(secret, timestamp, options.body), 'hex');
    for (const [, value] of signatures) {
      if (timingSafeEqual(expected, Buffer.from(value!, 'hex'))) return { ok: true, timestamp };
    }
  }
  return { ok: false, reason: 'signature_mismatch' };
}
