/** The query of every list endpoint: status, days (GMT+7), id search, and a page. */
import { z } from 'zod';

const day = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'a day as YYYY-MM-DD')
  .refine((value) => {
    // Date.parse takes 2026-02-30 for 2 March: compare the day back instead.
    const date = new Date(`${value}T00:00:00Z`);
    return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
  }, 'a real calendar day');

export const listQueryFields = {
  status: z.string().max(40).optional(),
  from: day.optional(),
  to: day.optional(),
  q: z.string().min(1).max(100).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
};

export const listQuery = z.object(listQueryFields);
