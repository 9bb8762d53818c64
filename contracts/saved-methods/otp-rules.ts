/**
 * Document 2's securityCode rules, enforced by payrun before the gateway is asked. Pure: no clock, no
 * I/O — callers pass `now` (workflow time inside workflows, the wall clock in the API). Days are
 * Asia/Ho_Chi_Minh days (UTC+7, no daylight saving).
 */

import { OTP_LIMITS } from '../../gateway/limits';

/** The limits themselves are gateway facts (gateway/limits.ts); this module applies them. */
export const OTP_RULES = OTP_LIMITS;

const DAY_MS = 86_400_000;
const UTC_OFFSET_MS = 7 * 3_600_000;

/** The Asia/Ho_Chi_Minh day number of an instant. */
export const dayOf = (ms: number): number => Math.floor((ms + UTC_OFFSET_MS) / DAY_MS);
/** The first instant of the next Asia/Ho_Chi_Minh day. */
export const nextDayStart = (ms: number): number => (dayOf(ms) + 1) * DAY_MS - UTC_OFFSET_MS;

export type OtpAttemptKind = 'sms' | 'verify';
export type OtpAttemptOutcome =
  'sent' | 'accepted' | 'wrong' | 'expired' | 'locked' | 'too_soon' | 'sms_limit' | 'error';

/** One recorded attempt of a user (never the code itself). */
export interface OtpAttempt {
  at: number;
  kind: OtpAttemptKind;
  outcome: OtpAttemptOutcome;
}

export type OtpRefusal =
  | { reason: 'otp_too_soon'; retryAfterMs: number }
  | { reason: 'otp_expired'; expiredAt: number }
  | { reason: 'otp_locked'; until: number }
  | { reason: 'otp_sms_limit'; until: number };

export const smsToday = (attempts: readonly OtpAttempt[], now: number): number =>
  attempts.filter((a) => a.kind === 'sms' && a.outcome === 'sent' && dayOf(a.at) === dayOf(now)).length;

/** Wrong codes the user may still send today (0: locked). A right code resets the count (document 2 round). */
export function attemptsLeft(attempts: readonly OtpAttempt[], now: number): number {
  const today = attempts.filter((a) => a.kind === 'verify' && dayOf(a.at) === dayOf(now));
  const lastAccepted = today.map((a) => a.outcome).lastIndexOf('accepted');
  // The gateway answers the 5th wrong code with 8203 (locked): it counts as wrong too.
  const wrong = today
    .slice(lastAccepted + 1)
    .filter((a) => a.outcome === 'wrong' || a.outcome === 'locked').length;
  return Math.max(0, OTP_RULES.maxWrongPerDay - wrong);
}

export const isLocked = (attempts: readonly OtpAttempt[], now: number): boolean =>
  attemptsLeft(attempts, now) === 0;

/**
 * May the user submit a code now? `sentAt`: when the 8200 answer arrived; `lastRequestAt`: the user's
 * previous send or confirmation. Locked first (nothing else matters), then expiry, then spacing.
 */
export function checkSubmission(input: {
  sentAt: number;
  lastRequestAt: number;
  attempts: readonly OtpAttempt[];
  now: number;
}): OtpRefusal | undefined {
  const { sentAt, lastRequestAt, attempts, now } = input;
  if (isLocked(attempts, now)) return { reason: 'otp_locked', until: nextDayStart(now) };
  const expiredAt = sentAt + OTP_RULES.codeLifetimeMs;
  if (now >= expiredAt) return { reason: 'otp_expired', expiredAt };
  const since = now - lastRequestAt;
  if (since < OTP_RULES.minSpacingMs)
    return { reason: 'otp_too_soon', retryAfterMs: OTP_RULES.minSpacingMs - since };
  return undefined;
}

/** May a payment that could send a new code (wallet flow) start now? Locked users and the 5-SMS limit. */
export function checkNewCode(attempts: readonly OtpAttempt[], now: number): OtpRefusal | undefined {
  if (isLocked(attempts, now)) return { reason: 'otp_locked', until: nextDayStart(now) };
  if (smsToday(attempts, now) >= OTP_RULES.maxSmsPerDay)
    return { reason: 'otp_sms_limit', until: nextDayStart(now) };
  return undefined;
}

/** Words for a refusal, the same in the workflow's failure and the API's error. */
export function refusalMessage(refusal: OtpRefusal): string {
  switch (refusal.reason) {
    case 'otp_too_soon':
      return `Codes must be at least 3 seconds apart; try again in ${Math.ceil(refusal.retryAfterMs / 1000)} s.`;
    case 'otp_expired':
      return 'The code is older than 5 minutes; start a new payment to receive a new code.';
    case 'otp_locked':
      return `Five wrong codes today: this customer is locked until ${new Date(refusal.until).toISOString()}.`;
    case 'otp_sms_limit':
      return `This customer already received 5 codes today; try again after ${new Date(refusal.until).toISOString()}.`;
  }
}
