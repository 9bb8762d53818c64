/**
 * Field names whose values never reach a log: credentials, tokens and OTPs, signatures, encrypted
 * receivers, and personal data. The API's logger reuses this list; matching ignores case.
 */
export const SENSITIVE_FIELDS = [
  // credentials and signatures (payrun's own API keys and codec keys included)
  'accessKey',
  'authorization',
  'apiKey',
  'password',
  'payloadCodecKeys',
  'secretKey',
  'gatewayPublicKey',
  'privateKey',
  'signature',
  'mToken',
  // tokens and one-time codes
  'token',
  'aesToken',
  'callbackToken',
  'paymentCode',
  'securityCode',
  'otp',
  'value',
  // encrypted receivers (ciphertext or plaintext)
  'receiver',
  'disbursementMethod',
  'method',
  // personal data
  'personalId',
  'senderPersonalId',
  'walletId',
  'walletName',
  'bankAccountNo',
  'bankCardNo',
  'bankAccountHolderName',
  'cardNumber',
  'name',
  'partnerClientAlias',
  'userAlias',
  'profileId',
  'subsOwner',
  'phoneNumber',
  'email',
  'dob',
  'senderDob',
  'gender',
  'senderGender',
  'nationality',
  'senderNationality',
  'deliveryAddress',
] as const;

export const REDACTED = '[REDACTED]';

/** `walletId`, `wallet_id` and `WALLET-ID` are one field: records and configuration use other spellings. */
const normalize = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');
const SENSITIVE = new Set(SENSITIVE_FIELDS.map(normalize));

export function isSensitiveField(name: string): boolean {
  return SENSITIVE.has(normalize(name));
}

/** A deep copy with every sensitive field's value replaced, safe to hand to a logger. */
export function redact<T>(value: T): T {
  return redactValue(value, new WeakSet()) as T;
}

function redactValue(value: unknown, seen: WeakSet<object>): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (seen.has(value)) return '[Circular]';
  seen.add(value);
  if (Array.isArray(value)) return value.map((entry) => redactValue(entry, seen));
  if (Buffer.isBuffer(value)) return `[Buffer ${value.length} bytes]`;
  const copy: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(value)) {
    copy[key] =
      isSensitiveField(key) && entry !== undefined && entry !== null && entry !== ''
        ? REDACTED
        : redactValue(entry, seen);
  }
  return copy;
}
