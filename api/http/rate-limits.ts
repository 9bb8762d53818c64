/**
 * Rate limits, in memory per API process (each replica enforces its own): token buckets per client
 * address (every request but the health probes and the gateway's notifications), per API key (after
 * authentication), per address for authentication failures, and, on the notification routes alone, per
 * address for signed notifications and for forged ones. A request over a limit is answered 429 with
 * Retry-After and does nothing else. A limit of 0 turns that bucket off.
 *
 * The client's address is `req.ip`: the socket's, unless TRUSTED_PROXIES names the proxy in front
 * (Express `trust proxy`), whose X-Forwarded-For then names the client.
 */
import type { Request, RequestHandler } from 'express';
import { ApiError } from './errors';

export interface RateLimitSettings {
  /** Requests per minute from one client address (bursts up to the same number). */
  perAddressPerMinute: number;
  /** Requests per minute with one API key. */
  perKeyPerMinute: number;
  /** Failed authentications (no key, unknown or revoked key) per minute from one address. */
  authFailuresPerMinute: number;
  /** Validly signed notifications per minute from one address: sized so no billing day reaches it. */
  notificationsPerMinute: number;
  /** Notifications that fail verification (or are no notification at all) per minute from one address. */
  forgedNotificationsPerMinute: number;
}

/** Probes must keep answering whatever a client does. */
const UNLIMITED_PATHS = new Set(['/healthz', '/readyz']);
/** Buckets that refilled completely carry no information; past this many, they are dropped. */
const SWEEP_ABOVE = 10_000;

class TokenBuckets {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly perMs: number;

  constructor(
    private readonly capacity: number,
    private readonly now: () => number,
  ) {
    this.perMs = capacity / 60_000;
  }

  private current(key: string) {
    const now = this.now();
    const bucket = this.buckets.get(key) ?? { tokens: this.capacity, at: now };
    bucket.tokens = Math.min(this.capacity, bucket.tokens + (now - bucket.at) * this.perMs);
    bucket.at = now;
    return bucket;
  }

  /** Seconds until a token is available; 0 when there is one now. */
  wait(key: string): number {
    const bucket = this.current(key);
    return bucket.tokens >= 1 ? 0 : Math.max(1, Math.ceil((1 - bucket.tokens) / this.perMs / 1000));
  }

  /** Takes a token; answers the seconds to wait when there was none (nothing is taken then). */
  take(key: string): number {
    const wait = this.wait(key);
    if (wait > 0) return wait;
    const bucket = this.current(key);
    bucket.tokens -= 1;
    this.buckets.set(key, bucket);
    if (this.buckets.size > SWEEP_ABOVE) this.sweep();
    return 0;
  }

  private sweep(): void {
    for (const [key] of this.buckets) if (this.current(key).tokens >= this.capacity) this.buckets.delete(key);
  }
}

const tooMany = (code: 'rate_limited' | 'too_many_auth_failures', message: string, seconds: number) =>
  new ApiError(code, `${message} Try again in ${seconds} s.`, {
    headers: { 'Retry-After': String(seconds) },
  });

export const clientAddress = (req: Request): string => req.ip ?? req.socket.remoteAddress ?? 'unknown';

/**
 * The largest body a notification may declare from an address that has spent its forgery budget. The
 * gateway's notifications are a few kB (orderInfo 255 and extraData 1,000 characters at most, the rest
 * short fields), so a real one still passes; a forger no longer makes payrun read and parse 256 kB.
 */
const SMALL_NOTIFICATION_BYTES = 16 * 1024;

/** Express matches routes without regard to case or a trailing slash; so does the exemption. */
const normalisedPath = (path: string) => path.toLowerCase().replace(/\/+$/, '') || '/';

export class RateLimits {
  private readonly addresses: TokenBuckets | undefined;
  private readonly keys: TokenBuckets | undefined;
  private readonly authFailures: TokenBuckets | undefined;
  private readonly signedNotifications: TokenBuckets | undefined;
  private readonly forgedNotifications: TokenBuckets | undefined;

  constructor(settings: RateLimitSettings, now: () => number = Date.now) {
    const buckets = (perMinute: number) => (perMinute > 0 ? new TokenBuckets(perMinute, now) : undefined);
    this.addresses = buckets(settings.perAddressPerMinute);
    this.keys = buckets(settings.perKeyPerMinute);
    this.authFailures = buckets(settings.authFailuresPerMinute);
    this.signedNotifications = buckets(settings.notificationsPerMinute);
    this.forgedNotifications = buckets(settings.forgedNotificationsPerMinute);
  }

  /**
   * The first middleware after request logging: one token per request from the client's address.
   * `notificationPaths` are left to the notification limits: the gateway is a client whose notifications
   * a busy day must never push over a limit sized for people.
   */
  perAddress(notificationPaths: readonly string[] = []): RequestHandler {
    const probes = new Set([...UNLIMITED_PATHS].map(normalisedPath));
    const notifications = new Set(notificationPaths.map(normalisedPath));
    return (req, _res, next) => {
      const path = normalisedPath(req.path);
      // Only the gateway's POSTs are its own; anything else at those paths is an ordinary client's.
      const notification = req.method === 'POST' && notifications.has(path);
      if (notification) this.refuseLargeForgeries(req);
      else if (this.addresses && !probes.has(path)) {
        const wait = this.addresses.take(clientAddress(req));
        if (wait > 0) throw tooMany('rate_limited', 'Too many requests from this address.', wait);
      }
      next();
    };
  }

  /**
   * Before a notification's body is read: from an address that has spent its forgery budget, a body
   * larger than any real notification (or of undeclared length) is refused unread, so forging in bulk
   * costs payrun a small parse and one HMAC at most.
   */
  private refuseLargeForgeries(req: Request): void {
    const wait = this.forgedNotifications?.wait(clientAddress(req)) ?? 0;
    if (wait === 0) return;
    const declared = Number(req.header('content-length'));
    if (Number.isInteger(declared) && declared <= SMALL_NOTIFICATION_BYTES) return;
    throw tooMany('rate_limited', 'Too many notifications failing verification from this address.', wait);
  }

  /**
   * A failed authentication. Within the address's budget the caller hears 401 (the caller throws it);
   * past it, 429 with the wait. Only failures are refused: a valid key from the same address is never
   * held back by someone else's wrong keys (one proxy, many clients).
   */
  refuseAuthFailure(req: Request): void {
    const wait = this.authFailures?.take(clientAddress(req)) ?? 0;
    if (wait > 0) {
      throw tooMany('too_many_auth_failures', 'Too many failed authentications from this address.', wait);
    }
  }

  perKey(keyId: string): void {
    const wait = this.keys?.take(keyId) ?? 0;
    if (wait > 0) throw tooMany('rate_limited', 'Too many requests with this API key.', wait);
  }

  /** A notification whose signature verified: counted against its own, generous budget only. */
  signedNotification(req: Request): void {
    const wait = this.signedNotifications?.take(clientAddress(req)) ?? 0;
    if (wait > 0) throw tooMany('rate_limited', 'Too many notifications from this address.', wait);
  }

  /** A notification that failed verification: past the budget it is answered 429 instead of 400. */
  forgedNotification(req: Request): void {
    const wait = this.forgedNotifications?.take(clientAddress(req)) ?? 0;
    if (wait > 0) {
      throw tooMany('rate_limited', 'Too many notifications failing verification from this address.', wait);
    }
  }
}
