/**
 * One backoff formula (contracts/shared/backoff.ts): the workflows' ask loop waits by it and the gateway
 * profile hands its numbers to Temporal. The ask loop's timers are in stored histories, so the formula
 * must give the waits the loop gave before it existed: the first as given, then each the one before
 * times the growth, capped.
 */
import { describe, expect, it } from 'vitest';
import { backoffMs, durationMs, GATEWAY_RETRY_BACKOFF, type Backoff } from '../../contracts/shared';
import { gatewayCalls } from '../../workflows/shared/activity-profiles';

/** The ask loop's waits as it computed them before (workflows/shared/wait-or-ask.ts, by multiplication). */
function waitsBefore(backoff: Backoff, count: number): number[] {
  const max = backoff.max === undefined ? Infinity : durationMs(backoff.max);
  const waits = [durationMs(backoff.first)];
  while (waits.length < count) waits.push(Math.min(waits.at(-1)! * backoff.growth, max));
  return waits;
}

const waits = (backoff: Backoff, count: number) =>
  Array.from({ length: count }, (_, index) => backoffMs(backoff, index + 1));

describe('backoffMs', () => {
  it("a payout batch's asks: 2 minutes, doubling, never more than 30 minutes apart", () => {
    expect(waits({ first: '2 minutes', growth: 2, max: '30 minutes' }, 6).map((ms) => ms / 60_000)).toEqual([
      2, 4, 8, 16, 30, 30,
    ]);
  });

  it('a steady rhythm without growth, and a first wait longer than the cap kept as it is', () => {
    expect(waits({ first: '6 hours', growth: 1 }, 3)).toEqual(Array(3).fill(6 * 3_600_000));
    expect(waits({ first: '1 day', growth: 2, max: '1 hour' }, 3)).toEqual([
      86_400_000, 3_600_000, 3_600_000,
    ]);
  });

  it.each<Backoff>([
    { first: '2 minutes', growth: 2, max: '30 minutes' },
    { first: '1 minute', growth: 2, max: '1 hour' },
    { first: '1 day', growth: 2, max: '1 hour' },
    { first: '10 seconds', growth: 2, max: '30 minutes' },
    { first: '2 minutes', growth: 2 },
    { first: '5 seconds', growth: 1 },
    { first: 1_500, growth: 2, max: 2_000 },
  ])('gives the waits the ask loop gave before: %o', (backoff) => {
    expect(waits(backoff, 40)).toEqual(waitsBefore(backoff, 40));
  });

  it('is the gateway profile Temporal retries by: 2 s, doubling, at most 5 minutes', () => {
    expect(gatewayCalls('1 minute').retry).toEqual({
      initialInterval: GATEWAY_RETRY_BACKOFF.first,
      backoffCoefficient: GATEWAY_RETRY_BACKOFF.growth,
      maximumInterval: GATEWAY_RETRY_BACKOFF.max,
    });
    expect(waits(GATEWAY_RETRY_BACKOFF, 10).map((ms) => ms / 1000)).toEqual([
      2, 4, 8, 16, 32, 64, 128, 256, 300, 300,
    ]);
  });
});
