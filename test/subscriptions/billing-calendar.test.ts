import { describe, expect, it } from 'vitest';
import {
  addMonths,
  cycleDate,
  dayOfGmt7,
  firstCycleOnOrAfter,
  gatewayNextPaymentDate,
  instantOf,
  isCalendarDate,
  periodsAfter,
  type Frequency,
} from '../../contracts/subscriptions';

const dates = (anchorDate: string, frequency: Frequency, count: number) =>
  Array.from({ length: count }, (_, n) => periodsAfter(anchorDate, frequency, n));

describe('billing calendar', () => {
  it('MONTHLY from Jan 31 clamps to month ends and comes back to the 31st (leap and common years)', () => {
    expect(dates('2028-01-31', 'MONTHLY', 13)).toEqual([
      '2028-01-31',
      '2028-02-29',
      '2028-03-31',
      '2028-04-30',
      '2028-05-31',
      '2028-06-30',
      '2028-07-31',
      '2028-08-31',
      '2028-09-30',
      '2028-10-31',
      '2028-11-30',
      '2028-12-31',
      '2029-01-31',
    ]);
    expect(dates('2027-01-31', 'MONTHLY', 3)).toEqual(['2027-01-31', '2027-02-28', '2027-03-31']);
  });

  it('gives each frequency its next dates, from the anchor', () => {
    expect(dates('2027-12-30', 'DAILY', 4)).toEqual(['2027-12-30', '2027-12-31', '2028-01-01', '2028-01-02']);
    expect(dates('2028-02-22', 'WEEKLY', 3)).toEqual(['2028-02-22', '2028-02-29', '2028-03-07']);
    expect(dates('2027-12-20', 'BI_WEEKLY', 3)).toEqual(['2027-12-20', '2028-01-03', '2028-01-17']);
    expect(dates('2027-12-31', 'BI_MONTHLY', 4)).toEqual([
      '2027-12-31',
      '2028-02-29',
      '2028-04-30',
      '2028-06-30',
    ]);
    expect(dates('2027-11-30', 'QUARTERLY', 4)).toEqual([
      '2027-11-30',
      '2028-02-29',
      '2028-05-30',
      '2028-08-30',
    ]);
    expect(dates('2027-08-31', 'SEMI_ANNUALLY', 4)).toEqual([
      '2027-08-31',
      '2028-02-29',
      '2028-08-31',
      '2029-02-28',
    ]);
  });

  it('leap days: Feb 29 anchors fall back to Feb 28 in common years and return to the 29th', () => {
    expect(addMonths('2028-02-29', 12)).toBe('2029-02-28');
    expect(addMonths('2028-02-29', 48)).toBe('2032-02-29');
  });

  it('numbers cycles from the anchor cycle', () => {
    const anchor = { anchorDate: '2028-01-31', anchorCycle: 1, frequency: 'MONTHLY' as const };
    expect(cycleDate(anchor, 1)).toBe('2028-01-31');
    expect(cycleDate(anchor, 3)).toBe('2028-03-31');
    expect(firstCycleOnOrAfter(anchor, 2, '2028-05-01')).toBe(5);
    expect(cycleDate({ ...anchor, anchorCycle: 0 }, 1)).toBe('2028-02-29');
  });

  it('knows which nextPaymentDate the gateway keeps (ours within 2 days of its calculation)', () => {
    expect(gatewayNextPaymentDate('2028-01-31', 'MONTHLY', '2028-02-29')).toBe('2028-02-29');
    expect(gatewayNextPaymentDate('2027-02-28', 'MONTHLY', '2027-03-31')).toBe('2027-03-28');
    expect(gatewayNextPaymentDate('2028-02-29', 'MONTHLY', '2028-03-31')).toBe('2028-03-31');
  });

  it('works in Vietnam days (GMT+7)', () => {
    expect(dayOfGmt7(Date.parse('2028-01-30T17:00:00Z'))).toBe('2028-01-31');
    expect(new Date(instantOf('2028-01-31', 9)).toISOString()).toBe('2028-01-31T02:00:00.000Z');
    expect(isCalendarDate('2027-02-29')).toBe(false);
    expect(isCalendarDate('2028-02-29')).toBe(true);
  });
});
