/**
 * Days as the API takes them (YYYY-MM-DD), with the rule stated twice in one place: the check, and the
 * pattern the OpenAPI document shows. A fuzzer reading only `\d{4}-\d{2}-\d{2}` sends 0000-00-00 or
 * 2026-02-30 as valid; from this pattern it sends only days the check takes.
 */
import { z } from 'zod';
import { isCalendarDate } from '../../contracts/subscriptions';

/** Years 0100–9999: Date.UTC reads 0–99 as 1900–1999, so the check refuses them. */
export const YEAR = '(?:0[1-9]|[1-9][0-9])[0-9][0-9]';
/** Divisible by 4, and by 400 when by 100. */
export const LEAP_YEAR =
  '(?:(?:0[1-9]|[1-9][0-9])(?:0[48]|[2468][048]|[13579][26])|(?:0[48]|[2468][048]|[13579][26])00)';
const MONTH_DAY =
  '(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)|02-(?:0[1-9]|1[0-9]|2[0-8]))';
export const CALENDAR_DAY_PATTERN = `^(?:${YEAR}-${MONTH_DAY}|${LEAP_YEAR}-02-29)$`;

/** A real day written YYYY-MM-DD, years 0100–9999; `message` says what it is for. */
export const calendarDay = (message: string) =>
  z.string().refine(isCalendarDate, message).meta({ format: 'date', pattern: CALENDAR_DAY_PATTERN });
