/**
 * Period reports (JSON, CSV, XLSX) and the per-day figures the console's charts draw. Readers only:
 * every role may read a report, and receivers and customers are masked per role as in every list.
 */
import { z } from 'zod';
import {
  MAX_PERIOD_DAYS,
  PERIOD_KINDS,
  gmt7Day,
  periodDays,
  periodFrom,
  periodOf,
  type Period,
} from '../../contracts/reports';
import type { Db } from '../../db/shared/knex';
import { AUDIT_READERS } from '../audit/readers';
import { ROLES, type Role } from '../auth/roles';
import { calendarDay } from '../http/dates';
import { beyondSchema } from '../http/errors';
import { defineRoute, type AnyRoute } from '../http/routes';
import { movementsCsv, movementsXlsx } from './exports';
import { evidencePack } from './evidence';
import { dailyFigures, movementsIn, periodReport } from './reports';

const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const day = calendarDay('a real calendar day, YYYY-MM-DD (GMT+7)');

type SpanFields = { from?: string; to?: string };

/** `to` not before `from`, and at most MAX_PERIOD_DAYS days: rules the document cannot state (422). */
function checkSpan(query: SpanFields, context: z.core.$RefinementCtx<SpanFields>): void {
  if (query.from === undefined || query.to === undefined) return;
  if (query.to < query.from)
    context.addIssue({
      code: 'custom',
      path: ['to'],
      message: 'must not be before from',
      params: beyondSchema('to_after_from'),
    });
  else if (periodDays(query.from, query.to) > MAX_PERIOD_DAYS)
    context.addIssue({
      code: 'custom',
      path: ['to'],
      message: `a period spans at most ${MAX_PERIOD_DAYS} days`,
      params: beyondSchema('max_period_days'),
    });
}

const periodQuery = z
  .object({
    period: z.enum(PERIOD_KINDS),
    /** day, week, month: the day the period contains; today (GMT+7) when omitted. */
    date: day.optional(),
    /** custom: first and last day; each defaults to the other, and both to today. */
    from: day.optional(),
    to: day.optional(),
  })
  .superRefine((query, context) => {
    const custom = query.period === 'custom';
    for (const field of custom ? (['date'] as const) : (['from', 'to'] as const))
      if (query[field] !== undefined)
        context.addIssue({
          code: 'custom',
          path: [field],
          message: custom
            ? 'date applies to day, week and month; a custom period takes from and to'
            : 'from and to apply to period=custom',
          params: beyondSchema('not_for_this_period'),
        });
    checkSpan(query, context);
  });

type PeriodQuery = z.infer<typeof periodQuery>;

function periodOfQuery(query: PeriodQuery, now = new Date()): Period {
  const today = gmt7Day(now);
  if (query.period !== 'custom') return periodOf(query.period, query.date ?? today);
  const from = query.from ?? query.to ?? today;
  return periodFrom('custom', from, query.to ?? from);
}

const dailyQuery = z
  .object({ from: day, to: day })
  .superRefine((query, context) => checkSpan(query, context));

const attachment = (period: Period, extension: string) =>
  `attachment; filename="movements-${period.from}-${period.to}.${extension}"`;

const PERIOD_HELP =
  'period=day|week|month with date=YYYY-MM-DD (default today), or period=custom with from/to (at most 366 days); days are GMT+7, weeks start on Monday.';

/** Who may take a run's evidence: the duty that approves runs, and those who may read the audit log. */
const EVIDENCE_READERS: readonly Role[] = ['payouts-approver', ...AUDIT_READERS];

export function reportRoutes(db: Db): AnyRoute[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/reports/movements',
      summary: `Every money movement of every kind made in a period, with totals per kind and outcome and a reconciliation against the gateway's batch totals. ${PERIOD_HELP}`,
      tag: 'reports',
      access: { roles: ROLES },
      query: periodQuery,
      handler: async ({ query, principal }) => ({
        body: await periodReport(db, periodOfQuery(query), principal),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/reports/movements.csv',
      summary: `The period report's movements as CSV (UTF-8 with a BOM), the same rows as the JSON. ${PERIOD_HELP}`,
      tag: 'reports',
      access: { roles: ROLES },
      query: periodQuery,
      produces: { types: ['text/csv'] },
      handler: async ({ query, principal }) => {
        const period = periodOfQuery(query);
        return {
          body: movementsCsv(await movementsIn(db, period, principal)),
          contentType: 'text/csv; charset=utf-8',
          headers: { 'content-disposition': attachment(period, 'csv') },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/reports/movements.xlsx',
      summary: `The period report as an .xlsx workbook: the movements (the same rows as the CSV) and a totals sheet. ${PERIOD_HELP}`,
      tag: 'reports',
      access: { roles: ROLES },
      query: periodQuery,
      produces: { types: [XLSX_TYPE] },
      handler: async ({ query, principal }) => {
        const period = periodOfQuery(query);
        const report = await periodReport(db, period, principal);
        return {
          body: await movementsXlsx(report.movements, report.totals, period),
          contentType: XLSX_TYPE,
          headers: { 'content-disposition': attachment(period, 'xlsx') },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/reports/daily',
      summary:
        'Per GMT+7 day from..to (at most 366 days) and per kind: movements made, amount, succeeded and failed; the success rate per day; failures grouped by result code with the class payrun gives each code. What the console charts draw.',
      tag: 'reports',
      access: { roles: ROLES },
      query: dailyQuery,
      handler: async ({ query, principal }) => {
        const period = periodFrom('custom', query.from, query.to);
        return { body: dailyFigures(period, await movementsIn(db, period, principal)) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/payout-runs/:runId/evidence.zip',
      summary:
        "A payout run's evidence pack (zip): the file's SHA-256, uploader and approvers, every item with its orderId and requestIds, the gateway's signed notifications as received with their signed field lists, the reconciliation, the workflow ids, the audit entries, SHA256SUMS, and README.txt with verify.mjs (Node, no dependencies) that rechecks hashes, totals and, given the merchant's keys, signatures. Each download is recorded in the audit log.",
      tag: 'payouts',
      access: { roles: EVIDENCE_READERS },
      audit: { action: 'payout_run.evidence', target: 'payout_run' },
      params: z.object({
        runId: z.string().regex(/^run-\d{8}-[0-9a-f]{6}$/, 'a run id like run-20261122-a1b2c3'),
      }),
      produces: { types: ['application/zip'] },
      handler: async ({ params, principal }) => ({
        body: await evidencePack(db, params.runId, principal),
        contentType: 'application/zip',
        headers: { 'content-disposition': `attachment; filename="evidence-${params.runId}.zip"` },
      }),
    }),
  ];
}
