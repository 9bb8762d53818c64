/** Public configuration of the sandbox and the defaults it falls back to. */
import { AUTHORIZATION_HOLD_MS } from '../gateway';

export const CURRENCIES = ['VND', 'USD', 'EUR', 'AUD', 'CAD', 'GBP', 'JPY', 'KRW', 'TWD', 'THB'] as const;
export type Currency = (typeof CURRENCIES)[number];
export type ForeignCurrency = Exclude<Currency, 'VND'>;

export function isCurrency(value: unknown): value is Currency {
  return typeof value === 'string' && (CURRENCIES as readonly string[]).includes(value);
}

export interface MerchantCredentials {
  partnerCode: string;
  accessKey: string;
  secretKey: string;
}

export interface RsaKeyPair {
  publicKeyPem: string;
  privateKeyPem: string;
}

export interface SandboxLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

export interface SandboxTiming {
  /** Delay before an IPN is sent. */
  ipnDelayMs: number;
  /** batch create → items ELIGIBLE/INELIGIBLE + 8003 IPN. */
  batchValidationMs: number;
  /** batch pay → items SUCCEEDED/FAILED/PENDING + result IPN. */
  batchPaymentMs: number;
  /** PENDING (batch items, 7000/7002 disbursements and remittances, uncaptured remittances) → final. */
  pendingSettleMs: number;
  /** First redelivery delay of an IPN the merchant did not accept (connection error or 5xx); doubles. */
  ipnRetryDelayMs: number;
  /** Deliveries per IPN, the first included. */
  ipnMaxAttempts: number;
  /** How long the sandbox waits for the merchant's answer to one IPN. */
  ipnTimeoutMs: number;
  /**
   * Notifications being delivered at once; the rest wait their turn. A gateway's dispatcher keeps a bounded
   * pool: unbounded, a burst of 10,000 opened 10,000 sockets, which in one process with the receiver ran
   * past the file limit.
   */
  ipnMaxInFlight: number;
  /** With `autoApprove`: how long the simulated customer takes to approve (or decline) an order. */
  customerDelayMs: number;
  /** Validity of a binding or subscription link (document 2: 15 minutes by default). */
  linkValidityMs: number;
  /** How long an authorized, uncaptured payment (autoCapture false) can be confirmed; measured with `now`. */
  authorizationHoldMs: number;
}

export const DEFAULT_TIMING: SandboxTiming = {
  ipnDelayMs: 200,
  batchValidationMs: 300,
  batchPaymentMs: 300,
  pendingSettleMs: 5000,
  ipnRetryDelayMs: 1000,
  ipnMaxAttempts: 4,
  ipnTimeoutMs: 5000,
  ipnMaxInFlight: 64,
  customerDelayMs: 100,
  linkValidityMs: 15 * 60 * 1000,
  authorizationHoldMs: AUTHORIZATION_HOLD_MS,
};

/** Merchant balances a fresh sandbox starts with (major units; foreign currencies may have cents). */
export const DEFAULT_BALANCES: Readonly<Record<Currency, number>> = {
  VND: 10_000_000_000,
  USD: 100_000,
  EUR: 100_000,
  AUD: 100_000,
  CAD: 100_000,
  GBP: 100_000,
  JPY: 10_000_000,
  KRW: 100_000_000,
  TWD: 1_000_000,
  THB: 1_000_000,
};

export const DEFAULT_SEED = 20_240_601;

export interface SandboxOptions {
  /** Default 0: any free port. */
  port?: number;
  /** Default 127.0.0.1 (the admin API has no authentication, so keep it on loopback). */
  host?: string;
  merchant: MerchantCredentials;
  /** The sandbox's RSA key pair (gateway side): merchants encrypt with the public key. */
  keyPair: RsaKeyPair;
  /** Seeds all randomness (ids, transIds, mTokens, exchange rates). */
  seed?: number;
  timing?: Partial<SandboxTiming>;
  /** Merchant balances (major units). Unlisted currencies keep DEFAULT_BALANCES. */
  balances?: Partial<Record<Currency, number>>;
  logger?: SandboxLogger;
  /**
   * The simulated customer approves every order waiting for them after `customerDelayMs` (amounts
   * ending 1006 are declined), so benchmarks and demos complete payments without a click.
   */
  autoApprove?: boolean;
  /** Merchant endpoint of the unbind notification (customer removed a saved card). */
  unbindUrl?: string;
  /**
   * The sandbox's clock (epoch ms): responseTime, OTP expiry and spacing, link validity, subscription
   * dates. Tests pass a movable clock; timers (IPN delays, settlements) still run in real time.
   */
  now?: () => number;
}

export const SILENT_LOGGER: SandboxLogger = { info: () => undefined, warn: () => undefined };
