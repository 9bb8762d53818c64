/** The query of every list endpoint: status, days (GMT+7), id search, and a page. */
import { z } from 'zod';
import { calendarDay } from './dates';

const day = calendarDay('a real calendar day');

export const listQueryFields = {
  status: z.string().max(40).optional(),
  from: day.optional(),
  to: day.optional(),
  q: z.string().min(1).max(100).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
};

export const listQuery = z.object(listQueryFields);
