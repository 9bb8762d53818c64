import { dayOf } from './calendar';
import { CODE } from './codes';

/**
 * Two-factor confirmation of token payments (document 2, "securityCode rules"): a 6-digit code sent
 * by "SMS" to the sandbox's OTP inbox, valid 5 minutes; at least 3 s between two consecutive requests
 * of a user; 5 wrong confirmations lock the user until the next day (GMT+7); at most 5 SMS per user
 * per day. All measured with the sandbox's clock, so tests move time instead of waiting.
 */
export const OTP_RULES = {
  validityMs: 5 * 60 * 1000,
  minSpacingMs: 3000,
  maxWrongConfirmations: 5,
  dailySmsLimit: 5,
} as const;

export interface OtpMessage {
  partnerClientId: string;
  orderId: string;
  code: string;
  sentAt: string;
  expiresAt: string;
}

interface Challenge {
  user: string;
  partnerClientId: string;
  orderId: string;
  code: string;
  sentAt: number;
  confirmed: boolean;
}

interface UserCounters {
  day: string;
  smsSent: number;
  wrong: number;
  locked: boolean;
  lastRequestAt?: number;
}

export type OtpSend = { ok: true; code: string } | { ok: false; resultCode: number; message: string };
export type OtpCheck = { resultCode: number; message: string };

export interface OtpDesk {
  /** A token payment needs a code: refuse (8203/8204/8205) or send one. */
  send(user: string, partnerClientId: string, orderId: string, code: string): OtpSend;
  /** tokenization/verify; 0 means the code is right and the payment may proceed. */
  verify(orderId: string, securityCode: string): OtpCheck;
  hasChallenge(orderId: string): boolean;
  inbox(partnerClientId?: string): OtpMessage[];
}

export function createOtpDesk(now: () => number): OtpDesk {
  const challenges = new Map<string, Challenge>();
  const users = new Map<string, UserCounters>();
  const sent: Challenge[] = [];

  function countersOf(user: string): UserCounters {
    const today = dayOf(now());
    const existing = users.get(user);
    if (existing && existing.day === today) return existing;
    // A new day lifts the lock and restarts the SMS and wrong-code counts.
    const fresh: UserCounters = { day: today, smsSent: 0, wrong: 0, locked: false };
    if (existing?.lastRequestAt !== undefined) fresh.lastRequestAt = existing.lastRequestAt;
    users.set(user, fresh);
    return fresh;
  }

  /** Lock and spacing apply to sends and confirmations alike. */
  function gate(counters: UserCounters): OtpCheck | undefined {
    if (counters.locked)
      return refusal(
        CODE.securityCodeLocked,
        'Security code locked after 5 wrong confirmations until tomorrow',
      );
    if (counters.lastRequestAt !== undefined && now() - counters.lastRequestAt < OTP_RULES.minSpacingMs)
      return refusal(
        CODE.securityCodeTooFrequent,
        'Wait at least 3 seconds between two security-code requests',
      );
    return undefined;
  }

  return {
    send(user, partnerClientId, orderId, code) {
      const counters = countersOf(user);
      const refused = gate(counters);
      if (refused) return { ok: false, ...refused };
      if (counters.smsSent >= OTP_RULES.dailySmsLimit)
        return {
          ok: false,
          ...refusal(
            CODE.securityCodeDailyLimit,
            `At most ${OTP_RULES.dailySmsLimit} security-code SMS per user per day`,
          ),
        };
      counters.smsSent += 1;
      counters.lastRequestAt = now();
      const challenge: Challenge = { user, partnerClientId, orderId, code, sentAt: now(), confirmed: false };
      challenges.set(orderId, challenge);
      sent.push(challenge);
      return { ok: true, code };
    },
    verify(orderId, securityCode) {
      const challenge = challenges.get(orderId);
      if (!challenge) return refusal(CODE.invalidOrder, `no security code was sent for orderId ${orderId}`);
      if (challenge.confirmed)
        return refusal(CODE.duplicateOrderId, `orderId ${orderId} was already confirmed`);
      const counters = countersOf(challenge.user);
      const refused = gate(counters);
      if (refused) return refused;
      counters.lastRequestAt = now();
      if (now() - challenge.sentAt >= OTP_RULES.validityMs)
        return refusal(CODE.securityCodeExpired, 'Security code expired (valid 5 minutes)');
      if (securityCode !== challenge.code) {
        counters.wrong += 1;
        if (counters.wrong >= OTP_RULES.maxWrongConfirmations) {
          counters.locked = true;
          return refusal(CODE.securityCodeLocked, '5 wrong security codes: locked until tomorrow');
        }
        return refusal(
          CODE.wrongSecurityCode,
          `Wrong security code (${OTP_RULES.maxWrongConfirmations - counters.wrong} attempts left today)`,
        );
      }
      counters.wrong = 0;
      challenge.confirmed = true;
      return { resultCode: CODE.success, message: 'Security code confirmed' };
    },
    hasChallenge: (orderId) => challenges.has(orderId),
    inbox: (partnerClientId) =>
      sent
        .filter((c) => partnerClientId === undefined || c.partnerClientId === partnerClientId)
        .map((c) => ({
          partnerClientId: c.partnerClientId,
          orderId: c.orderId,
          code: c.code,
          sentAt: new Date(c.sentAt).toISOString(),
          expiresAt: new Date(c.sentAt + OTP_RULES.validityMs).toISOString(),
        })),
  };
}

function refusal(resultCode: number, message: string): OtpCheck {
  return { resultCode, message };
}
