/**
 * The customer key: what the `PayrunCustomer` search attribute holds instead of the merchant's
 * `partnerClientId` (often an email or a phone number, so personal data). Temporal's visibility store is
 * not encrypted by the payload codec and the UI shows search attributes to anyone who can list
 * workflows, so the attribute carries an HMAC-SHA256 of the id under CUSTOMER_KEY_SECRET: the same
 * customer always gets the same key (search by customer works), and without the secret a list of
 * likely emails cannot be hashed to find one (a plain hash could be reversed by such a dictionary).
 * Changing the secret changes every key: workflows started before keep the old ones.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createHmac, randomBytes } from 'node:crypto';

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
  if (options.configured) return options.configured;
  const file = path.join(options.dataDir, DEV_CUSTOMER_KEY_SECRET_FILE);
  if (fs.existsSync(file)) {
    const stored = fs.readFileSync(file, 'utf8').trim();
    if (CUSTOMER_KEY_SECRET_PATTERN.test(stored)) return stored;
  }
  const secret = randomBytes(32).toString('base64url');
  fs.mkdirSync(options.dataDir, { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, secret + '\n', { mode: 0o600 });
  fs.renameSync(temporary, file);
  return secret;
}
