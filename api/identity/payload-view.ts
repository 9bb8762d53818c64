/**
 * What a person sees of a decoded workflow payload in the Temporal UI: the API's own masking rules
 * (api/http/masking.ts) applied to the payload's JSON, so a viewer reads `wallet ****5678` in the UI
 * exactly as in the console. Payloads carrying secrets (OTP codes, callback and card tokens, keys) are
 * for admins alone: anyone else gets them back still sealed, as if the codec had not been asked.
 */
import type { Payload } from '@temporalio/common';
import type { Principal } from '../auth/roles';
import { hasAnyRole } from '../auth/roles';
import { maskId, maskName, maskNumber, seesInFull, seesReceiversInFull } from '../http/masking';

/** Fields whose values let someone act (pay, bind, verify): never shown to anyone but an admin. */
const SECRET_FIELDS = new Set(
  [
    'token',
    'aesToken',
    'callbackToken',
    'otp',
    'paymentCode',
    'securityCode',
    'mToken',
    'signature',
    'secretKey',
    'accessKey',
    'password',
  ].map((field) => field.toLowerCase()),
);

type Masker = (value: string) => string;

/** Receivers' numbers and names: the payout duties see them in full, as in the API's lists. */
const RECEIVER_FIELDS: Record<string, Masker> = {
  walletid: maskNumber,
  bankaccountno: maskNumber,
  bankcardno: maskNumber,
  cardnumber: maskNumber,
  phonenumber: maskNumber,
  walletname: maskName,
  bankaccountholdername: maskName,
  name: maskName,
  personalid: maskId,
  senderpersonalid: maskId,
  email: maskId,
  dob: maskId,
  senderdob: maskId,
  deliveryaddress: maskId,
};

/** Customers' ids: billing and payments see them in full (maskCustomer's rule). */
const CUSTOMER_FIELDS: Record<string, Masker> = {
  partnerclientid: maskId,
  subsowner: maskId,
  partneruserid: maskId,
  partnerclientalias: maskId,
  useralias: maskId,
};
const CUSTOMER_DUTIES = ['billing', 'payments'] as const;

const JSON_ENCODING = 'json/plain';

function carriesSecret(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(carriesSecret);
  if (typeof value !== 'object' || value === null) return false;
  return Object.entries(value).some(
    ([field, inner]) =>
      (SECRET_FIELDS.has(field.toLowerCase()) && inner !== null && inner !== undefined && inner !== '') ||
      carriesSecret(inner),
  );
}

function masked(value: unknown, maskers: Record<string, Masker>): unknown {
  if (Array.isArray(value)) return value.map((item) => masked(item, maskers));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([field, inner]) => {
      const masker = maskers[field.toLowerCase()];
      if (masker && (typeof inner === 'string' || typeof inner === 'number'))
        return [field, masker(String(inner))];
      return [field, masked(inner, maskers)];
    }),
  );
}

const encodingOf = (payload: Payload): string =>
  payload.metadata?.encoding ? Buffer.from(payload.metadata.encoding).toString() : '';

/**
 * `decoded[i]` as `principal` may see it, or `sealed[i]` unchanged when they may not see it at all.
 * Admins see everything whole, as before.
 */
export function payloadsFor(
  principal: Principal,
  sealed: readonly Payload[],
  decoded: readonly Payload[],
): Payload[] {
  if (hasAnyRole(principal, [])) return [...decoded];
  const maskers: Record<string, Masker> = {
    ...(seesReceiversInFull(principal) ? {} : RECEIVER_FIELDS),
    ...(seesInFull(principal, CUSTOMER_DUTIES) ? {} : CUSTOMER_FIELDS),
  };
  return decoded.map((payload, index) => {
    const original = sealed[index]!;
    const encoding = encodingOf(payload);
    if (encoding === 'binary/null') return payload;
    // Anything but JSON cannot be looked into, so it cannot be shown safely.
    if (encoding !== JSON_ENCODING) return original;
    let value: unknown;
    try {
      value = JSON.parse(Buffer.from(payload.data ?? new Uint8Array()).toString('utf8'));
    } catch {
      return original;
    }
    if (carriesSecret(value)) return original;
    return { ...payload, data: Buffer.from(JSON.stringify(masked(value, maskers)), 'utf8') };
  });
}
