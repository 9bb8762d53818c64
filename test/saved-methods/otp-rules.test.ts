import { describe, expect, it } from 'vitest';
import {
  attemptsLeft,
  checkNewCode,
  checkSubmission,
  dayOf,
  nextDayStart,
  type OtpAttempt,
} from '../../contracts/saved-methods';

// 2026-11-22 10:00 in Ho Chi Minh City (03:00 UTC).
const T = Date.UTC(2026, 10, 22, 3, 0, 0);
const wrong = (at: number): OtpAttempt => ({ at, kind: 'verify', outcome: 'wrong' });
const sms = (at: number): OtpAttempt => ({ at, kind: 'sms', outcome: 'sent' });

describe('OTP rules (document 2)', () => {
  it('uses Asia/Ho_Chi_Minh days', () => {
    expect(dayOf(Date.UTC(2026, 10, 22, 16, 59, 59))).toBe(dayOf(T));
    expect(dayOf(Date.UTC(2026, 10, 22, 17, 0, 0))).toBe(dayOf(T) + 1);
    expect(new Date(nextDayStart(T)).toISOString()).toBe('2026-11-22T17:00:00.000Z');
  });

  it('accepts a code 3 s after the send and within 5 minutes', () => {
    expect(checkSubmission({ sentAt: T, lastRequestAt: T, attempts: [], now: T + 3000 })).toBeUndefined();
  });

  it('refuses requests closer than 3 s', () => {
    expect(checkSubmission({ sentAt: T, lastRequestAt: T + 1000, attempts: [], now: T + 2500 })).toEqual({
      reason: 'otp_too_soon',
      retryAfterMs: 1500,
    });
  });

  it('refuses a code older than 5 minutes', () => {
    expect(checkSubmission({ sentAt: T, lastRequestAt: T, attempts: [], now: T + 300_000 })).toMatchObject({
      reason: 'otp_expired',
    });
  });

  it('locks after 5 wrong codes until the next day; a right code resets the round', () => {
    const four = [1, 2, 3, 4].map((i) => wrong(T + i * 4000));
    expect(attemptsLeft(four, T + 20_000)).toBe(1);
    const five = [...four, wrong(T + 20_000)];
    expect(checkSubmission({ sentAt: T, lastRequestAt: T, attempts: five, now: T + 30_000 })).toEqual({
      reason: 'otp_locked',
      until: nextDayStart(T),
    });
    expect(checkNewCode(five, T + 30_000)).toMatchObject({ reason: 'otp_locked' });
    expect(checkNewCode(five, nextDayStart(T))).toBeUndefined();
    const reset = [
      ...four,
      { at: T + 21_000, kind: 'verify' as const, outcome: 'accepted' as const },
      wrong(T + 25_000),
    ];
    expect(attemptsLeft(reset, T + 30_000)).toBe(4);
  });

  it('allows at most 5 codes (SMS) a day', () => {
    const fiveSms = [0, 1, 2, 3, 4].map((i) => sms(T + i * 60_000));
    expect(checkNewCode(fiveSms.slice(0, 4), T + 600_000)).toBeUndefined();
    expect(checkNewCode(fiveSms, T + 600_000)).toMatchObject({ reason: 'otp_sms_limit' });
    expect(checkNewCode(fiveSms, nextDayStart(T) + 1)).toBeUndefined();
  });
});
