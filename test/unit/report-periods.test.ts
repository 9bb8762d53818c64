/** Report periods are whole GMT+7 days: a Hanoi finance team's day, week (from Monday) and month. */
import { describe, expect, it } from 'vitest';
import { gmt7Day, periodFrom, periodOf } from '../../contracts/reports';

describe('report periods', () => {
  it('starts a day at midnight in Hanoi, 17:00 UTC the day before', () => {
    const day = periodOf('day', '2026-11-26');
    expect(day.startsAt.toISOString()).toBe('2026-11-25T17:00:00.000Z');
    expect(day.endsAt.toISOString()).toBe('2026-11-26T17:00:00.000Z');
    expect(gmt7Day(new Date('2026-11-25T16:59:59.999Z'))).toBe('2026-11-25');
    expect(gmt7Day(new Date('2026-11-25T17:00:00.000Z'))).toBe('2026-11-26');
  });

  it('runs a week from Monday to Sunday, whichever day it is asked for', () => {
    for (const date of ['2026-11-23', '2026-11-26', '2026-11-29'])
      expect(periodOf('week', date)).toMatchObject({ from: '2026-11-23', to: '2026-11-29' });
    expect(periodOf('week', '2027-01-01')).toMatchObject({ from: '2026-12-28', to: '2027-01-03' });
  });

  it('takes calendar months, leap Februaries included, and custom days as given', () => {
    expect(periodOf('month', '2028-02-10')).toMatchObject({ from: '2028-02-01', to: '2028-02-29' });
    expect(periodOf('month', '2026-12-31')).toMatchObject({ from: '2026-12-01', to: '2026-12-31' });
    const custom = periodFrom('custom', '2026-11-01', '2026-11-03');
    expect(custom.endsAt.getTime() - custom.startsAt.getTime()).toBe(3 * 86_400_000);
  });
});
