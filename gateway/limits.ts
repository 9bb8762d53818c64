/**
 * The gateway's amount limits and value lists (the "Limits" sections of the three spec documents),
 * declared once. The operation table validates with them; the API refuses bad input with them; the
 * workflows check a converted amount against them. Pure data: no imports, safe in workflow code.
 */

/** Inclusive VND bounds. A limit the spec leaves open above has `Infinity` as its maximum. */
export type AmountRange = readonly [min: number, max: number];

export const inRange = (amount: number, [min, max]: AmountRange) => amount >= min && amount <= max;

/** `1000..50000000`, or `1000 or more` for a range open above. */
export const rangeText = ([min, max]: AmountRange) =>
  max === Number.POSITIVE_INFINITY ? `${min} or more` : `${min}..${max}`;

/** Document 1: api/create per requestType, and api/pos (quick pay). */
export const PAYMENT_AMOUNT_RANGES = {
  captureWallet: [1000, 50_000_000],
  payWithCC: [1000, 10_000_000],
  payWithPlatformPayA: [1000, 50_000_000],
  payWithPlatformPayB: [1000, 50_000_000],
  onDelivery: [1000, 20_000_000],
  payWithVTS: [1000, 50_000_000],
  payWithEdc: [1000, 50_000_000],
  payWithMethod: [1000, 50_000_000],
  pos: [1000, 5_000_000],
} as const satisfies Record<string, AmountRange>;

/** Document 1: a refund's range depends on how the purchase was paid. */
export const REFUND_AMOUNT_RANGES = {
  'domestic-card': [10_000, 50_000_000],
  tokenization: [1000, 30_000_000],
  other: [1000, 50_000_000],
} as const satisfies Record<string, AmountRange>;
/** Any refund, whatever the method (the widest of the ranges above). */
export const REFUND_AMOUNT_RANGE: AmountRange = [1000, 50_000_000];

export type SavedMethodFlow = 'card' | 'domestic' | 'wallet';

/**
 * Document 2: binding (and its first payment). 0 binds without paying; otherwise the range. A wallet
 * link has no upper limit in the spec ("0 or more; 1000 or more also requests a payment").
 */
export const BINDING_AMOUNT_RANGES: Readonly<Record<SavedMethodFlow, AmountRange>> = {
  card: [1000, 10_000_000],
  domestic: [10_000, 50_000_000],
  wallet: [1000, Number.POSITIVE_INFINITY],
};

/** Document 2: tokenization/pay per flow of the saved token. */
export const TOKEN_PAY_AMOUNT_RANGES: Readonly<Record<SavedMethodFlow, AmountRange>> = {
  card: [1000, 10_000_000],
  domestic: [10_000, 50_000_000],
  wallet: [1000, 30_000_000],
};
/** tokenization/pay when the token's flow is not known: the widest of the ranges above. */
export const TOKEN_PAY_AMOUNT_RANGE: AmountRange = [1000, 50_000_000];

/** Document 2: subscription/pay is at least this much and at most the recurringAmount. */
export const SUBSCRIPTION_MIN_AMOUNT = 1000;

/** Document 2: subscriptionInfo.frequency. */
export const SUBSCRIPTION_FREQUENCIES = [
  'DAILY',
  'WEEKLY',
  'BI_WEEKLY',
  'MONTHLY',
  'BI_MONTHLY',
  'QUARTERLY',
  'SEMI_ANNUALLY',
] as const;
export type SubscriptionFrequency = (typeof SUBSCRIPTION_FREQUENCIES)[number];

/** Document 3: disbursement/pay per requestType. */
export const DISBURSEMENT_AMOUNT_RANGES = {
  disburseToWallet: [1000, 200_000_000],
  disburseToBank: [10_000, 20_000_000],
} as const satisfies Record<string, AmountRange>;

/** Document 3: remittance/create per requestType. */
export const REMITTANCE_AMOUNT_RANGES = {
  remitToWallet: [1000, 200_000_000],
  remitToBank: [50_000, 200_000_000],
} as const satisfies Record<string, AmountRange>;

/** Document 3: exchangeAmount is "up to 12 digits". */
export const MAX_EXCHANGE_AMOUNT = 999_999_999_999;

/** Document 3: one batch item, and the number of items in a batch. */
export const BATCH_ITEM_AMOUNT_RANGE: AmountRange = [1000, 200_000_000];
export const MAX_BATCH_ITEMS = 1000;
/** Document 3: batch/query pageSize. */
export const MAX_BATCH_PAGE_SIZE = 50;

/** Document 2: the two-factor (securityCode) rules of wallet token payments. */
export const OTP_LIMITS = {
  /** A code is good for 5 minutes from when the SMS was sent (the otp_required answer). */
  codeLifetimeMs: 5 * 60_000,
  /** At least 3 s between two consecutive requests of a user. */
  minSpacingMs: 3_000,
  /** The 5th wrong code of a day locks the user until the next day. */
  maxWrongPerDay: 5,
  /** At most 5 codes (SMS) per user per day. */
  maxSmsPerDay: 5,
} as const;
