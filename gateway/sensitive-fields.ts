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
  // what the gateway sends back about people: the merchant's user id (often an email or phone), the
  // payer's wallet account, free text and opaque data that may name someone, card and delivery details
  'partnerClientId',
  'partnerUserId',
  'orderInfo',
  'extraData',
  'cardPaymentInfo',
  'deliveryInfo',
] as const;

export const REDACTED = '[REDACTED]';

/** `walletId`, `wallet_id` and `WALLET-ID` are one field: records and configuration use other spellings. */
const normalize = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');
const SENSITIVE = new Set(SENSITIVE_FIELDS.map(normalize));

export function isSensitiveField(name: string): boolean {
  return SENSITIVE.has(normalize(name));
}

/**
 * Credentials that travel inside text rather than in a named field: `user:password@` in URLs (a
 * database URL in a connection error), bearer keys, PEM blocks.
 */
const SECRETS_IN_TEXT: ReadonlyArray<[RegExp, string]> = [
  [/(\/\/)[^/@\s:]+:[^/@\s]+@/g, `$1${REDACTED}@`],
  [/(Bearer\s+)[A-Za-z0-9._~+/=-]+/gi, `$1${REDACTED}`],
  [/-----BEGIN [A-Z ]+-----[\s\S]*?-----END [A-Z ]+-----/g, REDACTED],
];

export function redactText(text: string): string {
  return SECRETS_IN_TEXT.reduce(
    (result, [pattern, replacement]) => result.replace(pattern, replacement),
    text,
  );
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
  if (value instanceof Error) return redactError(value, seen);
  const copy: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(value)) {
    copy[key] =
      isSensitiveField(key) && entry !== undefined && entry !== null && entry !== ''
        ? REDACTED
        : redactValue(entry, seen);
  }
  return copy;
}

/**
 * An Error keeps what an engineer needs (type, message, code, stack, cause): those are not enumerable,
 * so a plain copy would lose them, and `name` is the error's class here, not a person's name. Its other
 * own fields (a gateway answer's body, say) pass through the field list like any object.
 */
function redactError(error: Error, seen: WeakSet<object>): Record<string, unknown> {
  const {
    name: _name,
    message: _message,
    stack: _stack,
    cause,
    ...own
  } = error as Error & {
    cause?: unknown;
  };
  const copy: Record<string, unknown> = {
    type: error.name,
    message: redactText(error.message),
    ...(redactValue(own, seen) as Record<string, unknown>),
  };
  if (error.stack) copy.stack = redactText(error.stack);
  if (cause !== undefined) copy.cause = redactValue(cause, seen);
  return copy;
}
