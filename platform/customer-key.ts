/**
 * The customer key: what the `PayrunCustomer` search attribute holds instead of the merchant's
 * `partnerClientId` (often an email or a phone number, so personal data). Temporal's visibility store is
 * not encrypted by the payload codec and the UI shows search attributes to anyone who can list
 * workflows, so the attribute carries an HMAC-SHA256 of the id under CUSTOMER_KEY_SECRET: the same
 * customer always gets the same key (search by customer works), and without the secret a list of
 * likely emails cannot be hashed to find one (a plain hash could be reversed by such a dictionary).
 * Changing the secret changes every key: workflows started before keep the old ones.
 */
import { createHmac } from 'node:crypto';
import { resolveDevSecret } from './dev-secret';

export const CUSTOMER_KEY_SECRET_VARIABLE = 'CUSTOMER_KEY_SECRET';
/** At least 32 visible ASCII characters (e.g. 32 random bytes as base64). */
export const CUSTOMER_KEY_SECRET_PATTERN = /^[\x21-\x7e]{32,256}$/;
/** `ck_` and 32 hex digits (128 bits of the HMAC): recognisable in the UI, never an email. */
export const CUSTOMER_KEY_PATTERN = /^ck_[0-9a-f]{32}$/;

/** Domain separation: the same secret used for anything else never yields these values. */
const CONTEXT = 'payrun customer key v1\n';

export type CustomerKeyOf = (partnerClientId: string) => string;

export function customerKeyer(secret: string): CustomerKeyOf {
  return (partnerClientId) =>
    `ck_${createHmac('sha256', secret)
      .update(CONTEXT + partnerClientId, 'utf8')
      .digest('hex')
      .slice(0, 32)}`;
}

export const DEV_CUSTOMER_KEY_SECRET_FILE = 'customer-key-secret';

/**
 * `npm run dev` without CUSTOMER_KEY_SECRET: a secret generated once into the data folder (mode 0600),
 * so customer keys stay the same across restarts and the dev stack's workflows remain searchable.
 */
export function resolveDevCustomerKeySecret(options: {
  configured: string | undefined;
  dataDir: string;
}): string {
  return resolveDevSecret({
    ...options,
    file: DEV_CUSTOMER_KEY_SECRET_FILE,
    pattern: CUSTOMER_KEY_SECRET_PATTERN,
  });
}
